#pragma once

// PopService: RocketMQ 5's POP consumption state on a master (README "POP consumption"):
// which messages of which queue each group has handed out, until when they are invisible,
// which were acked, and the revive that hands the others out again.
//
// Durability (popcheckpoint.h has the record format): every pop, ack, change of invisible time
// and revive is first appended to the revive log topic rmq_sys_REVIVE_LOG_<cluster> through the
// commit log, then applied in memory, then answered. A snapshot (config/popCheckpoint.json:
// the revive-log offset below which every checkpoint is settled, and each popped queue's next
// offset) is written every second; start() loads it and replays the revive log from that
// offset, so after kill -9 every popped-and-unacked message is in flight again (and revived
// when its time ends) and an acked one is not. Crash windows (each leaves at-least-once, never
// a loss and never an acked message redelivered):
//   - checkpoint written, crash before the answer: the messages are in flight, nobody has
//     them; they come back after their invisible time.
//   - ack answered only after its record is in the commit log; a crash before that leaves the
//     message in flight (the client saw no success).
//   - revive: the retry (or DLQ) copy is written first, the RV record after it; a crash between
//     the two makes the next start revive that message once more (a duplicate of an unacked
//     message, never a loss: apache/rocketmq#7914's loss came from moving the revive offset
//     past checkpoints whose retry copies were not written).
//   - ack vs revive (apache/rocketmq#7724): both decide under one lock on the offset's state:
//     an ack that arrives first wins (the revive skips it), a revive that took the offset first
//     makes the late ack fail with NO_MESSAGE, so an acked message is never revived.
//
// Threads: every public method may be called from any thread (processor executors); one
// internal thread revives expired checkpoints and writes the snapshot, sleeping until the next
// deadline. Store writes happen outside the state lock; a queue being popped is marked busy, so
// concurrent pops of one queue hand out disjoint messages (a busy queue is skipped).

#include "broker/pop/popcheckpoint.h"
#include "broker/pop/popholdservice.h"
#include "clientlib/common/result.h"
#include "clientlib/common/status.h"
#include "clientlib/protocol/bodies/popbodies.h"
#include "storage/core/storetypes.h"

#include <QByteArray>
#include <QString>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_map>
#include <vector>

namespace qrocket::broker {
struct BrokerContext;
}

namespace qrocket::broker::pop {

/// KeyBuilder.POP_ORDER_REVIVE_QUEUE: the reviveQid of orderly pops.
inline constexpr int kOrderReviveQueue = 999;

struct PopRequest
{
    QByteArray group;
    QByteArray topic;
    int queueId = -1; // -1: every readable queue
    int maxMsgNums = 32;
    std::int64_t invisibleTime = 60000;
    int initMode = 0; // ConsumeInitMode
    bool order = false;
    storage::MessageFilter filter;
    int readQueueNums = 0; // of the topic
};

struct PopResult
{
    std::int64_t popTime = 0;
    int reviveQid = 0;
    std::int64_t restNum = 0;
    int messageCount = 0;
    QByteArray body; // the records, as a PULL body
    QByteArray startOffsetInfo;
    QByteArray msgOffsetInfo;
    QByteArray orderCountInfo;
    Status error; // a failed checkpoint write: nothing was handed out
};

enum class SettleStatus : std::uint8_t {
    Ok,
    NotInFlight, // revived (its invisible time ended) or moved: the handle is stale
    WriteFailed,
};

struct ChangedHandle
{
    std::int64_t popTime = 0;
    std::int64_t invisibleTime = 0;
    int reviveQid = 0;
};

class PopService
{
public:
    using Clock = std::function<std::int64_t()>;

    /// `ctx` must hold the store and the managers; `clock` ms since epoch (tests: a fake one).
    PopService(BrokerContext &ctx, QString snapshotPath, Clock clock = {});
    ~PopService();
    PopService(const PopService &) = delete;
    PopService &operator=(const PopService &) = delete;

    static QString snapshotPath(const QString &storePathRootDir);
    /// rmq_sys_REVIVE_LOG_<cluster>.
    static QByteArray reviveTopic(QByteArrayView cluster);

    /// Loads the snapshot and replays the revive log (before the broker serves requests). The
    /// store must be open.
    Status recover();
    /// Starts the long-poll service and, with `revive` (a master), the revive thread. A slave
    /// takes no checkpoint writes: its pops answer an error and hand nothing out.
    void startServices(bool revive);
    /// Writes the snapshot and stops the threads; parked pops are dropped unanswered.
    void shutdown();

    PopResult pop(const PopRequest &request);
    /// Messages a pop of (group, topic, queueId) could take now (long polling's re-check,
    /// NOTIFICATION).
    bool hasAvailable(const PopRequest &request) const;
    /// Acks `offsets` of the checkpoint (group, realTopic, queueId, key). Offsets the checkpoint
    /// does not hold (a checkpoint already settled and gone) are no-ops.
    SettleStatus ack(const QByteArray &group, const QByteArray &realTopic, int queueId,
        CheckPointKey key, const std::vector<std::int64_t> &offsets);
    SettleStatus changeInvisibleTime(const QByteArray &group, const QByteArray &realTopic,
        int queueId, CheckPointKey key, std::int64_t offset, std::int64_t invisibleTime,
        ChangedHandle &out);

