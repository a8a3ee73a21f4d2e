#include "clientlib/protocol/bodies/runtimebodies.h"

#include "clientlib/common/properties.h"
#include "clientlib/protocol/bodies/bodyreaders.h"

namespace qrocket::protocol {

using namespace bodyjson;

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

QByteArray ConsumerRunningInfo::toJson() const
{
    JsonWriter w;
    w.beginObject().key("jstack").value(QByteArrayView(jstack));
    w.key("mqTable").beginObject();
    for (const auto &[mq, p] : mqTable) {
        w.rawKey(mq.toJson()).beginObject();
        w.key("cachedMsgCount").value(p.cachedMsgCount);
        w.key("cachedMsgMaxOffset").value(p.cachedMsgMaxOffset);
        w.key("cachedMsgMinOffset").value(p.cachedMsgMinOffset);
        w.key("cachedMsgSizeInMiB").value(p.cachedMsgSizeInMiB);
        w.key("commitOffset").value(p.commitOffset);
        w.key("droped").value(p.dropped);
        w.key("lastConsumeTimestamp").value(p.lastConsumeTimestamp);
        w.key("lastLockTimestamp").value(p.lastLockTimestamp);
        w.key("lastPullTimestamp").value(p.lastPullTimestamp);
        w.key("locked").value(p.locked);
        w.key("transactionMsgCount").value(p.transactionMsgCount);
        w.key("transactionMsgMaxOffset").value(p.transactionMsgMaxOffset);
        w.key("transactionMsgMinOffset").value(p.transactionMsgMinOffset);
        w.key("tryUnlockTimes").value(p.tryUnlockTimes);
        w.endObject();
    }
    w.endObject().key("properties").beginObject();
    for (const auto &[k, v] : properties)
        w.key(k).value(QByteArrayView(v));
    w.endObject().key("statusTable").beginObject();
    for (const auto &[topic, c] : statusTable) {
        w.key(topic).beginObject();
        w.key("consumeFailedMsgs").value(c.consumeFailedMsgs);
        w.key("consumeFailedTPS").value(c.consumeFailedTPS);
        w.key("consumeOKTPS").value(c.consumeOKTPS);
        w.key("consumeRT").value(c.consumeRT);
        w.key("pullRT").value(c.pullRT);
        w.key("pullTPS").value(c.pullTPS);
        w.endObject();
    }
    w.endObject().key("subscriptionSet").beginArray();
    for (const SubscriptionData &s : subscriptionSet)
        s.write(w);
    w.endArray().endObject();
    return w.take();
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
            auto sub = SubscriptionData::fromJsonValue(item);
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

QByteArray BrokerStatsData::toJson() const
{
    JsonWriter w;
    w.beginObject();
    for (auto [field, item] : {std::pair {"statsDay", &statsDay},
             std::pair {"statsHour", &statsHour}, std::pair {"statsMinute", &statsMinute}}) {
        w.key(field).beginObject();
        w.key("avgpt").value(item->avgpt);
        w.key("sum").value(item->sum);
        w.key("tps").value(item->tps);
        w.endObject();
    }
    w.endObject();
    return w.take();
}

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
    auto kv = KVTable::fromJson(json);
    if (!kv)
        return Status::invalidArgument(
            QStringLiteral("BrokerRuntimeInfo: %1").arg(kv.error().message()));
    return BrokerRuntimeInfo {std::move(kv->table)};
}

// -- extensions -----------------------------------------------------------------------------

QByteArray BrokerLiveness::toJson() const
{
    JsonWriter w;
    w.beginObject().key("brokerChannelExpiredTime").value(brokerChannelExpiredTime);
    w.key("brokers").beginArray();
    for (const BrokerLivenessEntry &b : brokers) {
        w.beginObject();
        w.key("ageMillis").value(b.ageMillis);
        w.key("brokerAddr").value(QByteArrayView(b.brokerAddr));
        w.key("brokerId").value(b.brokerId);
        w.key("brokerName").value(QByteArrayView(b.brokerName));
        w.key("clusterName").value(QByteArrayView(b.clusterName));
        w.key("dataVersion");
        b.dataVersion.write(w);
        w.key("haServerAddr").value(QByteArrayView(b.haServerAddr));
        w.key("lastUpdateTimestamp").value(b.lastUpdateTimestamp);
        w.endObject();
    }
    w.endArray().key("now").value(now).endObject();
    return w.take();
}

Result<BrokerLiveness> BrokerLiveness::fromJson(QByteArrayView json)
{
    constexpr const char *what = "BrokerLiveness";
    auto o = parseObject(json, what);
    if (!o)
        return o.error();
    BrokerLiveness l;
    l.brokerChannelExpiredTime = longOf(*o, "brokerChannelExpiredTime");
    l.now = longOf(*o, "now");
    const Status s = readObjectArray(
        *o, what, "brokers", l.brokers, [](const JsonValue &b) -> Result<BrokerLivenessEntry> {
            BrokerLivenessEntry e;
            e.clusterName = b["clusterName"].toString();
            e.brokerName = b["brokerName"].toString();
            e.brokerId = longOf(b, "brokerId");
            e.brokerAddr = b["brokerAddr"].toString();
            e.haServerAddr = b["haServerAddr"].toString();
            e.lastUpdateTimestamp = longOf(b, "lastUpdateTimestamp");
            e.ageMillis = longOf(b, "ageMillis");
            if (const JsonValue *dv = b.find("dataVersion"); dv && !dv->isNull()) {
                auto version = DataVersion::fromJsonValue(*dv);
                if (!version)
                    return version.error();
                e.dataVersion = *version;
            }
            return e;
        });
    if (!s)
        return s;
    return l;
}

QByteArray StoreFiles::toJson() const
{
    JsonWriter w;
    w.beginObject();
    w.key("commitLogMaxOffset").value(commitLogMaxOffset);
    w.key("commitLogMinOffset").value(commitLogMinOffset);
    w.key("diskFull").value(diskFull);
    w.key("diskRatio").value(diskRatio);
    w.key("fileReservedTimeHours").value(fileReservedTimeHours);
    w.key("files").beginArray();
    for (const StoreFile &f : files) {
        w.beginObject();
        w.key("ageMillis").value(f.ageMillis);
        w.key("expiresAt").value(f.expiresAt);
        w.key("lastModified").value(f.lastModified);
        w.key("path").value(QByteArrayView(f.path));
        w.key("reasonKept").value(QByteArrayView(f.reasonKept));
        w.key("size").value(f.size);
        w.endObject();
    }
    w.endArray();
    w.key("now").value(now);
    w.key("refuseReason").value(QByteArrayView(refuseReason));
    w.endObject();
    return w.take();
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
    const Status read = readObjectArray(*o, what, "files", s.files, [](const JsonValue &f) {
        StoreFile file;
        file.path = f["path"].toString();
        file.size = longOf(f, "size");
        file.lastModified = longOf(f, "lastModified");
        file.ageMillis = longOf(f, "ageMillis");
        file.expiresAt = longOf(f, "expiresAt");
        file.reasonKept = f["reasonKept"].toString();
        return file;
    });
    if (!read)
        return read;
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

} // namespace qrocket::protocol
