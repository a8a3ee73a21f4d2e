#include "clientlib/protocol/bodies/clientbodies.h"

#include "clientlib/common/hash.h"

#include <algorithm>
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

/// An enum given as its Java name, its ordinal, or the ordinal as text (cpp); absent keeps
/// `out`; false when present but unknown.
template<typename E, std::size_t N>
bool readEnum(const JsonValue &v, const std::array<const char *, N> &names, E &out)
{
    if (v.isNull())
        return true;
    if (v.type() == JsonValue::Type::Integer) {
        const std::int64_t i = v.toInteger(-1);
        if (i < 0 || i >= static_cast<std::int64_t>(N))
            return false;
        out = static_cast<E>(i);
        return true;
    }
    const QByteArray text = v.toString().trimmed();
    for (std::size_t i = 0; i < N; ++i) {
        if (text == names[i]) {
            out = static_cast<E>(i);
            return true;
        }
    }
    bool ok = false;
    const int i = text.toInt(&ok);
    if (!ok || i < 0 || i >= static_cast<int>(N))
        return false;
    out = static_cast<E>(i);
    return true;
}

Status badEnum(const char *field, const JsonValue &v)
{
    return Status::invalidArgument(QStringLiteral("heartbeat: unknown %1 '%2'")
                                       .arg(QLatin1String(field), QString::fromUtf8(v.toString())));
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

QByteArray SubscriptionData::toJson() const
{
    JsonWriter w;
    write(w);
    return w.take();
}

void SubscriptionData::buildTags()
{
    tagsSet.clear();
    codeSet.clear();
    if (isSubAll()) {
        subString = kSubAll;
        return;
    }
    qsizetype start = 0;
    while (start <= subString.size()) {
        qsizetype end = subString.indexOf("||", start);
        if (end < 0)
            end = subString.size();
        const QByteArray tag = subString.mid(start, end - start).trimmed();
        start = end + 2;
        if (tag.isEmpty() || std::find(tagsSet.begin(), tagsSet.end(), tag) != tagsSet.end())
            continue;
        tagsSet.push_back(tag);
        codeSet.push_back(javaStringHash(tag));
    }
}

Result<SubscriptionData> SubscriptionData::fromJsonValue(const JsonValue &v)
{
    if (!v.isObject())
        return Status::invalidArgument(QStringLiteral("heartbeat: subscription is not an object"));
    SubscriptionData s;
    s.topic = v["topic"].toString();
    if (s.topic.isEmpty())
        return Status::invalidArgument(QStringLiteral("heartbeat: subscription without topic"));
    s.subString = v["subString"].toString();
    if (const JsonValue *e = v.find("expressionType");
        e && !e->isNull() && !e->toString().isEmpty())
        s.expressionType = e->toString();
    s.classFilterMode = v["classFilterMode"].toBool(false);
    s.subVersion = v["subVersion"].toInteger(0);
    const JsonValue &tags = v["tagsSet"];
    const JsonValue &codes = v["codeSet"];
    if (s.expressionType == "TAG" && !tags.isArray()) {
        s.buildTags(); // cpp sends subString only
        return s;
    }
    if (s.expressionType == "TAG" && s.isSubAll())
        s.subString = kSubAll;
    if (tags.isArray()) {
        for (const JsonValue &t : tags.items())
            s.tagsSet.push_back(t.toString());
    }
    if (codes.isArray()) {
        for (const JsonValue &c : codes.items())
            s.codeSet.push_back(static_cast<std::int32_t>(c.toInteger()));
    } else {
        for (const QByteArray &t : s.tagsSet)
            s.codeSet.push_back(javaStringHash(t));
    }
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
    if (!v.isObject())
        return Status::invalidArgument(QStringLiteral("heartbeat: consumer data is not an object"));
    ConsumerData c;
    c.groupName = v["groupName"].toString();
    if (c.groupName.isEmpty())
        return Status::invalidArgument(QStringLiteral("heartbeat: consumer without groupName"));
    if (!readEnum(v["consumeType"], kConsumeTypes, c.consumeType))
        return badEnum("consumeType", v["consumeType"]);
    if (!readEnum(v["messageModel"], kMessageModels, c.messageModel))
        return badEnum("messageModel", v["messageModel"]);
    if (!readEnum(v["consumeFromWhere"], kConsumeFromWhere, c.consumeFromWhere))
        return badEnum("consumeFromWhere", v["consumeFromWhere"]);
    c.unitMode = v["unitMode"].toBool(false);
    const JsonValue &subs = v["subscriptionDataSet"];
    if (subs.isArray()) {
        for (const JsonValue &s : subs.items()) {
            auto sd = SubscriptionData::fromJsonValue(s);
            if (!sd.has_value())
                return sd.error();
            c.subscriptionDataSet.push_back(std::move(sd).value());
        }
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
    auto parsed = parseJson(json.trimmed()); // cpp ends its body with a newline
    if (!parsed)
        return Status::invalidArgument(
            QStringLiteral("heartbeat: %1").arg(parsed.error().message()));
    const JsonValue &root = *parsed;
    if (!root.isObject())
        return Status::invalidArgument(QStringLiteral("heartbeat: body is not an object"));
    HeartbeatData hb;
    hb.clientID = root["clientID"].toString();
    if (hb.clientID.isEmpty())
        return Status::invalidArgument(QStringLiteral("heartbeat: no clientID"));
    if (const JsonValue &consumers = root["consumerDataSet"]; consumers.isArray()) {
        for (const JsonValue &c : consumers.items()) {
            auto cd = ConsumerData::fromJsonValue(c);
            if (!cd)
                return cd.error();
            hb.consumerDataSet.push_back(std::move(cd).value());
        }
    }
    if (const JsonValue &producers = root["producerDataSet"]; producers.isArray()) {
        for (const JsonValue &p : producers.items()) {
            ProducerData pd {p["groupName"].toString()};
            if (pd.groupName.isEmpty())
                return Status::invalidArgument(
                    QStringLiteral("heartbeat: producer without groupName"));
            hb.producerDataSet.push_back(std::move(pd));
        }
    }
    return hb;
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

QByteArray CheckClientRequestBody::toJson() const
{
    JsonWriter w;
    w.beginObject()
        .key("clientId")
        .value(QByteArrayView(clientId))
        .key("group")
        .value(QByteArrayView(group));
    if (subscriptionData) {
        w.key("subscriptionData");
        subscriptionData->write(w);
    }
    w.endObject();
    return w.take();
}

Result<CheckClientRequestBody> CheckClientRequestBody::fromJson(QByteArrayView json)
{
    auto v = bodyjson::parseObject(json, "CheckClientRequestBody");
    if (!v.has_value())
        return v.error();
    CheckClientRequestBody out;
    out.clientId = (*v)["clientId"].toString();
    out.group = (*v)["group"].toString();
    if (const JsonValue &sub = (*v)["subscriptionData"]; sub.isObject()) {
        auto parsed = SubscriptionData::fromJsonValue(sub);
        if (!parsed)
            return parsed.error();
        out.subscriptionData = std::move(parsed).value();
    }
    return out;
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
