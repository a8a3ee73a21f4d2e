#include "clientlib/client/admin/adminbodies.h"

#include "clientlib/common/properties.h"
#include "clientlib/protocol/remotingcommand.h"

namespace qrocket::client::admin {

using protocol::JsonValue;
using protocol::bodyjson::parseObject;
using protocol::bodyjson::wrongType;

namespace {

/// An object member that must be an object (or absent: then null).
Result<const JsonValue *> objectField(const JsonValue &o, const char *what, const char *field)
{
    const JsonValue *v = o.find(field);
    if (!v || v->isNull())
        return static_cast<const JsonValue *>(nullptr);
    if (!v->isObject())
        return wrongType(what, field, "an object");
    return v;
}

Result<const JsonValue *> arrayField(const JsonValue &o, const char *what, const char *field)
{
    const JsonValue *v = o.find(field);
    if (!v || v->isNull())
        return static_cast<const JsonValue *>(nullptr);
    if (!v->isArray())
        return wrongType(what, field, "an array");
    return v;
}

/// `{MQ: value}` read with `read(value) -> Result<T>`.
template<typename T, typename Read>
Status readQueueMap(const JsonValue &o, const char *what, const char *field,
    std::map<MessageQueue, T> &out, Read read)
{
    auto table = objectField(o, what, field);
    if (!table)
        return table.error();
    if (!*table)
        return {};
    for (const auto &[key, value] : (*table)->members()) {
        auto mq = messageQueueKey(key, what);
        if (!mq)
            return mq.error();
        Result<T> v = read(value);
        if (!v)
            return v.error();
        out[std::move(mq).value()] = std::move(v).value();
    }
    return {};
}

Status notObject(const char *what, const char *field)
{
    return wrongType(what, field, "an object");
}

template<typename E, std::size_t N>
bool readEnum(const JsonValue &v, const char *(*nameOf)(E), E &out)
{
    if (v.isNull())
        return true;
    const QByteArray text = v.toString().trimmed();
    for (std::size_t i = 0; i < N; ++i) {
        const E e = static_cast<E>(i);
        if (text == nameOf(e) || text == QByteArray::number(static_cast<int>(i))) {
            out = e;
            return true;
        }
    }
    return false;
}

Status badEnum(const char *what, const char *field, const JsonValue &v)
{
    return Status::invalidArgument(
        QStringLiteral("%1: unknown %2 '%3'")
            .arg(QLatin1String(what), QLatin1String(field), QString::fromUtf8(v.toString())));
}

std::int64_t longOf(const JsonValue &o, QByteArrayView key, std::int64_t fallback = 0)
{
    return o[key].toInteger(fallback);
}

int intOf(const JsonValue &o, QByteArrayView key, int fallback = 0)
{
    return static_cast<int>(o[key].toInteger(fallback));
}

Result<std::vector<QByteArray>> stringArray(const JsonValue &o, const char *what, const char *field)
{
    return protocol::bodyjson::stringList(o[field], what, field);
}

} // namespace

Result<MessageQueue> messageQueueKey(const JsonValue &key, const char *what)
{
    if (key.isObject())
        return MessageQueue::fromJsonValue(key);
    if (key.isString()) {
        // A standard-JSON writer has to quote the object: {"{\"brokerName\":..}": ..}.
        auto inner = protocol::parseJson(key.toString());
        if (inner && inner->isObject())
            return MessageQueue::fromJsonValue(*inner);
    }
    return Status::invalidArgument(
        QStringLiteral("%1: map key '%2' is not a MessageQueue")
            .arg(QLatin1String(what), QString::fromUtf8(key.toString().left(80))));
}

// -- TopicStatsTable ------------------------------------------------------------------------

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
        const auto code = static_cast<protocol::LanguageCode>(language.toInteger(0));
        c.language = protocol::languageName(code);
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

} // namespace

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
    if (!readEnum<protocol::ConsumeType, 2>(
            (*o)["consumeType"], protocol::consumeTypeName, c.consumeType))
        return badEnum(what, "consumeType", (*o)["consumeType"]);
    if (!readEnum<protocol::MessageModel, 2>(
            (*o)["messageModel"], protocol::messageModelName, c.messageModel))
        return badEnum(what, "messageModel", (*o)["messageModel"]);
    if (!readEnum<protocol::ConsumeFromWhere, 6>(
            (*o)["consumeFromWhere"], protocol::consumeFromWhereName, c.consumeFromWhere))
        return badEnum(what, "consumeFromWhere", (*o)["consumeFromWhere"]);
    auto table = objectField(*o, what, "subscriptionTable");
    if (!table)
        return table.error();
    if (*table) {
        for (const auto &[topic, value] : (*table)->members()) {
            auto sub = protocol::SubscriptionData::fromJsonValue(value);
            if (!sub)
                return Status::invalidArgument(
                    QStringLiteral("%1: subscriptionTable: %2")
                        .arg(QLatin1String(what), sub.error().message()));
            c.subscriptionTable[topic.toString()] = std::move(sub).value();
        }
    }
    return c;
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

