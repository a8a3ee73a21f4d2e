#pragma once

// The topic names and prefixes RocketMQ 4.9 reserves (TopicValidator, MixAll; protocol.md
// §8.2), in one place for the client, the store and the broker. Validation rules live with their
// users (broker/managers/topicvalidator.h, the producer's checks).

namespace qrocket::protocol::topics {

inline constexpr char kAutoCreateTopicKey[] = "TBW102";
/// Delay levels: a delayed message waits here, queue (level - 1), until it falls due.
inline constexpr char kSchedule[] = "SCHEDULE_TOPIC_XXXX";
inline constexpr char kBenchmark[] = "BenchmarkTest";
inline constexpr char kTransHalf[] = "RMQ_SYS_TRANS_HALF_TOPIC";
inline constexpr char kTransOpHalf[] = "RMQ_SYS_TRANS_OP_HALF_TOPIC";
inline constexpr char kTransCheckMaxTime[] = "TRANS_CHECK_MAX_TIME_TOPIC";
inline constexpr char kSelfTest[] = "SELF_TEST_TOPIC";
inline constexpr char kOffsetMovedEvent[] = "OFFSET_MOVED_EVENT";
inline constexpr char kTrace[] = "RMQ_SYS_TRACE_TOPIC";
inline constexpr char kSystemPrefix[] = "rmq_sys_";
inline constexpr char kReplyTopicPostfix[] = "REPLY_TOPIC"; // "<cluster>_REPLY_TOPIC"
inline constexpr char kRetryPrefix[] = "%RETRY%";
inline constexpr char kDlqPrefix[] = "%DLQ%";

/// The fixed system topics (TopicValidator.SYSTEM_TOPIC_SET); names starting with
/// kSystemPrefix, and the cluster's and each broker's own topic, are system topics too.
inline constexpr const char *kSystemTopics[] = {kAutoCreateTopicKey, kSchedule, kBenchmark,
    kTransHalf, kTransOpHalf, kTransCheckMaxTime, kSelfTest, kOffsetMovedEvent, kTrace};
/// Topics no client may send to (TopicValidator.NOT_ALLOWED_SEND_TOPIC_SET).
inline constexpr const char *kNotAllowedSend[]
    = {kSchedule, kTransHalf, kTransOpHalf, kTransCheckMaxTime, kSelfTest, kOffsetMovedEvent};

} // namespace qrocket::protocol::topics
