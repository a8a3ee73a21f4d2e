#pragma once

// MessageStore: the facade the broker uses (RocketMQ's DefaultMessageStore). Owns the commit
// log, the consume queues, the index, the checkpoint/abort/lock files and the service threads
// (flush, group commit, reput, consume-queue flush, cleanup).
//
// Lifecycle: construct with a config, open() (lock, load, recover, start services), use, then
// shutdown() (or the destructor) for a clean stop that removes `abort`.
//
// Threading: every public method may be called from any thread after open(). Put completions
// run on the calling thread (async flush, or WAIT=false), on the group-commit thread
// (SYNC_FLUSH) or on the HA transfer thread (SYNC_MASTER): keep them short. The arrival listener
// runs on the reput thread.
//
// Replication (protocol.md §8.8): the store holds no sockets. On a SYNC_MASTER, groupTransfer()
// is the wait for a slave that the broker's HA server feeds with the slaves' acknowledgements; a
// put that waits completes after the flush (SYNC_FLUSH) and a slave's acknowledgement, or
// SLAVE_NOT_AVAILABLE at once when no slave can take it. On a SLAVE, appendReplicated() writes
// the master's bytes verbatim and reput files them as usual.

#include "storage/core/commitlog.h"
#include "storage/core/consumequeue.h"
#include "storage/core/indexservice.h"
#include "storage/core/mappingcache.h"
#include "storage/core/recordutil.h"
#include "storage/core/storecheckpoint.h"
#include "storage/core/storeconfig.h"
#include "storage/core/storetypes.h"
#include "storage/storestats.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <type_traits>

namespace qrocket::storage {

class FlushCommitLogService;
class GroupCommitService;
class GroupTransferService;
class ReputService;
class PrefaultService;
class CleanService;
class ServiceThread;

struct StoreOptions
{
    std::function<std::int64_t()> clock; // ms since epoch; default: the system clock
    /// Measures the partitions the clean service checks (commit log, consume queue, index) and
    /// the runtime info's commitLogDirCapacity; default: statvfs (storage/diskspace.h).
    DiskSpaceProbe diskSpace;
    bool runCleanService = true; // tests drive cleanService().run() themselves
    CleanStepHook cleanStepHook; // tests: look at the store between the steps of a cleanup
    /// Tests: runs on the background queue recovery's thread before it checks any queue (hold
    /// it to see queues recovered on first use).
    std::function<void()> beforeQueueRecovery;
};

class MessageStore
{
public:
    /// (topic, queueId, queue offset of the new message, tagsCode, store timestamp, the
    /// record's properties: valid only during the call)
    using ArrivalListener
        = std::function<void(QByteArrayView topic, int queueId, std::int64_t queueOffset,
            std::int64_t tagsCode, std::int64_t storeTimestamp, QByteArrayView properties)>;
    /// Derives the CQ tagsCode of a SCHEDULE_TOPIC_XXXX record (default: its delivery time from
    /// the store's delay levels, or the TAGS hash without a level) and, when set, of a
    /// rmq_sys_wheel_timer record (broker/timer/: its TIMER_OUT_MS). Records of other topics
    /// always get the TAGS hash (0 without tags), as RocketMQ's dispatch computes it.
    using TagsCodeResolver = std::function<std::int64_t(const protocol::MessageRecordView &record)>;

    explicit MessageStore(MessageStoreConfig config, StoreOptions options = {});
    ~MessageStore();
    MessageStore(const MessageStore &) = delete;
    MessageStore &operator=(const MessageStore &) = delete;

    /// Set before open().
    void setArrivalListener(ArrivalListener l) { m_arrivalListener = std::move(l); }
    void setTagsCodeResolver(TagsCodeResolver r) { m_tagsCodeResolver = std::move(r); }
    /// Called whenever appended bytes become readable (commitLogData() has more): the HA server
    /// wakes its idle connections. Any thread; keep it to a few atomics. Set before open().
    void setAppendObserver(std::function<void()> o) { m_appendObserver = std::move(o); }
    /// Controller mode's fence: every put first asks `gate` (any thread; keep it to an atomic
    /// load and a clock read) and is refused with SERVICE_NOT_AVAILABLE when it says no (this
    /// broker is not, or no longer surely, the elected master). Set before open().
    void setWriteGate(std::function<bool()> gate) { m_writeGate = std::move(gate); }
    /// SYNC_MASTER only: whether a put waits for a slave's acknowledgement (default true).
    /// Controller mode turns it off while the SyncStateSet is the master alone and on before a
    /// replica joins the set (any thread; a put already waiting keeps waiting).
    void setReplicaAcksRequired(bool required)
    {
        m_replicaAcks.store(required, std::memory_order_release);
    }

