#pragma once

// RocketMQ 5's POP bodies (fastjson): BATCH_ACK_MESSAGE's BatchAckMessageRequestBody,
// SET_MESSAGE_REQUEST_MODE's SetMessageRequestModeRequestBody, GET_ALL_MESSAGE_REQUEST_MODE's
// {"messageRequestModeMap":{topic:{group:body}}} and QUERY_ASSIGNMENT's request and response.
//
// BatchAck (fastjson short names, long ones accepted too):
//   {"c":group,"t":topic,"r":"0"|"1"|"2","so":startOffset,"q":queueId,"rq":reviveQid,
//    "pt":popTime,"it":invisibleTime,"b":"<base64 of java.util.BitSet.toByteArray()>"}
// bit i of "b" acks the message at startOffset + i.

#include "clientlib/common/result.h"
#include "clientlib/protocol/bodies/clientbodies.h"

#include <QByteArray>
#include <QByteArrayView>

#include <cstdint>
#include <map>
#include <vector>

namespace qrocket::protocol {

struct BatchAck
{
    QByteArray consumerGroup;
    QByteArray topic;
    QByteArray retry = "0";
    std::int64_t startOffset = 0;
    std::int32_t queueId = 0;
    std::int32_t reviveQueueId = 0;
    std::int64_t popTime = 0;
    std::int64_t invisibleTime = 0;
    std::vector<std::int64_t> offsets; // the acked queue offsets (from the bit set)
};

struct BatchAckMessageRequestBody
{
    QByteArray brokerName;
    std::vector<BatchAck> acks;

    QByteArray toJson() const;
    /// At most `maxAcks` acks and 4096 offsets per ack (bits beyond are refused).
    static Result<BatchAckMessageRequestBody> fromJson(QByteArrayView json, int maxAcks = 1024);
};

/// MessageRequestMode: "PULL" or "POP".
struct SetMessageRequestModeRequestBody
{
    QByteArray topic;
    QByteArray consumerGroup;
    QByteArray mode = "PULL";
    std::int32_t popShareQueueNum = 0;

    QByteArray toJson() const;
    void write(JsonWriter &w) const;
    static Result<SetMessageRequestModeRequestBody> fromJson(QByteArrayView json);
    static Result<SetMessageRequestModeRequestBody> fromJsonValue(const JsonValue &v);
};

/// GET_ALL_MESSAGE_REQUEST_MODE's body and messageRequestMode.json: topic -> group -> mode.
struct MessageRequestModeTable
{
    std::map<QByteArray, std::map<QByteArray, SetMessageRequestModeRequestBody>> modes;

    QByteArray toJson() const;
    static Result<MessageRequestModeTable> fromJson(QByteArrayView json);
};

struct QueryAssignmentRequestBody
{
    QByteArray topic;
    QByteArray consumerGroup;
    QByteArray clientId;
    QByteArray strategyName;
    MessageModel messageModel = MessageModel::Clustering;

    QByteArray toJson() const;
    static Result<QueryAssignmentRequestBody> fromJson(QByteArrayView json);
};

struct MessageQueueAssignment
{
    MessageQueue messageQueue;
    QByteArray mode = "PULL";
};

struct QueryAssignmentResponseBody
{
    std::vector<MessageQueueAssignment> messageQueueAssignments;

    QByteArray toJson() const;
    static Result<QueryAssignmentResponseBody> fromJson(QByteArrayView json);
};

} // namespace qrocket::protocol
