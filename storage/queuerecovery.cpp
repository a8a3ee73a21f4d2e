// MessageStore: the consume queues at start-up. With recoverConsumeQueuesInBackground (the
// default) open() returns once the commit log is checked; every queue directory found on disk
// becomes a Pending queue, loaded and checked by a background pass or, at once, by the first
// thread that needs it (a put asking for the queue's next offset, a pull, dispatch). A broker
// with 200,000 consume-queue files listens within a second instead of after reading them all
// (RocketMQ #5091: 150 s).
//
// Each queue is checked as the eager recovery checks it (storerecovery.cpp): cut back to the
// commit log's valid end, and a damaged queue gets its missing units back from the commit log
// by a scan of its own (rebuildQueue) instead of recovery's re-dispatch of everything. Until
// every queue is checked, a marker file holds the commit-log end at open: if the process stops
// or dies before, the next start checks all queues first and validates their units past that
// end against the records they point at (a unit past the then valid end, left by a crash or a
// commit log cut while the broker was down, would otherwise point into newer records).

#include "clientlib/common/byteorder.h"
#include "storage/core/logging.h"
#include "storage/core/multidispatch.h"
#include "storage/core/servicethread.h"
#include "storage/messagestore.h"
#include "storage/storerecovery.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>

#include <limits>
#include <sys/stat.h>
#include <thread>