    /// Controller mode: the SyncStateSet's size, master included (-1: not in controller mode).
    /// While it is below minInSyncReplicas, a put whose sender waits is refused before it is
    /// stored (UNKNOWN_ERROR: SYSTEM_ERROR "in-sync replicas not enough", as RocketMQ 5).
    void setInSyncReplicas(int members)
    {
        m_inSyncReplicas.store(members, std::memory_order_release);
    }

    Status open();
    void shutdown();
    bool isOpen() const { return m_open.load(); }
    const MessageStoreConfig &config() const { return m_config; }
    /// What recovery found. Its consume-queue figures are final once every queue found at open
    /// has been checked: this waits for that (see queuesRecovered()).
    RecoveryReport recoveryReport() const;
    /// With recoverConsumeQueuesInBackground, open() returns once the commit log is checked and
    /// what a crash left undispatched is filed; the consume queues found on disk are then
    /// loaded and checked on background threads, each one at once when something uses it first
    /// (a put, a pull, an offset query, dispatch). True when none is left.
    bool queuesRecovered() const { return !m_queuesPending.load(std::memory_order_acquire); }
    /// Waits up to `timeoutMs` for queuesRecovered().
    bool waitForQueueRecovery(int timeoutMs) const;

    // --- writes -------------------------------------------------------------------------
    /// Appends and completes `done(const PutMessageResult &)`: in line, or from the group-commit
    /// thread when the put completes later (putCompletesLater()). Only then does `done` become a
    /// PutCallback, so a put completed in line allocates nothing for its completion.
    template<class Done>
    void putMessage(const MessageExtBrokerInner &msg, Done &&done)
    {
        completePut(appendChecked(msg), msg.waitStoreMsgOk, std::forward<Done>(done));
    }
    /// A batch to one topic-queue, consecutive queue offsets; one completion.
    template<class Done>
    void putMessages(const std::vector<MessageExtBrokerInner> &msgs, Done &&done)
    {
        completePut(appendBatchChecked(msgs), msgs.empty() || msgs.front().waitStoreMsgOk,
            std::forward<Done>(done));
    }
    /// Blocking convenience for tests and tools: waits for the completion.
    PutMessageResult putMessageAndWait(const MessageExtBrokerInner &msg);
    /// Whether a put of `msg` completes later: SYNC_FLUSH or SYNC_MASTER, and the sender waits.
    bool putCompletesLater(const MessageExtBrokerInner &msg) const
    {
        return completesLater(msg.waitStoreMsgOk);
    }

