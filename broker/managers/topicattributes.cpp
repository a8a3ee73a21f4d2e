#include "broker/managers/topicattributes.h"

#include <QList>
#include <QString>

#include <array>
#include <set>

namespace qrocket::broker {

namespace {

constexpr std::array<std::pair<TopicMessageType, const char *>, 6> kTypeNames {{
    {TopicMessageType::Unspecified, "UNSPECIFIED"},
    {TopicMessageType::Normal, "NORMAL"},
    {TopicMessageType::Fifo, "FIFO"},
    {TopicMessageType::Delay, "DELAY"},
    {TopicMessageType::Transaction, "TRANSACTION"},
    {TopicMessageType::Mixed, "MIXED"},
}};

Status refuse(const QByteArray &why)
{
    return Status::invalidArgument(QString::fromUtf8(why));
}

} // namespace

const char *topicMessageTypeName(TopicMessageType type)
{
    for (const auto &[t, name] : kTypeNames) {
        if (t == type)
            return name;
    }
    return "UNSPECIFIED";
}

std::optional<TopicMessageType> parseTopicMessageType(QByteArrayView value)
{
    for (const auto &[t, name] : kTypeNames) {
        if (value == QByteArrayView(name))
            return t;
    }
    return std::nullopt;
}

std::optional<TopicMessageType> declaredMessageType(
    const std::map<QByteArray, QByteArray> &attributes)
{
    if (attributes.empty())
        return std::nullopt;
    const auto it = attributes.find(kMessageTypeAttribute.toByteArray());
    if (it == attributes.end())
        return std::nullopt;
    return parseTopicMessageType(it->second).value_or(TopicMessageType::Unspecified);
}

bool messageTypeAccepted(TopicMessageType declared, TopicMessageType actual)
{
    if (actual == TopicMessageType::Unspecified)
        return false;
    return declared == TopicMessageType::Mixed || declared == actual;
}

bool setsMixedMessageType(QByteArrayView modification)
{
    for (const QByteArray &item : modification.toByteArray().split(',')) {
        if (item.trimmed() == "+message.type=MIXED")
            return true;
    }
    return false;
}

Result<std::map<QByteArray, QByteArray>> alterTopicAttributes(
    bool create, const std::map<QByteArray, QByteArray> &current, QByteArrayView modification)
{
    std::map<QByteArray, QByteArray> result = current;
    if (modification.isEmpty())
        return result;
    std::set<QByteArray> seen;
    for (const QByteArray &item : modification.toByteArray().split(',')) {
        const qsizetype eq = item.indexOf('=');
        const bool set = eq >= 0;
        if (set ? !item.startsWith('+') : !item.startsWith('-'))
            return refuse("topic attribute '" + item.left(64)
                + "': '+key=value' sets an attribute, '-key' removes one");
        const QByteArray key = set ? item.mid(1, eq - 1) : item.mid(1);
        const QByteArray value = set ? item.mid(eq + 1) : QByteArray();
        if (key.isEmpty() || key.contains('+') || key.contains('-') || (set && value.isEmpty())
            || value.contains('='))
            return refuse("topic attribute '" + item.left(64) + "' is malformed");
        if (!seen.insert(key).second)
            return refuse("topic attribute " + key.left(64) + " is changed twice");
        if (key != kMessageTypeAttribute)
            return refuse("topic attribute " + key.left(64)
                + " is not supported (QRocket knows message.type only)");
        if (!set) {
            if (create)
                return refuse("a new topic's attributes can only be set, not removed: " + key);
            if (result.erase(key) == 0)
                return refuse("topic attribute " + key + " to remove is not set");
            continue;
        }
        if (!parseTopicMessageType(value))
            return refuse("message.type " + value.left(64)
                + " is none of UNSPECIFIED, NORMAL, FIFO, DELAY, TRANSACTION, MIXED");
        result[key] = value;
    }
    return result;
}

} // namespace qrocket::broker
