// PopService, second part: the revive of expired checkpoints, the snapshot and the replay of
// the revive log at start (popservice.h has the contract and the crash windows).

#include "broker/common/brokercontext.h"
#include "broker/common/logging.h"
#include "broker/config/configfilestore.h"
#include "broker/managers/consumeroffsetmanager.h"
#include "broker/managers/subscriptiongroupmanager.h"
#include "broker/managers/topicconfigmanager.h"
#include "broker/managers/topicvalidator.h"
#include "broker/pop/popservice.h"
#include "clientlib/protocol/headers/popheaders.h"
#include "clientlib/protocol/json.h"
#include "clientlib/protocol/messageid.h"
#include "clientlib/protocol/messageproperties.h"
#include "storage/messagestore.h"

#include <algorithm>
#include <chrono>

namespace qrocket::broker::pop {

namespace MessageConst = protocol::MessageConst;

namespace {

constexpr QByteArrayView kFirstPopTime = "1ST_POP_TIME";
constexpr std::int64_t kRetryLaterMs = 1000; // a revive whose copy could not be stored
constexpr int kReplayBatch = 32;

bool appended(storage::PutMessageStatus s)
{
    using S = storage::PutMessageStatus;
    return s == S::PutOk || s == S::FlushDiskTimeout || s == S::FlushSlaveTimeout
        || s == S::SlaveNotAvailable;
}

} // namespace

Status PopService::recover()
{
    if (m_started)
        return {};
    std::int64_t from = 0;
    if (Status st = loadSnapshot(from); !st)
        return st;
    if (Status st = replay(from); !st)
        return st;
    m_started = true;
    return {};
}

void PopService::startServices(bool revive)
{
    m_hold->start();
    if (revive && m_started && !m_thread.joinable())
        m_thread = std::thread([this] { run(); });
}

void PopService::shutdown()
{
    {
        std::lock_guard lock(m_mutex);
        if (m_stopping)
            return;
        m_stopping = true;
    }
    m_cv.notify_all();
    if (m_thread.joinable())
        m_thread.join();
    m_hold->shutdown();
    if (m_started)
        if (Status st = persistSnapshot(); !st)
            qCWarning(lcBroker).noquote() << "POP snapshot:" << st.message();
}

void PopService::run()
{
    std::unique_lock lock(m_mutex);
    while (!m_stopping) {
        const std::int64_t t = now();
        std::int64_t wait = 1000; // the snapshot's period when nothing is due
        if (!m_deadlines.empty())
            wait = std::clamp<std::int64_t>(m_deadlines.begin()->first - t, 0, 1000);
        if (wait > 0)
            m_cv.wait_for(lock, std::chrono::milliseconds(wait));
        if (m_stopping)
            break;
        const bool dirty = m_dirty;
        lock.unlock();
        reviveDue();
        if (dirty)
            if (Status st = persistSnapshot(); !st)
                qCWarning(lcBroker).noquote() << "POP snapshot:" << st.message();
        lock.lock();
    }
}

int PopService::reviveDue()
{
    struct Work
    {
        std::shared_ptr<CheckPoint> ck;
        std::vector<std::int64_t> offsets;
    };
    std::vector<Work> work;
    std::vector<QByteArray> freedTopics;
    {
        std::lock_guard lock(m_mutex);
        const std::int64_t t = now();
        while (!m_deadlines.empty() && m_deadlines.begin()->first <= t) {
            const auto [queue, key] = m_deadlines.begin()->second;
            m_deadlines.erase(m_deadlines.begin());
            const auto qit = m_queues.find(queue);
            if (qit == m_queues.end())
                continue;
            const auto cit = qit->second.cks.find(key);
            if (cit == qit->second.cks.end() || cit->second->deadline() > t)
                continue;
            const std::shared_ptr<CheckPoint> &ck = cit->second;
            Work w {ck, {}};
            for (std::size_t i = 0; i < ck->offsets.size(); ++i) {
                if (ck->states[i] != OffsetState::InFlight)
                    continue;
                if (ck->order) {
                    ck->states[i] = OffsetState::Pending; // the queue hands it out again
                    if (freedTopics.empty() || freedTopics.back() != ck->topic)
                        freedTopics.push_back(ck->topic);
                } else {
                    ck->states[i] = OffsetState::Reviving;
                    w.offsets.push_back(ck->offsets[i]);
                }
            }
            if (!w.offsets.empty())
                work.push_back(std::move(w));
        }
    }
    for (const QByteArray &topic : freedTopics)
        m_hold->notifyArrival(topic);

    int revived = 0;
    for (Work &w : work) {
        std::vector<std::int64_t> done;
        for (std::int64_t o : w.offsets)
            if (reviveMessage(*w.ck, o, false))
                done.push_back(o);
        if (!done.empty() && !writeLog(encodeSettle(LogRecord::Type::Revive, *w.ck, done)))
            done.clear(); // the copies are stored; the next attempt stores them again
        std::lock_guard lock(m_mutex);
        for (std::int64_t o : w.offsets) {
            const auto i = static_cast<std::size_t>(w.ck->indexOf(o));
            if (std::find(done.begin(), done.end(), o) != done.end()) {
                w.ck->states[i] = OffsetState::Revived;
                m_inFlight.fetch_sub(1);
                ++revived;
            } else {
                w.ck->states[i] = OffsetState::InFlight;
            }
        }
        if (done.size() < w.offsets.size())
            scheduleLocked(*w.ck, now() + kRetryLaterMs);
        dropIfSettledLocked(*w.ck);
    }
    return revived;
}

bool PopService::reviveMessage(const CheckPoint &ck, std::int64_t offset, bool toDlq)
{
    const storage::GetMessageResult got
        = m_ctx.store->getMessage(ck.group, ck.topic, ck.queueId, offset, 1, nullptr);
    protocol::MessageRecordView rec;
    if (got.status != storage::GetMessageStatus::Found || got.messages.empty()
        || got.messageQueueOffsets.front() != offset
        || protocol::decodeRecord(got.messages.front(), rec, false).status
            != protocol::RecordStatus::Ok) {
        qCWarning(lcBroker) << "POP revive: message" << ck.topic << ck.queueId << offset
                            << "is gone; nothing to redeliver";
        return true;
    }
    const auto groupConfig = m_ctx.subscriptionGroups->findOrCreate(ck.group);
    const int maxTimes = groupConfig ? groupConfig->retryMaxTimes : 16;
    protocol::MessageProperties props = protocol::MessageProperties::parse(rec.properties);
    const QByteArray originalTopic = topics::isRetryTopic(ck.topic)
        ? props.value(MessageConst::RetryTopic, ck.topic)
        : ck.topic;
    const bool dlq = toDlq || rec.reconsumeTimes >= maxTimes;
    QByteArray target;
    Result<TopicConfig> created = TopicConfig {};
    if (dlq) {
        target = topics::dlqTopic(ck.group);
        created = m_ctx.topics->createDlqTopic(ck.group);
    } else {
        target = topics::isRetryTopic(ck.topic) ? ck.topic
                                                : protocol::popRetryTopicV1(ck.topic, ck.group);
        created = m_ctx.topics->createTopicInSendMessageBackMethod(
            target, 1, protocol::Perm::Read | protocol::Perm::Write);
    }
    if (!created) {
        qCWarning(lcBroker).noquote()
            << "POP revive: cannot create" << target << ":" << created.error().message();
        return false;
    }
    if (!props.contains(MessageConst::RetryTopic))
        props.set(MessageConst::RetryTopic.toByteArray(), originalTopic);
    if (rec.reconsumeTimes == 0 || !props.contains(kFirstPopTime))
        props.set(kFirstPopTime.toByteArray(), QByteArray::number(ck.popTime));
    if (!props.contains(MessageConst::OriginMessageId))
        props.set(MessageConst::OriginMessageId.toByteArray(),
            protocol::encodeOffsetMessageId(rec.storeHost, rec.physicalOffset));
    props.remove(QByteArrayView("POP_CK"));
    storage::MessageExtBrokerInner inner;
    inner.topic = target;
    inner.queueId = 0;
    inner.flag = rec.flag;
    inner.sysFlag = rec.sysFlag;
    inner.bornTimestamp = rec.bornTimestamp;
    inner.bornHost = rec.bornHost;
    inner.storeHost = m_ctx.storeHostAddress.port != 0 ? m_ctx.storeHostAddress : rec.storeHost;
    inner.reconsumeTimes = ck.order ? ck.attempt + 1 : rec.reconsumeTimes + 1;
    inner.body = rec.body.toByteArray();
    inner.properties = props.encode();
    inner.waitStoreMsgOk = true;
    const storage::PutMessageResult r = m_ctx.store->putMessageAndWait(inner);
    if (!appended(r.status)) {
        qCWarning(lcBroker).noquote() << "POP revive: cannot store to" << target << ":"
                                      << storage::putMessageStatusName(r.status) << r.remark;
        return false;
    }
    return true;
}

// --- snapshot ---------------------------------------------------------------------------

Status PopService::persistSnapshot()
{
    std::lock_guard writer(m_snapshotMutex);
    protocol::JsonWriter w;
    {
        std::lock_guard lock(m_mutex);
        // Every checkpoint below this revive-log offset is settled durably, and every record
        // being written lands at or above it: the replay from here rebuilds all in-flight state.
        std::int64_t from = m_ctx.store->maxOffsetInQueue(m_reviveTopic, 0);
        if (!m_pendingWrites.empty())
            from = std::min(from, *m_pendingWrites.begin());
        for (const auto &[key, qs] : m_queues)
            for (const auto &[ckKey, ck] : qs.cks)
                if (ck->logOffset >= 0)
                    from = std::min(from, ck->logOffset);
        w.beginObject();
        w.key("reviveOffset").value(from);
        w.key("offsetTable").beginArray();
        for (const auto &[key, qs] : m_queues) {
            if (qs.popOffset < 0)
                continue;
            const QList<QByteArray> parts = key.split('\x01');
            if (parts.size() != 3)
                continue;
            w.beginObject();
            w.key("group").value(QByteArrayView(parts[0]));
            w.key("topic").value(QByteArrayView(parts[1]));
            w.key("queueId").value(static_cast<std::int64_t>(parts[2].toLongLong()));
            w.key("offset").value(qs.popOffset);
            w.endObject();
        }
        w.endArray().endObject();
        m_dirty = false;
    }
    return ConfigFileStore::write(m_snapshotPath, w.data());
}

Status PopService::loadSnapshot(std::int64_t &logOffset)
{
    logOffset = 0;
    const Status st = ConfigFileStore::load(m_snapshotPath, [&](const QByteArray &text) -> Status {
        auto v = protocol::parseJson(text);
        if (!v)
            return v.error();
        if (!v->isObject())
            return Status::corruption(QStringLiteral("not a JSON object"));
        logOffset = std::max<std::int64_t>(0, (*v)["reviveOffset"].toInteger());
        std::lock_guard lock(m_mutex);
        for (const protocol::JsonValue &e : (*v)["offsetTable"].isArray()
                ? (*v)["offsetTable"].items()
                : std::vector<protocol::JsonValue> {}) {
            const QByteArray group = e["group"].toString();
            const QByteArray topic = e["topic"].toString();
            const auto queueId = static_cast<int>(e["queueId"].toInteger(-1));
            if (group.isEmpty() || topic.isEmpty() || queueId < 0)
                continue;
            stateLocked(group, topic, queueId).popOffset = e["offset"].toInteger(-1);
        }
        return {};
    });
    if (st.code() == Status::Code::NotFound)
        return {};
    return st;
}

// --- replay -----------------------------------------------------------------------------

void PopService::applyLocked(const LogRecord &record, std::int64_t logOffset)
{
    const CheckPoint &r = record.ck;
    QueueState &qs = stateLocked(r.group, r.topic, r.queueId);
    auto settle
        = [&](const CheckPointKey &key, const std::vector<std::int64_t> &offsets, OffsetState to) {
              const auto it = qs.cks.find(key);
              if (it == qs.cks.end())
                  return; // settled before the snapshot's offset
              const std::shared_ptr<CheckPoint> ck = it->second;
              for (std::int64_t o : offsets) {
                  const int i = ck->indexOf(o);
                  if (i < 0 || ck->states[static_cast<std::size_t>(i)] == OffsetState::Acked
                      || ck->states[static_cast<std::size_t>(i)] == OffsetState::Revived)
                      continue;
                  ck->states[static_cast<std::size_t>(i)] = to;
                  m_inFlight.fetch_sub(1);
              }
              dropIfSettledLocked(*ck);
          };
    switch (record.type) {
    case LogRecord::Type::CheckPoint: {
        if (r.movedFrom)
            settle(*r.movedFrom, r.offsets, OffsetState::Acked);
        auto ck = std::make_shared<CheckPoint>(r);
        ck->logOffset = logOffset;
        if (!qs.cks.count(ck->key()))
            registerLocked(ck);
        if (r.nextBeginOffset >= 0)
            qs.popOffset = std::max(qs.popOffset, r.nextBeginOffset);
        break;
    }
    case LogRecord::Type::Ack:
        settle(r.key(), r.offsets, OffsetState::Acked);
        break;
    case LogRecord::Type::Revive:
        settle(r.key(), r.offsets, OffsetState::Revived);
        break;
    }
}

Status PopService::replay(std::int64_t fromLogOffset)
{
    // Recovery dispatched the commit log into the consume queues; wait for the rest.
    if (!m_ctx.store->waitForDispatch(30000))
        return Status::ioError(QStringLiteral("POP: the store's dispatch did not catch up"));
    std::int64_t offset = std::max(fromLogOffset, m_ctx.store->minOffsetInQueue(m_reviveTopic, 0));
    const std::int64_t end = m_ctx.store->maxOffsetInQueue(m_reviveTopic, 0);
    int applied = 0;
    int skipped = 0;
    while (offset < end) {
        const storage::GetMessageResult got
            = m_ctx.store->getMessage({}, m_reviveTopic, 0, offset, kReplayBatch, nullptr);
        if (got.status != storage::GetMessageStatus::Found || got.messages.empty()) {
            if (got.nextBeginOffset <= offset)
                break;
            offset = got.nextBeginOffset;
            continue;
        }
        std::lock_guard lock(m_mutex);
        for (std::size_t i = 0; i < got.messages.size(); ++i) {
            protocol::MessageRecordView rec;
            std::optional<LogRecord> record;
            if (protocol::decodeRecord(got.messages[i], rec, false).status
                == protocol::RecordStatus::Ok)
                record = parseLogRecord(rec.body);
            if (!record) {
                ++skipped;
                continue;
            }
            applyLocked(*record, got.messageQueueOffsets[i]);
            ++applied;
        }
        offset = got.nextBeginOffset;
    }
    {
        // A pop group's committed offset (synced to a slave, kept by consumerOffset.json) is
        // never behind what it handed out: take it when it is further than the replay got.
        std::lock_guard lock(m_mutex);
        for (auto &[key, qs] : m_queues) {
            const QList<QByteArray> parts = key.split('\x01');
            if (parts.size() != 3)
                continue;
            const std::int64_t committed
                = m_ctx.consumerOffsets->query(parts[0], parts[1], parts[2].toInt());
            if (qs.popOffset >= 0 || committed >= 0)
                qs.popOffset = std::max(qs.popOffset, committed);
        }
    }
    qCInfo(lcBroker) << "POP: replayed" << applied << "revive-log records from offset"
                     << fromLogOffset << "(" << skipped << "unreadable);" << m_checkPoints.load()
                     << "checkpoints with" << m_inFlight.load() << "messages in flight";
    return {};
}

} // namespace qrocket::broker::pop
