#pragma once

// RocketMQ 5's POP consumption headers (RequestCode 200050..200056, 200151) and the helpers
// both sides need: the receipt handle (ExtraInfoUtil's "extraInfo", also the POP_CK property),
// the pop response's startOffsetInfo / msgOffsetInfo / orderCountInfo strings, and the POP retry
// topic names (KeyBuilder). Field names, required fields (`// required`, Java @CFNotNull) and
// formats as apache/rocketmq rocketmq-all-5.3.3.
//
// Receipt handle, fields separated by one space:
//   "<ckQueueOffset> <popTime> <invisibleTime> <reviveQid> <retry> <brokerName> <queueId>
//    [<queueOffset>]"
// retry: "0" the topic itself, "1" %RETRY%<group>_<topic>, "2" %RETRY%<group>+<topic>.
// startOffsetInfo: "<retry> <queueId> <startOffset>" joined by ';'.
// msgOffsetInfo:   "<retry> <queueId> <o1>,<o2>,..." joined by ';'.
// orderCountInfo:  "<retry> <queueId> <count>" or "<retry> qo<queueId>%<offset> <count>", ';'.

#include "clientlib/protocol/headers/headercodec.h"

#include <QByteArray>
#include <QByteArrayView>

#include <cstdint>
#include <optional>
#include <vector>

namespace qrocket::protocol {

/// PopMessageRequestHeader.initMode (ConsumeInitMode).
namespace ConsumeInitMode {
inline constexpr int Min = 0;
inline constexpr int Max = 1;
} // namespace ConsumeInitMode

/// POP_MESSAGE request.
struct PopMessageRequestHeader
{
    QByteArray consumerGroup; // required
    QByteArray topic; // required
    std::int32_t queueId = -1; // required; -1: any queue of the topic
    std::int32_t maxMsgNums = 0; // required
    std::int64_t invisibleTime = 0; // required, ms
    std::int64_t pollTime = 0; // required, ms (0: answer at once)
    std::int64_t bornTime = 0; // required
    std::int32_t initMode = 0; // required (ConsumeInitMode)
    QByteArray expType;
    QByteArray exp;
    std::optional<bool> order;
    QByteArray attemptId;

    QROCKET_HEADER_CODEC(PopMessageRequestHeader);
};

/// POP_MESSAGE response; the body is the popped records, as PULL_MESSAGE's.
struct PopMessageResponseHeader
{
    std::int64_t popTime = 0; // required
    std::int64_t invisibleTime = 0; // required
    std::int32_t reviveQid = 0; // required
    std::int64_t restNum = 0; // required
    QByteArray startOffsetInfo;
    QByteArray msgOffsetInfo;
    QByteArray orderCountInfo;

    QROCKET_HEADER_CODEC(PopMessageResponseHeader);
};

/// ACK_MESSAGE request (also the header of BATCH_ACK_MESSAGE, which carries a body instead).
struct AckMessageRequestHeader
{
    QByteArray consumerGroup; // required
    QByteArray topic; // required
    std::int32_t queueId = 0; // required
    QByteArray extraInfo; // required
    std::int64_t offset = 0; // required

    QROCKET_HEADER_CODEC(AckMessageRequestHeader);
};

/// CHANGE_MESSAGE_INVISIBLETIME request.
struct ChangeInvisibleTimeRequestHeader
{
    QByteArray consumerGroup; // required
    QByteArray topic; // required
    std::int32_t queueId = 0; // required
    QByteArray extraInfo; // required
    std::int64_t offset = 0; // required
    std::int64_t invisibleTime = 0; // required

    QROCKET_HEADER_CODEC(ChangeInvisibleTimeRequestHeader);
};

/// CHANGE_MESSAGE_INVISIBLETIME response: the new handle is built from these.
struct ChangeInvisibleTimeResponseHeader
{
    std::int64_t popTime = 0; // required
    std::int64_t invisibleTime = 0; // required
    std::int32_t reviveQid = 0; // required

    QROCKET_HEADER_CODEC(ChangeInvisibleTimeResponseHeader);
};

/// PEEK_MESSAGE request.
struct PeekMessageRequestHeader
{
    QByteArray topic; // required
    std::int32_t queueId = 0; // required
    std::int32_t maxMsgNums = 0; // required
    QByteArray consumerGroup; // required