QByteArray SubscriptionGroupConfig::toJson() const
{
    protocol::JsonWriter w;
    w.beginObject();
    w.key("brokerId").value(brokerId);
    w.key("consumeBroadcastEnable").value(consumeBroadcastEnable);
    w.key("consumeEnable").value(consumeEnable);
    w.key("consumeFromMinEnable").value(consumeFromMinEnable);
    w.key("groupName").value(QByteArrayView(groupName));
    w.key("notifyConsumerIdsChangedEnable").value(notifyConsumerIdsChangedEnable);
    w.key("retryMaxTimes").value(retryMaxTimes);
    w.key("retryQueueNums").value(retryQueueNums);
    w.key("whichBrokerWhenConsumeSlowly").value(whichBrokerWhenConsumeSlowly);
    w.endObject();
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
    c.retryQueueNums = intOf(v, "retryQueueNums", 1);
    c.retryMaxTimes = intOf(v, "retryMaxTimes", 16);
    c.brokerId = longOf(v, "brokerId", 0);
    c.whichBrokerWhenConsumeSlowly = longOf(v, "whichBrokerWhenConsumeSlowly", 1);
    c.notifyConsumerIdsChangedEnable = v["notifyConsumerIdsChangedEnable"].toBool(true);
    return c;
}

Result<SubscriptionGroupWrapper> SubscriptionGroupWrapper::fromJson(QByteArrayView json)
{
    constexpr const char *what = "SubscriptionGroupWrapper";
    auto o = parseObject(json, what);
    if (!o)
        return o.error();
    SubscriptionGroupWrapper w;
    if (const JsonValue *dv = o->find("dataVersion"); dv && !dv->isNull()) {
        auto version = protocol::DataVersion::fromJsonValue(*dv);
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

// -- ConsumerRunningInfo --------------------------------------------------------------------

bool ConsumerRunningInfo::isPushConsumer() const
{
    const auto it = properties.find("PROP_CONSUME_TYPE");
    return it != properties.end() && it->second == "CONSUME_PASSIVELY";
}

bool ConsumerRunningInfo::isOrderly() const
{
    const auto it = properties.find("PROP_CONSUMEORDERLY");
    return it != properties.end() && it->second == "true";
}

Result<ConsumerRunningInfo> ConsumerRunningInfo::fromJson(QByteArrayView json)
{
    constexpr const char *what = "ConsumerRunningInfo";
    auto o = parseObject(json, what);
    if (!o)
        return o.error();
    ConsumerRunningInfo info;
    info.jstack = (*o)["jstack"].toString();
    auto props = objectField(*o, what, "properties");
    if (!props)
        return props.error();
    if (*props) {
        for (const auto &[k, v] : (*props)->members())
            info.properties[k.toString()] = v.toString();
    }
    auto subs = arrayField(*o, what, "subscriptionSet");
    if (!subs)
        return subs.error();
    if (*subs) {
        for (const JsonValue &item : (*subs)->items()) {
            auto sub = protocol::SubscriptionData::fromJsonValue(item);
            if (!sub)
                return Status::invalidArgument(
                    QStringLiteral("%1: subscriptionSet: %2")
                        .arg(QLatin1String(what), sub.error().message()));
            info.subscriptionSet.push_back(std::move(sub).value());
        }
    }
    Status s = readQueueMap<ProcessQueueInfo>(
        *o, what, "mqTable", info.mqTable, [](const JsonValue &v) -> Result<ProcessQueueInfo> {
            if (!v.isObject())
                return notObject(what, "mqTable");
            ProcessQueueInfo p;
            p.commitOffset = longOf(v, "commitOffset");
            p.cachedMsgMinOffset = longOf(v, "cachedMsgMinOffset");
            p.cachedMsgMaxOffset = longOf(v, "cachedMsgMaxOffset");
            p.cachedMsgCount = intOf(v, "cachedMsgCount");
            p.cachedMsgSizeInMiB = intOf(v, "cachedMsgSizeInMiB");
            p.transactionMsgMinOffset = longOf(v, "transactionMsgMinOffset");
            p.transactionMsgMaxOffset = longOf(v, "transactionMsgMaxOffset");
            p.transactionMsgCount = intOf(v, "transactionMsgCount");
            p.locked = v["locked"].toBool(false);
            p.tryUnlockTimes = longOf(v, "tryUnlockTimes");
            p.lastLockTimestamp = longOf(v, "lastLockTimestamp");
            p.dropped = v["droped"].toBool(v["dropped"].toBool(false));
            p.lastPullTimestamp = longOf(v, "lastPullTimestamp");
            p.lastConsumeTimestamp = longOf(v, "lastConsumeTimestamp");
            return p;
        });
    if (!s)
        return s;
    auto status = objectField(*o, what, "statusTable");
    if (!status)
        return status.error();
    if (*status) {
        for (const auto &[topic, v] : (*status)->members()) {
            if (!v.isObject())
                return notObject(what, "statusTable");
            ConsumeStatus c;
            c.pullRT = v["pullRT"].toDouble(0);
            c.pullTPS = v["pullTPS"].toDouble(0);
            c.consumeRT = v["consumeRT"].toDouble(0);
            c.consumeOKTPS = v["consumeOKTPS"].toDouble(0);
            c.consumeFailedTPS = v["consumeFailedTPS"].toDouble(0);
            c.consumeFailedMsgs = longOf(v, "consumeFailedMsgs");
            info.statusTable[topic.toString()] = c;
        }
    }
    return info;
}

// -- BrokerStatsData ------------------------------------------------------------------------

Result<BrokerStatsData> BrokerStatsData::fromJson(QByteArrayView json)
{
    constexpr const char *what = "BrokerStatsData";
    auto o = parseObject(json, what);
    if (!o)
        return o.error();
    BrokerStatsData d;
    for (auto [field, item] : {std::pair {"statsMinute", &d.statsMinute},
             std::pair {"statsHour", &d.statsHour}, std::pair {"statsDay", &d.statsDay}}) {
        auto v = objectField(*o, what, field);
        if (!v)
            return v.error();
        if (!*v)
            continue;
        item->sum = longOf(**v, "sum");
        item->tps = (**v)["tps"].toDouble(0);
        item->avgpt = (**v)["avgpt"].toDouble(0);
    }
    return d;
}

// -- BrokerRuntimeInfo ----------------------------------------------------------------------

QByteArray BrokerRuntimeInfo::value(QByteArrayView key) const
{
    const auto it = table.find(key.toByteArray());
    return it == table.end() ? QByteArray() : it->second;
}

double BrokerRuntimeInfo::number(QByteArrayView key, double fallback) const
{
    // Rates are lists ("0.0 0.3664467985875141 0.0": per window); the first one is read.
    const QList<QByteArray> parts = value(key).simplified().split(' ');
    bool ok = false;
    const double v = parts.isEmpty() ? 0 : parts.front().toDouble(&ok);
    return ok ? v : fallback;
}

std::int64_t BrokerRuntimeInfo::integer(QByteArrayView key, std::int64_t fallback) const
{
    bool ok = false;
    const qlonglong v = value(key).trimmed().toLongLong(&ok);
    return ok ? v : fallback;
}

Result<BrokerRuntimeInfo> BrokerRuntimeInfo::fromJson(QByteArrayView json)
{
    auto kv = protocol::KVTable::fromJson(json);
    if (!kv)
        return Status::invalidArgument(
            QStringLiteral("BrokerRuntimeInfo: %1").arg(kv.error().message()));
    return BrokerRuntimeInfo {std::move(kv->table)};
}

// -- extensions -----------------------------------------------------------------------------

Result<BrokerLiveness> BrokerLiveness::fromJson(QByteArrayView json)
{
    constexpr const char *what = "BrokerLiveness";
    auto o = parseObject(json, what);
    if (!o)
        return o.error();
    BrokerLiveness l;
    l.brokerChannelExpiredTime = longOf(*o, "brokerChannelExpiredTime");
    l.now = longOf(*o, "now");
    auto brokers = arrayField(*o, what, "brokers");
    if (!brokers)
        return brokers.error();
    if (*brokers) {
        for (const JsonValue &b : (*brokers)->items()) {
            if (!b.isObject())
                return wrongType(what, "brokers", "an array of objects");
            BrokerLivenessEntry e;
            e.clusterName = b["clusterName"].toString();
            e.brokerName = b["brokerName"].toString();
            e.brokerId = longOf(b, "brokerId");
            e.brokerAddr = b["brokerAddr"].toString();
            e.haServerAddr = b["haServerAddr"].toString();
            e.lastUpdateTimestamp = longOf(b, "lastUpdateTimestamp");
            e.ageMillis = longOf(b, "ageMillis");
            if (const JsonValue *dv = b.find("dataVersion"); dv && !dv->isNull()) {
                auto version = protocol::DataVersion::fromJsonValue(*dv);
                if (!version)
                    return version.error();
                e.dataVersion = *version;
            }
            l.brokers.push_back(std::move(e));
        }
    }
    return l;
}

Result<StoreFiles> StoreFiles::fromJson(QByteArrayView json)
{
    constexpr const char *what = "StoreFiles";
    auto o = parseObject(json, what);
    if (!o)
        return o.error();
    StoreFiles s;
    s.commitLogMinOffset = longOf(*o, "commitLogMinOffset");
    s.commitLogMaxOffset = longOf(*o, "commitLogMaxOffset");
    s.diskFull = (*o)["diskFull"].toBool(false);
    s.diskRatio = (*o)["diskRatio"].toDouble(-1);
    s.fileReservedTimeHours = intOf(*o, "fileReservedTimeHours");
    s.now = longOf(*o, "now");
    s.refuseReason = (*o)["refuseReason"].toString();
    auto files = arrayField(*o, what, "files");
    if (!files)
        return files.error();
    if (*files) {
        for (const JsonValue &f : (*files)->items()) {
            if (!f.isObject())
                return wrongType(what, "files", "an array of objects");
            StoreFile file;
            file.path = f["path"].toString();
            file.size = longOf(f, "size");
            file.lastModified = longOf(f, "lastModified");
            file.ageMillis = longOf(f, "ageMillis");
            file.expiresAt = longOf(f, "expiresAt");
            file.reasonKept = f["reasonKept"].toString();
            s.files.push_back(std::move(file));
        }
    }
    return s;
}

// -- properties -----------------------------------------------------------------------------

QString ConfigProperties::value(QStringView key) const
{
    QString out;
    for (const auto &[k, v] : entries) {
        if (k == key)
            out = v;
    }
    return out;
}

bool ConfigProperties::contains(QStringView key) const
{
    for (const auto &entry : entries) {
        if (entry.first == key)
            return true;
    }
    return false;
}

ConfigProperties ConfigProperties::fromText(QByteArrayView text)
{
    ConfigProperties p;
    for (const PropertyEntry &e : parseProperties(text))
        p.entries.emplace_back(e.key, e.value);
    return p;
}

QByteArray ConfigProperties::toText(const std::vector<std::pair<QString, QString>> &entries)
{
    return formatProperties(QList<std::pair<QString, QString>>(entries.begin(), entries.end()));
}

} // namespace qrocket::client::admin
