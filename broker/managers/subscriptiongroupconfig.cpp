#include "broker/managers/subscriptiongroupconfig.h"

namespace qrocket::broker {

using protocol::JsonValue;
using protocol::JsonWriter;

void SubscriptionGroupConfig::write(JsonWriter &w) const
{
    w.beginObject();
    w.key("brokerId").value(brokerId);
    w.key("consumeBroadcastEnable").value(consumeBroadcastEnable);
    w.key("consumeEnable").value(consumeEnable);
    w.key("consumeFromMinEnable").value(consumeFromMinEnable);
    w.key("groupName").value(groupName);
    w.key("notifyConsumerIdsChangedEnable").value(notifyConsumerIdsChangedEnable);
    w.key("retryMaxTimes").value(retryMaxTimes);
    w.key("retryQueueNums").value(retryQueueNums);
    w.key("whichBrokerWhenConsumeSlowly").value(whichBrokerWhenConsumeSlowly);
    w.endObject();
}

QByteArray SubscriptionGroupConfig::toJson() const
{
    JsonWriter w;
    write(w);
    return w.take();
}

Result<SubscriptionGroupConfig> SubscriptionGroupConfig::fromJsonValue(
    const JsonValue &v, QByteArrayView fallbackName)
{
    if (!v.isObject())
        return Status::invalidArgument(
            QStringLiteral("subscription group config is not an object"));
    SubscriptionGroupConfig c;
    c.groupName = v.find("groupName") ? v["groupName"].toString() : fallbackName.toByteArray();
    c.consumeEnable = v["consumeEnable"].toBool(c.consumeEnable);
    c.consumeFromMinEnable = v["consumeFromMinEnable"].toBool(c.consumeFromMinEnable);
    c.consumeBroadcastEnable = v["consumeBroadcastEnable"].toBool(c.consumeBroadcastEnable);
    c.retryQueueNums = static_cast<int>(v["retryQueueNums"].toInteger(c.retryQueueNums));
    c.retryMaxTimes = static_cast<int>(v["retryMaxTimes"].toInteger(c.retryMaxTimes));
    c.brokerId = v["brokerId"].toInteger(c.brokerId);
    c.whichBrokerWhenConsumeSlowly
        = v["whichBrokerWhenConsumeSlowly"].toInteger(c.whichBrokerWhenConsumeSlowly);
    c.notifyConsumerIdsChangedEnable
        = v["notifyConsumerIdsChangedEnable"].toBool(c.notifyConsumerIdsChangedEnable);
    return c;
}

Result<SubscriptionGroupConfig> SubscriptionGroupConfig::fromJson(QByteArrayView json)
{
    auto parsed = protocol::parseJson(json);
    if (!parsed)
        return parsed.error();
    return fromJsonValue(*parsed);
}

} // namespace qrocket::broker