    // --- reads --------------------------------------------------------------------------
    GetMessageResult getMessage(QByteArrayView group, QByteArrayView topic, int queueId,
        std::int64_t offset, int maxMsgNums, const MessageFilter *filter = nullptr) const;
    std::int64_t minOffsetInQueue(QByteArrayView topic, int queueId) const;
    std::int64_t maxOffsetInQueue(QByteArrayView topic, int queueId) const;
    /// First queue offset whose store time >= timestamp (binary search); maxOffset if none.
    std::int64_t offsetInQueueByTime(
        QByteArrayView topic, int queueId, std::int64_t timestamp) const;
    /// True when the message at a queue offset exists and lies within the part of the commit
    /// log reads are served from memory (accessMessageInMemoryMaxRatio of physical memory
    /// from its end: the pull path's rule), as RocketMQ's checkInMemByConsumeOffset.
    bool inMemoryAt(QByteArrayView topic, int queueId, std::int64_t queueOffset) const;
    /// Commit-log offset of the message at a queue offset, or -1.
    std::int64_t commitLogOffsetAt(
        QByteArrayView topic, int queueId, std::int64_t queueOffset) const;
    /// Store time of the message at a queue offset, or -1.
    std::int64_t messageStoreTimestamp(
        QByteArrayView topic, int queueId, std::int64_t queueOffset) const;
    /// Store time of the newest message of a queue, or -1.
    std::int64_t lastStoreTime(QByteArrayView topic, int queueId) const;
    /// Store time of the oldest message in the commit log, or -1.
    std::int64_t earliestMessageTime() const;
    std::int64_t earliestMessageTime(QByteArrayView topic, int queueId) const;
    /// The whole record stored at a commit-log offset (VIEW_MESSAGE_BY_ID).
    SelectedRecord lookMessageByOffset(std::int64_t commitLogOffset) const;
    /// QUERY_MESSAGE: records whose KEYS or UNIQ_KEY equal `key`, stored within [begin, end].
    QueryMessageResult queryMessage(QByteArrayView topic, QByteArrayView key, int maxNum,
        std::int64_t begin, std::int64_t end) const;
    std::int64_t commitLogMinOffset() const { return m_commitLog.minOffset(); }
    std::int64_t commitLogMaxOffset() const { return m_commitLog.maxOffset(); }
    /// Raw commit-log bytes from an offset to the end of its file (HA transfer).
    SelectedRecord commitLogData(std::int64_t offset) const
    {
        return m_commitLog.selectFrom(offset);
    }
    /// A slave's write (HA): appends `data`, raw commit-log bytes the master had at
    /// `startOffset`, which must be this store's commitLogMaxOffset() (or anything while the
    /// commit log is empty: it then starts at the file holding `startOffset`). The bytes cross
    /// into a new file where the master's did. Reput files the records as usual.
    Status appendReplicated(std::int64_t startOffset, QByteArrayView data);
    /// SYNC_MASTER: the wait for a slave's acknowledgement, fed by the HA server; else null.
    GroupTransferService *groupTransfer() const { return m_transfer.get(); }

    StoreStats stats() const;
    /// The same figures without the rates (putTps, getFoundTps stay 0) and without moving the
    /// rates' baseline: what a reader other than the once-a-second sampler (GET /metrics) takes.
    StoreStats statsSnapshot() const;
    std::int64_t dispatchBehindBytes() const;
    /// The commit-log offset below which every record has been dispatched (consume queues,
    /// index, arrival listener).
    std::int64_t dispatchedOffset() const;
    /// Blocks until reput has dispatched everything appended so far (tests), or timeout.
    bool waitForDispatch(int timeoutMs) const;
    /// Runs one cleanup pass now (also runs every cleanResourceInterval ms).
    CleanService &cleanService() { return *m_clean; }
    /// The partitions as the clean service last measured them (what its marks were compared
    /// with): the runtime info and a refused send report these, never a figure of their own.
    DiskMeasure diskMeasure() const;
    /// The store's disk probe for any path (StoreOptions::diskSpace).
    DiskSpace diskSpace(const QString &path) const;
    /// Flushes the consume queues (those with at least `leastPages` dirty pages; 0: all), the
    /// index (only when leastPages is 0) and the checkpoint. Runs every
    /// flushIntervalConsumeQueue ms, with 0 every flushConsumeQueueThoroughInterval ms.
    void flushConsumeQueues(int leastPages);

    /// DELETE_TOPIC_IN_BROKER (RocketMQ's DefaultMessageStore.deleteTopics): removes the consume
    /// queues of `topics` (files, directories, in-memory state) and their next queue offsets,
    /// so that a re-created topic starts at queue offset 0. Records already in the commit log
    /// stay until they age out; reput no longer files them under the deleted topic, also after
    /// a restart: each topic is recorded in `deletedTopics` (config().deletedTopicsPath()) with
    /// the commit-log end at deletion, below which its records are never dispatched again (the
    /// entry goes once the commit log starts past it). Safe against concurrent dispatch and
    /// reads. Returns the number of consume queues deleted.
    /// A name that is no storable topic (isStorableTopicName) is skipped with a warning.
    int deleteTopics(const QList<QByteArray> &topics);

