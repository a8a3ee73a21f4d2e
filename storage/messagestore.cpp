#include "storage/messagestore.h"

#include "clientlib/common/hash.h"
#include "clientlib/protocol/systemtopics.h"
#include "storage/core/logging.h"
#include "storage/core/multidispatch.h"
#include "storage/core/prefaultservice.h"
#include "storage/services/cleanservice.h"
#include "storage/services/flushservice.h"
#include "storage/services/grouptransferservice.h"
#include "storage/services/reputservice.h"
#include "storage/storerecovery.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <cstring>
#include <fcntl.h>
#include <future>
#include <unistd.h>

namespace qrocket::storage {

namespace {
std::int64_t systemClock()
{
    return QDateTime::currentMSecsSinceEpoch();
}
} // namespace

MessageStore::MessageStore(MessageStoreConfig config, StoreOptions options)
    : m_config(std::move(config))
    , m_clock(options.clock ? options.clock : std::function<std::int64_t()>(systemClock))
    , m_options(std::move(options))
    , m_checkpoint(m_config.checkpointPath())
    , m_commitLog(m_config, m_clock)
    , m_cqMappings(std::make_shared<MappingCache>(m_config.maxMappedConsumeQueueFiles))
{
    m_delayLevels = m_config.delayLevelMillis();
    m_totalPhysicalMemory
        = static_cast<std::int64_t>(::sysconf(_SC_PHYS_PAGES)) * ::sysconf(_SC_PAGESIZE);
}

MessageStore::~MessageStore()
{
    shutdown();
}

Status MessageStore::open()
{
    if (m_open)
        return Status::invalidArgument(QStringLiteral("store already open"));
    if (Status s = m_config.validate(); !s)
        return s;
    if (!QDir().mkpath(m_config.storePathRootDir))
        return Status::ioError(
            QStringLiteral("cannot create storePathRootDir %1").arg(m_config.storePathRootDir));
    // The clean service measures these partitions before the first file exists in them (as
    // RocketMQ, which creates the commit-log and consume-queue directories at start).
    for (const QString &dir :
        {m_config.commitLogDir(), m_config.consumeQueueDir(), m_config.indexDir()}) {
        if (!QDir().mkpath(dir))
            return Status::ioError(QStringLiteral("cannot create %1").arg(dir));
    }
    if (Status s = m_lock.acquire(m_config.lockPath()); !s)
        return s;
    const bool lastExitOk = !QFile::exists(m_config.abortPath());
    if (Status s = m_checkpoint.open(); !s)
        return s;
    m_index = std::make_unique<IndexService>(
        m_config.indexDir(), m_config.maxHashSlotNum, m_config.maxIndexNum, m_clock);
    m_reput = std::make_unique<ReputService>(
        m_commitLog, [this](const protocol::MessageRecordView &rec, std::int64_t off) {
            return dispatch(rec, off);
        });
    if (Status s = loadDeletedTopics(); !s) {
        m_lock.release();
        return s;
    }
    if (const QString w = m_cqMappings->limitWarning(); !w.isEmpty())
        qCWarning(lcStore).noquote() << w;
    m_commitLog.setQueueOffsetLoader([this](QByteArrayView topic, int queueId, QString &why) {
        return loadQueueOffset(topic, queueId, why);
    });
    StoreRecovery recovery(*this);
    if (Status s = recovery.run(lastExitOk); !s) {
        m_lock.release();
        return s;
    }
    if (m_recovery.queuesInBackground) {
        m_stopQueueRecovery = false;
        m_queueRecoveryThread = std::make_unique<ServiceThread>();
        m_queueRecoveryThread->start([this] { recoverPendingQueues(); }, "qr-cqrecover",
            ServiceThread::Priority::Background);
    }
    // Mark the store running: a crash from now on leaves `abort` behind.
    QFile abort(m_config.abortPath());
    if (!abort.open(QIODevice::WriteOnly))
        return Status::ioError(
            QStringLiteral("cannot create %1: %2").arg(m_config.abortPath(), abort.errorString()));
    abort.close();

    m_commitLog.setAppendListener([this] {
        m_reput->wakeup();
        if (m_appendObserver)
            m_appendObserver();
    });
    m_commitLog.files().prepareNext(m_commitLog.maxOffset());
    if (m_config.isSyncMaster()) {
        // RocketMQ 4.9 waits slaveTimeout (3 s); QRocket waits syncFlushTimeout, as the issue has
        // it.
        m_transfer = std::make_unique<GroupTransferService>(
            m_config.syncFlushTimeout, m_config.haSlaveFallbehindMax);
        if (m_writeGate)
            m_transfer->setAckGate(m_writeGate);
        m_transfer->start();
    }
    if (m_config.isSyncFlush()) {
        m_groupCommit = std::make_unique<GroupCommitService>(m_commitLog.files(), m_checkpoint,
            m_config.syncFlushTimeout, m_commitLog.defersWrites() ? &m_commitLog : nullptr);
        if (m_transfer)
            m_groupCommit->setForward(
                [this](std::int64_t next, PutMessageResult &&r, PutCallback &&cb) {
                    if (waitsForReplica()) {
                        m_transfer->submit(next, std::move(r), std::move(cb));
                        return;
                    }
                    m_transfer->applyAckGate(r);
                    if (cb)
                        cb(r);
                });
        m_groupCommit->start();
    } else {
        m_flushAsync = std::make_unique<FlushCommitLogService>(m_commitLog.files(), m_checkpoint,
            m_config.flushIntervalCommitLog, m_config.flushCommitLogLeastPages,
            m_config.flushCommitLogThoroughInterval);
        m_flushAsync->start();
    }
    m_reput->start();
    m_prefault = std::make_unique<PrefaultService>(
        m_commitLog.files(), kCommitLogPrefaultWindow, !m_config.isSyncFlush());
    // SYNC_FLUSH through pwrite never writes through the mapping: nothing to pre-map.
    if (!m_config.isSyncFlush()
        || MappedFile::syncWriteMethod() == MappedFile::SyncWriteMethod::Mmap)
        m_prefault->start();
    m_clean = std::make_unique<CleanService>(
        m_config, m_commitLog.files(),
        [this](std::int64_t minOffset) { cleanLogicFiles(minOffset); }, m_clock,
        m_options.diskSpace, m_options.cleanStepHook);
    // Known from the start: the runtime info's ratios, and a disk already full refuses the first
    // put (RocketMQ's disk check runs a second after start).
    m_clean->checkDisk();
    m_cqFlushThread = std::make_unique<ServiceThread>();
    m_cqFlushThread->start(
        [this] {
            std::int64_t lastThorough = m_clock();
            while (!m_cqFlushThread->isStopping()) {
                m_cqFlushThread->waitFor(
                    std::chrono::milliseconds(m_config.flushIntervalConsumeQueue));
                int least = m_config.flushConsumeQueueLeastPages;
                if (m_clock() - lastThorough >= m_config.flushConsumeQueueThoroughInterval) {
                    least = 0;
                    lastThorough = m_clock();
                }
                flushConsumeQueues(least);
            }
        },
        "qr-cqflush", ServiceThread::Priority::Idle);
    if (m_options.runCleanService) {
        m_cleanThread = std::make_unique<ServiceThread>();
        m_cleanThread->start(
            [this] {
                while (!m_cleanThread->isStopping()) {
                    m_cleanThread->waitFor(
                        std::chrono::milliseconds(m_config.cleanResourceInterval));
                    if (!m_cleanThread->isStopping()) {
                        m_clean->run();
                        releaseRetiredQueues();
                    }
                }
            },
            "qr-clean", ServiceThread::Priority::Background);
    }
    m_open = true;
    qCInfo(lcStore).noquote() << "store open at" << m_config.storePathRootDir << "commit log"
                              << m_commitLog.minOffset() << ".." << m_commitLog.maxOffset()
                              << (m_config.isSyncFlush() ? "SYNC_FLUSH" : "ASYNC_FLUSH");
    return {};
}

void MessageStore::shutdown()
{
    m_stopQueueRecovery = true; // before isOpen() turns false (tst_queuerecovery)
    if (!m_open.exchange(false))
        return;
    m_commitLog.setWritable(false, QStringLiteral("store is shutting down"));
    if (m_queueRecoveryThread)
        m_queueRecoveryThread->stop(); // what it did not check is checked at the next start
    if (m_cleanThread)
        m_cleanThread->stop();
    if (m_groupCommit)
        m_groupCommit->stop(); // forwards what it completes to the transfer wait
    if (m_transfer)
        m_transfer->stop();
    if (m_flushAsync)
        m_flushAsync->stop();
    m_prefault->stop(); // a no-op when it was not started
    m_reput->stop();
    m_cqFlushThread->stop();
    flushConsumeQueues(0);
    m_commitLog.writePending(); // the group commit's last flush did; nothing is left normally
    if (m_groupCommit || m_flushAsync)
        if (Status s = flushCommitLog(m_commitLog.files(), m_checkpoint, 0); !s)
            qCWarning(lcStore).noquote() << s.message();
    if (Status s = m_checkpoint.flush(); !s)
        qCWarning(lcStore).noquote() << s.message();
    if (m_reput->dispatchBehindBytes() == 0 && m_commitLog.files().flushBacklog() == 0
        && m_commitLog.unwrittenBytes() == 0)
        QFile::remove(m_config.abortPath());
    else
        qCWarning(lcStore)
            << "shutdown with undispatched or unflushed data; keeping abort for a full recovery";
    m_lock.release();
    qCInfo(lcStore).noquote() << "store closed cleanly at commit-log offset"
                              << m_commitLog.maxOffset();
}

bool MessageStore::refusesPut(PutMessageResult &r) const
{
    const bool fenced = m_writeGate && !m_writeGate();
    if (m_open.load() && !m_config.isSlave() && !fenced && !m_clean->isDiskFull())
        return false;
    r.status = PutMessageStatus::ServiceNotAvailable;
    r.remark = !m_open.load() ? QStringLiteral("message store is not open")
        : m_config.isSlave()  ? QStringLiteral("message store is a slave (brokerRole=SLAVE)")
        : fenced ? QStringLiteral("not the elected master (controller mode: lease not held)")
                 : m_clean->refuseReason();
    return true;
}

bool MessageStore::refusesLmqPut(const MessageExtBrokerInner &msg, PutMessageResult &r) const
{
    // RocketMQ's checkLmqMessage (whose put path tests the wrong variable and so never refuses):
    // with more light queues than maxLmqConsumeQueueNum, a put naming queues is refused.
    if (!m_config.enableLmq || !m_config.enableMultiDispatch
        || m_lmqQueueCount.load(std::memory_order_relaxed) <= m_config.maxLmqConsumeQueueNum
        || !mayHaveMultiDispatch(msg.properties)
        || findProperty(msg.properties, kPropertyMultiDispatch).isEmpty())
        return false;
    r.status = PutMessageStatus::UnknownError; // SYSTEM_ERROR, as RocketMQ answers
    r.remark = QStringLiteral("[LMQ_CONSUME_QUEUE_NUM_EXCEEDED]broker config enableLmq and "
                              "enableMultiDispatch, lmq consumeQueue num exceed "
                              "maxLmqConsumeQueueNum config num (%1 light queues, limit %2)")
                   .arg(m_lmqQueueCount.load(std::memory_order_relaxed))
                   .arg(m_config.maxLmqConsumeQueueNum);
    return true;
}

bool MessageStore::refusesTooFewReplicas(bool wait, PutMessageResult &r) const
{
    const int members = m_inSyncReplicas.load(std::memory_order_acquire);
    if (members < 0 || !wait || !m_transfer || members >= m_config.minInSyncReplicas)
        return false;
    r.status = PutMessageStatus::UnknownError; // SYSTEM_ERROR, as RocketMQ 5 answers
    r.remark = QStringLiteral("in-sync replicas not enough (SyncStateSet of %1, "
                              "minInSyncReplicas %2)")
                   .arg(members)
                   .arg(m_config.minInSyncReplicas);
    return true;
}

PutMessageResult MessageStore::appendChecked(const MessageExtBrokerInner &msg)
{
    PutMessageResult r;
    if (!refusesPut(r) && !refusesTooFewReplicas(msg.waitStoreMsgOk, r) && !refusesLmqPut(msg, r))
        r = m_commitLog.append(msg);
    return r;
}

PutMessageResult MessageStore::appendBatchChecked(const std::vector<MessageExtBrokerInner> &msgs)
{
    PutMessageResult r;
    if (refusesPut(r))
        return r;
    if (!msgs.empty() && refusesTooFewReplicas(msgs.front().waitStoreMsgOk, r))
        return r;
    for (const MessageExtBrokerInner &m : msgs) {
        if (refusesLmqPut(m, r))
            return r;
    }
    return m_commitLog.appendBatch(msgs);
}

namespace {
/// The commit-log offset just past a put (a batch may straddle files: its last record ends at
/// the last offset + its size).
std::int64_t putEnd(const PutMessageResult &r)
{
    const std::int64_t next = r.wroteOffset + r.wroteBytes;
    return r.batchOffsets.size() > 1 ? std::max(next, r.batchOffsets.back() + 1) : next;
}
} // namespace

bool MessageStore::notePut(PutMessageResult &r, bool wait)
{
    if (!r.isOk())
        return false;
    m_putCount.fetch_add(r.msgNum, std::memory_order_relaxed);
    m_putBytes.fetch_add(r.wroteBytes, std::memory_order_relaxed);
    if (waitsForReplica() && wait && !m_transfer->isSlaveOk(putEnd(r))) {
        // Stored, but no slave will have it: RocketMQ answers SLAVE_NOT_AVAILABLE (after the
        // flush, under SYNC_FLUSH).
        r.status = PutMessageStatus::SlaveNotAvailable;
        r.remark = m_transfer->slaveConnections() == 0
            ? QStringLiteral("no slave connected (SYNC_MASTER)")
            : QStringLiteral("the slave is more than haSlaveFallbehindMax %1 bytes behind")
                  .arg(m_config.haSlaveFallbehindMax);
        if (m_groupCommit)
            return true;
        return false;
    }
    if (completesLater(wait))
        return true;
    if (m_groupCommit)
        m_groupCommit->wakeup();
    if (m_transfer) // a SYNC_MASTER acknowledging alone (controller mode, SyncStateSet {me})
        m_transfer->applyAckGate(r);
    return false;
}

void MessageStore::deferPut(PutMessageResult r, PutCallback done)
{
    const std::int64_t end = putEnd(r);
    if (m_groupCommit)
        m_groupCommit->submit(end, std::move(r), std::move(done));
    else
        m_transfer->submit(end, std::move(r), std::move(done));
}

PutMessageResult MessageStore::putMessageAndWait(const MessageExtBrokerInner &msg)
{
    PutMessageResult r = appendChecked(msg);
    if (!notePut(r, msg.waitStoreMsgOk))
        return r;
    // No completion object: the caller sleeps on the group commit's flush generation.
    if (QString why; m_groupCommit && !m_groupCommit->waitDurable(putEnd(r), &why)
        && r.status == PutMessageStatus::PutOk) {
        r.status = PutMessageStatus::FlushDiskTimeout;
        r.remark = std::move(why);
    }
    if (QString why; m_transfer && r.status != PutMessageStatus::SlaveNotAvailable
        && !m_transfer->waitTransferred(putEnd(r), &why)) {
        r.status = PutMessageStatus::FlushSlaveTimeout;
        r.remark = std::move(why);
    }
    if (m_transfer)
        m_transfer->applyAckGate(r);
    return r;
}

Status MessageStore::appendReplicated(std::int64_t startOffset, QByteArrayView data)
{
    if (!m_open.load())
        return Status::invalidArgument(QStringLiteral("message store is not open"));
    return m_commitLog.appendData(startOffset, data);
}

std::int64_t MessageStore::defaultTagsCode(const protocol::MessageRecordView &rec) const
{
    std::int64_t code = 0;
    const QByteArrayView tags = findProperty(rec.properties, kPropertyTags);
    if (!tags.isEmpty())
        code = javaStringHash(tags);
    if (rec.topic == protocol::topics::kSchedule) {
        const QByteArrayView delay = findProperty(rec.properties, kPropertyDelay);
        if (!delay.isEmpty()) {
            bool ok = false;
            int level = delay.toByteArray().toInt(&ok);
            if (ok && level > 0 && !m_delayLevels.isEmpty()) {
                level = std::min<int>(level, static_cast<int>(m_delayLevels.size()));
                code = rec.storeTimestamp + m_delayLevels.at(level - 1);
            } else if (ok && level > 0) {
                code = rec.storeTimestamp + 1000;
            }
        }
    }
    return code;
}

std::int64_t MessageStore::tagsCodeOf(
    const protocol::MessageRecordView &rec, QByteArrayView tags) const
{
    if (rec.topic == protocol::topics::kSchedule) // the delivery time instead
        return m_tagsCodeResolver ? m_tagsCodeResolver(rec) : defaultTagsCode(rec);
    if (m_tagsCodeResolver && rec.topic == QByteArrayView("rmq_sys_wheel_timer"))
        return m_tagsCodeResolver(rec); // TIMER_OUT_MS (broker/timer/)
    return tags.isEmpty() ? 0 : javaStringHash(tags);
}

bool MessageStore::dispatch(const protocol::MessageRecordView &rec, std::int64_t offset)
{
    std::lock_guard dispatchLock(m_dispatchMutex); // uncontended but for deleteTopics()
    const std::int32_t tx = rec.sysFlag & protocol::SysFlag::TransactionMask;
    const bool toQueue
        = tx == protocol::SysFlag::TransactionNot || tx == protocol::SysFlag::TransactionCommit;
    // One pass over the properties for everything below (TAGS, KEYS, UNIQ_KEY).
    const DispatchProperties props = scanDispatchProperties(rec.properties);
    const std::int64_t tagsCode = tagsCodeOf(rec, props.tags);
    // Light queues first: once the record's own unit is in, recovery re-dispatches from past it.
    if (toQueue && m_config.enableMultiDispatch && !props.multiDispatch.isEmpty()
        && !dispatchMultiQueues(rec, offset, tagsCode, props))
        return false;
    if (toQueue) {
        ConsumeQueue *cq = m_dispatchQueue;
        if (!cq || rec.queueId != m_dispatchQueueId
            || std::string_view(rec.topic.data(), static_cast<size_t>(rec.topic.size()))
                != m_dispatchTopic) {
            // Records after it belong to the same queue: checked once per run of a queue.
            if (offset < m_deletedBelow && isDeletedRecordLocked(rec.topic, offset))
                return true; // appended before its topic was deleted
            cq = findOrCreateConsumeQueue(rec.topic, rec.queueId);
            m_dispatchQueue = cq;
            m_dispatchQueueId = rec.queueId;
            m_dispatchTopic.assign(rec.topic.data(), static_cast<size_t>(rec.topic.size()));
        }
        if (!cq) {
            // A record whose topic or queue id no consume queue may have (a hostile master's
            // stream, a foreign commit log): kept in the commit log, filed nowhere.
            if (m_undispatchable++ % 10000 == 0)
                qCCritical(lcStore).noquote()
                    << "dispatch: record at offset" << offset << "has topic"
                    << rec.topic.first(std::min<qsizetype>(rec.topic.size(), 200))
                           .toByteArray()
                           .toPercentEncoding()
                    << "queue" << rec.queueId
                    << "that no consume queue may have (or whose queue did not load); not "
                       "dispatched ("
                    << m_undispatchable << "such records so far)";
        } else if (Status s = cq->putUnit(offset, rec.totalSize, tagsCode, rec.queueOffset); !s) {
            // Most likely a full disk (a new consume-queue file): keep the record for the next
            // pass instead of leaving a stored message unreachable.
            if (m_dispatchFailedAt != offset)
                qCCritical(lcStore).noquote() << "dispatch to consume queue failed at offset"
                                              << offset << ":" << s.message() << "- will retry";
            m_dispatchFailedAt = offset;
            return false;
        }
    }
    if (m_config.messageIndexEnable) {
        DispatchRequest req;
        req.topic = rec.topic;
        req.queueId = rec.queueId;
        req.commitLogOffset = offset;
        req.msgSize = rec.totalSize;
        req.storeTimestamp = rec.storeTimestamp;
        req.sysFlag = rec.sysFlag;
        req.keys = props.keys;
        req.uniqKey = props.uniqKey;
        if (Status s = m_index->buildIndex(req); !s)
            qCWarning(lcStore).noquote()
                << "index build failed at offset" << offset << ":" << s.message();
    }
    m_lastDispatchedStoreTs.store(rec.storeTimestamp, std::memory_order_release);
    if (toQueue && m_arrivalListener && m_open.load(std::memory_order_relaxed)) {
        m_arrivalListener(
            rec.topic, rec.queueId, rec.queueOffset, tagsCode, rec.storeTimestamp, rec.properties);
        if (m_config.enableMultiDispatch && !props.multiDispatch.isEmpty()) {
            // Held pulls on the light queues wake too (RocketMQ's reput notifies each of them).
            forEachMultiDispatch(props.multiDispatch, props.multiQueueOffset,
                [&](QByteArrayView name, std::int64_t queueOffset) {
                    m_arrivalListener(name, multiQueueId(name, rec.queueId), queueOffset, tagsCode,
                        rec.storeTimestamp, rec.properties);
                });
        }
    }
    return true;
}

bool MessageStore::dispatchMultiQueues(const protocol::MessageRecordView &rec, std::int64_t offset,
    std::int64_t tagsCode, const DispatchProperties &props)
{
    bool ok = true;
    const bool wellFormed = forEachMultiDispatch(props.multiDispatch, props.multiQueueOffset,
        [&](QByteArrayView name, std::int64_t queueOffset) {
            if (!ok || name == rec.topic)
                return;
            if (offset < m_deletedBelow && isDeletedRecordLocked(name, offset))
                return; // appended before this light queue was deleted
            ConsumeQueue *cq = findOrCreateConsumeQueue(name, multiQueueId(name, rec.queueId));
            if (!cq)
                return; // no storable name: the put refuses those, a foreign log may not
            Status s = cq->putUnit(offset, rec.totalSize, tagsCode, queueOffset);
            if (s)
                return;
            // Retried (a full disk, no descriptor left for a new file) for a while, then given
            // up, as RocketMQ's doDispatchLmqQueue: one light queue must not stop the dispatch
            // of every queue.
            const std::int64_t now = m_clock();
            if (m_multiFailAt != offset) {
                m_multiFailAt = offset;
                m_multiFailSince = now;
                qCCritical(lcStore).noquote()
                    << "dispatch to light queue" << name.toByteArray().toPercentEncoding()
                    << "failed at offset" << offset << ":" << s.message() << "- will retry for"
                    << kLightQueueRetryMs / 1000 << "s";
            }
            if (now - m_multiFailSince < kLightQueueRetryMs) {
                ok = false;
                return;
            }
            ++m_lightQueueUnitsLost;
            qCCritical(lcStore).noquote()
                << "light queue" << name.toByteArray().toPercentEncoding() << "misses the unit"
                << queueOffset << "of the record at offset" << offset << ":" << s.message() << "("
                << m_lightQueueUnitsLost << "light-queue units lost so far)";
        });
    if (!wellFormed && m_malformedMultiDispatch++ % 10000 == 0)
        qCWarning(lcStore) << "dispatch: record at offset" << offset
                           << "has INNER_MULTI_DISPATCH without matching INNER_MULTI_QUEUE_OFFSET;"
                           << "filed in its own queue only (" << m_malformedMultiDispatch
                           << "such records so far)";
    return ok;
}

bool MessageStore::isDeletedRecordLocked(QByteArrayView topic, std::int64_t offset) const
{
    const auto it
        = m_deletedTopics.find(std::string_view(topic.data(), static_cast<size_t>(topic.size())));
    return it != m_deletedTopics.end() && offset < it->second;
}

Status MessageStore::loadDeletedTopics()
{
    const QString path = m_config.deletedTopicsPath();
    QFile f(path);
    if (!f.exists())
        return {};
    if (!f.open(QIODevice::ReadOnly))
        return Status::ioError(QStringLiteral("cannot read %1: %2").arg(path, f.errorString()));
    std::lock_guard lock(m_dispatchMutex);
    // One line per topic: "<commit-log offset> <topic>".
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (line.isEmpty())
            continue;
        const qsizetype sp = line.indexOf(' ');
        bool ok = false;
        const std::int64_t offset = sp > 0 ? line.left(sp).toLongLong(&ok) : 0;
        if (!ok || sp + 1 >= line.size()) {
            qCWarning(lcStoreRecovery).noquote()
                << "ignoring malformed line in" << path << ":" << line.left(200);
            continue;
        }
        m_deletedTopics[line.mid(sp + 1).toStdString()] = offset;
        m_deletedBelow = std::max(m_deletedBelow, offset);
    }
    if (!m_deletedTopics.empty())
        qCInfo(lcStoreRecovery).noquote()
            << m_deletedTopics.size() << "deleted topic(s) from" << path
            << "- their records stored before the deletion are not dispatched";
    return {};
}

