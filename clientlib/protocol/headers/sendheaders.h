#pragma once

// SEND_MESSAGE (10) / SEND_MESSAGE_V2 (310) / SEND_BATCH_MESSAGE (320) / SEND_REPLY_MESSAGE(_V2)
// headers (protocol.md §4.1). V1 uses the Java field names, V2 one-letter keys:
//
//   a producerGroup!  b topic!  c defaultTopic!  d defaultTopicQueueNums!  e queueId!  f sysFlag!
//   g bornTimestamp!  h flag!   i properties?    j reconsumeTimes?         k unitMode?
//   l maxReconsumeTimes?        m batch?         n bname (broker name, 4.9.x; informational)
//
// decode()/encode() pick the form from the command's code (V2 for 310, 320 and 325); the batch
// flag `m` (not the code) says whether the body is a batch (§5.7).
//
// One decoder serves the client, the tools and the broker's send path: it reads the ext fields
// in one pass and copies no bytes (the strings share the request's), so a send costs no
// allocation to decode. decode() refuses what Java's header decoder refuses; decodeSend() is the
// broker's reading of the same fields (RocketMQ's remark wording, optional numbers tolerated).

#include "clientlib/protocol/headers/headercodec.h"

namespace qrocket::protocol {

struct SendMessageRequestHeader
{
    QByteArray producerGroup;
    QByteArray topic;
    QByteArray defaultTopic;
    std::int32_t defaultTopicQueueNums = 0;
    std::int32_t queueId = 0;
    std::int32_t sysFlag = 0;
    std::int64_t bornTimestamp = 0;
    std::int32_t flag = 0;
    QByteArray properties; // null = absent
    std::optional<std::int32_t> reconsumeTimes;
    bool unitMode = false;
    std::optional<std::int32_t> maxReconsumeTimes;
    bool batch = false;
    QByteArray brokerName; // "bname" / "n"; null = absent

    friend bool operator==(const SendMessageRequestHeader &, const SendMessageRequestHeader &)
        = default;
    /// true for the codes whose header uses the one-letter V2 keys.
    static bool usesV2(int code);

    static Result<SendMessageRequestHeader> decode(const RemotingCommand &cmd);
    static Result<SendMessageRequestHeader> decodeV1(const RemotingCommand &cmd);
    static Result<SendMessageRequestHeader> decodeV2(const RemotingCommand &cmd);
    /// The broker's send path: the header, or nullopt with `remark` set to the SYSTEM_ERROR
    /// remark RocketMQ's broker answers ("the custom field <b> is null" for the first missing
    /// required field, checked before any number). An optional number that does not parse reads
    /// as absent instead of refusing the send.
    static std::optional<SendMessageRequestHeader> decodeSend(
        const RemotingCommand &cmd, QByteArray *remark);
    void encode(RemotingCommand &cmd) const;
    void encodeV1(RemotingCommand &cmd) const;
    void encodeV2(RemotingCommand &cmd) const;
};

/// SEND_MESSAGE* response; MSG_REGION and TRACE_ON are written as Java brokers do.
struct SendMessageResponseHeader
{
    QByteArray msgId; // required: offset msgId(s), comma-joined for batches
    std::int32_t queueId = 0;
    std::int64_t queueOffset = 0;
    QByteArray transactionId;
    QByteArray msgRegion; // "MSG_REGION"
    QByteArray traceOn; // "TRACE_ON": "true" / "false"

    friend bool operator==(const SendMessageResponseHeader &, const SendMessageResponseHeader &)
        = default;
    QROCKET_HEADER_CODEC(SendMessageResponseHeader);
};

} // namespace qrocket::protocol
