#include "namesrv/routedata.h"

#include "clientlib/common/byteorder.h"
#include "clientlib/protocol/json.h"

#include <zlib.h>

namespace qrocket::namesrv {

namespace {

using protocol::JsonValue;

// Bodies are read with the tolerant reader (protocol/json.h): Java peers may write fastjson
// forms (unquoted integer keys) and old brokers' bodies must still parse.
Result<JsonValue> parseObject(QByteArrayView json, const char *what)
{
    Result<JsonValue> v = protocol::parseJson(json);
    if (!v)
        return Status::invalidArgument(
            QStringLiteral("%1: %2").arg(QLatin1String(what), v.error().message()));
    if (!v->isObject())
        return Status::invalidArgument(
            QStringLiteral("%1: JSON body is not an object").arg(QLatin1String(what)));
    return v;
}

int toInt(const JsonValue &v, int fallback = 0)
{
    return static_cast<int>(v.toInteger(fallback));
}

DataVersion dataVersionFrom(const JsonValue &o)
{
    return DataVersion {o["timestamp"].toInteger(), o["counter"].toInteger()};
}

TopicConfig topicConfigFrom(const QByteArray &name, const JsonValue &o)
{
    TopicConfig tc;
    tc.topicName = o["topicName"].isString() ? o["topicName"].toString() : name;
    if (tc.topicName.isEmpty())
        tc.topicName = name;
    tc.readQueueNums = toInt(o["readQueueNums"], 16);
    tc.writeQueueNums = toInt(o["writeQueueNums"], 16);
    tc.perm = toInt(o["perm"], kPermRead | kPermWrite);
    tc.topicSysFlag = toInt(o["topicSysFlag"]);
    tc.order = o["order"].toBool();
    if (o["topicFilterType"].isString())
        tc.topicFilterType = o["topicFilterType"].toString();
    return tc;
}

void appendKey(QByteArray &out, const char *key)
{
    out += '"';
    out += key;
    out += "\":";
}

void appendQueueDataImpl(QByteArray &out, const QueueData &q)
{
    out += "{\"brokerName\":";
    appendJsonString(out, q.brokerName);
    out += ",\"perm\":";
    out += QByteArray::number(q.perm);
    out += ",\"readQueueNums\":";
    out += QByteArray::number(q.readQueueNums);
    out += ",\"topicSysFlag\":";
    out += QByteArray::number(q.topicSysFlag);
    out += ",\"writeQueueNums\":";
    out += QByteArray::number(q.writeQueueNums);
    out += '}';
}

void appendBrokerDataImpl(QByteArray &out, const BrokerData &b)
{
    out += "{\"brokerAddrs\":{";
    bool first = true;
    for (const auto &[id, addr] : b.brokerAddrs) {
        if (!first)
            out += ',';
        first = false;
        out += '"';
        out += QByteArray::number(id);
        out += "\":";
        appendJsonString(out, addr);
    }
    out += "},\"brokerName\":";
    appendJsonString(out, b.brokerName);
    out += ",\"cluster\":";
    appendJsonString(out, b.cluster);
    out += '}';
}

void appendStringArray(QByteArray &out, const QList<QByteArray> &items)
{
    out += '[';
    for (qsizetype i = 0; i < items.size(); ++i) {
        if (i)
            out += ',';
        appendJsonString(out, items[i]);
    }
    out += ']';
}

Result<QByteArray> inflateZlib(QByteArrayView in, qsizetype maxOut)
{
    z_stream zs {};
    if (inflateInit(&zs) != Z_OK)
        return Status::internal(QStringLiteral("inflateInit failed"));
    QByteArray out;
    out.resize(qMin<qsizetype>(maxOut, qMax<qsizetype>(4096, in.size() * 4)));
    zs.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(in.data()));
    zs.avail_in = static_cast<uInt>(in.size());
    qsizetype produced = 0;
    int rc = Z_OK;
    while (rc != Z_STREAM_END) {
        if (produced == out.size()) {
            if (out.size() >= maxOut) {
                inflateEnd(&zs);
                return Status::invalidArgument(
                    QStringLiteral("compressed body inflates past %1 bytes").arg(maxOut));
            }
            out.resize(qMin<qsizetype>(maxOut, out.size() * 2));
        }
        zs.next_out = reinterpret_cast<Bytef *>(out.data() + produced);
        zs.avail_out = static_cast<uInt>(out.size() - produced);
        rc = inflate(&zs, Z_NO_FLUSH);
        produced = out.size() - static_cast<qsizetype>(zs.avail_out);
        if (rc == Z_BUF_ERROR && zs.avail_in == 0) {
            inflateEnd(&zs);
            return Status::invalidArgument(QStringLiteral("compressed body is truncated"));
        }
        if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
            inflateEnd(&zs);
            return Status::invalidArgument(
                QStringLiteral("compressed body: zlib error %1").arg(rc));
        }
    }
    inflateEnd(&zs);
    out.truncate(produced);
    return out;
}