Status MessageStore::saveDeletedTopicsLocked()
{
    const QString path = m_config.deletedTopicsPath();
    if (m_deletedTopics.empty()) {
        if (QFile::exists(path) && !QFile::remove(path))
            return Status::ioError(QStringLiteral("cannot remove %1").arg(path));
        return {};
    }
    QByteArray text;
    for (const auto &[topic, offset] : m_deletedTopics)
        text += QByteArray::number(static_cast<qint64>(offset)) + ' '
            + QByteArray::fromStdString(topic) + '\n';
    return writeFileDurably(path, text);
}

ConsumeQueue *MessageStore::findOrCreateConsumeQueue(QByteArrayView topic, int queueId)
{
    QString broken;
    if (ConsumeQueue *cq = queueFor(topic, queueId, &broken))
        return cq;
    if (!broken.isEmpty() || !isStorableTopicName(topic) || !isStorableQueueId(queueId))
        return nullptr; // never a path built from such a name, nor a queue that did not load
    char buf[160];
    const std::string_view key = topicQueueKey(topic, queueId, buf);
    std::unique_lock lock(m_cqMutex);
    auto &slot = m_consumeQueues[std::string(key)];
    if (slot && slot->state() == ConsumeQueue::State::Gone) {
        // A deleted topic's stale queue: retired as deleteTopics() retires its queues.
        m_retiredQueues.push_back({m_clock(), std::move(slot)});
    } else if (slot && slot->state() != ConsumeQueue::State::Ready) {
        ConsumeQueue *found = slot.get(); // found on disk meanwhile: recovered first
        lock.unlock();
        return readyQueue(found, nullptr);
    }
    if (!slot) {
        slot = std::make_unique<ConsumeQueue>(topic.toByteArray(), queueId,
            m_config.consumeQueueDir(),
            consumeQueueFileSizeFor(topic, m_config.mappedFileSizeConsumeQueue), m_cqMappings,
            isLmqName(topic));
        if (isLmqName(topic))
            m_lmqQueueCount.fetch_add(1, std::memory_order_relaxed);
    }
    return slot.get();
}