    /// The queue, recovered first if it has not been yet (queuesRecovered()); null when there is
    /// none or its files could not be loaded.
    ConsumeQueue *findConsumeQueue(QByteArrayView topic, int queueId) const
    {
        return queueFor(topic, queueId, nullptr);
    }
    /// Consume queues of light-queue ("%LMQ%") topics.
    /// Deletes the light queues (`%LMQ%` consume queues) whose every message lies below
    /// `commitLogMinOffset` (the commit-log files holding them were deleted): their files and
    /// directories and their next queue offset, as RocketMQ's cleanExpiredConsumerQueue does. A
    /// queue named by a message appended but not yet filed is kept. A light queue named again
    /// later starts at offset 0. Runs after each commit-log clean-up (cleanLogicFiles); returns
    /// how many went.
    int deleteExpiredLightQueues(std::int64_t commitLogMinOffset);
    /// Light queues (while queuesRecovered() is false: those found so far, so that a start
    /// may let maxLmqConsumeQueueNum be passed until the count is complete).
    int lmqConsumeQueueCount() const { return m_lmqQueueCount.load(std::memory_order_relaxed); }
    /// How long a deleted consume queue's object outlives its deletion (its files go at once):
    /// findConsumeQueue()/consumeQueues() hand out raw pointers that a reader uses without the
    /// lock for the length of one pull, flush round or stats walk, seconds at most.
    static constexpr std::int64_t kRetiredQueueGraceMs = 10 * 60 * 1000;
    /// Frees the deleted queues retired more than kRetiredQueueGraceMs ago (store clock); runs
    /// with each clean-up, so light queues coming and going for months keep a bounded heap.
    /// Returns how many were freed.
    int releaseRetiredQueues();
    /// Deleted queues not freed yet.
    int retiredQueueCount() const;
    /// The recovered queues (while queuesRecovered() is false, those checked so far).
    std::vector<ConsumeQueue *> consumeQueues() const;
    /// The consume queues' mapped files (maxMappedConsumeQueueFiles).
    const MappingCache &consumeQueueMappings() const { return *m_cqMappings; }

private:
    friend class StoreRecovery;
    ConsumeQueue *findOrCreateConsumeQueue(QByteArrayView topic, int queueId);

