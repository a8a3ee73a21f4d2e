#include "clientlib/protocol/bodies/adminbodies.h"

#include "clientlib/protocol/bodies/bodyreaders.h"
#include "clientlib/protocol/remotingcommand.h"

namespace qrocket::protocol {

using namespace bodyjson;

Result<MessageQueue> messageQueueKey(const JsonValue &key, const char *what)
{
    if (key.isObject())
        return MessageQueue::fromJsonValue(key);
    if (key.isString()) {
        // A standard-JSON writer has to quote the object: {"{\"brokerName\":..}": ..}.
        auto inner = parseJson(key.toString());
        if (inner && inner->isObject())
            return MessageQueue::fromJsonValue(*inner);
    }
    return Status::invalidArgument(
        QStringLiteral("%1: map key '%2' is not a MessageQueue")
            .arg(QLatin1String(what), QString::fromUtf8(key.toString().left(80))));
}

// -- TopicStatsTable ------------------------------------------------------------------------

QByteArray TopicStatsTable::toJson() const
{
    JsonWriter w;
    w.beginObject().key("offsetTable").beginObject();
    for (const auto &[mq, o] : offsetTable) {
        w.rawKey(mq.toJson()).beginObject();
        w.key("lastUpdateTimestamp").value(o.lastUpdateTimestamp);
        w.key("maxOffset").value(o.maxOffset);
        w.key("minOffset").value(o.minOffset);
        w.endObject();
    }
    w.endObject().endObject();
    return w.take();
}

Result<TopicStatsTable> TopicStatsTable::fromJson(QByteArrayView json)
{
    constexpr const char *what = "TopicStatsTable";
    auto o = parseObject(json, what);
    if (!o)
        return o.error();
    TopicStatsTable t;
    Status s = readQueueMap<TopicOffset>(
        *o, what, "offsetTable", t.offsetTable, [](const JsonValue &v) -> Result<TopicOffset> {
            if (!v.isObject())
                return notObject(what, "offsetTable");
            return TopicOffset {
                longOf(v, "minOffset"), longOf(v, "maxOffset"), longOf(v, "lastUpdateTimestamp")};
        });
    if (!s)
        return s;
    return t;
}

// -- ConsumeStats ---------------------------------------------------------------------------

std::int64_t ConsumeStats::totalBrokerOffset() const
{
    std::int64_t sum = 0;
    for (const auto &[mq, o] : offsetTable)
        sum += o.brokerOffset;
    return sum;
}

std::int64_t ConsumeStats::totalConsumerOffset() const
{
    std::int64_t sum = 0;
    for (const auto &[mq, o] : offsetTable)
        sum += o.consumerOffset;
    return sum;
}

std::int64_t ConsumeStats::totalLag() const
{
    std::int64_t sum = 0;
    for (const auto &[mq, o] : offsetTable)
        sum += o.brokerOffset - o.consumerOffset;
    return sum;
}

void ConsumeStats::write(JsonWriter &w) const
{
    w.beginObject().key("consumeTps").value(consumeTps);
    w.key("offsetTable").beginObject();
    for (const auto &[mq, o] : offsetTable) {
        w.rawKey(mq.toJson()).beginObject();
        w.key("brokerOffset").value(o.brokerOffset);
        w.key("consumerOffset").value(o.consumerOffset);
        w.key("lastTimestamp").value(o.lastTimestamp);
        w.endObject();
    }
    w.endObject().endObject();
}

QByteArray ConsumeStats::toJson() const
{
    JsonWriter w;
    write(w);
    return w.take();
}

Result<ConsumeStats> ConsumeStats::fromJsonValue(const JsonValue &o)
{
    constexpr const char *what = "ConsumeStats";
    if (!o.isObject())
        return wrongType(what, "consumeStats", "an object");
    ConsumeStats c;
    c.consumeTps = o["consumeTps"].toDouble(0);
    Status s = readQueueMap<OffsetWrapper>(
        o, what, "offsetTable", c.offsetTable, [](const JsonValue &v) -> Result<OffsetWrapper> {
            if (!v.isObject())
                return notObject(what, "offsetTable");
            return OffsetWrapper {
                longOf(v, "brokerOffset"), longOf(v, "consumerOffset"), longOf(v, "lastTimestamp")};
        });
    if (!s)
        return s;
    return c;
}

Result<ConsumeStats> ConsumeStats::fromJson(QByteArrayView json)
{
    auto o = parseObject(json, "ConsumeStats");
    if (!o)
        return o.error();
    return fromJsonValue(*o);
}

// -- ConsumeStatsList -----------------------------------------------------------------------

QByteArray ConsumeStatsList::toJson() const
{
    JsonWriter w;
    w.beginObject().key("brokerAddr").value(QByteArrayView(brokerAddr));
    w.key("consumeStatsList").beginArray();
    for (const auto &[group, stats] : groups) {
        w.beginObject().key(group).beginArray();
        for (const ConsumeStats &c : stats)
            c.write(w);
        w.endArray().endObject();
    }
    w.endArray();
    w.key("totalDiff").value(totalDiff);
    w.endObject();
    return w.take();
}

Result<ConsumeStatsList> ConsumeStatsList::fromJson(QByteArrayView json)
{
    constexpr const char *what = "ConsumeStatsList";
    auto o = parseObject(json, what);
    if (!o)
        return o.error();
    ConsumeStatsList list;
    list.brokerAddr = (*o)["brokerAddr"].toString();
    list.totalDiff = longOf(*o, "totalDiff");
    auto entries = arrayField(*o, what, "consumeStatsList");
    if (!entries)
        return entries.error();
    if (!*entries)
        return list;
    for (const JsonValue &map : (*entries)->items()) {
        if (!map.isObject())
            return wrongType(what, "consumeStatsList", "an array of objects");
        for (const auto &[group, statsArray] : map.members()) {
            if (!statsArray.isArray())
                return wrongType(what, "consumeStatsList", "a map of arrays");
            std::vector<ConsumeStats> stats;
            for (const JsonValue &v : statsArray.items()) {
                auto c = ConsumeStats::fromJsonValue(v);
                if (!c)
                    return c.error();
                stats.push_back(std::move(c).value());
            }
            list.groups.emplace_back(group.toString(), std::move(stats));
        }
    }
    return list;
}

// -- ResetOffsetBody ------------------------------------------------------------------------

QByteArray ResetOffsetBody::toJson() const
{
    JsonWriter w;
    w.beginObject().key("offsetTable").beginObject();
    for (const auto &[mq, offset] : offsetTable)
        w.rawKey(mq.toJson()).value(offset);
    w.endObject().endObject();
    return w.take();
}

Result<ResetOffsetBody> ResetOffsetBody::fromJson(QByteArrayView json)
{
    constexpr const char *what = "ResetOffsetBody";
    auto o = parseObject(json, what);
    if (!o)
        return o.error();
    ResetOffsetBody r;
    Status s = readQueueMap<std::int64_t>(
        *o, what, "offsetTable", r.offsetTable, [](const JsonValue &v) -> Result<std::int64_t> {
            if (!v.isNumber() && !v.isString())
                return wrongType(what, "offsetTable", "a map of numbers");
            return v.toInteger(-1);
        });
    if (!s)
        return s;
    return r;
}

// -- GroupList ------------------------------------------------------------------------------

QByteArray GroupList::toJson() const
{
    JsonWriter w;
    w.beginObject().key("groupList").beginArray();
    for (const QByteArray &g : groupList)
        w.value(QByteArrayView(g));
    w.endArray().endObject();
    return w.take();
}

Result<GroupList> GroupList::fromJson(QByteArrayView json)
{
    auto o = parseObject(json, "GroupList");
    if (!o)
        return o.error();
    auto groups = stringArray(*o, "GroupList", "groupList");
    if (!groups)
        return groups.error();
    return GroupList {std::move(groups).value()};
}

// -- connections ----------------------------------------------------------------------------

void Connection::write(JsonWriter &w) const
{
    w.beginObject();
    w.key("clientAddr").value(QByteArrayView(clientAddr));
    w.key("clientId").value(QByteArrayView(clientId));
    w.key("language").value(QByteArrayView(language));
    w.key("version").value(version);
    w.endObject();
}

Result<Connection> Connection::fromJsonValue(const JsonValue &v)
{
    if (!v.isObject())
        return Status::invalidArgument(QStringLiteral("Connection: not a JSON object"));
    Connection c;
    c.clientId = v["clientId"].toString();
    c.clientAddr = v["clientAddr"].toString();
    const JsonValue &language = v["language"];
    if (language.type() == JsonValue::Type::Integer) {
        // An ordinal (a non-fastjson writer): LanguageCode's order.
        const auto code = static_cast<LanguageCode>(language.toInteger(0));
        c.language = languageName(code);
    } else {
        c.language = language.toString();
    }
    c.version = intOf(v, "version");
    return c;
}

namespace {

Result<std::vector<Connection>> readConnections(const JsonValue &o, const char *what)
{
    std::vector<Connection> out;
    auto set = arrayField(o, what, "connectionSet");
    if (!set)
        return set.error();
    if (!*set)
        return out;
    for (const JsonValue &item : (*set)->items()) {
        auto c = Connection::fromJsonValue(item);
        if (!c)
            return Status::invalidArgument(QStringLiteral("%1: connectionSet: %2")
                                               .arg(QLatin1String(what), c.error().message()));
        out.push_back(std::move(c).value());
    }
    return out;
}

/// `"field":{"name":{..},...}`: a map of named bodies, each written by its write().
template<typename Map>
void writeNamedObjects(JsonWriter &w, const char *field, const Map &map)
{
    w.key(field).beginObject();
    for (const auto &[name, value] : map) {
        w.key(name);
        value.write(w);
    }
    w.endObject();
}

void writeConnectionSet(JsonWriter &w, const std::vector<Connection> &connections)
{
    w.key("connectionSet").beginArray();
    for (const Connection &c : connections)
        c.write(w);
    w.endArray();
}

} // namespace

QByteArray ConsumerConnection::toJson() const
{
    JsonWriter w;
    w.beginObject();
    writeConnectionSet(w, connectionSet);
    w.key("consumeFromWhere").value(consumeFromWhereName(consumeFromWhere));
    w.key("consumeType").value(consumeTypeName(consumeType));
    w.key("messageModel").value(messageModelName(messageModel));
    writeNamedObjects(w, "subscriptionTable", subscriptionTable);
    w.endObject();
    return w.take();
}

Result<ConsumerConnection> ConsumerConnection::fromJson(QByteArrayView json)
{
    constexpr const char *what = "ConsumerConnection";
    auto o = parseObject(json, what);
    if (!o)
        return o.error();
    ConsumerConnection c;
    auto set = readConnections(*o, what);
    if (!set)
        return set.error();
    c.connectionSet = std::move(set).value();
    if (!readEnum<ConsumeType, 2>((*o)["consumeType"], consumeTypeName, c.consumeType))
        return badEnum(what, "consumeType", (*o)["consumeType"]);
    if (!readEnum<MessageModel, 2>((*o)["messageModel"], messageModelName, c.messageModel))
        return badEnum(what, "messageModel", (*o)["messageModel"]);
    if (!readEnum<ConsumeFromWhere, 6>(
            (*o)["consumeFromWhere"], consumeFromWhereName, c.consumeFromWhere))
        return badEnum(what, "consumeFromWhere", (*o)["consumeFromWhere"]);
    auto table = objectField(*o, what, "subscriptionTable");
    if (!table)
        return table.error();
    if (*table) {
        for (const auto &[topic, value] : (*table)->members()) {
            auto sub = SubscriptionData::fromJsonValue(value);
            if (!sub)
                return Status::invalidArgument(
                    QStringLiteral("%1: subscriptionTable: %2")
                        .arg(QLatin1String(what), sub.error().message()));
            c.subscriptionTable[topic.toString()] = std::move(sub).value();
        }
    }
    return c;
}

QByteArray ProducerConnection::toJson() const
{
    JsonWriter w;
    w.beginObject();
    writeConnectionSet(w, connectionSet);
    w.endObject();
    return w.take();
}

Result<ProducerConnection> ProducerConnection::fromJson(QByteArrayView json)
{
    auto o = parseObject(json, "ProducerConnection");
    if (!o)
        return o.error();
    auto set = readConnections(*o, "ProducerConnection");
    if (!set)
        return set.error();
    return ProducerConnection {std::move(set).value()};
}

// -- subscription groups --------------------------------------------------------------------

void SubscriptionGroupConfig::write(JsonWriter &w) const
{
    w.beginObject();
    w.key("brokerId").value(brokerId);
    w.key("consumeBroadcastEnable").value(consumeBroadcastEnable);
    w.key("consumeEnable").value(consumeEnable);
    w.key("consumeFromMinEnable").value(consumeFromMinEnable);
    if (consumeMessageOrderly)
        w.key("consumeMessageOrderly").value(true);
    w.key("groupName").value(QByteArrayView(groupName));
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
            QStringLiteral("SubscriptionGroupConfig: not a JSON object"));
    SubscriptionGroupConfig c;
    c.groupName = v["groupName"].toString();
    if (c.groupName.isEmpty())
        c.groupName = fallbackName.toByteArray();
    c.consumeEnable = v["consumeEnable"].toBool(true);
    c.consumeFromMinEnable = v["consumeFromMinEnable"].toBool(true);
    c.consumeBroadcastEnable = v["consumeBroadcastEnable"].toBool(true);
    c.consumeMessageOrderly = v["consumeMessageOrderly"].toBool(false);
    c.retryQueueNums = intOf(v, "retryQueueNums", 1);
    c.retryMaxTimes = intOf(v, "retryMaxTimes", 16);
    c.brokerId = longOf(v, "brokerId", 0);
    c.whichBrokerWhenConsumeSlowly = longOf(v, "whichBrokerWhenConsumeSlowly", 1);
    c.notifyConsumerIdsChangedEnable = v["notifyConsumerIdsChangedEnable"].toBool(true);
    return c;
}