std::vector<ConsumeQueue *> MessageStore::consumeQueues() const
{
    std::shared_lock lock(m_cqMutex);
    std::vector<ConsumeQueue *> out;
    out.reserve(m_consumeQueues.size());
    for (const auto &[k, q] : m_consumeQueues)
        if (q->state() == ConsumeQueue::State::Ready)
            out.push_back(q.get());
    return out;
}

void MessageStore::flushConsumeQueues(int leastPages)
{
    const std::int64_t logicsTs = m_lastDispatchedStoreTs.load(std::memory_order_acquire);
    bool ok = true;
    const std::vector<ConsumeQueue *> queues = consumeQueues();
    if (leastPages != 0 || !syncConsumeQueuesAtOnce(queues)) {
        for (ConsumeQueue *cq : queues) {
            if (auto r = cq->flush(leastPages); !r) {
                ok = false;
                qCWarning(lcStoreFlush).noquote()
                    << "consume queue flush failed:" << r.error().message();
            }
        }
    }
    if (ok && logicsTs > 0) {
        m_checkpoint.setLogicsMsgTimestamp(logicsTs);
        // A slave's commit log is written by appendReplicated, which records no store time
        // (the records are the master's bytes); as in RocketMQ 4.9.7 (ConsumeQueue's
        // putMessagePositionInfoWrapper on a SLAVE), the dispatched records' time stands in.
        if (m_config.isSlave())
            m_checkpoint.setPhysicMsgTimestamp(logicsTs);
    }
    // The index is flushed in thorough rounds only (and when a file fills up, and at shutdown):
    // its hash slots are written at random, so a round rewrites nearly every slot page (~20 MB
    // a second at 50k msgs/s) for a file recovery can rebuild from the commit log. RocketMQ
    // flushes it only when full; a thorough round bounds the rebuild after a crash to one
    // flushConsumeQueueThoroughInterval of messages.
    if (m_config.messageIndexEnable && m_index && leastPages == 0) {
        const std::int64_t indexTs = m_index->flush();
        if (indexTs > 0)
            m_checkpoint.setIndexMsgTimestamp(indexTs);
    }
    if (Status s = m_checkpoint.flush(); !s)
        qCWarning(lcStoreFlush).noquote() << s.message();
}

