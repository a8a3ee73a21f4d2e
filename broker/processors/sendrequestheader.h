#pragma once

// SendRequestHeader: SEND_MESSAGE's header fields from either encoding (protocol.md §4.1): the
// V1 names (code 10) or the one-letter V2 keys (codes 310 and 320). Plain value type.

#include "clientlib/protocol/remotingcommand.h"

#include <QByteArray>

#include <cstdint>
#include <optional>

namespace qrocket::broker {

struct SendRequestHeader
{
    QByteArray producerGroup;
    QByteArray topic;
    QByteArray defaultTopic;
    int defaultTopicQueueNums = 4;
    int queueId = -1;
    std::int32_t sysFlag = 0;
    std::int64_t bornTimestamp = 0;
    std::int32_t flag = 0;
    QByteArray properties;
    int reconsumeTimes = 0;
    bool unitMode = false;
    std::optional<int> maxReconsumeTimes;
    bool batch = false;

    /// The header of a send request, or the remark of a SYSTEM_ERROR naming the first missing or
    /// malformed required field.
    static std::optional<SendRequestHeader> decode(
        const protocol::RemotingCommand &request, QByteArray *error);
};

/// What the send path reads from a producer's properties (the last value of each name, as
/// MessageDecoder's map keeps it).
struct SendProperties
{
    bool waitStoreMsgOk = true; // WAIT absent or not "false"
    bool transactionPrepared = false; // TRAN_MSG "true"
    bool hasDelay = false; // DELAY present
    int delayLevel = 0; // its value, when it parses as an int (else 0)
};

/// Rewrites a send's `props` for the store, exactly as protocol::replaceProperties(props, {WAIT,
/// CLUSTER}, clusterProperty) would (WAIT dropped, `clusterProperty` = "CLUSTER\x01<name>"
/// set), and reads what the send path needs, in one pass over the text (a send used to scan it
/// four times: WAIT, the rewrite, TRAN_MSG, DELAY).
SendProperties prepareSendProperties(QByteArray &props, QByteArrayView clusterProperty);

} // namespace qrocket::broker
