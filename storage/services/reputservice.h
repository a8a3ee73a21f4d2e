#pragma once

// ReputService: follows the commit log from reputFromOffset and hands each record to the
// dispatcher (consume queue unit + index entries + arrival listener). Runs on its own thread
// after start; recovery calls dispatchAll() synchronously before that.

#include "storage/core/commitlog.h"
#include "storage/core/servicethread.h"

#include <atomic>
#include <functional>

namespace qrocket::storage {

class ReputService
{
public:
    /// False when the record could not be dispatched (a consume-queue file could not be
    /// created: disk full); reput stops there and tries again later.
    using Dispatcher
        = std::function<bool(const protocol::MessageRecordView &record, std::int64_t offset)>;

    ReputService(CommitLog &commitLog, Dispatcher dispatcher);

    void setReputFromOffset(std::int64_t o) { m_reputFrom.store(o, std::memory_order_release); }
    std::int64_t reputFromOffset() const { return m_reputFrom.load(std::memory_order_acquire); }
    std::int64_t dispatchBehindBytes() const;

    /// Dispatches everything currently in the commit log; returns the number of records.
    std::int64_t dispatchAll();
    void start();
    void stop();
    void wakeup() { m_thread.wakeup(); }

private:
    /// One pass over the file holding reputFrom; returns records dispatched.
    std::int64_t doReput();

    CommitLog &m_commitLog;
    Dispatcher m_dispatcher;
    std::atomic<std::int64_t> m_reputFrom {0};
    std::int64_t m_lastErrorOffset = -1;
    bool m_progressed = false; // a BLANK record moved reputFrom without dispatching

    ServiceThread m_thread;
};

} // namespace qrocket::storage
