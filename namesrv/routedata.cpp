#include "namesrv/routedata.h"

#include "clientlib/protocol/jsontext.h"

namespace qrocket::namesrv {

namespace jsontext = protocol::jsontext;

namespace {

void appendQueueDataImpl(QByteArray &out, const QueueData &q)
{
    out += "{\"brokerName\":";
    jsontext::appendQuoted(out, q.brokerName);
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

/// `{"<id>":value,...}` of a map keyed by broker id; `value(out, v)` writes each value.
template<typename Map, typename Write>
void appendByBrokerId(QByteArray &out, const Map &map, Write value)
{
    out += '{';
    bool first = true;
    for (const auto &[id, v] : map) {
        if (!first)
            out += ',';
        first = false;
        out += '"';
        out += QByteArray::number(id);
        out += "\":";
        value(out, v);
    }
    out += '}';
}

void appendBrokerDataImpl(QByteArray &out, const BrokerData &b)
{
    out += "{\"brokerAddrs\":";
    appendByBrokerId(out, b.brokerAddrs,
        [](QByteArray &o, const QByteArray &addr) { jsontext::appendQuoted(o, addr); });
    out += ",\"brokerName\":";
    jsontext::appendQuoted(out, b.brokerName);
    out += ",\"cluster\":";
    jsontext::appendQuoted(out, b.cluster);
    if (!b.grpcPorts.empty()) {
        out += ",\"grpcPorts\":";
        appendByBrokerId(
            out, b.grpcPorts, [](QByteArray &o, auto port) { o += QByteArray::number(port); });
    }
    out += '}';
}

void appendStringArray(QByteArray &out, const QList<QByteArray> &items)
{
    out += '[';
    for (qsizetype i = 0; i < items.size(); ++i) {
        if (i)
            out += ',';
        jsontext::appendQuoted(out, items[i]);
    }
    out += ']';
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

QByteArray clusterInfoJson(const std::map<QByteArray, BrokerData> &brokerAddrTable,
    const std::map<QByteArray, std::set<QByteArray>> &clusterAddrTable)
{
    QByteArray out = "{\"brokerAddrTable\":{";
    bool first = true;
    for (const auto &[name, bd] : brokerAddrTable) {
        if (!first)
            out += ',';
        first = false;
        jsontext::appendQuoted(out, name);
        out += ':';
        appendBrokerData(out, bd);
    }
    out += "},\"clusterAddrTable\":{";
    first = true;
    for (const auto &[cluster, names] : clusterAddrTable) {
        if (!first)
            out += ',';
        first = false;
        jsontext::appendQuoted(out, cluster);
        out += ":[";
        bool firstName = true;
        for (const QByteArray &n : names) {
            if (!firstName)
                out += ',';
            firstName = false;
            jsontext::appendQuoted(out, n);
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
        jsontext::appendQuoted(out, brokerAddr);
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
        jsontext::appendQuoted(out, k);
        out += ':';
        jsontext::appendQuoted(out, v);
    }
    out += "}}";
    return out;
}

} // namespace qrocket::namesrv