bool MessageStore::syncConsumeQueuesAtOnce(const std::vector<ConsumeQueue *> &queues)
{
    // One fdatasync per file costs a journal commit each (their blocks were preallocated
    // unwritten, so the first write to each converts an extent): 5,000 light queues took 20 s
    // to stop. syncfs writes back every dirty page of the file system and commits once. The
    // targets are taken before it: whatever is appended meanwhile waits for the next round.
    constexpr size_t kAtOnceFrom = 16;
    std::vector<std::pair<ConsumeQueue *, std::int64_t>> dirty;
    for (ConsumeQueue *cq : queues) {
        const std::int64_t target = cq->files().maxOffset();
        if (target > cq->files().flushedWhere())
            dirty.emplace_back(cq, target);
    }
    if (dirty.size() < kAtOnceFrom)
        return false;
    const int fd = ::open(QFile::encodeName(m_config.consumeQueueDir()).constData(),
        O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return false;
    const int rc = ::syncfs(fd);
    const int err = errno;
    ::close(fd);
    if (rc != 0) {
        qCWarning(lcStoreFlush).noquote()
            << "syncfs of" << m_config.consumeQueueDir() << "failed:" << std::strerror(err)
            << "- flushing each consume queue";
        return false;
    }
    for (const auto &[cq, target] : dirty)
        cq->files().markFlushed(target);
    return true;
}

void MessageStore::cleanLogicFiles(std::int64_t commitLogMinOffset)
{
    int cqFiles = 0;
    const CleanStepHook &hook = m_options.cleanStepHook;
    for (ConsumeQueue *cq : consumeQueues()) {
        std::function<void()> step; // tests only
        if (hook)
            step = [&] { hook(CleanStep::ConsumeQueueFilesDeleted, cq->topic(), cq->queueId()); };
        cqFiles += cq->deleteExpiredFiles(commitLogMinOffset, step);
    }
    const int idxFiles = m_index->deleteExpiredFiles(commitLogMinOffset);
    deleteExpiredLightQueues(commitLogMinOffset);
    {
        // Deleted topics whose old records are all gone need no entry any more.
        std::lock_guard lock(m_dispatchMutex);
        if (std::erase_if(m_deletedTopics,
                [&](const auto &entry) { return entry.second <= commitLogMinOffset; })
            > 0) {
            m_deletedBelow = 0;
            for (const auto &[topic, offset] : m_deletedTopics)
                m_deletedBelow = std::max(m_deletedBelow, offset);
            if (Status s = saveDeletedTopicsLocked(); !s)
                qCWarning(lcStoreClean).noquote() << s.message();
        }
    }
    qCInfo(lcStoreClean).noquote()
        << "logic files below commit-log min offset" << commitLogMinOffset << ": deleted" << cqFiles
        << "consume-queue and" << idxFiles << "index files";
}

} // namespace qrocket::storage