    // --- start-up: consume queues recovered when first used (queuerecovery.cpp) ---------
    /// findConsumeQueue(); `broken` (if given) says why a queue that exists cannot be used.
    ConsumeQueue *queueFor(QByteArrayView topic, int queueId, QString *broken) const;
    /// Recovers `cq` if it is Pending (or waits for the thread that does); null if Broken.
    ConsumeQueue *readyQueue(ConsumeQueue *cq, QString *broken) const;
    /// While queues are pending: the queue of a directory on disk not listed yet, Pending.
    ConsumeQueue *discoverQueue(QByteArrayView topic, int queueId);
    /// Inserts a Pending queue for a directory on disk unless one exists.
    ConsumeQueue *addPendingQueue(QByteArrayView topic, int queueId);
    /// Loads and checks a claimed queue: cut back to the recovered commit log, units of an
    /// unfinished earlier start validated, a damaged queue rebuilt from the commit log
    /// (m_rebuildDamaged), then Ready (or Broken).
    void recoverQueue(ConsumeQueue &cq);
    /// Files into `cq` its records in [from, m_recoveryEnd) (a damaged queue's missing units).
    std::int64_t rebuildQueue(ConsumeQueue &cq, std::int64_t from);
    /// Cuts `cq` back at its first unit at or past `from` that is not its record.
    void validateUnitsFrom(ConsumeQueue &cq, std::int64_t from);
    /// Whether the record at `offset` is filed in `cq` at `index` with `size`.
    bool recordFiledAt(
        const ConsumeQueue &cq, std::int64_t index, std::int64_t offset, std::int32_t size) const;
    /// Lists the consume-queue directories and recovers every queue in them (in parallel),
    /// adding those not known yet.
    void recoverAllQueues();
    /// The background pass: every Pending queue recovered, then the marker file removed.
    void recoverPendingQueues();
    /// The CommitLog's QueueOffsetLoader: a queue's end, recovering it first.
    std::int64_t loadQueueOffset(QByteArrayView topic, int queueId, QString &why);
    QString uncheckedMarkerPath() const;
    /// False when the consume-queue unit could not be written (reput retries the record).
    bool dispatch(const protocol::MessageRecordView &rec, std::int64_t offset);
    /// The units of the queues INNER_MULTI_DISPATCH names (multidispatch.h); false when one could
    /// not be written. Caller holds m_dispatchMutex.
    bool dispatchMultiQueues(const protocol::MessageRecordView &rec, std::int64_t offset,
        std::int64_t tagsCode, const DispatchProperties &props);
    /// The queue id a multi-dispatch name is filed under: 0 for a light queue (enableLmq).
    int multiQueueId(QByteArrayView name, int ownQueueId) const
    {
        return m_config.enableLmq && name.startsWith("%LMQ%") ? 0 : ownQueueId;
    }
    /// maxLmqConsumeQueueNum exceeded and `msg` names queues: fills `r` and answers true.
    bool refusesLmqPut(const MessageExtBrokerInner &msg, PutMessageResult &r) const;
    /// Controller mode: fewer SyncStateSet members than minInSyncReplicas (setInSyncReplicas()).
    bool refusesTooFewReplicas(bool wait, PutMessageResult &r) const;
    std::int64_t defaultTagsCode(const protocol::MessageRecordView &rec) const;
    /// A record's consume-queue tagsCode (its TAGS value `tags`; see TagsCodeResolver).
    std::int64_t tagsCodeOf(const protocol::MessageRecordView &rec, QByteArrayView tags) const;
    /// The put's checks and the commit-log append, without completion.
    PutMessageResult appendChecked(const MessageExtBrokerInner &msg);
    PutMessageResult appendBatchChecked(const std::vector<MessageExtBrokerInner> &msgs);
    /// Why the store takes no put now (not open, a slave, disk full): fills `r` and answers true.
    bool refusesPut(PutMessageResult &r) const;
    /// The rule behind putCompletesLater(), for a put (or batch) whose sender waits iff `wait`.
    bool completesLater(bool wait) const { return wait && (m_groupCommit || waitsForReplica()); }
    bool waitsForReplica() const
    {
        return m_transfer && m_replicaAcks.load(std::memory_order_acquire);
    }
    /// Counts an appended put and, under SYNC_FLUSH, wakes the group commit; true when the put
    /// succeeded and completes later (completesLater()). On a SYNC_MASTER without a slave able
    /// to take it, marks it SLAVE_NOT_AVAILABLE (it still waits for the flush under SYNC_FLUSH).
    bool notePut(PutMessageResult &r, bool wait);
    /// Hands a put that completes later to the group commit, or the wait for a slave.
    void deferPut(PutMessageResult r, PutCallback done);
    template<class Done>
    void completePut(PutMessageResult r, bool wait, Done &&done)
    {
        if (notePut(r, wait)) {
            deferPut(std::move(r), PutCallback(std::forward<Done>(done)));
            return;
        }
        if constexpr (std::is_same_v<std::decay_t<Done>, PutCallback>) {
            if (!done)
                return;
        }
        done(r);
    }
    void cleanLogicFiles(std::int64_t commitLogMinOffset);
    /// A thorough flush of many consume queues by one syncfs; false when there are few to
    /// flush or syncfs failed (then each is flushed on its own).
    bool syncConsumeQueuesAtOnce(const std::vector<ConsumeQueue *> &queues);
    /// A loaded queue of a deleted topic holding records from before the deletion (the
    /// deletions known at open).
    bool isStaleDeletedQueue(ConsumeQueue &cq) const;
    /// Reads `deletedTopics` into m_deletedTopics (before recovery dispatches anything).
    Status loadDeletedTopics();
    /// Writes m_deletedTopics durably (temporary file, fsync, rename, fsync of the directory).
    /// Caller holds m_dispatchMutex.
    Status saveDeletedTopicsLocked();
    /// A record of a deleted topic stored before the deletion. Caller holds m_dispatchMutex.
    bool isDeletedRecordLocked(QByteArrayView topic, std::int64_t offset) const;
    std::int64_t now() const { return m_clock(); }

    MessageStoreConfig m_config;
    std::function<std::int64_t()> m_clock;
    StoreOptions m_options;
    QList<std::int64_t> m_delayLevels;
    ArrivalListener m_arrivalListener;
    std::function<void()> m_appendObserver;
    std::function<bool()> m_writeGate; // controller mode; empty: always open
    std::atomic<bool> m_replicaAcks {true}; // SYNC_MASTER: puts wait for a slave
    std::atomic<int> m_inSyncReplicas {-1}; // controller mode: the SyncStateSet's size
    TagsCodeResolver m_tagsCodeResolver;
    RecoveryReport m_recovery;