    QROCKET_HEADER_CODEC(PeekMessageRequestHeader);
};

/// NOTIFICATION request.
struct NotificationRequestHeader
{
    QByteArray consumerGroup; // required
    QByteArray topic; // required
    std::int32_t queueId = -1; // required
    std::int64_t pollTime = 0; // required
    std::int64_t bornTime = 0; // required
    std::optional<bool> order;
    QByteArray attemptId;

    QROCKET_HEADER_CODEC(NotificationRequestHeader);
};

struct NotificationResponseHeader
{
    bool hasMsg = false; // required
    bool pollingFull = false;

    QROCKET_HEADER_CODEC(NotificationResponseHeader);
};

/// POLLING_INFO request.
struct PollingInfoRequestHeader
{
    QByteArray consumerGroup; // required
    QByteArray topic; // required
    std::int32_t queueId = -1; // required

    QROCKET_HEADER_CODEC(PollingInfoRequestHeader);
};

struct PollingInfoResponseHeader
{
    std::int32_t pollingNum = 0; // required

    QROCKET_HEADER_CODEC(PollingInfoResponseHeader);
};

/// GET_TOPIC_CONFIG (351) request.
struct GetTopicConfigRequestHeader
{
    QByteArray topic; // required
    std::optional<bool> lo;

    QROCKET_HEADER_CODEC(GetTopicConfigRequestHeader);
};

/// GET_SUBSCRIPTIONGROUP_CONFIG (352) request.
struct GetSubscriptionGroupConfigRequestHeader
{
    QByteArray group; // required

    QROCKET_HEADER_CODEC(GetSubscriptionGroupConfigRequestHeader);
};

// --- POP retry topics (KeyBuilder) ------------------------------------------------------

/// "%RETRY%<group>_<topic>": RocketMQ 5.3's default POP retry topic (enableRetryTopicV2=false).
QByteArray popRetryTopicV1(QByteArrayView topic, QByteArrayView group);
/// "%RETRY%<group>+<topic>".
QByteArray popRetryTopicV2(QByteArrayView topic, QByteArrayView group);
/// The receipt handle's retry flag of a topic: '0', '1' (%RETRY%...) or '2' (%RETRY%...+...).
char popRetryFlag(QByteArrayView topic);
/// The topic a retry flag names for (topic, group): the topic itself, or a retry topic.
/// nullopt for a flag other than '0', '1', '2'.
std::optional<QByteArray> popRealTopic(QByteArrayView topic, QByteArrayView group, char retry);

// --- receipt handle -----------------------------------------------------------------------

struct ExtraInfo
{
    std::int64_t ckQueueOffset = 0; // the pop's start offset in the queue
    std::int64_t popTime = 0;
    std::int64_t invisibleTime = 0;
    std::int32_t reviveQid = 0;
    char retry = '0';
    QByteArray brokerName;
    std::int32_t queueId = 0;
    std::int64_t queueOffset = -1; // the message's own offset; -1 when the handle has none

    /// The handle text (with queueOffset when it is >= 0).
    QByteArray toString() const;
    /// Parses a handle; nullopt when it has fewer than 7 fields or a field does not parse.
    static std::optional<ExtraInfo> parse(QByteArrayView text);
};

/// One "<retry> <queueId> <value>" element of startOffsetInfo / orderCountInfo.
struct QueueOffsetInfo
{
    char retry = '0';
    std::int32_t queueId = 0;
    std::int64_t value = 0;
};
/// One element of msgOffsetInfo.
struct QueueMsgOffsets
{
    char retry = '0';
    std::int32_t queueId = 0;
    std::vector<std::int64_t> offsets;
};

void appendStartOffsetInfo(QByteArray &out, char retry, int queueId, std::int64_t startOffset);
void appendMsgOffsetInfo(
    QByteArray &out, char retry, int queueId, const std::vector<std::int64_t> &offsets);
/// The queue form "<retry> <queueId> <count>".
void appendOrderCountInfo(QByteArray &out, char retry, int queueId, int count);
std::optional<std::vector<QueueOffsetInfo>> parseStartOffsetInfo(QByteArrayView text);
std::optional<std::vector<QueueMsgOffsets>> parseMsgOffsetInfo(QByteArrayView text);

} // namespace qrocket::protocol
