// MessageStore: deleting topics' consume queues (DELETE_TOPIC_IN_BROKER) and light queues whose
// messages all left with the commit log's cleaned files.

#include "clientlib/protocol/systemtopics.h"
#include "storage/core/logging.h"
#include "storage/core/multidispatch.h"
#include "storage/messagestore.h"

#include <QDir>
#include <QFile>

#include <algorithm>

namespace qrocket::storage {

int MessageStore::deleteTopics(const QList<QByteArray> &requested)
{
    QList<QByteArray> topics;
    for (const QByteArray &topic : requested) {
        if (isStorableTopicName(topic))
            topics.append(topic);
        else
            qCWarning(lcStore).noquote()
                << "not deleting topic" << topic.left(200).toPercentEncoding()
                << "- not a topic name the store could hold";
    }
    std::vector<ConsumeQueue *> doomed;
    {
        std::lock_guard dispatchLock(m_dispatchMutex);
        const CommitLog::PutLock puts = m_commitLog.lockPuts(); // before m_cqMutex
        std::unique_lock lock(m_cqMutex);
        const std::int64_t appended = m_commitLog.maxOffset();
        for (const QByteArray &topic : topics) {
            for (auto it = m_consumeQueues.begin(); it != m_consumeQueues.end();) {
                if (it->second->topic() == topic) {
                    if (isLmqName(topic))
                        m_lmqQueueCount.fetch_sub(1, std::memory_order_relaxed);
                    doomed.push_back(it->second.get());
                    m_retiredQueues.push_back({m_clock(), std::move(it->second)});
                    it = m_consumeQueues.erase(it);
                } else {
                    ++it;
                }
            }
            m_deletedTopics[topic.toStdString()] = appended;
            m_deletedBelow = std::max(m_deletedBelow, appended);
            m_commitLog.removeTopicQueueOffsets(topic, &puts);
        }
        // A queue still being recovered at start-up is waited for; one not claimed yet never
        // will be (it only goes).
        for (ConsumeQueue *cq : doomed) {
            cq->waitWhileRecovering();
            if (cq->claimRecovery())
                cq->finishRecovery(ConsumeQueue::State::Ready);
        }
        // Recorded before the files go: a crash in between leaves stale queues that the next
        // open recognises (recoverQueue: isStaleDeletedQueue), never re-created ones.
        if (Status s = saveDeletedTopicsLocked(); !s)
            qCCritical(lcStore).noquote()
                << s.message() << "- after a crash, recovery may re-create the deleted queues";
        m_dispatchQueue = nullptr;
        m_dispatchQueueId = -1;
        m_dispatchTopic.clear();
        // Files go while dispatch is held off, so that no write re-creates them.
        for (ConsumeQueue *cq : doomed)
            cq->destroy();
    }
    for (const QByteArray &topic : topics) {
        QDir dir(m_config.consumeQueueDir() + u'/' + QString::fromUtf8(topic));
        if (dir.exists() && !dir.removeRecursively())
            qCWarning(lcStore).noquote() << "could not remove" << dir.path();
        qCInfo(lcStore).noquote() << "deleted topic" << topic << "from the store:"
                                  << std::count_if(doomed.begin(), doomed.end(),
                                         [&](ConsumeQueue *q) { return q->topic() == topic; })
                                  << "consume queues";
    }
    return static_cast<int>(doomed.size());
}

int MessageStore::deleteExpiredLightQueues(std::int64_t commitLogMinOffset)
{
    if (m_lmqQueueCount.load(std::memory_order_relaxed) == 0)
        return 0;
    std::vector<ConsumeQueue *> doomed;
    {
        // As deleteTopics(): no dispatch while queues go, so that no write re-creates them
        // before their files are gone. The queues are retired, freed after a grace period (raw
        // pointers: releaseRetiredQueues()).
        std::lock_guard dispatchLock(m_dispatchMutex);
        const CommitLog::PutLock puts = m_commitLog.lockPuts(); // before m_cqMutex
        std::unique_lock lock(m_cqMutex);
        for (auto it = m_consumeQueues.begin(); it != m_consumeQueues.end();) {
            ConsumeQueue *cq = it->second.get();
            const std::int64_t end = cq->maxPhysicOffset(); // -1: no unit (just created)
            if (cq->state() != ConsumeQueue::State::Ready) {
                ++it; // not recovered yet (start-up): its end is not known
                continue;
            }
            // The commit log's next offset for the queue must still be what was filed: a
            // message appended since (filed after this) would otherwise get an offset the
            // re-created queue had already given out.
            if (!isLmqName(cq->topic()) || end < 0 || end > commitLogMinOffset
                || !m_commitLog.removeQueueOffsetIf(
                    cq->topic(), cq->queueId(), cq->maxOffsetInQueue(), &puts)) {
                ++it;
                continue;
            }
            m_lmqQueueCount.fetch_sub(1, std::memory_order_relaxed);
            doomed.push_back(cq);
            m_retiredQueues.push_back({m_clock(), std::move(it->second)});
            it = m_consumeQueues.erase(it);
        }
        if (doomed.empty())
            return 0;
        m_dispatchQueue = nullptr;
        m_dispatchQueueId = -1;
        m_dispatchTopic.clear();
        for (ConsumeQueue *cq : doomed) {
            cq->destroy(); // removes "%LMQ%name/0", and leaves "%LMQ%name" empty
            QDir().rmdir(QFileInfo(cq->files().dir()).path());
        }
    }
    qCInfo(lcStoreClean).noquote()
        << "deleted" << doomed.size()
        << "light queues whose messages all lie below commit-log min offset" << commitLogMinOffset;
    return static_cast<int>(doomed.size());
}

int MessageStore::releaseRetiredQueues()
{
    std::vector<RetiredQueue> expired;
    {
        std::unique_lock lock(m_cqMutex);
        if (m_retiredQueues.empty())
            return 0;
        const std::int64_t cutoff = m_clock() - kRetiredQueueGraceMs;
        // Retired in time order: the expired ones are a prefix.
        auto end = std::find_if(m_retiredQueues.begin(), m_retiredQueues.end(),
            [&](const RetiredQueue &r) { return r.retiredAtMs > cutoff; });
        expired.assign(
            std::make_move_iterator(m_retiredQueues.begin()), std::make_move_iterator(end));
        m_retiredQueues.erase(m_retiredQueues.begin(), end);
    }
    return static_cast<int>(expired.size()); // freed here, outside the lock
}

int MessageStore::retiredQueueCount() const
{
    std::shared_lock lock(m_cqMutex);
    return static_cast<int>(m_retiredQueues.size());
}

} // namespace qrocket::storage
