#pragma once

// PopHoldService: long polling for POP_MESSAGE and NOTIFICATION (RocketMQ's
// PopLongPollingService). A pop that found nothing with pollTime > 0 is parked under the names
// of the topics it reads (the topic and its POP retry topic) until
//   - a message arrives in one of them (notifyArrival(), from the store's reput thread, or from
//     the revive service when it writes a retry message or frees an orderly queue), or
//   - its deadline passes,
// and is then handed to the wake-up function, which re-executes it (it may park again until its
// deadline when another consumer took the message first). Nothing polls: the deadline thread
// sleeps until the earliest deadline, an arrival only looks up its topic.
//
// The caller closes the race between "found nothing" and "parked" by checking for messages
// again after suspend() returned true (an arrival in between finds the pop parked).
//
// Threads: any thread may suspend and notify; the wake-up function runs without a lock held on
// the notifying thread or the deadline thread and must only post work.

#include "clientlib/protocol/remotingcommand.h"
#include "clientlib/remoting/requestprocessor.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QHashFunctions>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

namespace qrocket::broker::pop {

struct HeldPop
{
    remoting::ChannelPtr channel;
    protocol::RemotingCommand request;
    remoting::Responder respond;
    std::vector<QByteArray> topics; // the keys it is parked under
    std::chrono::steady_clock::time_point deadline;
    std::atomic<bool> taken {false}; // set by whoever wakes it first
};
using HeldPopPtr = std::shared_ptr<HeldPop>;

class PopHoldService
{
public:
    /// `timedOut`: the deadline passed (else a message arrived).
    using Wakeup = std::function<void(HeldPopPtr pop, bool timedOut)>;

    PopHoldService(Wakeup wakeup, int maxHeld);
    ~PopHoldService();
    PopHoldService(const PopHoldService &) = delete;
    PopHoldService &operator=(const PopHoldService &) = delete;

    void start();
    /// Stops the deadline thread and drops every parked pop unanswered.
    void shutdown();

    /// Parks `pop`; false when maxHeld pops are parked already (POLLING_FULL).
    bool suspend(const HeldPopPtr &pop);
    /// Wakes `pop` now (the caller found a message after parking it); no-op when taken.
    void wake(const HeldPopPtr &pop);
    /// A message arrived in `topic`: wakes every pop parked under it.
    void notifyArrival(QByteArrayView topic);
    /// Pops parked under `topic` (POLLING_INFO).
    int heldCount(QByteArrayView topic) const;
    int heldCount() const { return m_held.load(std::memory_order_relaxed); }

private:
    void run();
    void removeLocked(const HeldPopPtr &pop);

    const Wakeup m_wakeup;
    const int m_maxHeld;
    std::atomic<int> m_held {0};
    mutable std::mutex m_mutex;
    std::condition_variable m_cv;
    std::unordered_map<QByteArray, std::vector<HeldPopPtr>> m_table; // guarded by m_mutex
    bool m_stopping = false; // guarded by m_mutex
    // When the deadline thread wakes next: a parked pop due later does not wake it.
    std::chrono::steady_clock::time_point m_nextWake; // guarded by m_mutex
    std::thread m_thread;
};

} // namespace qrocket::broker::pop
