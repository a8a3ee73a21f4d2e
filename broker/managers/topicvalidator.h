#pragma once

// Topic and group names RocketMQ 4.9 reserves or checks (TopicValidator, MixAll; protocol.md
// §8.2): system topic names, the %RETRY%/%DLQ% prefixes, and name validation
// (`^[%|a-zA-Z0-9_-]+$`, topics ≤ 127 characters, groups ≤ 120 as RocketMQ 5: a group's
// %RETRY% and %DLQ% topics are then valid topics too). Pure functions, thread-safe.

#include "clientlib/common/status.h"

#include <QByteArray>
#include <QByteArrayView>

namespace qrocket::broker::topics {

inline constexpr const char *kAutoCreateTopicKey = "TBW102";
inline constexpr const char *kSchedule = "SCHEDULE_TOPIC_XXXX";
inline constexpr const char *kBenchmark = "BenchmarkTest";
inline constexpr const char *kTransHalf = "RMQ_SYS_TRANS_HALF_TOPIC";
inline constexpr const char *kTransOpHalf = "RMQ_SYS_TRANS_OP_HALF_TOPIC";
inline constexpr const char *kTransCheckMaxTime = "TRANS_CHECK_MAX_TIME_TOPIC";
inline constexpr const char *kSelfTest = "SELF_TEST_TOPIC";
inline constexpr const char *kOffsetMovedEvent = "OFFSET_MOVED_EVENT";
inline constexpr const char *kTrace = "RMQ_SYS_TRACE_TOPIC";
inline constexpr const char *kSystemPrefix = "rmq_sys_";
inline constexpr const char *kReplyTopicPostfix = "REPLY_TOPIC"; // "<cluster>_REPLY_TOPIC"
inline constexpr const char *kRetryPrefix = "%RETRY%";
inline constexpr const char *kDlqPrefix = "%DLQ%";
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
/// Topics clients may not send to (SCHEDULE_TOPIC_XXXX and the transaction topics).
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
