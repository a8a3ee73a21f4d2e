#pragma once

// PullRequestHoldService: long polling for PULL_MESSAGE (protocol.md §4.2, RocketMQ's
// PullRequestHoldService + PullRequest). A pull that found nothing (PULL_NOT_FOUND) with the
// SUSPEND flag is parked here, keyed "topic@queueId", until either
//   - a message arrives for that queue at or after the requested offset that passes the pull's
//     filter: its tags, and its properties for a SQL92 subscription (notifyMessageArriving(),
//     called by the store's reput thread), or
//   - its deadline passes (suspendTimeoutMillis, or shortPollingTimeMills without long polling),
// and is then handed to the wake-up function, which re-executes it with suspension forbidden.
//
// Threads: suspend() runs on pull executor threads; notifyMessageArriving() on the reput thread
// (it returns at once when nothing is held and never runs the wake-up inline for more than
// posting); deadlines are watched by one internal thread. The wake-up function is called
// without any lock held, from the reput thread, a pull thread or the deadline thread: it must
// only post work (e.g. to the pull executor).

#include "clientlib/protocol/remotingcommand.h"
#include "clientlib/remoting/requestprocessor.h"
#include "storage/core/storetypes.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QHashFunctions>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

namespace qrocket::broker {

/// One parked pull: everything needed to re-execute and answer it.
struct HeldPull
{
    remoting::ChannelPtr channel;
    protocol::RemotingCommand request;
    remoting::Responder respond;
    QByteArray topic;
    int queueId = 0;
    std::int64_t pullFromOffset = 0;
    storage::MessageFilter filter;
    std::chrono::steady_clock::time_point suspendedAt;
    std::chrono::steady_clock::time_point deadline;
};

class PullRequestHoldService
{
public:
    using Wakeup = std::function<void(HeldPull &&pull)>;
    /// The queue's max offset (next index to be written), to close the race between a pull that
    /// found nothing and an arrival just before it was parked.
    using MaxOffset = std::function<std::int64_t(QByteArrayView topic, int queueId)>;

    PullRequestHoldService(Wakeup wakeup, MaxOffset maxOffset);
    ~PullRequestHoldService();
    PullRequestHoldService(const PullRequestHoldService &) = delete;
    PullRequestHoldService &operator=(const PullRequestHoldService &) = delete;

    void start();
    /// Stops the deadline thread and drops every parked pull unanswered (the server is stopping
    /// and closes the connections).
    void shutdown();

    /// Parks a pull (or wakes it at once if its queue already has a message at its offset).
    void suspend(HeldPull pull);
    /// A message was dispatched to (topic, queueId) at `queueOffset` with `tagsCode` and
    /// `properties` (for the pulls' property filters).
    void notifyMessageArriving(QByteArrayView topic, int queueId, std::int64_t queueOffset,
        std::int64_t tagsCode, QByteArrayView properties = {});

    int heldCount() const { return m_held.load(std::memory_order_relaxed); }

private:
    static QByteArray key(QByteArrayView topic, int queueId);
    void run();
    /// Takes the pulls of `key` matched by `pred` out of the table (call under m_mutex).
    std::vector<HeldPull> takeLocked(
        const QByteArray &key, const std::function<bool(const HeldPull &)> &pred);

    const Wakeup m_wakeup;
    const MaxOffset m_maxOffset;
    std::atomic<int> m_held {0};
    mutable std::mutex m_mutex;
    std::condition_variable m_cv;
    std::unordered_map<QByteArray, std::vector<HeldPull>> m_table; // guarded by m_mutex
    std::chrono::steady_clock::time_point m_nextDeadline; // guarded by m_mutex
    bool m_stopping = false; // guarded by m_mutex
    std::thread m_thread;
};

} // namespace qrocket::broker
