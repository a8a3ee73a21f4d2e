#include "namesrv/routedata.h"

#include "clientlib/common/byteorder.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>

#include <zlib.h>

namespace qrocket::namesrv {

namespace {

// Bodies are parsed with QJsonDocument for now: REGISTER_BROKER arrives every 30 s per broker
// (not a hot path) and Java brokers write standard JSON there. Switch to protocol::parseJson once
// it lands to accept fastjson's unquoted keys everywhere.
Result<QJsonObject> parseObject(QByteArrayView json, const char *what)
{
    QJsonParseError err {};
    const QJsonDocument doc = QJsonDocument::fromJson(json.toByteArray(), &err);
    if (err.error != QJsonParseError::NoError)
        return Status::invalidArgument(QStringLiteral("%1: bad JSON at offset %2: %3")
                                           .arg(QLatin1String(what))
                                           .arg(err.offset)
                                           .arg(err.errorString()));
    if (!doc.isObject())
        return Status::invalidArgument(
            QStringLiteral("%1: JSON body is not an object").arg(QLatin1String(what)));
    return doc.object();
}

std::int64_t toInt64(const QJsonValue &v, std::int64_t fallback = 0)
{
    if (v.isDouble())
        return v.toInteger(fallback);
    if (v.isString()) {
        bool ok = false;
        const qlonglong n = v.toString().toLongLong(&ok);
        return ok ? n : fallback;
    }
    return fallback;
}

int toInt(const QJsonValue &v, int fallback = 0)
{
    return static_cast<int>(toInt64(v, fallback));
}

bool toBool(const QJsonValue &v)
{
    if (v.isBool())
        return v.toBool();
    return v.isString() && v.toString().compare(QLatin1String("true"), Qt::CaseInsensitive) == 0;
}

QByteArray toUtf8(const QJsonValue &v)
{
    return v.toString().toUtf8();
}

DataVersion dataVersionFrom(const QJsonObject &o)
{
    return DataVersion {
        toInt64(o.value(QLatin1String("timestamp"))), toInt64(o.value(QLatin1String("counter")))};
}

TopicConfig topicConfigFrom(const QByteArray &name, const QJsonObject &o)
{
    TopicConfig tc;
    tc.topicName = o.contains(QLatin1String("topicName"))
        ? toUtf8(o.value(QLatin1String("topicName")))
        : name;
    if (tc.topicName.isEmpty())
        tc.topicName = name;
    tc.readQueueNums = toInt(o.value(QLatin1String("readQueueNums")), 16);
    tc.writeQueueNums = toInt(o.value(QLatin1String("writeQueueNums")), 16);
    tc.perm = toInt(o.value(QLatin1String("perm")), kPermRead | kPermWrite);
    tc.topicSysFlag = toInt(o.value(QLatin1String("topicSysFlag")));
    tc.order = toBool(o.value(QLatin1String("order")));
    if (o.value(QLatin1String("topicFilterType")).isString())
        tc.topicFilterType = toUtf8(o.value(QLatin1String("topicFilterType")));
    return tc;
}

void appendKey(QByteArray &out, const char *key)
{
    out += '"';
    out += key;
    out += "\":";
}

void appendQueueData(QByteArray &out, const QueueData &q)
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

void appendBrokerData(QByteArray &out, const BrokerData &b)
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
    r.orderTopicConf = toUtf8(o->value(QLatin1String("orderTopicConf")));
    const QJsonArray qds = o->value(QLatin1String("queueDatas")).toArray();
    for (const QJsonValue &v : qds) {
        const QJsonObject q = v.toObject();
        r.queueDatas.append(QueueData {toUtf8(q.value(QLatin1String("brokerName"))),
            toInt(q.value(QLatin1String("readQueueNums"))),
            toInt(q.value(QLatin1String("writeQueueNums"))), toInt(q.value(QLatin1String("perm"))),
            toInt(q.value(QLatin1String("topicSysFlag")))});
    }
    const QJsonArray bds = o->value(QLatin1String("brokerDatas")).toArray();
    for (const QJsonValue &v : bds) {
        const QJsonObject b = v.toObject();
        BrokerData bd;
        bd.cluster = toUtf8(b.value(QLatin1String("cluster")));
        bd.brokerName = toUtf8(b.value(QLatin1String("brokerName")));
        const QJsonObject addrs = b.value(QLatin1String("brokerAddrs")).toObject();
        for (auto it = addrs.begin(); it != addrs.end(); ++it)
            bd.brokerAddrs[it.key().toLongLong()] = toUtf8(it.value());
        r.brokerDatas.append(bd);
    }
    const QJsonObject fst = o->value(QLatin1String("filterServerTable")).toObject();
    for (auto it = fst.begin(); it != fst.end(); ++it) {
        QList<QByteArray> servers;
        const QJsonArray arr = it.value().toArray();
        for (const QJsonValue &s : arr)
            servers.append(toUtf8(s));
        r.filterServerTable[it.key().toUtf8()] = servers;
    }
    return r;
}

Result<RegisterBrokerBody> RegisterBrokerBody::fromJson(QByteArrayView json, bool wrapperOnly)
{
    auto o = parseObject(json, "RegisterBrokerBody");
    if (!o)
        return o.error();
    RegisterBrokerBody body;
    QJsonObject wrapper = *o;
    if (!wrapperOnly) {
        wrapper = o->value(QLatin1String("topicConfigSerializeWrapper")).toObject();
        const QJsonArray fsl = o->value(QLatin1String("filterServerList")).toArray();
        for (const QJsonValue &s : fsl)
            body.filterServerList.append(toUtf8(s));
    }
    body.dataVersion = dataVersionFrom(wrapper.value(QLatin1String("dataVersion")).toObject());
    const QJsonObject table = wrapper.value(QLatin1String("topicConfigTable")).toObject();
    for (auto it = table.begin(); it != table.end(); ++it) {
        if (!it.value().isObject())
            return Status::invalidArgument(
                QStringLiteral("RegisterBrokerBody: topic config of %1 is not an object")
                    .arg(it.key()));
        const QByteArray name = it.key().toUtf8();
        body.topicConfigTable[name] = topicConfigFrom(name, it.value().toObject());
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
        QJsonParseError err {};
        const QJsonArray arr = QJsonDocument::fromJson(chunk.toByteArray(), &err).array();
        for (const QJsonValue &s : arr)
            body.filterServerList.append(toUtf8(s));
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
