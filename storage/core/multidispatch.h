#pragma once

// Multi-dispatch (RocketMQ 4.9.3+'s RIP-28, "light message queues"): a message whose
// INNER_MULTI_DISPATCH property names queues ("q1,q2,...", MixAll.MULTI_DISPATCH_QUEUE_SPLITTER)
// is written once to the commit log and filed in its own consume queue and in one consume queue
// per named queue. The commit log assigns each named queue's next offset under the put lock and
// stores them, in the same order, as INNER_MULTI_QUEUE_OFFSET ("o1,o2,..."); the dispatch reads
// both back, so that recovery rebuilds the same units from the record alone.
//
// A name starting with "%LMQ%" (MixAll.LMQ_PREFIX) is a light queue when enableLmq is set: its
// consume queue is (name, 0) and its files are small (kLmqConsumeQueueFileSize); any other name
// is filed under the message's own queue id, as RocketMQ's queueKey does.
//
// Everything here is allocation-free but parseMultiDispatchNames' vector, which only messages
// that carry the property pay for.

#include "clientlib/common/status.h"

#include <QByteArray>
#include <QByteArrayView>

#include <cstdint>
#include <cstring>
#include <vector>

namespace qrocket::storage {

inline constexpr QByteArrayView kLmqPrefix("%LMQ%");
inline constexpr QByteArrayView kPropertyMultiDispatch("INNER_MULTI_DISPATCH");
inline constexpr QByteArrayView kPropertyMultiQueueOffset("INNER_MULTI_QUEUE_OFFSET");
/// Names one message may carry (RocketMQ has no count limit but the 32 KB of properties).
inline constexpr int kMaxMultiDispatchQueues = 4096;
/// Light queues get 4,096-unit (80 KB) consume-queue files instead of mappedFileSizeConsumeQueue
/// (6 MB): every file is preallocated (posix_fallocate) and mapped, and a broker holds up to
/// maxLmqConsumeQueueNum (20,000) of them.
inline constexpr int kLmqConsumeQueueFileSize = 4096 * 20;

/// MixAll.isLmq.
inline bool isLmqName(QByteArrayView topic)
{
    return topic.startsWith(kLmqPrefix);
}

/// The consume-queue file size of `topic`: light queues' own, else the configured one.
inline int consumeQueueFileSizeFor(QByteArrayView topic, int configured)
{
    return isLmqName(topic) ? std::min(configured, kLmqConsumeQueueFileSize) : configured;
}

/// Whether encoded properties (`name\x01value\x02...`) may carry INNER_MULTI_DISPATCH: one
/// memmem, no allocation (the put path's pre-check, as the timer's). False positives are fine
/// (the parse decides), false negatives impossible.
inline bool mayHaveMultiDispatch(QByteArrayView properties)
{
    static constexpr char kNeedle[] = "INNER_MULTI_DISPATCH\x01";
    return properties.size() >= static_cast<qsizetype>(sizeof kNeedle)
        && ::memmem(properties.data(), static_cast<std::size_t>(properties.size()), kNeedle,
               sizeof kNeedle - 1)
        != nullptr;
}

/// System topics where messages wait (SCHEDULE_TOPIC_XXXX, RMQ_SYS_*, rmq_sys_*): never named
/// by multi-dispatch, and a message put into one is not multi-dispatched until its re-put.
bool isMultiDispatchHoldingTopic(QByteArrayView topic);

/// The queues named by INNER_MULTI_DISPATCH in `properties`, as views into it. An absent or
/// empty property gives an empty list (no multi-dispatch, as RocketMQ's isBlank). Refused with
/// InvalidArgument and a message saying why: an empty name ("a,,b", a trailing ','), a name no
/// consume queue may have (isStorableTopicName: [%|a-zA-Z0-9_-], at most 127 characters), a name
/// equal to `ownTopic` (it would take two offsets of one queue), a system topic
/// (SCHEDULE_TOPIC_XXXX, RMQ_SYS_*, rmq_sys_*), more than kMaxMultiDispatchQueues names.
Status parseMultiDispatchNames(
    QByteArrayView properties, QByteArrayView ownTopic, std::vector<QByteArrayView> &names);

/// `properties` without any INNER_MULTI_QUEUE_OFFSET, followed by INNER_MULTI_QUEUE_OFFSET with
/// `offsets` joined by ','.
QByteArray withMultiQueueOffsets(QByteArrayView properties, const std::int64_t *offsets, size_t n);

/// Walks the names of INNER_MULTI_DISPATCH and the offsets of INNER_MULTI_QUEUE_OFFSET in step,
/// calling f(name, offset) for each pair. False (f never called) when the counts differ, an
/// offset is no non-negative decimal, or a name is empty.
template<typename F>
bool forEachMultiDispatch(QByteArrayView names, QByteArrayView offsets, F &&f);

namespace detail {
bool parseOffset(QByteArrayView s, std::int64_t &out);
bool multiDispatchShapeOk(QByteArrayView names, QByteArrayView offsets);
/// The next ','-separated item of `s` from `pos` (advanced past the ',').
inline QByteArrayView nextItem(QByteArrayView s, qsizetype &pos)
{
    const qsizetype start = pos;
    const char *p = static_cast<const char *>(
        std::memchr(s.data() + start, ',', static_cast<std::size_t>(s.size() - start)));
    const qsizetype end = p ? p - s.data() : s.size();
    pos = end + 1;
    return s.sliced(start, end - start);
}
} // namespace detail

template<typename F>
bool forEachMultiDispatch(QByteArrayView names, QByteArrayView offsets, F &&f)
{
    if (!detail::multiDispatchShapeOk(names, offsets))
        return false;
    qsizetype np = 0, op = 0;
    while (np < names.size()) {
        const QByteArrayView name = detail::nextItem(names, np);
        std::int64_t offset = 0;
        detail::parseOffset(detail::nextItem(offsets, op), offset);
        f(name, offset);
    }
    return true;
}

} // namespace qrocket::storage
