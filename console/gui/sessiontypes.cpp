// Names and classification of the session's values (see sessiontypes.h).

#include "console/gui/sessiontypes.h"

#include "clientlib/protocol/systemtopics.h"
#include "console/gui/format.h"

#include <QCoreApplication>

#include <algorithm>

namespace qrocket::console {

Q_LOGGING_CATEGORY(lcConsole, "qrocket.console", QtInfoMsg)

QString livenessText(Liveness l)
{
    switch (l) {
    case Liveness::Live:
        return QStringLiteral("live");
    case Liveness::Late:
        return QStringLiteral("late");
    case Liveness::Expired:
        return QStringLiteral("expired");
    case Liveness::Unknown:
        break;
    }
    return QStringLiteral("unknown");
}

QString topicTypeText(TopicType t)
{
    switch (t) {
    case TopicType::Normal:
        return QStringLiteral("normal");
    case TopicType::Retry:
        return QStringLiteral("retry");
    case TopicType::Dlq:
        return QStringLiteral("DLQ");
    case TopicType::System:
        return QStringLiteral("system");
    }
    return {};
}

TopicType classifyTopic(const QByteArray &name, const std::vector<QByteArray> &systemTopics)
{
    namespace topics = protocol::topics;
    if (name.startsWith(topics::kRetryPrefix))
        return TopicType::Retry;
    if (name.startsWith(topics::kDlqPrefix))
        return TopicType::Dlq;
    if (std::ranges::any_of(topics::kSystemTopics, [&](const char *t) { return name == t; }))
        return TopicType::System;
    if (name.startsWith(topics::kSystemPrefix) || name.startsWith("RMQ_SYS_"))
        return TopicType::System;
    if (std::binary_search(systemTopics.begin(), systemTopics.end(), name))
        return TopicType::System;
    return TopicType::Normal;
}

double diskMark(const QString &configured, double fallback)
{
    bool ok = false;
    const int percent = configured.toInt(&ok);
    return ok && percent > 0 && percent <= 100 ? percent / 100.0 : fallback;
}

QString writeBlockReason(const BrokerInfo &b)
{
    if (!b.diskFull)
        return {};
    if (!b.diskFullReason.isEmpty())
        return b.diskFullReason;
    if (b.storeFiles && b.storeFiles->diskFull && !b.storeFiles->refuseReason.isEmpty())
        return QString::fromUtf8(b.storeFiles->refuseReason);
    return QCoreApplication::translate("qrocket::console::BrokerInfo",
        "disk full: %1 used > diskSpaceWarningLevelRatio %2; writes refused")
        .arg(formatRatio(std::max(b.diskRatio, b.consumeQueueDiskRatio)),
            formatRatio(diskMark(b.diskSpaceWarningLevelRatio, 0.90)));
}

} // namespace qrocket::console