/// Reads `i32 len, len bytes` at `pos`.
bool readChunk(QByteArrayView in, qsizetype &pos, QByteArrayView &chunk)
{
    if (in.size() - pos < 4)
        return false;
    const std::int32_t len = readI32(in.data() + pos);
    pos += 4;
    if (len < 0 || in.size() - pos < len)
        return false;
    chunk = in.sliced(pos, len);
    pos += len;
    return true;
}

void appendChunk(QByteArray &out, QByteArrayView chunk)
{
    char len[4];
    writeI32(len, static_cast<std::int32_t>(chunk.size()));
    out.append(len, 4);
    out.append(chunk.data(), chunk.size());
}

} // namespace

void appendQueueData(QByteArray &out, const QueueData &q)
{
    appendQueueDataImpl(out, q);
}

void appendBrokerData(QByteArray &out, const BrokerData &b)
{
    appendBrokerDataImpl(out, b);
}

void appendJsonString(QByteArray &out, QByteArrayView s)
{
    static const char kHex[] = "0123456789abcdef";
    out += '"';
    for (const char c : s) {
        const auto u = static_cast<unsigned char>(c);
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (u < 0x20) {
                out += "\\u00";
                out += kHex[u >> 4];
                out += kHex[u & 0xF];
            } else {
                out += c;
            }
        }
    }
    out += '"';
}

QByteArray DataVersion::toJson() const
{
    return "{\"counter\":" + QByteArray::number(counter)
        + ",\"timestamp\":" + QByteArray::number(timestamp) + '}';
}

Result<DataVersion> DataVersion::fromJson(QByteArrayView json)
{
    auto o = parseObject(json, "DataVersion");
    if (!o)
        return o.error();
    return dataVersionFrom(*o);
}

QByteArray TopicRouteData::toJson() const
{
    QByteArray out;
    out.reserve(96 + 96 * (queueDatas.size() + brokerDatas.size()));
    out += "{\"brokerDatas\":[";
    for (qsizetype i = 0; i < brokerDatas.size(); ++i) {
        if (i)
            out += ',';
        appendBrokerData(out, brokerDatas[i]);
    }
    out += "],\"filterServerTable\":{";
    bool first = true;
    for (const auto &[addr, servers] : filterServerTable) {
        if (!first)
            out += ',';
        first = false;
        appendJsonString(out, addr);
        out += ':';
        appendStringArray(out, servers);
    }
    out += '}';
    if (!orderTopicConf.isEmpty()) {
        out += ',';
        appendKey(out, "orderTopicConf");
        appendJsonString(out, orderTopicConf);
    }
    out += ",\"queueDatas\":[";
    for (qsizetype i = 0; i < queueDatas.size(); ++i) {
        if (i)
            out += ',';
        appendQueueData(out, queueDatas[i]);
    }
    out += "]}";
    return out;
}

