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

/// One (group, topic) of the QRocket extension kGetPopStats: the group's mode on the broker and
/// its POP state there. `topic` is the real topic of the checkpoints (a POP retry topic's
/// messages are counted under that retry topic).
struct PopGroupStats
{
    QByteArray group;
    QByteArray topic;
    QByteArray mode = "PULL"; // SET_MESSAGE_REQUEST_MODE's, PULL when never set
    std::int64_t inFlight = 0; // handed out, neither acked nor revived: invisible now
    std::int64_t checkPoints = 0; // pops with something still in flight
    std::int64_t reviveBacklog = 0; // in flight past their invisible time, not revived yet
    std::int64_t nextReviveAt = 0; // the earliest invisible-time end (epoch ms), 0: none
};

/// QRocket extension kGetPopStats's body.
struct PopStatsBody
{
    std::int64_t now = 0; // the broker's clock (epoch ms)
    std::int64_t inFlight = 0;
    std::int64_t checkPoints = 0;
    std::int64_t reviveBacklog = 0;
    std::vector<PopGroupStats> groups; // sorted by group, then topic

    QByteArray toJson() const;
    static Result<PopStatsBody> fromJson(QByteArrayView json);
};

} // namespace qrocket::protocol
