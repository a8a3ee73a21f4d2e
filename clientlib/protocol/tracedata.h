#pragma once

// Message trace records in RocketMQ 4.9's text format (the Java client's enableMsgTrace, the
// Dashboard's and mqadmin's queryMsgTraceById reader).
//
// A trace message's body is records back to back; each record is its fields joined by
// kContentSeparator (char 1) and ended by kFieldSeparator (char 2). Field order per type:
//   Pub:            Pub, timestamp, regionId, group, topic, msgId, tags, keys, storeHost,
//                   bodyLength, costTime, msgType, offsetMsgId, success
//   SubBefore:      SubBefore, timestamp, regionId, group, requestId, msgId, retryTimes, keys
//   SubAfter:       SubAfter, requestId, msgId, costTime, success, keys, contextCode,
//                   timestamp, group
//   EndTransaction: EndTransaction, timestamp, regionId, group, topic, msgId, tags, keys,
//                   storeHost, msgType, transactionId, transactionState, fromTransactionCheck
// The reader also takes the older and newer shapes Java takes: Pub without offsetMsgId (13
// fields) or with a clientHost (15), SubAfter without contextCode (6) or without
// timestamp/group (7). A trace message's KEYS are every record's msgId and message keys, so the
// broker's index finds a message's traces by its msgId (QUERY_MESSAGE on the trace topic).
//
// Like Java's StringBuilder, the writer spells an absent tag or key list as "null" (Java's
// reader then sees "null"; with an empty last field it would drop the field and fail).

#include <QByteArray>
#include <QByteArrayView>

#include <cstdint>
#include <vector>

namespace qrocket::protocol::trace {

inline constexpr char kContentSeparator = '\x01';
inline constexpr char kFieldSeparator = '\x02';
/// The trace producer's group prefix (TraceConstants.GROUP_NAME_PREFIX).
inline constexpr char kGroupNamePrefix[] = "_INNER_TRACE_PRODUCER";
/// Java's AsyncTraceDispatcher: at most this many records per trace message, and a message is
/// sent once its body reaches kMaxBatchBytes.
inline constexpr int kMaxBatchRecords = 100;
inline constexpr int kMaxBatchBytes = 128000 - 10000;

enum class TraceType : std::uint8_t { Pub, SubBefore, SubAfter, EndTransaction };
const char *traceTypeName(TraceType type);

/// Java's MessageType, written as its ordinal.
enum class TraceMessageType : std::uint8_t { Normal, TransHalf, TransCommit, Delay };

/// One record: Java's TraceContext with its single TraceBean.
struct TraceRecord
{
    TraceType type = TraceType::Pub;
    std::int64_t timestamp = 0;
    QByteArray regionId;
    QByteArray groupName;
    QByteArray requestId; // SubBefore / SubAfter: pairs them
    int costTime = 0;
    bool success = true;
    int contextCode = 0; // SubAfter: ConsumeReturnType's ordinal
    QByteArray topic;
    QByteArray msgId;
    QByteArray offsetMsgId;
    QByteArray tags;
    QByteArray keys; // space separated, as the KEYS property
    QByteArray storeHost;
    QByteArray clientHost; // only when a record carries one (Pub, 15 fields)
    int bodyLength = 0;
    int retryTimes = 0;
    TraceMessageType msgType = TraceMessageType::Normal;
    QByteArray transactionId;
    QByteArray transactionState; // COMMIT_MESSAGE, ROLLBACK_MESSAGE, UNKNOW
    bool fromTransactionCheck = false;

    friend bool operator==(const TraceRecord &, const TraceRecord &) = default;
};

/// Appends `record` (with its kFieldSeparator) to `out`.
void appendRecord(QByteArray &out, const TraceRecord &record);
QByteArray encodeRecord(const TraceRecord &record);
/// The keys a trace message carrying `record` gets: its msgId and its message keys.
void appendTraceKeys(std::vector<QByteArray> &keys, const TraceRecord &record);

/// Every well-formed record of a trace message body; a malformed one (unknown type, too few
/// fields, a bad number) is skipped and counted in `*malformed` when given.
std::vector<TraceRecord> decodeRecords(QByteArrayView body, int *malformed = nullptr);

} // namespace qrocket::protocol::trace
