#include "namesrv/routedata.h"

namespace qrocket::namesrv {

namespace {

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