    PopHoldService &hold() { return *m_hold; }
    void setHoldWakeup(PopHoldService::Wakeup wakeup);
    /// Messages in flight (handed out, not settled) over all groups.
    std::int64_t inFlightCount() const;
    /// Checkpoints not yet settled durably (the revive backlog).
    std::int64_t checkPointCount() const;
    /// Per (group, real topic) in flight, open checkpoints and revive backlog (modes left PULL;
    /// the processor fills them in); only `group` when it is not empty.
    protocol::PopStatsBody stats(const QByteArray &group) const;
    /// Runs the revive for everything due at `now` (tests with a fake clock; the thread does it
    /// by itself otherwise). Returns the messages revived or moved to the DLQ.
    int reviveDue();
    /// Writes the snapshot now (tests).
    Status persistSnapshot();

private:
    struct QueueState
    {
        std::int64_t popOffset = -1; // -1: not yet known
        bool busy = false;
        std::map<CheckPointKey, std::shared_ptr<CheckPoint>> cks;
    };
    struct PopQueueResult;

    static QByteArray queueKey(QByteArrayView group, QByteArrayView topic, int queueId);
    QueueState &stateLocked(const QByteArray &group, const QByteArray &topic, int queueId);
    std::int64_t initialOffset(
        const QByteArray &group, const QByteArray &topic, int queueId, int initMode) const;
    /// Pops up to `max` messages of one queue; appends to `out`.
    void popQueue(const PopRequest &req, const QByteArray &realTopic, int queueId, int max,
        std::int64_t popTime, PopResult &out);
    bool popOrderlyPending(const PopRequest &req, const QByteArray &realTopic, int queueId,
        QueueState &qs, std::unique_lock<std::mutex> &lock, std::int64_t popTime, PopResult &out);
    /// Appends a record to the revive log and waits for it; the revive-log queue offset.
    Result<std::int64_t> writeLog(const QByteArray &body);
    void registerLocked(const std::shared_ptr<CheckPoint> &ck);
    void scheduleLocked(const CheckPoint &ck, std::int64_t at);
    void dropIfSettledLocked(const CheckPoint &ck);
    static QByteArray tombstoneKey(const CheckPoint &ck);
    /// Whether an ack of `offsets` of the gone checkpoint names a revived message.
    bool revivedLocked(
        const QByteArray &queue, CheckPointKey key, const std::vector<std::int64_t> &offsets) const;
    void appendRecords(const PopRequest &req, const CheckPoint &ck, char retry,
        const storage::GetMessageResult &result, int reconsumeTimes, PopResult &out) const;
    /// Revives one message: a retry (or DLQ) copy; false when it could not be stored.
    /// `toDlq`: to %DLQ%<group> whatever its reconsume count (an orderly message past the max).
    bool reviveMessage(const CheckPoint &ck, std::int64_t offset, bool toDlq);
    Status replay(std::int64_t fromLogOffset);
    void applyLocked(const LogRecord &record, std::int64_t logOffset);
    Status loadSnapshot(std::int64_t &logOffset);
    void run();
    std::int64_t now() const { return m_clock(); }

    BrokerContext &m_ctx;
    const QString m_snapshotPath;
    const Clock m_clock;
    QByteArray m_reviveTopic;
    std::unique_ptr<PopHoldService> m_hold;
    PopHoldService::Wakeup m_holdWakeup;

    mutable std::mutex m_mutex;
    std::condition_variable m_cv;
    std::unordered_map<QByteArray, QueueState> m_queues; // guarded by m_mutex
    // deadline -> checkpoint (queue key, key); stale entries are skipped. Guarded by m_mutex.
    std::multimap<std::int64_t, std::pair<QByteArray, CheckPointKey>> m_deadlines;
    // Revive-log offsets below which a record being written cannot land (snapshot bound).
    std::multiset<std::int64_t> m_pendingWrites; // guarded by m_mutex
    // Revived offsets of checkpoints that are settled and gone, so that a late ack of one still
    // answers NO_MESSAGE (apache/rocketmq#7724: an ack that answers SUCCESS must mean "never
    // again"). Kept kTombstoneMs or up to kMaxTombstones, oldest first. Guarded by m_mutex.
    std::unordered_map<QByteArray, std::vector<std::int64_t>> m_tombstones;
    std::deque<std::pair<std::int64_t, QByteArray>> m_tombstoneOrder;
    std::atomic<std::int64_t> m_inFlight {0};
    std::atomic<std::int64_t> m_checkPoints {0};
    bool m_dirty = false; // guarded by m_mutex
    bool m_stopping = false; // guarded by m_mutex
    bool m_started = false;
    std::mutex m_snapshotMutex; // serialises snapshot writes
    std::thread m_thread;
};

} // namespace qrocket::broker::pop
