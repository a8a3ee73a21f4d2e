#include "broker/managers/topicconfig.h"

#include <QDateTime>

namespace qrocket::broker {

using protocol::JsonValue;
using protocol::JsonWriter;

const char *topicFilterTypeName(TopicFilterType t)
{
    return t == TopicFilterType::MultiTag ? "MULTI_TAG" : "SINGLE_TAG";
}

TopicFilterType parseTopicFilterType(const JsonValue &v)
{
    if (v.isNumber())
        return v.toInteger() == 1 ? TopicFilterType::MultiTag : TopicFilterType::SingleTag;
    return v.toString() == "MULTI_TAG" ? TopicFilterType::MultiTag : TopicFilterType::SingleTag;
}

void TopicConfig::writeJson(JsonWriter &w) const
{
    w.beginObject();
    w.key("order").value(order);
    w.key("perm").value(perm);
    w.key("readQueueNums").value(readQueueNums);
    w.key("topicFilterType").value(topicFilterTypeName(topicFilterType));
    w.key("topicName").value(topicName);
    w.key("topicSysFlag").value(topicSysFlag);
    w.key("writeQueueNums").value(writeQueueNums);
    w.endObject();
}

QByteArray TopicConfig::toJson() const
{
    JsonWriter w;
    writeJson(w);
    return w.take();
}

Result<TopicConfig> TopicConfig::fromJson(const JsonValue &v, QByteArrayView fallbackName)
{
    if (!v.isObject())
        return Status::invalidArgument(QStringLiteral("topic config is not an object"));
    TopicConfig c;
    c.topicName = v["topicName"].toString();
    if (c.topicName.isEmpty())
        c.topicName = fallbackName.toByteArray();
    c.readQueueNums = static_cast<int>(v["readQueueNums"].toInteger(c.readQueueNums));
    c.writeQueueNums = static_cast<int>(v["writeQueueNums"].toInteger(c.writeQueueNums));
    c.perm = static_cast<int>(v["perm"].toInteger(c.perm));
    c.topicFilterType = parseTopicFilterType(v["topicFilterType"]);
    c.topicSysFlag = static_cast<int>(v["topicSysFlag"].toInteger(0));
    c.order = v["order"].toBool(false);
    if (c.readQueueNums < 0 || c.writeQueueNums < 0)
        return Status::invalidArgument(
            QStringLiteral("topic %1: negative queue count").arg(QString::fromUtf8(c.topicName)));
    return c;
}

DataVersion DataVersion::now()
{
    return {QDateTime::currentMSecsSinceEpoch(), 0};
}

void DataVersion::next()
{
    timestamp = QDateTime::currentMSecsSinceEpoch();
    ++counter;
}

void DataVersion::writeJson(JsonWriter &w) const
{
    w.beginObject();
    w.key("counter").value(counter);
    w.key("timestamp").value(timestamp);
    w.endObject();
}

QByteArray DataVersion::toJson() const
{
    JsonWriter w;
    writeJson(w);
    return w.take();
}

DataVersion DataVersion::fromJson(const JsonValue &v)
{
    return {v["timestamp"].toInteger(0), v["counter"].toInteger(0)};
}

} // namespace qrocket::broker
