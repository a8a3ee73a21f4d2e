#include "storage/services/reputservice.h"

#include "storage/core/logging.h"

namespace qrocket::storage {

ReputService::ReputService(CommitLog &commitLog, Dispatcher dispatcher)
    : m_commitLog(commitLog), m_dispatcher(std::move(dispatcher))
{ }

std::int64_t ReputService::dispatchBehindBytes() const
{
    return std::max<std::int64_t>(0, m_commitLog.maxOffset() - reputFromOffset());
}

std::int64_t ReputService::doReput()
{
    std::int64_t from = reputFromOffset();
    if (from < m_commitLog.minOffset()) {
        qCWarning(lcStore) << "reput offset" << from << "is below the commit-log min offset"
                           << m_commitLog.minOffset() << "- skipping ahead";
        from = m_commitLog.minOffset();
        setReputFromOffset(from);
    }
    if (from >= m_commitLog.maxOffset())
        return 0;
    const SelectedRecord sel = m_commitLog.selectFrom(from);
    if (!sel.isValid())
        return 0;
    std::int64_t count = 0;
    QByteArrayView rest = sel.bytes;
    protocol::MessageRecordView rec;
    while (!rest.isEmpty()) {
        const protocol::RecordDecodeResult r = protocol::decodeRecord(rest, rec, false);
        if (r.status == protocol::RecordStatus::Ok) {
            if (!m_dispatcher(rec, from))
                break; // logged by the dispatcher; retried on the next pass
            from += r.size;
            rest = rest.sliced(r.size);
            ++count;
            continue;
        }
        if (r.status == protocol::RecordStatus::Blank) {
            from = m_commitLog.rollNextFile(from);
            m_progressed = true;
        } else if (m_lastErrorOffset != from) {
            m_lastErrorOffset = from;
            qCCritical(lcStore).noquote()
                << "reput: unreadable record at commit-log offset" << from << ":" << r.error;
        }
        break;
    }
    setReputFromOffset(from);
    return count;
}

std::int64_t ReputService::dispatchAll()
{
    std::int64_t total = 0;
    for (;;) {
        m_progressed = false;
        const std::int64_t n = doReput();
        if (n == 0 && !m_progressed)
            return total;
        total += n;
    }
}

void ReputService::start()
{
    m_thread.start(
        [this] {
            // Caught up after dispatching something: the writers are busy, so nap 1 ms (dispatching
            // the next batch in one go) instead of being woken, with a futex call on the writer's
            // side, for every append. Caught up twice in a row: idle, wake on the next append.
            bool busy = false;
            while (!m_thread.isStopping()) {
                m_progressed = false;
                if (doReput() > 0 || m_progressed) {
                    busy = true;
                    continue;
                }
                if (busy)
                    m_thread.nap(std::chrono::milliseconds(1));
                else
                    m_thread.waitFor(std::chrono::milliseconds(1));
                busy = false;
            }
        },
        "qr-reput", ServiceThread::Priority::Background);
}

void ReputService::stop()
{
    m_thread.stop();
    dispatchAll();
}

} // namespace qrocket::storage