Result<TopicRouteData> TopicRouteData::fromJson(QByteArrayView json)
{
    auto o = parseObject(json, "TopicRouteData");
    if (!o)
        return o.error();
    TopicRouteData r;
    if ((*o)["orderTopicConf"].isString())
        r.orderTopicConf = (*o)["orderTopicConf"].toString();
    if ((*o)["queueDatas"].isArray()) {
        for (const JsonValue &q : (*o)["queueDatas"].items()) {
            r.queueDatas.append(QueueData {q["brokerName"].toString(), toInt(q["readQueueNums"]),
                toInt(q["writeQueueNums"]), toInt(q["perm"]), toInt(q["topicSysFlag"])});
        }
    }
    if ((*o)["brokerDatas"].isArray()) {
        for (const JsonValue &b : (*o)["brokerDatas"].items()) {
            BrokerData bd;
            bd.cluster = b["cluster"].toString();
            bd.brokerName = b["brokerName"].toString();
            if (b["brokerAddrs"].isObject()) {
                for (const auto &[id, addr] : b["brokerAddrs"].members())
                    bd.brokerAddrs[id.toInteger()] = addr.toString();
            }
            r.brokerDatas.append(bd);
        }
    }
    if ((*o)["filterServerTable"].isObject()) {
        for (const auto &[addr, list] : (*o)["filterServerTable"].members()) {
            QList<QByteArray> servers;
            if (list.isArray()) {
                for (const JsonValue &sv : list.items())
                    servers.append(sv.toString());
            }
            r.filterServerTable[addr.toString()] = servers;
        }
    }
    return r;
}

Result<RegisterBrokerBody> RegisterBrokerBody::fromJson(QByteArrayView json, bool wrapperOnly)
{
    auto o = parseObject(json, "RegisterBrokerBody");
    if (!o)
        return o.error();
    RegisterBrokerBody body;
    const JsonValue *wrapper = &*o;
    if (!wrapperOnly) {
        wrapper = &(*o)["topicConfigSerializeWrapper"];
        const JsonValue &fsl = (*o)["filterServerList"];
        if (fsl.isArray()) {
            for (const JsonValue &sv : fsl.items())
                body.filterServerList.append(sv.toString());
        }
    }
    if (!wrapper->isObject() && !wrapper->isNull())
        return Status::invalidArgument(
            QStringLiteral("RegisterBrokerBody: topicConfigSerializeWrapper is not an object"));
    body.dataVersion = dataVersionFrom((*wrapper)["dataVersion"]);
    const JsonValue &table = (*wrapper)["topicConfigTable"];
    if (table.isObject()) {
        for (const auto &[key, value] : table.members()) {
            const QByteArray name = key.toString();
            if (!value.isObject())
                return Status::invalidArgument(
                    QStringLiteral("RegisterBrokerBody: topic config of %1 is not an object")
                        .arg(QString::fromUtf8(name)));
            body.topicConfigTable[name] = topicConfigFrom(name, value);
        }
    }
    return body;
}

Result<RegisterBrokerBody> RegisterBrokerBody::fromCompressed(
    QByteArrayView compressed, qsizetype maxInflated)
{
    auto plain = inflateZlib(compressed, maxInflated);
    if (!plain)
        return plain.error();
    const QByteArrayView in(*plain);
    const auto truncated = [] {
        return Status::invalidArgument(QStringLiteral("compressed register body is truncated"));
    };
    RegisterBrokerBody body;
    qsizetype pos = 0;
    QByteArrayView chunk;
    if (!readChunk(in, pos, chunk))
        return truncated();
    auto dv = DataVersion::fromJson(chunk);
    if (!dv)
        return dv.error();
    body.dataVersion = *dv;
    if (in.size() - pos < 4)
        return truncated();
    const std::int32_t count = readI32(in.data() + pos);
    pos += 4;
    if (count < 0)
        return Status::invalidArgument(QStringLiteral("compressed register body: negative count"));
    for (std::int32_t i = 0; i < count; ++i) {
        if (!readChunk(in, pos, chunk))
            return truncated();
        // TopicConfig.encode(): "name readQueueNums writeQueueNums perm filterType"
        const QList<QByteArray> parts = chunk.toByteArray().split(' ');
        if (parts.size() != 5)
            continue; // RocketMQ's decoder skips malformed entries too
        TopicConfig tc;
        tc.topicName = parts[0];
        tc.readQueueNums = parts[1].toInt();
        tc.writeQueueNums = parts[2].toInt();
        tc.perm = parts[3].toInt();
        tc.topicFilterType = parts[4];
        body.topicConfigTable[tc.topicName] = tc;
    }
    if (readChunk(in, pos, chunk)) {
        const Result<JsonValue> arr = protocol::parseJson(chunk);
        if (arr && arr->isArray()) {
            for (const JsonValue &sv : arr->items())
                body.filterServerList.append(sv.toString());
        }
    }
    return body;
}

