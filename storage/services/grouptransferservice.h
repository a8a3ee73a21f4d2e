#pragma once

// GroupTransferService: SYNC_MASTER's wait for a slave (RocketMQ's HAService.GroupTransferService,
// protocol.md §8.8). A put that must be on a slave hands in "replicated up to offset X" with its
// completion; the service thread completes it (PUT_OK, or the status it carried in) once a slave
// acknowledged an offset >= X, or with FLUSH_SLAVE_TIMEOUT after the timeout. Completions run on
// the service thread: putting threads never wait for the slave.
//
// The HA server (broker/ha, which owns the sockets) reports what it learns through
// notifyTransferSome() (a slave's acknowledged offset) and setSlaveConnections(); isSlaveOk()
// answers whether a put may wait at all (a slave connected, and not more than the fall-behind
// limit behind), else the put answers SLAVE_NOT_AVAILABLE at once.
//
// Threading: every public method may be called from any thread after start().

#include "storage/core/servicethread.h"
#include "storage/core/storetypes.h"
#include "storage/services/offsetwaiters.h"

#include <atomic>
#include <functional>

namespace qrocket::storage {

class GroupTransferService
{
public:
    GroupTransferService(int timeoutMs, std::int64_t fallBehindMax);
    ~GroupTransferService();
    GroupTransferService(const GroupTransferService &) = delete;
    GroupTransferService &operator=(const GroupTransferService &) = delete;

    void start();
    /// Completes what the slaves have and fails the rest (FLUSH_SLAVE_TIMEOUT, store shut down).
    void stop();

    /// Completes `cb` with `result` once a slave acknowledged `nextOffset`, or with
    /// FLUSH_SLAVE_TIMEOUT after the timeout (on the service thread; at once after stop()).
    void submit(std::int64_t nextOffset, PutMessageResult result, PutCallback cb);
    /// Blocks until a slave acknowledged `nextOffset`; false (with the reason) after the timeout.
    bool waitTransferred(std::int64_t nextOffset, QString *whyNot);

    /// A slave acknowledged everything below `offset` (the maximum over all slaves is kept).
    void notifyTransferSome(std::int64_t offset);
    /// Controller mode: the acknowledged offset is what the replicas of the SyncStateSet all
    /// have (HAService computes it), which may go down when a replica joins the set; set as is.
    void setAckedOffset(std::int64_t offset);
    void setSlaveConnections(int connections);
    int slaveConnections() const { return m_connections.load(std::memory_order_acquire); }
    /// The largest offset a slave acknowledged (RocketMQ's push2SlaveMaxOffset).
    std::int64_t ackedOffset() const { return m_acked.load(std::memory_order_acquire); }
    /// RocketMQ's isSlaveOK: a slave is connected and `masterPutWhere` is less than the
    /// fall-behind limit ahead of what it acknowledged.
    bool isSlaveOk(std::int64_t masterPutWhere) const
    {
        return slaveConnections() > 0 && masterPutWhere - ackedOffset() < m_fallBehindMax;
    }
    std::int64_t pendingRequests() const { return m_waiters.pending(); }
    /// Controller mode's fence at acknowledgement time: a put a slave acknowledged completes
    /// PUT_OK only while `gate` says this broker is surely the master; after that it completes
    /// SERVICE_NOT_AVAILABLE (stored and replicated, but not acknowledged). Set before start().
    void setAckGate(std::function<bool()> gate) { m_ackGate = std::move(gate); }
    /// What the gate makes of a result about to complete (any thread).
    void applyAckGate(PutMessageResult &r) const;

private:
    void run();
    /// Completes the requests the acknowledged offset covers and, with `expireAll` or past their
    /// deadline, fails the others.
    void completeWorking(bool expireAll);
    QString timeoutRemark(std::int64_t nextOffset) const;

    const std::int64_t m_fallBehindMax;
    std::function<bool()> m_ackGate;
    std::atomic<std::int64_t> m_acked {0};
    std::atomic<int> m_connections {0};
    OffsetWaiters m_waiters;
    std::atomic<bool> m_started {false};
    std::atomic<bool> m_idle {false}; // the service thread sleeps with no request taken
    ServiceThread m_thread;
};

} // namespace qrocket::storage
