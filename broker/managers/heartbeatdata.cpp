#include "broker/managers/heartbeatdata.h"

#include "clientlib/common/hash.h"

#include <array>
#include <optional>

namespace qrocket::broker {

using protocol::JsonValue;
using protocol::JsonWriter;

namespace {

constexpr std::array<const char *, 2> kConsumeTypeNames = {"CONSUME_ACTIVELY", "CONSUME_PASSIVELY"};
constexpr std::array<const char *, 2> kMessageModelNames = {"BROADCASTING", "CLUSTERING"};
constexpr std::array<const char *, 6> kConsumeFromWhereNames = {"CONSUME_FROM_LAST_OFFSET",
    "CONSUME_FROM_LAST_OFFSET_AND_FROM_MIN_WHEN_BOOT_FIRST", "CONSUME_FROM_MIN_OFFSET",
    "CONSUME_FROM_MAX_OFFSET", "CONSUME_FROM_FIRST_OFFSET", "CONSUME_FROM_TIMESTAMP"};

// An enum given as its Java name, its ordinal, or the ordinal as text. `fallback` when absent;
// nullopt when present but unknown.
template<std::size_t N>
std::optional<int> parseEnum(
    const JsonValue &v, const std::array<const char *, N> &names, int fallback)
{
    if (v.isNull())
        return fallback;
    if (v.type() == JsonValue::Type::Integer) {
        const std::int64_t i = v.toInteger(-1);
        return i >= 0 && i < static_cast<std::int64_t>(N) ? std::optional<int>(static_cast<int>(i))
                                                          : std::nullopt;
    }
    const QByteArray text = v.toString().trimmed();
    for (std::size_t i = 0; i < N; ++i) {
        if (text == names[i])
            return static_cast<int>(i);
    }
    bool ok = false;
    const int i = text.toInt(&ok);
    if (ok && i >= 0 && i < static_cast<int>(N))
        return i;
    return std::nullopt;
}

Status badEnum(const char *field, const JsonValue &v)
{
    return Status::invalidArgument(QStringLiteral("heartbeat: unknown %1 '%2'")
                                       .arg(QLatin1String(field), QString::fromUtf8(v.toString())));
}

Result<ConsumerData> parseConsumer(const JsonValue &v)
{
    if (!v.isObject())
        return Status::invalidArgument(QStringLiteral("heartbeat: consumer data is not an object"));
    ConsumerData c;
    c.groupName = v["groupName"].toString();
    if (c.groupName.isEmpty())
        return Status::invalidArgument(QStringLiteral("heartbeat: consumer without groupName"));
    const auto type = parseEnum(v["consumeType"], kConsumeTypeNames, 1);
    if (!type)
        return badEnum("consumeType", v["consumeType"]);
    const auto model = parseEnum(v["messageModel"], kMessageModelNames, 1);
    if (!model)
        return badEnum("messageModel", v["messageModel"]);
    const auto from = parseEnum(v["consumeFromWhere"], kConsumeFromWhereNames, 0);
    if (!from)
        return badEnum("consumeFromWhere", v["consumeFromWhere"]);
    c.consumeType = static_cast<ConsumeType>(*type);
    c.messageModel = static_cast<MessageModel>(*model);
    c.consumeFromWhere = static_cast<ConsumeFromWhere>(*from);
    c.unitMode = v["unitMode"].toBool(false);
    const JsonValue &subs = v["subscriptionDataSet"];
    if (subs.isArray()) {
        for (const JsonValue &s : subs.items()) {
            auto sub = SubscriptionData::fromJson(s);
            if (!sub)
                return sub.error();
            c.subscriptionDataSet.push_back(std::move(sub).value());
        }
    }
    return c;
}

} // namespace

const char *consumeTypeName(ConsumeType v)
{
    return kConsumeTypeNames[static_cast<std::size_t>(v)];
}

const char *messageModelName(MessageModel v)
{
    return kMessageModelNames[static_cast<std::size_t>(v)];
}

const char *consumeFromWhereName(ConsumeFromWhere v)
{
    return kConsumeFromWhereNames[static_cast<std::size_t>(v)];
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
        if (tag.isEmpty() || tagsSet.contains(tag))
            continue;
        tagsSet.append(tag);
        codeSet.append(javaStringHash(tag));
    }
}

void SubscriptionData::writeJson(JsonWriter &w) const
{
    w.beginObject();
    w.key("classFilterMode").value(classFilterMode);
    w.key("codeSet").beginArray();
    for (std::int32_t c : codeSet)
        w.value(static_cast<std::int64_t>(c));
    w.endArray();
    w.key("expressionType").value(expressionType);
    w.key("subString").value(subString);
    w.key("subVersion").value(subVersion);
    w.key("tagsSet").beginArray();
    for (const QByteArray &t : tagsSet)
        w.value(t);
    w.endArray();
    w.key("topic").value(topic);
    w.endObject();
}

QByteArray SubscriptionData::toJson() const
{
    JsonWriter w;
    writeJson(w);
    return w.take();
}

Result<SubscriptionData> SubscriptionData::fromJson(const JsonValue &v)
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
            s.tagsSet.append(t.toString());
    }
    if (codes.isArray()) {
        for (const JsonValue &c : codes.items())
            s.codeSet.append(static_cast<std::int32_t>(c.toInteger()));
    } else {
        for (const QByteArray &t : std::as_const(s.tagsSet))
            s.codeSet.append(javaStringHash(t));
    }
    return s;
}

Result<HeartbeatData> HeartbeatData::fromJson(QByteArrayView json)
{
    auto parsed = protocol::parseJson(json.trimmed());
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
            auto cd = parseConsumer(c);
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

} // namespace qrocket::broker