QByteArray RegisterBrokerBody::toJson() const
{
    QByteArray out = "{\"filterServerList\":";
    appendStringArray(out, filterServerList);
    out += ",\"topicConfigSerializeWrapper\":{\"dataVersion\":";
    out += dataVersion.toJson();
    out += ",\"topicConfigTable\":{";
    bool first = true;
    for (const auto &[name, tc] : topicConfigTable) {
        if (!first)
            out += ',';
        first = false;
        appendJsonString(out, name);
        out += ":{\"order\":";
        out += tc.order ? "true" : "false";
        out += ",\"perm\":" + QByteArray::number(tc.perm);
        out += ",\"readQueueNums\":" + QByteArray::number(tc.readQueueNums);
        out += ",\"topicFilterType\":";
        appendJsonString(out, tc.topicFilterType);
        out += ",\"topicName\":";
        appendJsonString(out, tc.topicName);
        out += ",\"topicSysFlag\":" + QByteArray::number(tc.topicSysFlag);
        out += ",\"writeQueueNums\":" + QByteArray::number(tc.writeQueueNums);
        out += '}';
    }
    out += "}}}";
    return out;
}

QByteArray RegisterBrokerBody::toCompressed() const
{
    QByteArray plain;
    appendChunk(plain, dataVersion.toJson());
    char count[4];
    writeI32(count, static_cast<std::int32_t>(topicConfigTable.size()));
    plain.append(count, 4);
    for (const auto &[name, tc] : topicConfigTable) {
        appendChunk(plain,
            name + ' ' + QByteArray::number(tc.readQueueNums) + ' '
                + QByteArray::number(tc.writeQueueNums) + ' ' + QByteArray::number(tc.perm) + ' '
                + tc.topicFilterType);
    }
    QByteArray fsl;
    appendStringArray(fsl, filterServerList);
    appendChunk(plain, fsl);

    uLongf outLen = compressBound(static_cast<uLong>(plain.size()));
    QByteArray out(static_cast<qsizetype>(outLen), Qt::Uninitialized);
    if (compress2(reinterpret_cast<Bytef *>(out.data()), &outLen,
            reinterpret_cast<const Bytef *>(plain.constData()), static_cast<uLong>(plain.size()),
            Z_BEST_COMPRESSION)
        != Z_OK)
        return {};
    out.truncate(static_cast<qsizetype>(outLen));
    return out;
}

QByteArray clusterInfoJson(const std::map<QByteArray, BrokerData> &brokerAddrTable,
    const std::map<QByteArray, std::set<QByteArray>> &clusterAddrTable)
{
    QByteArray out = "{\"brokerAddrTable\":{";
    bool first = true;
    for (const auto &[name, bd] : brokerAddrTable) {
        if (!first)
            out += ',';
        first = false;
        appendJsonString(out, name);
        out += ':';
        appendBrokerData(out, bd);
    }
    out += "},\"clusterAddrTable\":{";
    first = true;
    for (const auto &[cluster, names] : clusterAddrTable) {
        if (!first)
            out += ',';
        first = false;
        appendJsonString(out, cluster);
        out += ":[";
        bool firstName = true;
        for (const QByteArray &n : names) {
            if (!firstName)
                out += ',';
            firstName = false;
            appendJsonString(out, n);
        }
        out += ']';
    }
    out += "}}";
    return out;
}

QByteArray topicListJson(const QList<QByteArray> &topics, QByteArrayView brokerAddr)
{
    QByteArray out = "{";
    if (!brokerAddr.isEmpty()) {
        out += "\"brokerAddr\":";
        appendJsonString(out, brokerAddr);
        out += ',';
    }
    out += "\"topicList\":";
    appendStringArray(out, topics);
    out += '}';
    return out;
}

QByteArray kvTableJson(const std::map<QByteArray, QByteArray> &table)
{
    QByteArray out = "{\"table\":{";
    bool first = true;
    for (const auto &[k, v] : table) {
        if (!first)
            out += ',';
        first = false;
        appendJsonString(out, k);
        out += ':';
        appendJsonString(out, v);
    }
    out += "}}";
    return out;
}

} // namespace qrocket::namesrv
