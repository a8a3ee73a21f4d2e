#pragma once

// Topic and group names RocketMQ 4.9 reserves or checks (TopicValidator, MixAll; protocol.md
// §8.2): system topic names, the %RETRY%/%DLQ% prefixes, and name validation
// (`^[%|a-zA-Z0-9_-]+$`, topics ≤ 127 characters, groups ≤ 120 as RocketMQ 5: a group's
// %RETRY% and %DLQ% topics are then valid topics too). Pure functions, thread-safe.

#include "clientlib/common/status.h"
#include "clientlib/protocol/systemtopics.h"

#include <QByteArray>
#include <QByteArrayView>

namespace qrocket::broker::topics {

// The reserved names (kSchedule, kRetryPrefix, ...): clientlib/protocol/systemtopics.h.
using namespace protocol::topics;

inline constexpr int kScheduleQueueNums = 18;
inline constexpr int kTopicMaxLength = 127;
inline constexpr int kGroupMaxLength = 120; // 127 - strlen("%RETRY%")

/// OK, or InvalidArgument: blank, characters outside [%|a-zA-Z0-9_-], or longer than 127.
Status validateTopic(QByteArrayView topic);
/// Same rules with the group length limit (120).
Status validateGroup(QByteArrayView group);
/// The fixed system topics above and any name starting with "rmq_sys_". The cluster and broker
/// name topics are system topics too; TopicConfigManager::isSystemTopic() covers those.
bool isSystemTopic(QByteArrayView topic);
/// Topics clients may not send to (topics::kNotAllowedSend, as RocketMQ 4.9).
bool isNotAllowedSendTopic(QByteArrayView topic);

inline QByteArray retryTopic(QByteArrayView group)
{
    return kRetryPrefix + group.toByteArray();
}
inline QByteArray dlqTopic(QByteArrayView group)
{
    return kDlqPrefix + group.toByteArray();
}
inline bool isRetryTopic(QByteArrayView topic)
{
    return topic.startsWith(kRetryPrefix);
}
inline bool isDlqTopic(QByteArrayView topic)
{
    return topic.startsWith(kDlqPrefix);
}

} // namespace qrocket::broker::topics
