#include "clientlib/protocol/bodies/routebodies.h"

#include "clientlib/common/byteorder.h"
#include "clientlib/protocol/compression.h"
#include "clientlib/protocol/jsontext.h"

#include <QDateTime>
#include <QList>

#include <functional>
#include <optional>

namespace qrocket::protocol {

namespace bodyjson {

Result<JsonValue> parseObject(QByteArrayView json, const char *what)
{
    auto parsed = parseJson(json);
    if (!parsed.has_value())
        return Status::invalidArgument(
            QStringLiteral("%1: %2").arg(QLatin1String(what), parsed.error().message()));
    if (!parsed->isObject())
        return Status::invalidArgument(
            QStringLiteral("%1: not a JSON object").arg(QLatin1String(what)));
    return std::move(parsed).value();
}

Status wrongType(const char *what, const char *field, const char *expected)
{
    return Status::invalidArgument(
        QStringLiteral("%1: field '%2' is not %3")
            .arg(QLatin1String(what), QLatin1String(field), QLatin1String(expected)));
}

Result<std::vector<QByteArray>> stringList(const JsonValue &v, const char *what, const char *field)
{
    std::vector<QByteArray> out;
    if (v.isNull())
        return out;
    if (!v.isArray())
        return wrongType(what, field, "an array");
    out.reserve(v.items().size());
    for (const JsonValue &item : v.items())
        out.push_back(item.toString());
    return out;
}

} // namespace bodyjson

namespace {

using bodyjson::wrongType;

int intOf(const JsonValue &o, QByteArrayView key, int fallback)
{
    return static_cast<int>(o[key].toInteger(fallback));
}

void writeStringMapOfLists(JsonWriter &w, const std::map<QByteArray, std::vector<QByteArray>> &m)
{
    w.beginObject();
    for (const auto &[k, list] : m) {
        w.key(k).beginArray();
        for (const QByteArray &s : list)
            w.value(QByteArrayView(s));
        w.endArray();
    }
    w.endObject();
}

Result<std::map<QByteArray, std::vector<QByteArray>>> readStringMapOfLists(
    const JsonValue &v, const char *what, const char *field)
{
    std::map<QByteArray, std::vector<QByteArray>> out;
    if (v.isNull())
        return out;
    if (!v.isObject())
        return wrongType(what, field, "an object");
    for (const auto &[k, list] : v.members()) {
        auto items = bodyjson::stringList(list, what, field);
        if (!items.has_value())
            return items.error();
        out[k.toString()] = std::move(items).value();
    }
    return out;
}

} // namespace

// --- DataVersion ------------------------------------------------------------------------------

DataVersion DataVersion::now()
{
    DataVersion d;
    d.timestamp = QDateTime::currentMSecsSinceEpoch();
    return d;
}

void DataVersion::next()
{
    timestamp = QDateTime::currentMSecsSinceEpoch();
    ++counter;
}

void DataVersion::write(JsonWriter &w) const
{
    w.beginObject().key("counter").value(counter).key("timestamp").value(timestamp).endObject();
}

QByteArray DataVersion::toJson() const
{
    JsonWriter w;
    write(w);
    return w.take();
}

Result<DataVersion> DataVersion::fromJsonValue(const JsonValue &v)
{
    if (!v.isObject())
        return Status::invalidArgument(QStringLiteral("DataVersion: not a JSON object"));
    DataVersion d;
    d.counter = v["counter"].toInteger(0);
    d.timestamp = v["timestamp"].toInteger(0);
    return d;
}

Result<DataVersion> DataVersion::fromJson(QByteArrayView json)
{
    auto v = bodyjson::parseObject(json, "DataVersion");
    if (!v.has_value())
        return v.error();
    return fromJsonValue(*v);
}

// --- TopicConfig ------------------------------------------------------------------------------

const char *topicFilterTypeName(TopicFilterType t)
{
    return t == TopicFilterType::MultiTag ? "MULTI_TAG" : "SINGLE_TAG";
}

namespace {

/// An "attributes" object: its string-valued members (anything else is not an attribute).
void readAttributes(const JsonValue &v, std::map<QByteArray, QByteArray> &out)
{
    if (!v.isObject())
        return;
    for (const auto &[name, value] : v.members()) {
        if (value.isString())
            out[name.toString()] = value.toString();
    }
}

} // namespace

TopicFilterType parseTopicFilterType(const JsonValue &v)
{
    if (v.isNumber())
        return v.toInteger() == 1 ? TopicFilterType::MultiTag : TopicFilterType::SingleTag;
    return v.toString() == "MULTI_TAG" ? TopicFilterType::MultiTag : TopicFilterType::SingleTag;
}

void TopicConfig::write(JsonWriter &w) const
{
    w.beginObject();
    if (!attributes.empty()) {
        w.key("attributes").beginObject();
        for (const auto &[name, value] : attributes)
            w.key(name).value(QByteArrayView(value));
        w.endObject();
    }
    w.key("order")
        .value(order)
        .key("perm")
        .value(perm)
        .key("readQueueNums")
        .value(readQueueNums)
        .key("topicFilterType")
        .value(topicFilterTypeName(topicFilterType))
        .key("topicName")
        .value(QByteArrayView(topicName))
        .key("topicSysFlag")
        .value(topicSysFlag)
        .key("writeQueueNums")
        .value(writeQueueNums)
        .endObject();
}

QByteArray TopicConfig::toJson() const
{
    JsonWriter w;
    write(w);
    return w.take();
}

Result<TopicConfig> TopicConfig::fromJsonValue(const JsonValue &v, QByteArrayView fallbackName)
{
    if (!v.isObject())
        return Status::invalidArgument(QStringLiteral("TopicConfig: not a JSON object"));
    TopicConfig t;
    t.topicName = v["topicName"].toString();
    if (t.topicName.isEmpty())
        t.topicName = fallbackName.toByteArray();
    t.readQueueNums = intOf(v, "readQueueNums", t.readQueueNums);
    t.writeQueueNums = intOf(v, "writeQueueNums", t.writeQueueNums);
    t.perm = intOf(v, "perm", t.perm);
    t.topicSysFlag = intOf(v, "topicSysFlag", 0);
    t.order = v["order"].toBool(false);
    t.topicFilterType = parseTopicFilterType(v["topicFilterType"]);
    readAttributes(v["attributes"], t.attributes);
    if (t.readQueueNums < 0 || t.writeQueueNums < 0)
        return Status::invalidArgument(QStringLiteral("TopicConfig %1: negative queue count")
                                           .arg(QString::fromUtf8(t.topicName)));
    return t;
}

QByteArray TopicConfig::encodeText() const
{
    return topicName + ' ' + QByteArray::number(readQueueNums) + ' '
        + QByteArray::number(writeQueueNums) + ' ' + QByteArray::number(perm) + ' '
        + topicFilterTypeName(topicFilterType);
}

Result<TopicConfig> TopicConfig::decodeText(QByteArrayView text)
{
    const QList<QByteArray> parts = text.toByteArray().split(' ');
    if (parts.size() < 5)
        return Status::invalidArgument(
            QStringLiteral("TopicConfig text needs 5 space-separated tokens, got %1")
                .arg(parts.size()));
    TopicConfig t;
    bool ok1 = false;
    bool ok2 = false;
    bool ok3 = false;
    t.topicName = parts[0];
    t.readQueueNums = parts[1].toInt(&ok1);
    t.writeQueueNums = parts[2].toInt(&ok2);
    t.perm = parts[3].toInt(&ok3);
    t.topicFilterType
        = parts[4] == "MULTI_TAG" ? TopicFilterType::MultiTag : TopicFilterType::SingleTag;
    if (!ok1 || !ok2 || !ok3)
        return Status::invalidArgument(QStringLiteral("TopicConfig text has a non-numeric field"));
    // RocketMQ 5's sixth token: the attributes' JSON; ignored when it does not parse (a value
    // with a space splits it), as RocketMQ ignores it.
    if (parts.size() == 6) {
        if (Result<JsonValue> json = parseJson(parts[5], 4))
            readAttributes(*json, t.attributes);
    }
    return t;
}

// --- TopicConfigSerializeWrapper --------------------------------------------------------------

void TopicConfigSerializeWrapper::write(JsonWriter &w) const
{
    w.beginObject().key("dataVersion");
    dataVersion.write(w);
    w.key("topicConfigTable").beginObject();
    for (const auto &[name, config] : topicConfigTable) {
        w.key(name);
        config.write(w);
    }
    w.endObject().endObject();
}

QByteArray TopicConfigSerializeWrapper::toJson() const
{
    JsonWriter w;
    write(w);
    return w.take();
}

Result<TopicConfigSerializeWrapper> TopicConfigSerializeWrapper::fromJsonValue(const JsonValue &v)
{
    constexpr const char *kWhat = "TopicConfigSerializeWrapper";
    if (!v.isObject())
        return Status::invalidArgument(
            QStringLiteral("%1: not a JSON object").arg(QLatin1String(kWhat)));
    TopicConfigSerializeWrapper out;
    if (const JsonValue *dv = v.find("dataVersion"); dv && !dv->isNull()) {
        auto d = DataVersion::fromJsonValue(*dv);
        if (!d.has_value())
            return wrongType(kWhat, "dataVersion", "an object");
        out.dataVersion = *d;
    }
    const JsonValue &table = v["topicConfigTable"];
    if (!table.isNull() && !table.isObject())
        return wrongType(kWhat, "topicConfigTable", "an object");
    for (const auto &[name, config] : table.members()) {
        const QByteArray key = name.toString();
        auto t = TopicConfig::fromJsonValue(config, key);
        if (!t.has_value())
            return wrongType(kWhat, "topicConfigTable", "a map of TopicConfig objects");
        out.topicConfigTable[key] = std::move(t).value();
    }
    return out;
}

Result<TopicConfigSerializeWrapper> TopicConfigSerializeWrapper::fromJson(QByteArrayView json)
{
    auto v = bodyjson::parseObject(json, "TopicConfigSerializeWrapper");
    if (!v.has_value())
        return v.error();
    return fromJsonValue(*v);
}

// --- QueueData / BrokerData / TopicRouteData --------------------------------------------------

void QueueData::write(JsonWriter &w) const
{
    w.beginObject()
        .key("brokerName")
        .value(QByteArrayView(brokerName))
        .key("perm")
        .value(perm)
        .key("readQueueNums")
        .value(readQueueNums)
        .key("topicSysFlag")
        .value(topicSysFlag)
        .key("writeQueueNums")
        .value(writeQueueNums)
        .endObject();
}

Result<QueueData> QueueData::fromJsonValue(const JsonValue &v)
{
    if (!v.isObject())
        return Status::invalidArgument(QStringLiteral("QueueData: not a JSON object"));
    QueueData q;
    q.brokerName = v["brokerName"].toString();
    q.readQueueNums = intOf(v, "readQueueNums", 0);
    q.writeQueueNums = intOf(v, "writeQueueNums", 0);
    q.perm = intOf(v, "perm", 0);
    q.topicSysFlag = intOf(v, "topicSysFlag", intOf(v, "topicSynFlag", 0));
    return q;
}

void BrokerData::write(JsonWriter &w) const
{
    w.beginObject().key("brokerAddrs").beginObject();
    for (const auto &[id, addr] : brokerAddrs)
        w.key(QByteArray::number(static_cast<qlonglong>(id))).value(QByteArrayView(addr));
    w.endObject()
        .key("brokerName")
        .value(QByteArrayView(brokerName))
        .key("cluster")
        .value(QByteArrayView(cluster));
    if (!grpcPorts.empty()) {
        w.key("grpcPorts").beginObject();
        for (const auto &[id, port] : grpcPorts)
            w.key(QByteArray::number(static_cast<qlonglong>(id))).value(port);
        w.endObject();
    }
    w.endObject();
}

Result<BrokerData> BrokerData::fromJsonValue(const JsonValue &v)
{
    if (!v.isObject())
        return Status::invalidArgument(QStringLiteral("BrokerData: not a JSON object"));
    BrokerData b;
    b.cluster = v["cluster"].toString();
    b.brokerName = v["brokerName"].toString();
    const JsonValue &addrs = v["brokerAddrs"];
    if (!addrs.isNull() && !addrs.isObject())
        return wrongType("BrokerData", "brokerAddrs", "an object");
    for (const auto &[id, addr] : addrs.members()) {
        const std::int64_t brokerId = id.toInteger(-1);
        if (brokerId < 0 && id.toString() != "-1")
            return wrongType("BrokerData", "brokerAddrs", "a map keyed by broker id");
        b.brokerAddrs[brokerId] = addr.toString();
    }
    // QRocket's gRPC ports: read when well formed, otherwise left out (an extension must never
    // make a route unreadable).
    if (const JsonValue *ports = v.find("grpcPorts"); ports && ports->isObject()) {
        for (const auto &[id, port] : ports->members()) {
            const std::int64_t brokerId = id.toInteger(-1);
            const std::int64_t p = port.toInteger(0);
            if (brokerId >= 0 && p > 0 && p < 65536)
                b.grpcPorts[brokerId] = static_cast<int>(p);
        }
    }
    return b;
}

QByteArray BrokerData::masterAddr() const
{
    const auto it = brokerAddrs.find(kMasterBrokerId);
    return it == brokerAddrs.end() ? QByteArray() : it->second;
}

QByteArray TopicRouteData::toJson() const
{
    JsonWriter w;
    w.beginObject().key("brokerDatas").beginArray();
    for (const BrokerData &b : brokerDatas)
        b.write(w);
    w.endArray().key("filterServerTable");
    writeStringMapOfLists(w, filterServerTable);
    if (!orderTopicConf.isNull())
        w.key("orderTopicConf").value(QByteArrayView(orderTopicConf));
    w.key("queueDatas").beginArray();
    for (const QueueData &q : queueDatas)
        q.write(w);
    w.endArray().endObject();
    return w.take();
}

Result<TopicRouteData> TopicRouteData::fromJson(QByteArrayView json)
{
    constexpr const char *kWhat = "TopicRouteData";
    auto v = bodyjson::parseObject(json, kWhat);
    if (!v.has_value())
        return v.error();
    TopicRouteData out;
    if (const JsonValue *conf = v->find("orderTopicConf"); conf && !conf->isNull())
        out.orderTopicConf = conf->toString();
    const JsonValue &qds = (*v)["queueDatas"];
    if (!qds.isNull() && !qds.isArray())
        return wrongType(kWhat, "queueDatas", "an array");
    for (const JsonValue &q : qds.items()) {
        auto qd = QueueData::fromJsonValue(q);
        if (!qd.has_value())
            return qd.error();
        out.queueDatas.push_back(std::move(qd).value());
    }
    const JsonValue &bds = (*v)["brokerDatas"];
    if (!bds.isNull() && !bds.isArray())
        return wrongType(kWhat, "brokerDatas", "an array");
    for (const JsonValue &b : bds.items()) {
        auto bd = BrokerData::fromJsonValue(b);
        if (!bd.has_value())
            return bd.error();
        out.brokerDatas.push_back(std::move(bd).value());
    }
    auto filters = readStringMapOfLists((*v)["filterServerTable"], kWhat, "filterServerTable");
    if (!filters.has_value())
        return filters.error();
    out.filterServerTable = std::move(filters).value();
    return out;
}

// --- ClusterInfo / TopicList / KVTable --------------------------------------------------------

QByteArray ClusterInfo::toJson() const
{
    JsonWriter w;
    w.beginObject().key("brokerAddrTable").beginObject();
    for (const auto &[name, data] : brokerAddrTable) {
        w.key(name);
        data.write(w);
    }
    w.endObject().key("clusterAddrTable");
    writeStringMapOfLists(w, clusterAddrTable);
    w.endObject();
    return w.take();
}

Result<ClusterInfo> ClusterInfo::fromJson(QByteArrayView json)
{
    constexpr const char *kWhat = "ClusterInfo";
    auto v = bodyjson::parseObject(json, kWhat);
    if (!v.has_value())
        return v.error();
    ClusterInfo out;
    const JsonValue &table = (*v)["brokerAddrTable"];
    if (!table.isNull() && !table.isObject())
        return wrongType(kWhat, "brokerAddrTable", "an object");
    for (const auto &[name, data] : table.members()) {
        auto bd = BrokerData::fromJsonValue(data);
        if (!bd.has_value())
            return bd.error();
        out.brokerAddrTable[name.toString()] = std::move(bd).value();
    }
    auto clusters = readStringMapOfLists((*v)["clusterAddrTable"], kWhat, "clusterAddrTable");
    if (!clusters.has_value())
        return clusters.error();
    out.clusterAddrTable = std::move(clusters).value();
    return out;
}

QByteArray TopicList::toJson() const
{
    JsonWriter w;
    w.beginObject();
    if (!brokerAddr.isNull())
        w.key("brokerAddr").value(QByteArrayView(brokerAddr));
    w.key("topicList").beginArray();
    for (const QByteArray &t : topicList)
        w.value(QByteArrayView(t));
    w.endArray().endObject();
    return w.take();
}

Result<TopicList> TopicList::fromJson(QByteArrayView json)
{
    auto v = bodyjson::parseObject(json, "TopicList");
    if (!v.has_value())
        return v.error();
    TopicList out;
    auto topics = bodyjson::stringList((*v)["topicList"], "TopicList", "topicList");
    if (!topics.has_value())
        return topics.error();
    out.topicList = std::move(topics).value();
    if (const JsonValue *addr = v->find("brokerAddr"); addr && !addr->isNull())
        out.brokerAddr = addr->toString();
    return out;
}

namespace {

template<typename Entries>
QByteArray writeKVTable(const Entries &entries)
{
    JsonWriter w;
    w.beginObject().key("table").beginObject();
    for (const auto &[k, value] : entries)
        w.key(k).value(QByteArrayView(value));
    w.endObject().endObject();
    return w.take();
}

} // namespace

QByteArray KVTable::toJson() const
{
    return writeKVTable(table);
}

QByteArray KVTable::toJson(const std::vector<std::pair<QByteArray, QByteArray>> &entries)
{
    return writeKVTable(entries);
}

Result<KVTable> KVTable::fromJson(QByteArrayView json)
{
    auto v = bodyjson::parseObject(json, "KVTable");
    if (!v.has_value())
        return v.error();
    const JsonValue &t = (*v)["table"];
    if (!t.isNull() && !t.isObject())
        return wrongType("KVTable", "table", "an object");
    KVTable out;
    for (const auto &[k, value] : t.members())
        out.table[k.toString()] = value.toString();
    return out;
}

} // namespace qrocket::protocol
