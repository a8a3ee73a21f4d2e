#pragma once

// RebalanceLockManager: the per-consumer-group queue locks that orderly consumers take with
// LOCK_BATCH_MQ (41) and release with UNLOCK_BATCH_MQ (42), protocol.md §4.7 (RocketMQ's broker
// RebalanceLockManager).
//
// Per group, a table queue -> (clientId, lastUpdateTimestamp). tryLockBatch grants a queue when it
// is free, already held by the same clientId (the lock is renewed), or its holder has not renewed
// it for longer than the lock max live time (then the requester takes it over). The answer is
// exactly the queues the requester holds afterwards. unlockBatch releases only the locks held by
// that clientId (whether or not they have expired). Locks are memory only: a broker restart frees
// them all, as in RocketMQ.
//
// Thread-safety: every method may be called from any thread (one mutex; processor executor
// threads).

#include "clientlib/protocol/bodies/clientbodies.h"

#include <QByteArray>

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <vector>

namespace qrocket::broker {

class RebalanceLockManager
{
public:
    using Clock = std::function<std::int64_t()>; // ms since the epoch
    using MessageQueue = protocol::MessageQueue;

    /// RocketMQ's rocketmq.broker.rebalance.lockMaxLiveTime default.
    static constexpr std::int64_t kDefaultLockMaxLiveTimeMs = 60000;

    explicit RebalanceLockManager(
        std::int64_t lockMaxLiveTimeMs = kDefaultLockMaxLiveTimeMs, Clock clock = {});
    RebalanceLockManager(const RebalanceLockManager &) = delete;
    RebalanceLockManager &operator=(const RebalanceLockManager &) = delete;

    /// Locks (or renews) each queue of `mqs` for `clientId` in `group` where allowed; returns the
    /// queues now held by `clientId` among `mqs`, in request order, duplicates dropped.
    std::vector<MessageQueue> tryLockBatch(
        const QByteArray &group, const std::vector<MessageQueue> &mqs, const QByteArray &clientId);
    /// One queue: true when `clientId` holds it afterwards.
    bool tryLock(const QByteArray &group, const MessageQueue &mq, const QByteArray &clientId);
    /// Releases the queues of `mqs` that `clientId` holds in `group`; returns how many.
    int unlockBatch(
        const QByteArray &group, const std::vector<MessageQueue> &mqs, const QByteArray &clientId);

    /// True when `clientId` holds an unexpired lock on the queue (no renewal).
    bool isLockedBy(
        const QByteArray &group, const MessageQueue &mq, const QByteArray &clientId) const;
    /// The holder of the queue's lock (expired or not), or empty when the queue is free.
    QByteArray holder(const QByteArray &group, const MessageQueue &mq) const;
    /// Lock entries held in `group` (expired ones included until taken over or released).
    int lockCount(const QByteArray &group) const;
    std::int64_t lockMaxLiveTimeMs() const { return m_maxLiveMs; }

private:
    struct LockEntry
    {
        QByteArray clientId;
        std::int64_t lastUpdateTimestamp = 0;
    };
    using GroupTable = std::map<MessageQueue, LockEntry>;

    std::int64_t now() const;
    bool expired(const LockEntry &entry, std::int64_t nowMs) const;
    /// Grants or renews one queue; m_mutex held.
    bool lockOne(GroupTable &table, const MessageQueue &mq, const QByteArray &clientId,
        std::int64_t nowMs, const QByteArray &group);

    const std::int64_t m_maxLiveMs;
    const Clock m_clock;
    mutable std::mutex m_mutex;
    std::map<QByteArray, GroupTable> m_groups; // guarded by m_mutex
};

} // namespace qrocket::broker