    StoreLock m_lock;
    StoreCheckpoint m_checkpoint;
    CommitLog m_commitLog;
    std::unique_ptr<IndexService> m_index;
    std::unique_ptr<ReputService> m_reput;
    std::unique_ptr<FlushCommitLogService> m_flushAsync;
    std::unique_ptr<GroupCommitService> m_groupCommit;
    std::unique_ptr<GroupTransferService> m_transfer; // SYNC_MASTER only
    std::unique_ptr<CleanService> m_clean;
    std::unique_ptr<PrefaultService> m_prefault;
    std::unique_ptr<ServiceThread> m_cqFlushThread;
    std::unique_ptr<ServiceThread> m_cleanThread;

    MappingCachePtr m_cqMappings; // before the queues: their files use it
    mutable std::shared_mutex m_cqMutex; // guards m_consumeQueues, m_retiredQueues
    std::unordered_map<std::string, std::unique_ptr<ConsumeQueue>, TransparentStringHash,
        std::equal_to<>>
        m_consumeQueues;
    // Queues of deleted topics and expired light queues: emptied (no files), freed by
    // releaseRetiredQueues() kRetiredQueueGraceMs after they went.
    struct RetiredQueue
    {
        std::int64_t retiredAtMs;
        std::unique_ptr<ConsumeQueue> queue;
    };
    std::vector<RetiredQueue> m_retiredQueues;
    // Held by dispatch() and deleteTopics(): no consume-queue write runs while a topic goes.
    std::mutex m_dispatchMutex;
    // Deleted topic -> commit-log max offset at deletion: older records of it are not filed
    // again; persisted in `deletedTopics`. Guarded by m_dispatchMutex, like m_deletedBelow (the
    // largest of those offsets: dispatch() looks nothing up at or past it).
    std::unordered_map<std::string, std::int64_t, TransparentStringHash, std::equal_to<>>
        m_deletedTopics;
    std::int64_t m_deletedBelow = 0;
    std::atomic<std::int64_t> m_lastDispatchedStoreTs {0};
    // dispatch() only (reput thread, or recovery before it starts): the last consume queue
    // written; deleteTopics() resets it under m_dispatchMutex.
    std::string m_dispatchTopic;
    int m_dispatchQueueId = -1;
    ConsumeQueue *m_dispatchQueue = nullptr;
    std::int64_t m_dispatchFailedAt = -1; // logged once per failing offset
    std::uint64_t m_undispatchable = 0; // records with a topic no consume queue may have
    std::uint64_t m_malformedMultiDispatch = 0; // dispatch() only
    // dispatchMultiQueues(): a light-queue unit that cannot be written is retried this long.
    static constexpr std::int64_t kLightQueueRetryMs = 10000;
    std::int64_t m_multiFailAt = -1; // the record whose light-queue unit failed
    std::int64_t m_multiFailSince = 0;
    std::uint64_t m_lightQueueUnitsLost = 0;
    std::atomic<int> m_lmqQueueCount {0}; // consume queues of "%LMQ%" topics
    std::atomic<bool> m_open {false};

    // Start-up (queuerecovery.cpp). Set by recovery before any queue is recovered, then read
    // only: the commit log's valid end at open (units at or past it are cut), the start of
    // units an unfinished earlier start left unchecked (-1: none), the deletions known at
    // open, whether a damaged queue rebuilds itself (the background mode) or waits for
    // recovery's re-dispatch.
    std::int64_t m_recoveryEnd = 0;
    std::int64_t m_uncheckedFrom = -1;
    std::unordered_map<std::string, std::int64_t, TransparentStringHash, std::equal_to<>>
        m_deletedAtOpen;
    bool m_rebuildDamaged = false;
    std::atomic<bool> m_queuesPending {false}; // queues on disk not all recovered yet
    std::atomic<bool> m_stopQueueRecovery {false};
    std::unique_ptr<ServiceThread> m_queueRecoveryThread;
    mutable std::mutex m_reportMutex; // m_recovery's consume-queue figures, m_damagedFrom
    std::int64_t m_damagedFrom = -1; // the lowest end of a damaged queue (recovery's re-dispatch)

    // statistics
    std::atomic<std::int64_t> m_putCount {0};
    std::atomic<std::int64_t> m_putBytes {0};
    mutable std::atomic<std::int64_t> m_getCount {0};
    mutable std::mutex m_statsMutex;
    mutable std::int64_t m_lastStatsTime = 0, m_lastPutCount = 0, m_lastGetCount = 0;
    std::int64_t m_totalPhysicalMemory = 0;
};

} // namespace qrocket::storage