namespace qrocket::storage {

namespace {
/// The queues a dispatched record is filed in: (name, queue id, queue offset) of its own queue
/// and, with multi-dispatch, of each queue INNER_MULTI_DISPATCH names.
template<class Fn>
void forEachFiling(const protocol::MessageRecordView &rec, bool multiDispatch, bool lmq, Fn fn)
{
    const std::int32_t tx = rec.sysFlag & protocol::SysFlag::TransactionMask;
    if (tx != protocol::SysFlag::TransactionNot && tx != protocol::SysFlag::TransactionCommit)
        return;
    fn(rec.topic, rec.queueId, rec.queueOffset);
    if (!multiDispatch)
        return;
    const DispatchProperties props = scanDispatchProperties(rec.properties);
    if (props.multiDispatch.isEmpty())
        return;
    forEachMultiDispatch(props.multiDispatch, props.multiQueueOffset,
        [&](QByteArrayView name, std::int64_t queueOffset) {
            if (name != rec.topic)
                fn(name, lmq && isLmqName(name) ? 0 : rec.queueId, queueOffset);
        });
}

bool isQueue(const ConsumeQueue &cq, QByteArrayView name, int queueId)
{
    return queueId == cq.queueId() && name == QByteArrayView(cq.topic());
}
} // namespace

ConsumeQueue *MessageStore::queueFor(QByteArrayView topic, int queueId, QString *broken) const
{
    char buf[160];
    const std::string_view key = topicQueueKey(topic, queueId, buf);
    ConsumeQueue *cq = nullptr;
    {
        std::shared_lock lock(m_cqMutex);
        if (auto it = m_consumeQueues.find(key); it != m_consumeQueues.end())
            cq = it->second.get();
    }
    if (!cq) {
        if (!m_queuesPending.load(std::memory_order_acquire))
            return nullptr;
        cq = const_cast<MessageStore *>(this)->discoverQueue(topic, queueId);
        if (!cq)
            return nullptr;
    }
    return readyQueue(cq, broken);
}

ConsumeQueue *MessageStore::readyQueue(ConsumeQueue *cq, QString *broken) const
{
    for (;;) {
        switch (cq->state()) {
        case ConsumeQueue::State::Ready:
            return cq;
        case ConsumeQueue::State::Broken:
            if (broken)
                *broken = QStringLiteral("consume queue %1/%2 could not be loaded at start (see "
                                         "the log); its files are kept as they were")
                              .arg(QString::fromUtf8(cq->topic()))
                              .arg(cq->queueId());
            return nullptr;
        case ConsumeQueue::State::Gone:
            return nullptr;
        case ConsumeQueue::State::Pending:
            if (cq->claimRecovery())
                const_cast<MessageStore *>(this)->recoverQueue(*cq);
            break;
        case ConsumeQueue::State::Recovering:
            cq->waitWhileRecovering();
            break;
        }
    }
}

ConsumeQueue *MessageStore::discoverQueue(QByteArrayView topic, int queueId)
{
    if (!isStorableTopicName(topic) || !isStorableQueueId(queueId))
        return nullptr;
    const QByteArray path = QFile::encodeName(m_config.consumeQueueDir()) + '/'
        + topic.toByteArray() + '/' + QByteArray::number(queueId);
    struct stat st
    { };
    if (::stat(path.constData(), &st) != 0 || !S_ISDIR(st.st_mode))
        return nullptr;
    return addPendingQueue(topic, queueId);
}

ConsumeQueue *MessageStore::addPendingQueue(QByteArrayView topic, int queueId)
{
    char buf[160];
    const std::string_view key = topicQueueKey(topic, queueId, buf);
    std::unique_lock lock(m_cqMutex);
    auto &slot = m_consumeQueues[std::string(key)];
    if (!slot) {
        slot = std::make_unique<ConsumeQueue>(topic.toByteArray(), queueId,
            m_config.consumeQueueDir(),
            consumeQueueFileSizeFor(topic, m_config.mappedFileSizeConsumeQueue), m_cqMappings,
            isLmqName(topic));
        slot->setPending();
        if (isLmqName(topic))
            m_lmqQueueCount.fetch_add(1, std::memory_order_relaxed);
    }
    return slot.get();
}

bool MessageStore::isStaleDeletedQueue(ConsumeQueue &cq) const
{
    const auto it = m_deletedAtOpen.find(
        std::string_view(cq.topic().constData(), static_cast<size_t>(cq.topic().size())));
    const MappedFilePtr first = it == m_deletedAtOpen.end() ? nullptr : cq.files().firstFile();
    if (!first)
        return false;
    // A queue re-created after the deletion starts at a record past it.
    const MappedFile::Pin p = first->pin();
    if (!p || first->wrotePosition() < ConsumeQueue::kUnitSize)
        return false;
    const ConsumeQueue::Unit u = ConsumeQueue::decodeUnit(p.data());
    return u.size > 0 && u.size != std::numeric_limits<std::int32_t>::max()
        && u.commitLogOffset < it->second;
}

void MessageStore::recoverQueue(ConsumeQueue &cq)
{
    const QString name = QString::fromUtf8(cq.topic()) + u'/' + QString::number(cq.queueId());
    if (Status st = cq.load(); !st) {
        const QString problem
            = QStringLiteral("consume queue %1 cannot be loaded: %2; not used, its files kept")
                  .arg(name, st.message());
        qCCritical(lcStoreRecovery).noquote() << problem;
        {
            std::lock_guard lock(m_reportMutex);
            m_recovery.problems.append(problem);
        }
        cq.finishRecovery(ConsumeQueue::State::Broken);
        return;
    }
    if (isStaleDeletedQueue(cq)) {
        // deleteTopics() recorded the topic but did not get to delete this queue.
        qCInfo(lcStoreRecovery).noquote()
            << "deleting consume queue" << name
            << "- its topic was deleted after these units were written";
        cq.destroy();
        QDir(m_config.consumeQueueDir()).rmdir(QString::fromUtf8(cq.topic()));
        if (isLmqName(cq.topic()))
            m_lmqQueueCount.fetch_sub(1, std::memory_order_relaxed);
        cq.finishRecovery(ConsumeQueue::State::Gone);
        return;
    }
    const ConsumeQueue::RecoverResult r = cq.recover();
    // Units of records past the commit log's valid end (it was cut back, or lost its tail).
    if (cq.maxPhysicOffset() >= m_recoveryEnd)
        cq.truncateDirtyLogicFiles(m_recoveryEnd);
    bool validated = false;
    if (m_uncheckedFrom >= 0 && cq.maxPhysicOffset() > m_uncheckedFrom) {
        validateUnitsFrom(cq, m_uncheckedFrom);
        validated = true;
    }
    std::int64_t rebuilt = 0;
    if (r.damaged && m_rebuildDamaged) {
        rebuilt = rebuildQueue(cq, std::max<std::int64_t>(cq.maxPhysicOffset(), 0));
        if (rebuilt < 0) {
            cq.finishRecovery(ConsumeQueue::State::Broken);
            return;
        }
    }
    cq.correctMinOffsetAfterRecovery(m_commitLog.minOffset());
    {
        std::lock_guard lock(m_reportMutex);
        m_recovery.consumeQueues++;
        m_recovery.validatedQueues += validated ? 1 : 0;
        m_recovery.rebuiltUnits += std::max<std::int64_t>(rebuilt, 0);
        if (r.damaged) {
            m_recovery.damagedConsumeQueues++;
            m_recovery.problems.append(QStringLiteral(
                "consume queue damaged: %1; kept %2 units; rebuilt from the commit log")
                                           .arg(r.detail)
                                           .arg(r.units));
            const std::int64_t end = std::max<std::int64_t>(cq.maxPhysicOffset(), 0);
            if (m_damagedFrom < 0 || end < m_damagedFrom)
                m_damagedFrom = end;
        }
    }
    cq.finishRecovery(ConsumeQueue::State::Ready);
}

std::int64_t MessageStore::rebuildQueue(ConsumeQueue &cq, std::int64_t from)
{
    QElapsedTimer timer;
    timer.start();
    std::int64_t pos = std::max(from, m_commitLog.minOffset());
    const std::int64_t before = cq.maxOffsetInQueue();
    std::int64_t deletedBelow = 0;
    if (auto it = m_deletedAtOpen.find(
            std::string_view(cq.topic().constData(), static_cast<size_t>(cq.topic().size())));
        it != m_deletedAtOpen.end())
        deletedBelow = it->second;
    qCWarning(lcStoreRecovery).noquote()
        << "rebuilding consume queue" << cq.files().dir() << "from commit-log offset" << pos << "to"
        << m_recoveryEnd;
    protocol::MessageRecordView rec;
    while (pos < m_recoveryEnd) {
        const SelectedRecord sel = m_commitLog.selectFrom(pos);
        if (!sel.isValid())
            break;
        const std::int64_t start = pos;
        QByteArrayView rest = sel.bytes;
        while (!rest.isEmpty() && pos < m_recoveryEnd) {
            const protocol::RecordDecodeResult d = protocol::decodeRecord(rest, rec, false);
            if (d.status == protocol::RecordStatus::Blank) {
                pos = m_commitLog.rollNextFile(pos);
                break;
            }
            if (d.status != protocol::RecordStatus::Ok) {
                rest = {};
                break;
            }
            Status put;
            if (pos >= deletedBelow) {
                forEachFiling(rec, m_config.enableMultiDispatch, m_config.enableLmq,
                    [&](QByteArrayView name, int queueId, std::int64_t queueOffset) {
                        if (put && isQueue(cq, name, queueId))
                            put = cq.putUnit(pos, rec.totalSize,
                                tagsCodeOf(rec, findProperty(rec.properties, kPropertyTags)),
                                queueOffset);
                    });
            }
            if (!put) {
                qCCritical(lcStoreRecovery).noquote()
                    << "consume queue" << cq.files().dir() << "cannot be rebuilt at offset" << pos
                    << ":" << put.message() << "- not used until the next start";
                return -1;
            }
            pos += d.size;
            rest = rest.sliced(d.size);
        }
        if (pos == start)
            break; // nothing readable here
    }
    const std::int64_t units = cq.maxOffsetInQueue() - before;
    qCWarning(lcStoreRecovery).noquote()
        << "consume queue" << cq.files().dir() << "rebuilt:" << units << "units in"
        << timer.elapsed() << "ms";
    return std::max<std::int64_t>(units, 0);
}

bool MessageStore::recordFiledAt(
    const ConsumeQueue &cq, std::int64_t index, std::int64_t offset, std::int32_t size) const
{
    if (offset < m_commitLog.minOffset() || offset + size > m_commitLog.maxOffset())
        return false;
    const SelectedRecord sel = lookMessageByOffset(offset);
    protocol::MessageRecordView rec;
    if (!sel.isValid()
        || protocol::decodeRecord(sel.bytes, rec, false).status != protocol::RecordStatus::Ok
        || rec.totalSize != size || rec.physicalOffset != offset)
        return false;
    bool filed = false;
    forEachFiling(rec, m_config.enableMultiDispatch, m_config.enableLmq,
        [&](QByteArrayView name, int queueId, std::int64_t queueOffset) {
            filed = filed || (queueOffset == index && isQueue(cq, name, queueId));
        });
    return filed;
}

void MessageStore::validateUnitsFrom(ConsumeQueue &cq, std::int64_t from)
{
    std::int64_t index = cq.maxOffsetInQueue();
    const std::int64_t min = cq.minOffsetInQueue();
    ConsumeQueue::Unit u;
    while (index > min && cq.unit(index - 1, u)
        && (ConsumeQueue::isPlaceholder(u) || u.commitLogOffset >= from))
        --index;
    for (const std::int64_t end = cq.maxOffsetInQueue(); index < end; ++index) {
        if (!cq.unit(index, u))
            return;
        if (ConsumeQueue::isPlaceholder(u) || recordFiledAt(cq, index, u.commitLogOffset, u.size))
            continue;
        qCWarning(lcStoreRecovery).noquote()
            << "consume queue" << cq.files().dir() << "unit" << index << "points at offset"
            << u.commitLogOffset << "which holds no record of it (left by an unfinished start);"
            << "cut there";
        cq.truncateDirtyLogicFiles(u.commitLogOffset);
        return;
    }
}

void MessageStore::recoverAllQueues()
{
    const QString rootPath = m_config.consumeQueueDir();
    const QStringList topicDirs = listDirectory(rootPath, true);
    std::vector<int> perTopic(static_cast<std::size_t>(topicDirs.size())); // queues in each
    // Per topic, in parallel (with 100,000s of queues most of a start: a directory listing,
    // then each queue's files).
    parallelFor(perTopic.size(), [&](std::size_t t) {
        if (m_stopQueueRecovery.load(std::memory_order_relaxed))
            return;
        const QString &topic = topicDirs[static_cast<qsizetype>(t)];
        const QString topicPath = rootPath + u'/' + topic;
        const QByteArray topicName = topic.toUtf8();
        for (const QString &qid : listDirectory(topicPath, true)) {
            bool ok = false;
            const int queueId = qid.toInt(&ok);
            ConsumeQueue *cq
                = ok && queueId >= 0 && isStorableTopicName(topicName) && isStorableQueueId(queueId)
                ? addPendingQueue(topicName, queueId)
                : nullptr;
            if (!cq) {
                qCWarning(lcStoreRecovery)
                    << "ignoring foreign directory" << topicPath + u'/' + qid;
                continue;
            }
            readyQueue(cq, nullptr);
            ++perTopic[t];
        }
    });
    QDir root(rootPath);
    for (std::size_t t = 0; t < perTopic.size(); ++t) {
        // Only when it holds no queue: trying it on each of 100,000 topic directories that
        // hold queues cost a path walk each for nothing.
        if (perTopic[t] == 0 && !m_stopQueueRecovery.load(std::memory_order_relaxed))
            root.rmdir(topicDirs[static_cast<qsizetype>(t)]);
    }
}

void MessageStore::recoverPendingQueues()
{
    if (m_options.beforeQueueRecovery)
        m_options.beforeQueueRecovery();
    QElapsedTimer timer;
    timer.start();
    recoverAllQueues();
    if (m_stopQueueRecovery.load())
        return; // the marker stays: the next start checks every queue first
    QFile::remove(uncheckedMarkerPath());
    RecoveryReport rep;
    {
        std::lock_guard lock(m_reportMutex);
        m_recovery.consumeQueueLoadMs = timer.elapsed();
        rep = m_recovery;
    }
    m_queuesPending.store(false, std::memory_order_release);
    qCInfo(lcStoreRecovery).noquote()
        << QStringLiteral("consume queues recovered in the background in %1 ms: %2 queues (%3 "
                          "damaged, %4 units rebuilt from the commit log)")
               .arg(rep.consumeQueueLoadMs)
               .arg(rep.consumeQueues)
               .arg(rep.damagedConsumeQueues)
               .arg(rep.rebuiltUnits);
}

std::int64_t MessageStore::loadQueueOffset(QByteArrayView topic, int queueId, QString &why)
{
    QString broken;
    if (const ConsumeQueue *cq = queueFor(topic, queueId, &broken))
        return cq->maxOffsetInQueue();
    if (broken.isEmpty())
        return 0; // a new queue
    why = broken;
    return -1;
}

bool MessageStore::waitForQueueRecovery(int timeoutMs) const
{
    QElapsedTimer t;
    t.start();
    while (!queuesRecovered()) {
        if (t.hasExpired(timeoutMs))
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return true;
}

RecoveryReport MessageStore::recoveryReport() const
{
    while (!queuesRecovered() && m_queueRecoveryThread && m_queueRecoveryThread->isRunning()
        && !m_stopQueueRecovery.load())
        waitForQueueRecovery(1000);
    std::lock_guard lock(m_reportMutex);
    return m_recovery;
}

QString MessageStore::uncheckedMarkerPath() const
{
    return m_config.storePathRootDir + QStringLiteral("/queuesUnchecked");
}

} // namespace qrocket::storage
