#include "broker/processors/adminbodies.h"

namespace qrocket::broker::adminbody {

using protocol::JsonWriter;

QByteArray messageQueueKey(const MessageQueueKey &mq)
{
    JsonWriter w;
    w.beginObject();
    w.key("brokerName").value(QByteArrayView(mq.brokerName));
    w.key("queueId").value(mq.queueId);
    w.key("topic").value(QByteArrayView(mq.topic));
    w.endObject();
    return w.take();
}

QByteArray topicStatsTable(const std::vector<TopicOffset> &offsets)
{
    JsonWriter w;
    w.beginObject().key("offsetTable").beginObject();
    for (const TopicOffset &o : offsets) {
        w.rawKey(messageQueueKey(o.mq)).beginObject();
        w.key("lastUpdateTimestamp").value(o.lastUpdateTimestamp);
        w.key("maxOffset").value(o.maxOffset);
        w.key("minOffset").value(o.minOffset);
        w.endObject();
    }
    w.endObject().endObject();
    return w.take();
}

QByteArray consumeStats(double consumeTps, const std::vector<ConsumeOffset> &offsets)
{
    JsonWriter w;
    w.beginObject().key("consumeTps").value(consumeTps);
    w.key("offsetTable").beginObject();
    for (const ConsumeOffset &o : offsets) {
        w.rawKey(messageQueueKey(o.mq)).beginObject();
        w.key("brokerOffset").value(o.brokerOffset);
        w.key("consumerOffset").value(o.consumerOffset);
        w.key("lastTimestamp").value(o.lastTimestamp);
        w.endObject();
    }
    w.endObject().endObject();
    return w.take();
}

QByteArray resetOffsetBody(const std::vector<std::pair<MessageQueueKey, std::int64_t>> &offsets)
{
    JsonWriter w;
    w.beginObject().key("offsetTable").beginObject();
    for (const auto &[mq, offset] : offsets)
        w.rawKey(messageQueueKey(mq)).value(offset);
    w.endObject().endObject();
    return w.take();
}

QByteArray kvTable(const std::vector<std::pair<QByteArray, QByteArray>> &table)
{
    JsonWriter w;
    w.beginObject().key("table").beginObject();
    for (const auto &[k, v] : table)
        w.key(k).value(QByteArrayView(v));
    w.endObject().endObject();
    return w.take();
}

QByteArray stringList(QByteArrayView name, const QList<QByteArray> &items)
{
    JsonWriter w;
    w.beginObject().key(name).beginArray();
    for (const QByteArray &item : items)
        w.value(QByteArrayView(item));
    w.endArray().endObject();
    return w.take();
}

void writeConnection(JsonWriter &w, const Connection &c)
{
    w.beginObject();
    w.key("clientAddr").value(QByteArrayView(c.clientAddr));
    w.key("clientId").value(QByteArrayView(c.clientId));
    w.key("language").value(QByteArrayView(c.language));
    w.key("version").value(c.version);
    w.endObject();
}

QByteArray producerConnection(const std::vector<Connection> &connections)
{
    JsonWriter w;
    w.beginObject().key("connectionSet").beginArray();
    for (const Connection &c : connections)
        writeConnection(w, c);
    w.endArray().endObject();
    return w.take();
}

} // namespace qrocket::broker::adminbody
