#pragma once

// JSON bodies of the admin requests (protocol.md §4.9), written as RocketMQ 4.9's fastjson does:
// keys in alphabetical (getter) order, enums by name, and maps keyed by MessageQueue written with
// the key as a JSON object (§3.9.3), which Java admin tools and our tolerant reader parse.
// Pure functions over plain structs; thread-safe.

#include "clientlib/protocol/json.h"

#include <QByteArray>
#include <QList>

#include <cstdint>
#include <utility>
#include <vector>

namespace qrocket::broker::adminbody {

struct MessageQueueKey
{
    QByteArray brokerName;
    int queueId = 0;
    QByteArray topic;
};

/// `{"brokerName":"b","queueId":0,"topic":"T"}` as text (the fastjson MessageQueue key).
QByteArray messageQueueKey(const MessageQueueKey &mq);

struct TopicOffset
{
    MessageQueueKey mq;
    std::int64_t minOffset = 0;
    std::int64_t maxOffset = 0;
    std::int64_t lastUpdateTimestamp = 0;
};
/// TopicStatsTable: {"offsetTable":{MQ:{"lastUpdateTimestamp":t,"maxOffset":M,"minOffset":m}}}
QByteArray topicStatsTable(const std::vector<TopicOffset> &offsets);

struct ConsumeOffset
{
    MessageQueueKey mq;
    std::int64_t brokerOffset = 0;
    std::int64_t consumerOffset = 0;
    std::int64_t lastTimestamp = 0;
};
/// ConsumeStats: {"consumeTps":0.0,"offsetTable":{MQ:{"brokerOffset":..,"consumerOffset":..,
/// "lastTimestamp":..}}}
QByteArray consumeStats(double consumeTps, const std::vector<ConsumeOffset> &offsets);

/// ResetOffsetBody: {"offsetTable":{MQ:offset}}
QByteArray resetOffsetBody(const std::vector<std::pair<MessageQueueKey, std::int64_t>> &offsets);

/// KVTable: {"table":{"k":"v",...}}
QByteArray kvTable(const std::vector<std::pair<QByteArray, QByteArray>> &table);

/// {"<name>":["a","b"]} (GroupList {"groupList":[..]}, TopicList {"topicList":[..]}).
QByteArray stringList(QByteArrayView name, const QList<QByteArray> &items);

struct Connection
{
    QByteArray clientAddr;
    QByteArray clientId;
    QByteArray language; // "JAVA"
    int version = 0;
};
void writeConnection(protocol::JsonWriter &w, const Connection &c);
/// ProducerConnection:
/// {"connectionSet":[{"clientAddr":..,"clientId":..,"language":..,"version":..}]}
QByteArray producerConnection(const std::vector<Connection> &connections);

} // namespace qrocket::broker::adminbody
