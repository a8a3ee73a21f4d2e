#include "clientlib/protocol/bodies/habodies.h"

#include "clientlib/protocol/bodies/bodyreaders.h"

namespace qrocket::protocol {

using namespace bodyjson;

QByteArray HARuntimeInfo::toJson() const
{
    JsonWriter w;
    const HAClientRuntimeInfo &c = haClientRuntimeInfo;
    w.beginObject().key("haClientRuntimeInfo").beginObject();
    w.key("lastReadTimestamp").value(c.lastReadTimestamp);
    w.key("lastWriteTimestamp").value(c.lastWriteTimestamp);
    if (!c.masterAddr.isNull())
        w.key("masterAddr").value(QByteArrayView(c.masterAddr));
    w.key("masterFlushOffset").value(c.masterFlushOffset);
    w.key("maxOffset").value(c.maxOffset);
    w.key("transferredByteInSecond").value(c.transferredByteInSecond);
    w.endObject();
    w.key("haConnectionInfo").beginArray();
    for (const HAConnectionRuntimeInfo &h : haConnectionInfo) {
        w.beginObject();
        w.key("addr").value(QByteArrayView(h.addr));
        w.key("diff").value(h.diff);
        w.key("inSync").value(h.inSync);
        w.key("slaveAckOffset").value(h.slaveAckOffset);
        w.key("transferFromWhere").value(h.transferFromWhere);
        w.key("transferredByteInSecond").value(h.transferredByteInSecond);
        w.endObject();
    }
    w.endArray();
    w.key("inSyncSlaveNums").value(inSyncSlaveNums);
    w.key("master").value(master);
    w.key("masterCommitLogMaxOffset").value(masterCommitLogMaxOffset);
    w.endObject();
    return w.take();
}

Result<HARuntimeInfo> HARuntimeInfo::fromJson(QByteArrayView json)
{
    constexpr const char *what = "HARuntimeInfo";
    auto o = parseObject(json, what);
    if (!o)
        return o.error();
    HARuntimeInfo info;
    info.master = (*o)["master"].toBool(false);
    info.masterCommitLogMaxOffset = longOf(*o, "masterCommitLogMaxOffset");
    info.inSyncSlaveNums = intOf(*o, "inSyncSlaveNums");
    const Status connections = readObjectArray(
        *o, what, "haConnectionInfo", info.haConnectionInfo, [](const JsonValue &v) {
            HAConnectionRuntimeInfo h;
            h.addr = v["addr"].toString();
            h.slaveAckOffset = longOf(v, "slaveAckOffset");
            h.diff = longOf(v, "diff");
            h.inSync = v["inSync"].toBool(false);
            h.transferredByteInSecond = longOf(v, "transferredByteInSecond");
            h.transferFromWhere = longOf(v, "transferFromWhere");
            return h;
        });
    if (!connections)
        return connections;
    auto client = objectField(*o, what, "haClientRuntimeInfo");
    if (!client)
        return client.error();
    if (*client) {
        const JsonValue &v = **client;
        HAClientRuntimeInfo &c = info.haClientRuntimeInfo;
        c.masterAddr = v["masterAddr"].toString();
        c.transferredByteInSecond = longOf(v, "transferredByteInSecond");
        c.maxOffset = longOf(v, "maxOffset");
        c.lastReadTimestamp = longOf(v, "lastReadTimestamp");
        c.lastWriteTimestamp = longOf(v, "lastWriteTimestamp");
        c.masterFlushOffset = longOf(v, "masterFlushOffset");
    }
    return info;
}

QByteArray EpochEntryInfo::toString() const
{
    return "EpochEntry{epoch=" + QByteArray::number(epoch) + ", startOffset="
        + QByteArray::number(startOffset) + ", endOffset=" + QByteArray::number(endOffset) + '}';
}

QByteArray EpochEntryCache::toJson() const
{
    JsonWriter w;
    w.beginObject().key("brokerId").value(brokerId);
    w.key("brokerName").value(QByteArrayView(brokerName));
    w.key("clusterName").value(QByteArrayView(clusterName));
    w.key("epochList").beginArray();
    for (const EpochEntryInfo &e : epochList) {
        w.beginObject();
        w.key("endOffset").value(e.endOffset);
        w.key("epoch").value(e.epoch);
        w.key("startOffset").value(e.startOffset);
        w.endObject();
    }
    w.endArray();
    if (!masterAddr.isEmpty())
        w.key("masterAddr").value(QByteArrayView(masterAddr));
    w.key("maxOffset").value(maxOffset);
    if (!masterAddr.isEmpty()) {
        w.key("syncStateSet").beginArray();
        for (const QByteArray &m : syncStateSet)
            w.value(QByteArrayView(m));
        w.endArray();
    }
    w.endObject();
    return w.take();
}

Result<EpochEntryCache> EpochEntryCache::fromJson(QByteArrayView json)
{
    constexpr const char *what = "EpochEntryCache";
    auto o = parseObject(json, what);
    if (!o)
        return o.error();
    EpochEntryCache c;
    c.clusterName = (*o)["clusterName"].toString();
    c.brokerName = (*o)["brokerName"].toString();
    c.brokerId = longOf(*o, "brokerId");
    c.maxOffset = longOf(*o, "maxOffset");
    const Status list = readObjectArray(*o, what, "epochList", c.epochList, [](const JsonValue &v) {
        EpochEntryInfo e;
        e.epoch = intOf(v, "epoch");
        e.startOffset = longOf(v, "startOffset");
        e.endOffset = longOf(v, "endOffset", std::numeric_limits<std::int64_t>::max());
        return e;
    });
    if (!list)
        return list;
    c.masterAddr = (*o)["masterAddr"].toString();
    auto set = stringArray(*o, what, "syncStateSet");
    if (!set)
        return set.error();
    c.syncStateSet = std::move(*set);
    return c;
}

} // namespace qrocket::protocol
