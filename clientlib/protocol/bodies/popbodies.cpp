#include "clientlib/protocol/bodies/popbodies.h"

#include "clientlib/protocol/bodies/bodyreaders.h"
#include "clientlib/protocol/json.h"

namespace qrocket::protocol {

namespace {

using bodyjson::wrongType;

constexpr int kMaxBatchAckBits = 4096;

/// A member by its fastjson short name, else its long name.
const JsonValue &member(const JsonValue &o, const char *shortName, const char *longName)
{
    if (const JsonValue *v = o.find(shortName))
        return *v;
    return o[longName];
}

/// java.util.BitSet.toByteArray(): little-endian bytes, trailing zero bytes dropped.
QByteArray bitSetBytes(std::int64_t start, const std::vector<std::int64_t> &offsets)
{
    QByteArray bytes;
    for (std::int64_t o : offsets) {
        const std::int64_t bit = o - start;
        if (bit < 0 || bit >= kMaxBatchAckBits)
            continue;
        const auto index = static_cast<qsizetype>(bit / 8);
        if (bytes.size() <= index)
            bytes.resize(index + 1, '\0');
        bytes[index]
            = static_cast<char>(static_cast<unsigned char>(bytes[index]) | (1u << (bit % 8)));
    }
    return bytes;
}

} // namespace

QByteArray BatchAckMessageRequestBody::toJson() const
{
    JsonWriter w;
    w.beginObject().key("acks").beginArray();
    for (const BatchAck &a : acks) {
        w.beginObject();
        w.key("b").value(QByteArrayView(bitSetBytes(a.startOffset, a.offsets).toBase64()));
        w.key("c").value(QByteArrayView(a.consumerGroup));
        w.key("it").value(a.invisibleTime);
        w.key("pt").value(a.popTime);
        w.key("q").value(a.queueId);
        w.key("r").value(QByteArrayView(a.retry));
        w.key("rq").value(a.reviveQueueId);
        w.key("so").value(a.startOffset);
        w.key("t").value(QByteArrayView(a.topic));
        w.endObject();
    }
    w.endArray();
    w.key("brokerName").value(QByteArrayView(brokerName));
    w.endObject();
    return w.take();
}

Result<BatchAckMessageRequestBody> BatchAckMessageRequestBody::fromJson(
    QByteArrayView json, int maxAcks)
{
    constexpr const char *what = "BatchAckMessageRequestBody";
    auto v = bodyjson::parseObject(json, what);
    if (!v.has_value())
        return v.error();
    BatchAckMessageRequestBody out;
    out.brokerName = (*v)["brokerName"].toString();
    auto acks = bodyjson::arrayField(*v, what, "acks");
    if (!acks)
        return acks.error();
    if (!*acks)
        return out;
    if (static_cast<int>((*acks)->items().size()) > maxAcks)
        return Status::invalidArgument(
            QStringLiteral("%1: more than %2 acks").arg(QLatin1String(what)).arg(maxAcks));
    for (const JsonValue &item : (*acks)->items()) {
        if (!item.isObject())
            return wrongType(what, "acks", "an array of objects");
        BatchAck a;
        a.consumerGroup = member(item, "c", "consumerGroup").toString();
        a.topic = member(item, "t", "topic").toString();
        a.retry = member(item, "r", "retry").toString();
        a.startOffset = member(item, "so", "startOffset").toInteger();
        a.queueId = static_cast<std::int32_t>(member(item, "q", "queueId").toInteger());
        a.reviveQueueId
            = static_cast<std::int32_t>(member(item, "rq", "reviveQueueId").toInteger());
        a.popTime = member(item, "pt", "popTime").toInteger();
        a.invisibleTime = member(item, "it", "invisibleTime").toInteger();
        const JsonValue &bits = member(item, "b", "bitSet");
        if (!bits.isNull()) {
            QByteArray bytes;
            if (bits.isString()) {
                bytes = QByteArray::fromBase64(bits.toString());
            } else if (bits.isArray()) { // a byte[] written as numbers
                for (const JsonValue &b : bits.items())
                    bytes += static_cast<char>(b.toInteger());
            } else {
                return wrongType(what, "b", "a base64 string");
            }
            if (bytes.size() * 8 > kMaxBatchAckBits)
                return Status::invalidArgument(QStringLiteral("%1: a bit set longer than %2 bits")
                                                   .arg(QLatin1String(what))
                                                   .arg(kMaxBatchAckBits));
            for (qsizetype i = 0; i < bytes.size(); ++i)
                for (int bit = 0; bit < 8; ++bit)
                    if (static_cast<unsigned char>(bytes[i]) & (1u << bit))
                        a.offsets.push_back(a.startOffset + i * 8 + bit);
        }
        out.acks.push_back(std::move(a));
    }
    return out;
}

void SetMessageRequestModeRequestBody::write(JsonWriter &w) const
{
    w.beginObject();
    w.key("consumerGroup").value(QByteArrayView(consumerGroup));
    w.key("mode").value(QByteArrayView(mode));
    w.key("popShareQueueNum").value(popShareQueueNum);
    w.key("topic").value(QByteArrayView(topic));
    w.endObject();
}

QByteArray SetMessageRequestModeRequestBody::toJson() const
{
    JsonWriter w;
    write(w);
    return w.take();
}

Result<SetMessageRequestModeRequestBody> SetMessageRequestModeRequestBody::fromJsonValue(
    const JsonValue &v)
{
    constexpr const char *what = "SetMessageRequestModeRequestBody";
    if (!v.isObject())
        return wrongType(what, "(body)", "an object");
    SetMessageRequestModeRequestBody out;
    out.topic = v["topic"].toString();
    out.consumerGroup = v["consumerGroup"].toString();
    if (const JsonValue *mode = v.find("mode"); mode && !mode->isNull()) {
        // MessageRequestMode: PULL(0), POP(1); fastjson writes the name.
        const QByteArray m = mode->toString();
        if (m == "PULL" || m == "0")
            out.mode = "PULL";
        else if (m == "POP" || m == "1")
            out.mode = "POP";
        else
            return Status::invalidArgument(QStringLiteral("%1: unknown mode %2")
                                               .arg(QLatin1String(what), QString::fromUtf8(m)));
    }
    out.popShareQueueNum = static_cast<std::int32_t>(v["popShareQueueNum"].toInteger());
    return out;
}

Result<SetMessageRequestModeRequestBody> SetMessageRequestModeRequestBody::fromJson(
    QByteArrayView json)
{
    auto v = bodyjson::parseObject(json, "SetMessageRequestModeRequestBody");
    if (!v.has_value())
        return v.error();
    return fromJsonValue(*v);
}

QByteArray MessageRequestModeTable::toJson() const
{
    JsonWriter w;
    w.beginObject().key("messageRequestModeMap").beginObject();
    for (const auto &[topic, groups] : modes) {
        w.key(QByteArrayView(topic)).beginObject();
        for (const auto &[group, body] : groups) {
            w.key(QByteArrayView(group));
            body.write(w);
        }
        w.endObject();
    }
    w.endObject().endObject();
    return w.take();
}

Result<MessageRequestModeTable> MessageRequestModeTable::fromJson(QByteArrayView json)
{
    constexpr const char *what = "MessageRequestModeSerializeWrapper";
    auto v = bodyjson::parseObject(json, what);
    if (!v.has_value())
        return v.error();
    MessageRequestModeTable out;
    auto table = bodyjson::objectField(*v, what, "messageRequestModeMap");
    if (!table)
        return table.error();
    if (!*table)
        return out;
    for (const auto &[topicKey, groups] : (*table)->members()) {
        if (!groups.isObject())
            return wrongType(what, "messageRequestModeMap", "an object of objects");
        for (const auto &[groupKey, body] : groups.members()) {
            auto mode = SetMessageRequestModeRequestBody::fromJsonValue(body);
            if (!mode)
                return mode.error();
            out.modes[topicKey.toString()][groupKey.toString()] = std::move(mode).value();
        }
    }
    return out;
}

QByteArray QueryAssignmentRequestBody::toJson() const
{
    JsonWriter w;
    w.beginObject();
    w.key("clientId").value(QByteArrayView(clientId));
    w.key("consumerGroup").value(QByteArrayView(consumerGroup));
    w.key("messageModel").value(messageModelName(messageModel));
    w.key("strategyName").value(QByteArrayView(strategyName));
    w.key("topic").value(QByteArrayView(topic));
    w.endObject();
    return w.take();
}

Result<QueryAssignmentRequestBody> QueryAssignmentRequestBody::fromJson(QByteArrayView json)
{
    constexpr const char *what = "QueryAssignmentRequestBody";
    auto v = bodyjson::parseObject(json, what);
    if (!v.has_value())
        return v.error();
    QueryAssignmentRequestBody out;
    out.topic = (*v)["topic"].toString();
    out.consumerGroup = (*v)["consumerGroup"].toString();
    out.clientId = (*v)["clientId"].toString();
    out.strategyName = (*v)["strategyName"].toString();
    const QByteArray model = (*v)["messageModel"].toString();
    if (model == "BROADCASTING" || model == "0")
        out.messageModel = MessageModel::Broadcasting;
    else if (model.isEmpty() || model == "CLUSTERING" || model == "1")
        out.messageModel = MessageModel::Clustering;
    else
        return Status::invalidArgument(QStringLiteral("%1: unknown messageModel %2")
                                           .arg(QLatin1String(what), QString::fromUtf8(model)));
    return out;
}

QByteArray QueryAssignmentResponseBody::toJson() const
{
    JsonWriter w;
    w.beginObject().key("messageQueueAssignments").beginArray();
    for (const MessageQueueAssignment &a : messageQueueAssignments) {
        w.beginObject().key("messageQueue");
        a.messageQueue.write(w);
        w.key("mode").value(QByteArrayView(a.mode));
        w.endObject();
    }
    w.endArray().endObject();
    return w.take();
}

Result<QueryAssignmentResponseBody> QueryAssignmentResponseBody::fromJson(QByteArrayView json)
{
    constexpr const char *what = "QueryAssignmentResponseBody";
    auto v = bodyjson::parseObject(json, what);
    if (!v.has_value())
        return v.error();
    QueryAssignmentResponseBody out;
    const Status s = bodyjson::readObjectArray(*v, what, "messageQueueAssignments",
        out.messageQueueAssignments, [](const JsonValue &item) -> Result<MessageQueueAssignment> {
            auto mq = MessageQueue::fromJsonValue(item["messageQueue"]);
            if (!mq)
                return mq.error();
            MessageQueueAssignment a;
            a.messageQueue = std::move(mq).value();
            a.mode = item["mode"].isNull() ? QByteArray("PULL") : item["mode"].toString();
            return a;
        });
    if (!s)
        return s;
    return out;
}

QByteArray PopStatsBody::toJson() const
{
    JsonWriter w;
    w.beginObject();
    w.key("checkPoints").value(checkPoints);
    w.key("groups").beginArray();
    for (const PopGroupStats &g : groups) {
        w.beginObject();
        w.key("checkPoints").value(g.checkPoints);
        w.key("group").value(QByteArrayView(g.group));
        w.key("inFlight").value(g.inFlight);
        w.key("mode").value(QByteArrayView(g.mode));
        w.key("nextReviveAt").value(g.nextReviveAt);
        w.key("reviveBacklog").value(g.reviveBacklog);
        w.key("topic").value(QByteArrayView(g.topic));
        w.endObject();
    }
    w.endArray();
    w.key("inFlight").value(inFlight);
    w.key("now").value(now);
    w.key("reviveBacklog").value(reviveBacklog);
    w.endObject();
    return w.take();
}

Result<PopStatsBody> PopStatsBody::fromJson(QByteArrayView json)
{
    constexpr const char *what = "PopStatsBody";
    auto v = bodyjson::parseObject(json, what);
    if (!v.has_value())
        return v.error();
    PopStatsBody out;
    out.now = (*v)["now"].toInteger();
    out.inFlight = (*v)["inFlight"].toInteger();
    out.checkPoints = (*v)["checkPoints"].toInteger();
    out.reviveBacklog = (*v)["reviveBacklog"].toInteger();
    const Status s
        = bodyjson::readObjectArray(*v, what, "groups", out.groups, [](const JsonValue &item) {
              PopGroupStats g;
              g.group = item["group"].toString();
              g.topic = item["topic"].toString();
              g.mode = item["mode"].isNull() ? QByteArray("PULL") : item["mode"].toString();
              g.inFlight = item["inFlight"].toInteger();
              g.checkPoints = item["checkPoints"].toInteger();
              g.reviveBacklog = item["reviveBacklog"].toInteger();
              g.nextReviveAt = item["nextReviveAt"].toInteger();
              return g;
          });
    if (!s)
        return s;
    return out;
}

} // namespace qrocket::protocol
