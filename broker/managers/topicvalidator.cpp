#include "broker/managers/topicvalidator.h"

#include <QString>

#include <algorithm>

namespace qrocket::broker::topics {

namespace {

bool isNameChar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '%'
        || c == '|' || c == '_' || c == '-';
}

Status validateName(const char *what, QByteArrayView name, qsizetype maxLength)
{
    if (name.trimmed().isEmpty())
        return Status::invalidArgument(
            QStringLiteral("The specified %1 is blank.").arg(QLatin1String(what)));
    for (char c : name) {
        if (!isNameChar(c))
            return Status::invalidArgument(
                QStringLiteral("The specified %1[%2] contains illegal characters, allowing only "
                               "^[%|a-zA-Z0-9_-]+$")
                    .arg(QLatin1String(what), QString::fromUtf8(name)));
    }
    if (name.size() > maxLength)
        return Status::invalidArgument(
            QStringLiteral("The specified %1 is longer than %2 characters.")
                .arg(QLatin1String(what))
                .arg(maxLength));
    return {};
}

} // namespace

Status validateTopic(QByteArrayView topic)
{
    return validateName("topic", topic, kTopicMaxLength);
}

Status validateGroup(QByteArrayView group)
{
    return validateName("group", group, kGroupMaxLength);
}

bool isSystemTopic(QByteArrayView topic)
{
    return std::ranges::any_of(kSystemTopics, [&](const char *t) { return topic == t; })
        || topic.startsWith(kSystemPrefix);
}

bool isNotAllowedSendTopic(QByteArrayView topic)
{
    // QRocket adds RocketMQ 5's timer topic: a record sent there directly would be delivered to
    // the REAL_TOPIC it names, around that topic's checks.
    return std::ranges::any_of(kNotAllowedSend, [&](const char *t) { return topic == t; })
        || topic == QByteArrayView("rmq_sys_wheel_timer");
}

} // namespace qrocket::broker::topics
