#include "broker/pop/popservice.h"

#include "broker/common/brokercontext.h"
#include "broker/common/logging.h"
#include "broker/config/brokerconfig.h"
#include "broker/managers/consumeroffsetmanager.h"
#include "broker/managers/subscriptiongroupmanager.h"
#include "broker/managers/topicvalidator.h"
#include "clientlib/protocol/headers/popheaders.h"
#include "clientlib/protocol/messageproperties.h"
#include "storage/messagestore.h"

#include <QDateTime>
#include <QDir>
#include <QRandomGenerator>

#include <algorithm>

namespace qrocket::broker::pop {

namespace {

constexpr QByteArrayView kPopCk = "POP_CK";
constexpr std::int64_t kTombstoneMs = 3600 * 1000;
constexpr std::size_t kMaxTombstones = 200000;

bool appended(storage::PutMessageStatus s)
{
    using S = storage::PutMessageStatus;
    // The bytes are in the commit log (page cache); only the wait for disk or slave failed.
    return s == S::PutOk || s == S::FlushDiskTimeout || s == S::FlushSlaveTimeout
        || s == S::SlaveNotAvailable;
}

bool settledState(OffsetState s)
{
    return s == OffsetState::Acked || s == OffsetState::Revived;
}

} // namespace

PopService::PopService(BrokerContext &ctx, QString snapshotPath, Clock clock)
    : m_ctx(ctx)
    , m_snapshotPath(std::move(snapshotPath))
    , m_clock(clock ? std::move(clock) : Clock([] { return QDateTime::currentMSecsSinceEpoch(); }))
    , m_reviveTopic(
          reviveTopic(ctx.config ? ctx.config->brokerClusterName.toUtf8() : "DefaultCluster"))
{
    m_hold = std::make_unique<PopHoldService>(
        [this](HeldPopPtr pop, bool timedOut) {
            if (m_holdWakeup)
                m_holdWakeup(std::move(pop), timedOut);
        },
        100000);
}

PopService::~PopService()
{
    shutdown();
}

QString PopService::snapshotPath(const QString &storePathRootDir)
{
    return QDir(storePathRootDir).filePath(QStringLiteral("config/popCheckpoint.json"));
}

QByteArray PopService::reviveTopic(QByteArrayView cluster)
{
    return QByteArrayLiteral("rmq_sys_REVIVE_LOG_") + cluster.toByteArray();
}

void PopService::setHoldWakeup(PopHoldService::Wakeup wakeup)
{
    m_holdWakeup = std::move(wakeup);
}

QByteArray PopService::queueKey(QByteArrayView group, QByteArrayView topic, int queueId)
{
    QByteArray key;
    key.reserve(group.size() + topic.size() + 12);
    key += group;
    key += '\x01';
    key += topic;
    key += '\x01';
    key += QByteArray::number(queueId);
    return key;
}

PopService::QueueState &PopService::stateLocked(
    const QByteArray &group, const QByteArray &topic, int queueId)
{
    return m_queues[queueKey(group, topic, queueId)];
}

std::int64_t PopService::initialOffset(
    const QByteArray &group, const QByteArray &topic, int queueId, int initMode) const
{
    const std::int64_t committed = m_ctx.consumerOffsets->query(group, topic, queueId);
    if (committed >= 0)
        return committed;
    if (topics::isRetryTopic(topic) || initMode == protocol::ConsumeInitMode::Min)
        return m_ctx.store->minOffsetInQueue(topic, queueId);
    // RocketMQ 5.3's MAX mode: the whole queue when it still starts at 0 and is in memory (a
    // new topic), else its last message.
    if ((!m_ctx.config || m_ctx.config->initPopOffsetByCheckMsgInMem)
        && m_ctx.store->minOffsetInQueue(topic, queueId) <= 0
        && m_ctx.store->inMemoryAt(topic, queueId, 0))
        return 0;
    return std::max<std::int64_t>(0, m_ctx.store->maxOffsetInQueue(topic, queueId) - 1);
}

Result<std::int64_t> PopService::writeLog(const QByteArray &body)
{
    storage::MessageExtBrokerInner inner;
    inner.topic = m_reviveTopic;
    inner.queueId = 0;
    inner.bornTimestamp = now();
    inner.bornHost = m_ctx.storeHostAddress;
    inner.storeHost = m_ctx.storeHostAddress;
    inner.body = body;
    inner.waitStoreMsgOk = true;
    const storage::PutMessageResult r = m_ctx.store->putMessageAndWait(inner);
    if (!appended(r.status))
        return Status::ioError(
            QStringLiteral("cannot write the POP checkpoint: %1 %2")
                .arg(QString::fromLatin1(storage::putMessageStatusName(r.status)), r.remark));
    return r.queueOffset;
}

void PopService::scheduleLocked(const CheckPoint &ck, std::int64_t at)
{
    const bool earliest = m_deadlines.empty() || at < m_deadlines.begin()->first;
    m_deadlines.emplace(at, std::make_pair(queueKey(ck.group, ck.topic, ck.queueId), ck.key()));
    if (earliest)
        m_cv.notify_all();
}

void PopService::registerLocked(const std::shared_ptr<CheckPoint> &ck)
{
    QueueState &qs = stateLocked(ck->group, ck->topic, ck->queueId);
    qs.cks[ck->key()] = ck;
    m_checkPoints.fetch_add(1);
    std::int64_t open = 0;
    for (OffsetState s : ck->states)
        open += settledState(s) ? 0 : 1;
    m_inFlight.fetch_add(open);
    m_dirty = true;
    scheduleLocked(*ck, ck->deadline());
}

QByteArray PopService::tombstoneKey(const CheckPoint &ck)
{
    return queueKey(ck.group, ck.topic, ck.queueId) + '\x01' + QByteArray::number(ck.startOffset)
        + '\x01' + QByteArray::number(ck.popTime);
}

void PopService::dropIfSettledLocked(const CheckPoint &ck)
{
    if (!std::all_of(ck.states.begin(), ck.states.end(), settledState))
        return;
    const auto it = m_queues.find(queueKey(ck.group, ck.topic, ck.queueId));
    if (it == m_queues.end())
        return;
    std::vector<std::int64_t> revived;
    for (std::size_t i = 0; i < ck.offsets.size(); ++i)
        if (ck.states[i] == OffsetState::Revived)
            revived.push_back(ck.offsets[i]);
    if (it->second.cks.erase(ck.key()) > 0) {
        m_checkPoints.fetch_sub(1);
        m_dirty = true;
        if (!revived.empty()) {
            const QByteArray key = tombstoneKey(ck);
            m_tombstones[key] = std::move(revived);
            m_tombstoneOrder.emplace_back(now(), key);
            const std::int64_t expired = now() - kTombstoneMs;
            while (!m_tombstoneOrder.empty()
                && (m_tombstoneOrder.size() > kMaxTombstones
                    || m_tombstoneOrder.front().first < expired)) {
                m_tombstones.erase(m_tombstoneOrder.front().second);
                m_tombstoneOrder.pop_front();
            }
        }
    }
}

bool PopService::revivedLocked(
    const QByteArray &queue, CheckPointKey key, const std::vector<std::int64_t> &offsets) const
{
    const auto it = m_tombstones.find(queue + '\x01' + QByteArray::number(key.startOffset) + '\x01'
        + QByteArray::number(key.popTime));
    if (it == m_tombstones.end())
        return false;
    for (std::int64_t o : offsets)
        if (std::find(it->second.begin(), it->second.end(), o) != it->second.end())
            return true;
    return false;
}

// --- pop ----------------------------------------------------------------------------------

PopResult PopService::pop(const PopRequest &req)
{
    PopResult out;
    out.popTime = now();
    out.reviveQid = req.order ? kOrderReviveQueue : 0;
    const int max = std::clamp(req.maxMsgNums, 1, 32);
    const QByteArray retryTopic = protocol::popRetryTopicV1(req.topic, req.group);
    const bool retryExists = m_ctx.store->findConsumeQueue(retryTopic, 0) != nullptr;

    // RocketMQ's popFromRetryProbability (20 %): retry messages first now and then, so that a
    // busy topic does not starve them; otherwise after the topic, when room is left.
    const bool retryFirst
        = !req.order && retryExists && QRandomGenerator::global()->bounded(100) < 20;
    auto popRetry = [&] {
        if (!req.order && retryExists && out.messageCount < max && out.error.isOk())
            popQueue(req, retryTopic, 0, max - out.messageCount, out.popTime, out);
    };
    if (retryFirst)
        popRetry();
    if (req.queueId >= 0) {
        popQueue(req, req.topic, req.queueId, max - out.messageCount, out.popTime, out);
    } else {
        const int n = std::max(0, req.readQueueNums);
        const int start = n > 1 ? static_cast<int>(QRandomGenerator::global()->bounded(n)) : 0;
        for (int i = 0; i < n && out.messageCount < max && out.error.isOk(); ++i)
            popQueue(req, req.topic, (start + i) % n, max - out.messageCount, out.popTime, out);
    }
    if (!retryFirst)
        popRetry();
    return out;
}

void PopService::popQueue(const PopRequest &req, const QByteArray &realTopic, int queueId, int max,
    std::int64_t popTime, PopResult &out)
{
    std::unique_lock lock(m_mutex);
    if (m_stopping)
        return;
    QueueState &qs = stateLocked(req.group, realTopic, queueId);
    if (qs.busy)
        return; // another pop of this group is reading this queue: skip it (disjointness)
    if (req.order) {
        // Orderly: nothing more from this queue while one of its messages is in flight.
        bool inFlight = false;
        bool pending = false;
        for (const auto &[key, ck] : qs.cks) {
            for (OffsetState s : ck->states) {
                if (s == OffsetState::Acked || s == OffsetState::Revived)
                    continue;
                if (s == OffsetState::Pending)
                    pending = true;
                else
                    inFlight = true;
            }
        }
        if (inFlight)
            return;
        if (pending) {
            popOrderlyPending(req, realTopic, queueId, qs, lock, popTime, out);
            return;
        }
    }
    if (qs.popOffset < 0)
        qs.popOffset = initialOffset(req.group, realTopic, queueId, req.initMode);
    const std::int64_t offset = qs.popOffset;
    qs.busy = true;
    const std::int64_t bound = m_ctx.store->maxOffsetInQueue(m_reviveTopic, 0);
    const auto pending = m_pendingWrites.insert(bound);
    lock.unlock();

    const storage::GetMessageResult result = m_ctx.store->getMessage(req.group, realTopic, queueId,
        offset, max, req.filter.acceptsAll() ? nullptr : &req.filter);
    std::shared_ptr<CheckPoint> ck;
    Result<std::int64_t> logOffset = std::int64_t(-1);
    const bool found
        = result.status == storage::GetMessageStatus::Found && result.messageCount() > 0;
    if (found) {
        ck = std::make_shared<CheckPoint>();
        ck->group = req.group;
        ck->topic = realTopic;
        ck->queueId = queueId;
        ck->startOffset = offset;
        ck->popTime = popTime;
        ck->invisibleTime = req.invisibleTime;
        ck->order = req.order;
        ck->nextBeginOffset = result.nextBeginOffset;
        ck->offsets = result.messageQueueOffsets;
        ck->states.assign(ck->offsets.size(), OffsetState::InFlight);
        logOffset = writeLog(encodeCheckPoint(*ck));
    }

    lock.lock();
    m_pendingWrites.erase(pending);
    qs.busy = false;
    if (found && !logOffset) {
        out.error = logOffset.error();
        return; // nothing handed out, the offset stays
    }
    if (found) {
        ck->logOffset = *logOffset;
        registerLocked(ck);
        qs.popOffset = result.nextBeginOffset;
    } else if (result.status != storage::GetMessageStatus::Found && result.nextBeginOffset >= 0
        && result.nextBeginOffset != offset) {
        qs.popOffset = result.nextBeginOffset; // filtered out, or corrected into the queue
        m_dirty = true;
    }
    const std::int64_t next = qs.popOffset;
    lock.unlock();
    m_ctx.consumerOffsets->commit(req.group, realTopic, queueId, next);
    out.restNum += std::max<std::int64_t>(0, result.maxOffset - next);
    if (found)
        appendRecords(req, *ck, protocol::popRetryFlag(realTopic), result, -1, out);
}

bool PopService::popOrderlyPending(const PopRequest &req, const QByteArray &realTopic, int queueId,
    QueueState &qs, std::unique_lock<std::mutex> &lock, std::int64_t popTime, PopResult &out)
{
    // The oldest checkpoint with expired messages: they go out again, in order, before
    // anything after them.
    std::shared_ptr<CheckPoint> old;
    for (const auto &[key, ck] : qs.cks) {
        if (std::find(ck->states.begin(), ck->states.end(), OffsetState::Pending)
            != ck->states.end()) {
            old = ck;
            break;
        }
    }
    if (!old)
        return false;
    std::vector<std::int64_t> offsets;
    for (std::size_t i = 0; i < old->offsets.size(); ++i) {
        if (old->states[i] == OffsetState::Pending) {
            old->states[i] = OffsetState::Reviving; // moving: a late ack of the old handle fails
            offsets.push_back(old->offsets[i]);
        }
    }
    const int attempt = old->attempt + 1;
    auto group = m_ctx.subscriptionGroups->findOrCreate(req.group);
    const int maxTimes = group ? group->retryMaxTimes : 16;
    auto newCk = std::make_shared<CheckPoint>();
    newCk->group = req.group;
    newCk->topic = realTopic;
    newCk->queueId = queueId;
    newCk->startOffset = offsets.front();
    newCk->popTime = popTime;
    while (qs.cks.count(CheckPointKey {newCk->startOffset, newCk->popTime}))
        ++newCk->popTime;
    newCk->invisibleTime = req.invisibleTime;
    newCk->attempt = attempt;
    newCk->order = true;
    newCk->offsets = offsets;
    newCk->states.assign(offsets.size(), OffsetState::InFlight);
    newCk->movedFrom = old->key();
    qs.busy = true;
    const std::int64_t bound = m_ctx.store->maxOffsetInQueue(m_reviveTopic, 0);
    const auto pendingWrite = m_pendingWrites.insert(bound);
    lock.unlock();

    bool ok = true;
    std::vector<storage::GetMessageResult> reads;
    if (attempt > maxTimes) {
        // Past maxReconsumeTimes: to %DLQ%<group>, then settled.
        for (std::int64_t o : offsets)
            ok = ok && reviveMessage(*old, o, true);
        ok = ok && writeLog(encodeSettle(LogRecord::Type::Revive, *old, offsets)).has_value();
    } else {
        for (std::int64_t o : offsets)
            reads.push_back(m_ctx.store->getMessage(req.group, realTopic, queueId, o, 1, nullptr));
        auto logOffset = writeLog(encodeCheckPoint(*newCk));
        ok = logOffset.has_value();
        if (ok)
            newCk->logOffset = *logOffset;
        else
            out.error = logOffset.error();
    }

    lock.lock();
    m_pendingWrites.erase(pendingWrite);
    qs.busy = false;
    for (std::int64_t o : offsets) {
        const auto i = static_cast<std::size_t>(old->indexOf(o));
        if (!ok) {
            old->states[i] = OffsetState::Pending;
            continue;
        }
        old->states[i] = attempt > maxTimes ? OffsetState::Revived : OffsetState::Acked;
        m_inFlight.fetch_sub(1);
    }
    if (ok && attempt <= maxTimes)
        registerLocked(newCk);
    dropIfSettledLocked(*old);
    lock.unlock();
    if (!ok || attempt > maxTimes)
        return false;
    for (const storage::GetMessageResult &r : reads)
        if (r.status == storage::GetMessageStatus::Found)
            appendRecords(req, *newCk, protocol::popRetryFlag(realTopic), r, attempt, out);
    return true;
}

void PopService::appendRecords(const PopRequest &req, const CheckPoint &ck, char retry,
    const storage::GetMessageResult &result, int reconsumeTimes, PopResult &out) const
{
    const QByteArray brokerName = m_ctx.config ? m_ctx.config->brokerName.toUtf8() : QByteArray();
    const bool isRetry = retry != '0';
    // Each queue is read at most once per pop, so its key appears once (Java's parser insists).
    protocol::appendStartOffsetInfo(out.startOffsetInfo, retry, ck.queueId, ck.startOffset);
    protocol::appendMsgOffsetInfo(out.msgOffsetInfo, retry, ck.queueId, result.messageQueueOffsets);
    if (req.order)
        protocol::appendOrderCountInfo(
            out.orderCountInfo, retry, ck.queueId, std::max(0, reconsumeTimes));
    for (std::size_t i = 0; i < result.messages.size(); ++i) {
        const QByteArrayView bytes = result.messages[i];
        if (!isRetry && reconsumeTimes < 0) {
            out.body.append(bytes);
        } else {
            // A retry message goes out under its topic with its handle in POP_CK (as RocketMQ
            // 5.3 with popResponseReturnActualRetryTopic=false); an orderly redelivery with its
            // attempt as the reconsume count.
            protocol::MessageRecordView rec;
            if (protocol::decodeRecord(bytes, rec, false).status != protocol::RecordStatus::Ok)
                continue;
            protocol::MessageRecordInput in = protocol::recordInputOf(rec);
            QByteArray properties;
            if (isRetry) {
                protocol::ExtraInfo e;
                e.ckQueueOffset = ck.startOffset;
                e.popTime = ck.popTime;
                e.invisibleTime = ck.invisibleTime;
                e.reviveQid = ck.order ? kOrderReviveQueue : 0;
                e.retry = retry;
                e.brokerName = brokerName;
                e.queueId = ck.queueId;
                e.queueOffset = rec.queueOffset;
                protocol::MessageProperties props
                    = protocol::MessageProperties::parse(rec.properties);
                props.set(kPopCk.toByteArray(), e.toString());
                properties = props.encode();
                in.properties = properties;
                in.topic = req.topic;
            }
            if (reconsumeTimes >= 0)
                in.reconsumeTimes = reconsumeTimes;
            out.body += protocol::encodeRecord(
                in, rec.queueOffset, rec.physicalOffset, rec.storeTimestamp);
        }
        ++out.messageCount;
    }
}

bool PopService::hasAvailable(const PopRequest &req) const
{
    std::lock_guard lock(m_mutex);
    auto check = [&](const QByteArray &topic, int queueId) {
        const auto it = m_queues.find(queueKey(req.group, topic, queueId));
        std::int64_t offset = -1;
        if (it != m_queues.end()) {
            const QueueState &qs = it->second;
            if (qs.busy)
                return false;
            bool inFlight = false;
            for (const auto &[key, ck] : qs.cks) {
                for (OffsetState s : ck->states) {
                    if (req.order && s == OffsetState::Pending)
                        return true;
                    if (!settledState(s) && s != OffsetState::Pending)
                        inFlight = true;
                }
            }
            if (req.order && inFlight)
                return false;
            offset = qs.popOffset;
        }
        if (offset < 0)
            offset = initialOffset(req.group, topic, queueId, req.initMode);
        return m_ctx.store->maxOffsetInQueue(topic, queueId) > offset;
    };
    if (req.queueId >= 0) {
        if (check(req.topic, req.queueId))
            return true;
    } else {
        for (int q = 0; q < req.readQueueNums; ++q)
            if (check(req.topic, q))
                return true;
    }
    const QByteArray retryTopic = protocol::popRetryTopicV1(req.topic, req.group);
    return !req.order && m_ctx.store->findConsumeQueue(retryTopic, 0) && check(retryTopic, 0);
}

// --- ack and change of invisible time ---------------------------------------------------

SettleStatus PopService::ack(const QByteArray &group, const QByteArray &realTopic, int queueId,
    CheckPointKey key, const std::vector<std::int64_t> &offsets)
{
    std::unique_lock lock(m_mutex);
    const QByteArray queue = queueKey(group, realTopic, queueId);
    const auto qit = m_queues.find(queue);
    // A checkpoint that is settled and gone: a revived message's ack is too late, anything else
    // (a repeated ack, a handle of another broker's life) has nothing to do.
    if (qit == m_queues.end())
        return revivedLocked(queue, key, offsets) ? SettleStatus::NotInFlight : SettleStatus::Ok;
    const auto cit = qit->second.cks.find(key);
    if (cit == qit->second.cks.end())
        return revivedLocked(queue, key, offsets) ? SettleStatus::NotInFlight : SettleStatus::Ok;
    const std::shared_ptr<CheckPoint> ck = cit->second;
    std::vector<std::pair<int, OffsetState>> taken;
    bool stale = false;
    for (std::int64_t o : offsets) {
        const int i = ck->indexOf(o);
        if (i < 0)
            continue;
        const OffsetState s = ck->states[static_cast<std::size_t>(i)];
        if (s == OffsetState::InFlight || s == OffsetState::Pending) {
            taken.emplace_back(i, s);
            ck->states[static_cast<std::size_t>(i)] = OffsetState::Acking;
        } else if (s == OffsetState::Reviving || s == OffsetState::Revived) {
            stale = true;
        }
    }
    if (taken.empty())
        return stale ? SettleStatus::NotInFlight : SettleStatus::Ok;
    std::vector<std::int64_t> acked;
    for (const auto &[i, s] : taken)
        acked.push_back(ck->offsets[static_cast<std::size_t>(i)]);
    const std::int64_t bound = m_ctx.store->maxOffsetInQueue(m_reviveTopic, 0);
    const auto pending = m_pendingWrites.insert(bound);
    lock.unlock();

    const Result<std::int64_t> written = writeLog(encodeSettle(LogRecord::Type::Ack, *ck, acked));

    lock.lock();
    m_pendingWrites.erase(pending);
    if (!written) {
        for (const auto &[i, s] : taken)
            ck->states[static_cast<std::size_t>(i)] = s;
        scheduleLocked(*ck, std::max(ck->deadline(), now()));
        return SettleStatus::WriteFailed;
    }
    for (const auto &[i, s] : taken) {
        ck->states[static_cast<std::size_t>(i)] = OffsetState::Acked;
        m_inFlight.fetch_sub(1);
    }
    dropIfSettledLocked(*ck);
    const bool freed = ck->order;
    lock.unlock();
    if (freed)
        m_hold->notifyArrival(realTopic); // an orderly queue may hand out its next message
    return SettleStatus::Ok;
}

SettleStatus PopService::changeInvisibleTime(const QByteArray &group, const QByteArray &realTopic,
    int queueId, CheckPointKey key, std::int64_t offset, std::int64_t invisibleTime,
    ChangedHandle &out)
{
    std::unique_lock lock(m_mutex);
    const auto qit = m_queues.find(queueKey(group, realTopic, queueId));
    if (qit == m_queues.end())
        return SettleStatus::NotInFlight;
    QueueState &qs = qit->second;
    const auto cit = qs.cks.find(key);
    if (cit == qs.cks.end())
        return SettleStatus::NotInFlight;
    const std::shared_ptr<CheckPoint> old = cit->second;
    const int i = old->indexOf(offset);
    if (i < 0)
        return SettleStatus::NotInFlight;
    const OffsetState before = old->states[static_cast<std::size_t>(i)];
    if (before != OffsetState::InFlight && before != OffsetState::Pending)
        return SettleStatus::NotInFlight;
    old->states[static_cast<std::size_t>(i)] = OffsetState::Reviving; // moving
    auto ck = std::make_shared<CheckPoint>();
    ck->group = group;
    ck->topic = realTopic;
    ck->queueId = queueId;
    ck->startOffset = offset;
    ck->popTime = now();
    while (qs.cks.count(CheckPointKey {offset, ck->popTime}))
        ++ck->popTime;
    ck->invisibleTime = invisibleTime;
    ck->attempt = old->attempt;
    ck->order = old->order;
    ck->offsets = {offset};
    ck->states = {OffsetState::InFlight};
    ck->movedFrom = old->key();
    const std::int64_t bound = m_ctx.store->maxOffsetInQueue(m_reviveTopic, 0);
    const auto pending = m_pendingWrites.insert(bound);
    lock.unlock();

    const Result<std::int64_t> written = writeLog(encodeCheckPoint(*ck));

    lock.lock();
    m_pendingWrites.erase(pending);
    if (!written) {
        old->states[static_cast<std::size_t>(i)] = before;
        scheduleLocked(*old, std::max(old->deadline(), now()));
        return SettleStatus::WriteFailed;
    }
    old->states[static_cast<std::size_t>(i)] = OffsetState::Acked;
    m_inFlight.fetch_sub(1);
    ck->logOffset = *written;
    registerLocked(ck);
    dropIfSettledLocked(*old);
    out.popTime = ck->popTime;
    out.invisibleTime = ck->invisibleTime;
    out.reviveQid = ck->order ? kOrderReviveQueue : 0;
    return SettleStatus::Ok;
}

std::int64_t PopService::inFlightCount() const
{
    return m_inFlight.load();
}

std::int64_t PopService::checkPointCount() const
{
    return m_checkPoints.load();
}

protocol::PopStatsBody PopService::stats(const QByteArray &group) const
{
    protocol::PopStatsBody out;
    out.now = now();
    std::map<std::pair<QByteArray, QByteArray>, protocol::PopGroupStats> byGroup;
    std::lock_guard lock(m_mutex);
    for (const auto &[key, state] : m_queues) {
        for (const auto &[ckKey, ck] : state.cks) {
            if (!group.isEmpty() && ck->group != group)
                continue;
            const int open = ck->inFlight();
            if (open == 0)
                continue;
            protocol::PopGroupStats &g = byGroup[{ck->group, ck->topic}];
            g.inFlight += open;
            ++g.checkPoints;
            if (ck->deadline() <= out.now)
                g.reviveBacklog += open;
            else if (g.nextReviveAt == 0 || ck->deadline() < g.nextReviveAt)
                g.nextReviveAt = ck->deadline();
        }
    }
    for (auto &[id, g] : byGroup) {
        g.group = id.first;
        g.topic = id.second;
        out.inFlight += g.inFlight;
        out.checkPoints += g.checkPoints;
        out.reviveBacklog += g.reviveBacklog;
        out.groups.push_back(std::move(g));
    }
    return out;
}

} // namespace qrocket::broker::pop
