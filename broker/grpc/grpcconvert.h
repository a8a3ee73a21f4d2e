#pragma once

// Conversions between RocketMQ 5's gRPC messages (apache.rocketmq.v2) and the broker's remoting
// forms, with the property names and rules of RocketMQ 5.3's proxy:
//   - a v2 Message to be sent -> SEND_MESSAGE_V2's header properties: user properties (a system
//     name is refused), TAGS, KEYS (space-joined), UNIQ_KEY (message_id), TRAN_MSG, the
//     delivery time as TIMER_DELIVER_MS (the broker's timer), RECONSUME_TIME, PGROUP (the topic,
//     as the proxy does), __SHARDINGKEY (message_group), TRACE_CONTEXT, __BORNHOST,
//     BORN_TIMESTAMP;
//   - a stored record -> a v2 Message (system properties from the record and its properties,
//     the rest as user properties, an MD5 body digest, the receipt handle);
//   - remoting response codes -> v2 status codes.
// Pure functions, thread-safe.

#include "broker/managers/topicattributes.h"
#include "clientlib/protocol/messagecodec.h"

#include <QByteArray>
#include <QByteArrayView>

#include <apache/rocketmq/v2/definition.pb.h>
#include <cstdint>
#include <string>

namespace qrocket::broker::v2 {

namespace pb = ::apache::rocketmq::v2;

inline std::string toStd(QByteArrayView v)
{
    return std::string(v.data(), static_cast<std::size_t>(v.size()));
}
inline QByteArray fromStd(const std::string &s)
{
    return QByteArray(s.data(), static_cast<qsizetype>(s.size()));
}

void setStatus(pb::Status *status, pb::Code code, std::string message);
/// The v2 code of a remoting response code (kTimeoutCode included).
pb::Code codeOfRemoting(int remotingCode);
/// A property name that a user property may not use (RocketMQ's MessageConst system names).
bool isSystemProperty(QByteArrayView name);

/// What a v2 Message becomes for SEND_MESSAGE_V2, or the status that refuses it.
struct SendInput
{
    pb::Code refusal = pb::OK;
    std::string reason;
    QByteArray topic;
    QByteArray properties; // encoded
    QByteArray body;
    int sysFlag = 0;
    std::int64_t bornTimestamp = 0;
    QByteArray messageId; // UNIQ_KEY
    QByteArray messageGroup; // FIFO: the queue is chosen by it
    /// As RocketMQ 5.3's proxy reads it from the converted properties: TRANSACTION (message_type
    /// TRANSACTION), else DELAY (a delivery_timestamp), else FIFO (a message_group), else NORMAL.
    TopicMessageType messageType = TopicMessageType::Normal;
};
/// `peer` is the client's address (the born host when the message has none); `maxBodySize` 0:
/// unchecked.
SendInput sendInputOf(const pb::Message &message, const QByteArray &peer, int maxBodySize);

/// A topic or group the broker answers with, as RocketMQ 5.3's proxy names it (its
/// NamespaceUtil): "ns%T" is resource_namespace "ns", name "T"; a %RETRY% or %DLQ% prefix stays on
/// the name ("%RETRY%ns%G": "ns", "%RETRY%G"); a system topic or CID_RMQ_SYS_ group, and a name
/// without a '%' after its first character, is the name alone (empty namespace).
void setResource(pb::Resource *out, QByteArrayView nameWithNamespace);

/// "a.b.c.d[:port]" or "v6" / "[v6]:port" (RFC 5952).
std::string hostText(const protocol::HostAddress &h, bool withPort);

/// Fills `out` from a stored record (a POP answer's), with `receiptHandle` when not empty; its
/// topic as setResource() names it.
void fillMessage(
    pb::Message *out, const protocol::MessageRecordView &record, const QByteArray &receiptHandle);

/// Milliseconds of a Duration / Timestamp.
std::int64_t millisOf(const google::protobuf::Duration &d);
std::int64_t millisOf(const google::protobuf::Timestamp &t);
void setMillis(google::protobuf::Duration *d, std::int64_t ms);
void setMillis(google::protobuf::Timestamp *t, std::int64_t ms);

} // namespace qrocket::broker::v2
