#include "storage/services/grouptransferservice.h"

#include <chrono>

namespace qrocket::storage {

namespace {
const QString kShutDownRemark = QStringLiteral("store shut down before a slave had the message");
const QString kFencedRemark = QStringLiteral(
    "replicated, but this broker stopped being the elected master before acknowledging it "
    "(controller mode: lease not held)");
} // namespace

void GroupTransferService::applyAckGate(PutMessageResult &r) const
{
    if (r.isOk() && m_ackGate && !m_ackGate()) {
        r.status = PutMessageStatus::ServiceNotAvailable;
        r.remark = kFencedRemark;
    }
}

GroupTransferService::GroupTransferService(int timeoutMs, std::int64_t fallBehindMax)
    : m_fallBehindMax(fallBehindMax), m_waiters(timeoutMs)
{ }

GroupTransferService::~GroupTransferService()
{
    stop();
}

void GroupTransferService::start()
{
    if (m_started.exchange(true) || m_waiters.isClosed())
        return;
    m_thread.start([this] { run(); }, "qr-hatransfer");
}

void GroupTransferService::stop()
{
    if (!m_waiters.close())
        return;
    m_thread.stop();
    // The thread is gone: whatever is left completes here, once.
    m_waiters.take();
    completeWorking(true);
    m_waiters.shutDown();
}

QString GroupTransferService::timeoutRemark(std::int64_t nextOffset) const
{
    return QStringLiteral("no slave acknowledged the message within %1 ms (slaves acknowledged up "
                          "to %2, needed %3)")
        .arg(m_waiters.timeoutMs())
        .arg(ackedOffset())
        .arg(nextOffset);
}

void GroupTransferService::submit(std::int64_t nextOffset, PutMessageResult result, PutCallback cb)
{
    if (m_waiters.submit(nextOffset, result, cb)) {
        // A service thread with requests wakes every 10 ms and on each acknowledgement anyway;
        // one without any sleeps longer and must hear of this one (seq_cst pair with run()).
        if (m_idle.load())
            m_thread.wakeup();
        return;
    }
    if (ackedOffset() < nextOffset) {
        result.status = PutMessageStatus::FlushSlaveTimeout;
        result.remark = kShutDownRemark;
    }
    applyAckGate(result);
    if (cb)
        cb(result);
}

bool GroupTransferService::waitTransferred(std::int64_t nextOffset, QString *whyNot)
{
    const auto result = m_waiters.block(nextOffset, [this] { return ackedOffset(); });
    if (result == OffsetWaiters::BlockResult::Reached)
        return true;
    if (whyNot)
        *whyNot = result == OffsetWaiters::BlockResult::ShutDown ? kShutDownRemark
                                                                 : timeoutRemark(nextOffset);
    return false;
}

void GroupTransferService::notifyTransferSome(std::int64_t offset)
{
    std::int64_t seen = m_acked.load(std::memory_order_relaxed);
    while (offset > seen) {
        if (m_acked.compare_exchange_weak(seen, offset, std::memory_order_acq_rel)) {
            m_waiters.publish();
            m_thread.wakeup();
            return;
        }
    }
}

void GroupTransferService::setAckedOffset(std::int64_t offset)
{
    if (m_acked.exchange(offset, std::memory_order_acq_rel) < offset) {
        m_waiters.publish();
        m_thread.wakeup();
    }
}

void GroupTransferService::setSlaveConnections(int connections)
{
    m_connections.store(connections, std::memory_order_release);
}

void GroupTransferService::completeWorking(bool expireAll)
{
    const bool shutDown = expireAll && m_waiters.isClosed();
    m_waiters.complete(
        ackedOffset(), expireAll,
        [&](OffsetWaiters::Request &r) {
            r.result.status = PutMessageStatus::FlushSlaveTimeout;
            r.result.remark = shutDown ? kShutDownRemark : timeoutRemark(r.nextOffset);
        },
        [this](OffsetWaiters::Request &r) {
            applyAckGate(r.result);
            if (r.cb)
                r.cb(r.result);
        });
}

void GroupTransferService::run()
{
    // Requests complete in offset order mostly, so each pass is one look at the oldest; the
    // thread sleeps until an acknowledgement moves the offset, a request arrives with none
    // pending, or the oldest deadline (checked at least every 10 ms) passes.
    constexpr auto kCheck = std::chrono::milliseconds(10);
    constexpr auto kIdle = std::chrono::milliseconds(1000);
    while (!m_thread.isStopping()) {
        m_waiters.take();
        if (ackedOffset() < m_waiters.oldestWaiting()) {
            const bool idle = m_waiters.idle();
            m_idle.store(idle);
            if (!idle || m_waiters.queued() == 0)
                m_thread.waitFor(idle ? kIdle : kCheck);
            m_idle.store(false);
            if (m_thread.isStopping())
                return;
            m_waiters.take();
        }
        completeWorking(false);
    }
}

} // namespace qrocket::storage