Result<SubscriptionGroupConfig> SubscriptionGroupConfig::fromJson(QByteArrayView json)
{
    auto parsed = parseJson(json);
    if (!parsed)
        return parsed.error();
    return fromJsonValue(*parsed);
}

QByteArray SubscriptionGroupWrapper::toJson() const
{
    JsonWriter w;
    w.beginObject().key("dataVersion");
    dataVersion.write(w);
    writeNamedObjects(w, "subscriptionGroupTable", subscriptionGroupTable);
    w.endObject();
    return w.take();
}

Result<SubscriptionGroupWrapper> SubscriptionGroupWrapper::fromJson(QByteArrayView json)
{
    constexpr const char *what = "SubscriptionGroupWrapper";
    auto o = parseObject(json, what);
    if (!o)
        return o.error();
    SubscriptionGroupWrapper w;
    if (const JsonValue *dv = o->find("dataVersion"); dv && !dv->isNull()) {
        auto version = DataVersion::fromJsonValue(*dv);
        if (!version)
            return version.error();
        w.dataVersion = *version;
    }
    auto table = objectField(*o, what, "subscriptionGroupTable");
    if (!table)
        return table.error();
    if (*table) {
        for (const auto &[name, value] : (*table)->members()) {
            auto config = SubscriptionGroupConfig::fromJsonValue(value, name.toString());
            if (!config)
                return config.error();
            w.subscriptionGroupTable[config->groupName] = std::move(config).value();
        }
    }
    return w;
}

} // namespace qrocket::protocol
