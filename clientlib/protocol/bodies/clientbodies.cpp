#include "clientlib/protocol/bodies/clientbodies.h"

#include <array>

namespace qrocket::protocol {

namespace {

using bodyjson::wrongType;

constexpr std::array<const char *, 2> kConsumeTypes = {"CONSUME_ACTIVELY", "CONSUME_PASSIVELY"};
constexpr std::array<const char *, 2> kMessageModels = {"BROADCASTING", "CLUSTERING"};
constexpr std::array<const char *, 6> kConsumeFromWhere = {
    "CONSUME_FROM_LAST_OFFSET",
    "CONSUME_FROM_LAST_OFFSET_AND_FROM_MIN_WHEN_BOOT_FIRST",
    "CONSUME_FROM_MIN_OFFSET",
    "CONSUME_FROM_MAX_OFFSET",
    "CONSUME_FROM_FIRST_OFFSET",
    "CONSUME_FROM_TIMESTAMP",
};

/// An enum given as its name or its ordinal (number or numeric string); absent keeps `fallback`.
template<typename E, std::size_t N>
bool readEnum(const JsonValue &v, const std::array<const char *, N> &names, E &out)
{
    if (v.isNull())
        return true;
    if (v.isString()) {
        const QByteArray s = v.toString();
        for (std::size_t i = 0; i < N; ++i) {
            if (s == names[i]) {
                out = static_cast<E>(i);
                return true;
            }
        }
    }
    const std::int64_t ordinal = v.toInteger(-1);
    if (ordinal >= 0 && ordinal < static_cast<std::int64_t>(N)) {
        out = static_cast<E>(ordinal);
        return true;
    }
    return false;
}

template<std::size_t N>
const char *nameOf(const std::array<const char *, N> &names, std::size_t i)
{
    return i < N ? names[i] : "";
}

Result<std::vector<MessageQueue>> readQueues(
    const JsonValue &v, const char *what, const char *field)
{
    std::vector<MessageQueue> out;
    if (v.isNull())
        return out;
    if (!v.isArray())
        return wrongType(what, field, "an array");
    for (const JsonValue &item : v.items()) {
        auto mq = MessageQueue::fromJsonValue(item);
        if (!mq.has_value())
            return mq.error();
        out.push_back(std::move(mq).value());
    }
    return out;
}

void writeQueues(JsonWriter &w, const std::vector<MessageQueue> &queues)
{
    w.beginArray();
    for (const MessageQueue &mq : queues)
        mq.write(w);
    w.endArray();
}

} // namespace

const char *consumeTypeName(ConsumeType v)
{
    return nameOf(kConsumeTypes, static_cast<std::size_t>(v));
}
const char *messageModelName(MessageModel v)
{
    return nameOf(kMessageModels, static_cast<std::size_t>(v));
}
const char *consumeFromWhereName(ConsumeFromWhere v)
{
    return nameOf(kConsumeFromWhere, static_cast<std::size_t>(v));
}

void SubscriptionData::write(JsonWriter &w) const
{
    w.beginObject().key("classFilterMode").value(classFilterMode).key("codeSet").beginArray();
    for (std::int32_t code : codeSet)
        w.value(code);
    w.endArray()
        .key("expressionType")
        .value(QByteArrayView(expressionType))
        .key("subString")
        .value(QByteArrayView(subString))
        .key("subVersion")
        .value(subVersion)
        .key("tagsSet")
        .beginArray();
    for (const QByteArray &tag : tagsSet)
        w.value(QByteArrayView(tag));
    w.endArray().key("topic").value(QByteArrayView(topic)).endObject();
}

Result<SubscriptionData> SubscriptionData::fromJsonValue(const JsonValue &v)
{
    constexpr const char *kWhat = "SubscriptionData";
    if (!v.isObject())
        return Status::invalidArgument(QStringLiteral("SubscriptionData: not a JSON object"));
    SubscriptionData s;
    s.topic = v["topic"].toString();
    if (const JsonValue *sub = v.find("subString"); sub && !sub->isNull())
        s.subString = sub->toString();
    if (const JsonValue *type = v.find("expressionType"); type && !type->isNull())
        s.expressionType = type->toString();
    s.subVersion = v["subVersion"].toInteger(0);
    s.classFilterMode = v["classFilterMode"].toBool(false);
    auto tags = bodyjson::stringList(v["tagsSet"], kWhat, "tagsSet");
    if (!tags.has_value())
        return tags.error();
    s.tagsSet = std::move(tags).value();
    const JsonValue &codes = v["codeSet"];
    if (!codes.isNull() && !codes.isArray())
        return wrongType(kWhat, "codeSet", "an array");
    for (const JsonValue &c : codes.items())
        s.codeSet.push_back(static_cast<std::int32_t>(c.toInteger(0)));
    return s;
}

void ConsumerData::write(JsonWriter &w) const
{
    w.beginObject()
        .key("consumeFromWhere")
        .value(consumeFromWhereName(consumeFromWhere))
        .key("consumeType")
        .value(consumeTypeName(consumeType))
        .key("groupName")
        .value(QByteArrayView(groupName))
        .key("messageModel")
        .value(messageModelName(messageModel))
        .key("subscriptionDataSet")
        .beginArray();
    for (const SubscriptionData &s : subscriptionDataSet)
        s.write(w);
    w.endArray().key("unitMode").value(unitMode).endObject();
}

Result<ConsumerData> ConsumerData::fromJsonValue(const JsonValue &v)
{
    constexpr const char *kWhat = "ConsumerData";
    if (!v.isObject())
        return Status::invalidArgument(QStringLiteral("ConsumerData: not a JSON object"));
    ConsumerData c;
    c.groupName = v["groupName"].toString();
    if (!readEnum(v["consumeType"], kConsumeTypes, c.consumeType))
        return wrongType(kWhat, "consumeType", "a ConsumeType name or ordinal");
    if (!readEnum(v["messageModel"], kMessageModels, c.messageModel))
        return wrongType(kWhat, "messageModel", "a MessageModel name or ordinal");
    if (!readEnum(v["consumeFromWhere"], kConsumeFromWhere, c.consumeFromWhere))
        return wrongType(kWhat, "consumeFromWhere", "a ConsumeFromWhere name or ordinal");
    c.unitMode = v["unitMode"].toBool(false);
    const JsonValue &subs = v["subscriptionDataSet"];
    if (!subs.isNull() && !subs.isArray())
        return wrongType(kWhat, "subscriptionDataSet", "an array");
    for (const JsonValue &s : subs.items()) {
        auto sd = SubscriptionData::fromJsonValue(s);
        if (!sd.has_value())
            return sd.error();
        c.subscriptionDataSet.push_back(std::move(sd).value());
    }
    return c;
}

QByteArray HeartbeatData::toJson() const
{
    JsonWriter w;
    w.beginObject()
        .key("clientID")
        .value(QByteArrayView(clientID))
        .key("consumerDataSet")
        .beginArray();
    for (const ConsumerData &c : consumerDataSet)
        c.write(w);
    w.endArray().key("producerDataSet").beginArray();
    for (const ProducerData &p : producerDataSet)
        w.beginObject().key("groupName").value(QByteArrayView(p.groupName)).endObject();
    w.endArray().endObject();
    return w.take();
}

Result<HeartbeatData> HeartbeatData::fromJson(QByteArrayView json)
{
    constexpr const char *kWhat = "HeartbeatData";
    auto v = bodyjson::parseObject(json, kWhat);
    if (!v.has_value())
        return v.error();
    HeartbeatData h;
    h.clientID = (*v)["clientID"].toString();
    const JsonValue &consumers = (*v)["consumerDataSet"];
    if (!consumers.isNull() && !consumers.isArray())
        return wrongType(kWhat, "consumerDataSet", "an array");
    for (const JsonValue &c : consumers.items()) {
        auto cd = ConsumerData::fromJsonValue(c);
        if (!cd.has_value())
            return cd.error();
        h.consumerDataSet.push_back(std::move(cd).value());
    }
    const JsonValue &producers = (*v)["producerDataSet"];
    if (!producers.isNull() && !producers.isArray())
        return wrongType(kWhat, "producerDataSet", "an array");
    for (const JsonValue &p : producers.items()) {
        if (!p.isObject())
            return wrongType(kWhat, "producerDataSet", "an array of objects");
        h.producerDataSet.push_back(ProducerData {p["groupName"].toString()});
    }
    return h;
}

QByteArray ConsumerIdList::toJson() const
{
    JsonWriter w;
    w.beginObject().key("consumerIdList").beginArray();
    for (const QByteArray &id : consumerIdList)
        w.value(QByteArrayView(id));
    w.endArray().endObject();
    return w.take();
}

Result<ConsumerIdList> ConsumerIdList::fromJson(QByteArrayView json)
{
    auto v = bodyjson::parseObject(json, "ConsumerIdList");
    if (!v.has_value())
        return v.error();
    auto ids = bodyjson::stringList((*v)["consumerIdList"], "ConsumerIdList", "consumerIdList");
    if (!ids.has_value())
        return ids.error();
    return ConsumerIdList {std::move(ids).value()};
}

void MessageQueue::write(JsonWriter &w) const
{
    w.beginObject()
        .key("brokerName")
        .value(QByteArrayView(brokerName))
        .key("queueId")
        .value(queueId)
        .key("topic")
        .value(QByteArrayView(topic))
        .endObject();
}

QByteArray MessageQueue::toJson() const
{
    JsonWriter w;
    write(w);
    return w.take();
}

Result<MessageQueue> MessageQueue::fromJsonValue(const JsonValue &v)
{
    if (!v.isObject())
        return Status::invalidArgument(QStringLiteral("MessageQueue: not a JSON object"));
    MessageQueue mq;
    mq.topic = v["topic"].toString();
    mq.brokerName = v["brokerName"].toString();
    mq.queueId = static_cast<std::int32_t>(v["queueId"].toInteger(0));
    return mq;
}

QByteArray LockBatchRequestBody::toJson() const
{
    JsonWriter w;
    w.beginObject()
        .key("clientId")
        .value(QByteArrayView(clientId))
        .key("consumerGroup")
        .value(QByteArrayView(consumerGroup))
        .key("mqSet");
    writeQueues(w, mqSet);
    w.endObject();
    return w.take();
}

Result<LockBatchRequestBody> LockBatchRequestBody::fromJson(QByteArrayView json)
{
    auto v = bodyjson::parseObject(json, "LockBatchRequestBody");
    if (!v.has_value())
        return v.error();
    LockBatchRequestBody out;
    out.clientId = (*v)["clientId"].toString();
    out.consumerGroup = (*v)["consumerGroup"].toString();
    auto queues = readQueues((*v)["mqSet"], "LockBatchRequestBody", "mqSet");
    if (!queues.has_value())
        return queues.error();
    out.mqSet = std::move(queues).value();
    return out;
}

QByteArray LockBatchResponseBody::toJson() const
{
    JsonWriter w;
    w.beginObject().key("lockOKMQSet");
    writeQueues(w, lockOKMQSet);
    w.endObject();
    return w.take();
}

Result<LockBatchResponseBody> LockBatchResponseBody::fromJson(QByteArrayView json)
{
    auto v = bodyjson::parseObject(json, "LockBatchResponseBody");
    if (!v.has_value())
        return v.error();
    auto queues = readQueues((*v)["lockOKMQSet"], "LockBatchResponseBody", "lockOKMQSet");
    if (!queues.has_value())
        return queues.error();
    return LockBatchResponseBody {std::move(queues).value()};
}

} // namespace qrocket::protocol
