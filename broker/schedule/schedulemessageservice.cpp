#include "broker/schedule/schedulemessageservice.h"

#include "broker/common/brokercontext.h"
#include "broker/common/logging.h"
#include "broker/config/brokerconfig.h"
#include "broker/config/delaylevel.h"
#include "broker/managers/delayoffsetmanager.h"
#include "broker/stats/brokerstatsmanager.h"
#include "clientlib/protocol/systemtopics.h"
#include "storage/messagestore.h"

#include <QDateTime>
#include <QLatin1String>

#include <algorithm>
#include <chrono>
#include <exception>

namespace qrocket::broker {

namespace {

schedule::DelayLevels levelsFromConfig(const BrokerConfig *config)
{
    if (config && !config->delayLevelMillis().empty())
        return config->delayLevelMillis();
    if (config) {
        auto parsed = parseMessageDelayLevel(config->messageDelayLevel);
        if (parsed.has_value() && !parsed.value().empty())
            return parsed.value();
    }
    auto fallback = parseMessageDelayLevel(QLatin1String(kDefaultMessageDelayLevel));
    return fallback.has_value() ? fallback.value() : schedule::DelayLevels {};
}

} // namespace

ScheduleMessageService::ScheduleMessageService(BrokerContext &ctx, Clock clock)
    : m_ctx(ctx), m_clock(std::move(clock)), m_levels(levelsFromConfig(ctx.config))
{
    if (!m_clock)
        m_clock = [] { return QDateTime::currentMSecsSinceEpoch(); };
}

ScheduleMessageService::~ScheduleMessageService()
{
    stop();
}

int ScheduleMessageService::transform(storage::MessageExtBrokerInner &msg) const
{
    return schedule::applyDelayLevel(msg, m_levels);
}

std::function<std::int64_t(const protocol::MessageRecordView &)>
ScheduleMessageService::tagsCodeResolver() const
{
    return [levels = m_levels](const protocol::MessageRecordView &rec) {
        return schedule::tagsCodeOf(rec, levels);
    };
}

void ScheduleMessageService::installTagsCodeResolver(storage::MessageStore &store) const
{
    store.setTagsCodeResolver(tagsCodeResolver());
}

void ScheduleMessageService::start()
{
    if (m_ctx.config
        && (!m_ctx.config->isMaster() || m_ctx.config->brokerRole == QLatin1String("SLAVE"))) {
        qCInfo(lcBroker) << "schedule: slave broker, delayed messages are not delivered here";
        return;
    }
    if (m_service.isRunning())
        return;
    m_service.start([this] { run(); }, "qr-schedule");
}

void ScheduleMessageService::stop()
{
    if (!m_service.isRunning())
        return;
    m_service.stop();
    if (m_ctx.delayOffsets) {
        if (Status s = m_ctx.delayOffsets->persist(); !s)
            qCWarning(lcBroker).noquote()
                << "schedule: persisting delay offsets failed:" << s.message();
    }
}

bool ScheduleMessageService::isRunning() const
{
    return m_service.isRunning() && !m_service.isStopping();
}

protocol::HostAddress ScheduleMessageService::storeHostOr(
    const protocol::HostAddress &fallback) const
{
    // Read at each use: with listenPort 0 the controller learns the address only at start().
    if (m_ctx.storeHostAddress.port != 0)
        return m_ctx.storeHostAddress;
    protocol::HostAddress parsed;
    return protocol::HostAddress::parse(m_ctx.storeHost, parsed) ? parsed : fallback;
}

std::int64_t ScheduleMessageService::deliverLevel(int level)
{
    storage::MessageStore *store = m_ctx.store;
    DelayOffsetManager *offsets = m_ctx.delayOffsets;
    if (!store || !offsets || level < 1 || level > maxLevel())
        return kDelayForAWhileMillis;
    storage::ConsumeQueue *cq
        = store->findConsumeQueue(protocol::topics::kSchedule, schedule::queueIdOfLevel(level));
    if (!cq)
        return kDelayForAWhileMillis;

    const std::int64_t levelDelay = schedule::levelDelayMillis(m_levels, level);
    const std::int64_t maxOffset = cq->maxOffsetInQueue();
    // RocketMQ's correctDelayOffset: an offset outside [min, max] (files cleaned, or a queue
    // truncated by recovery) restarts at the nearest bound.
    std::int64_t offset = std::clamp(offsets->offset(level), cq->minOffsetInQueue(),
        std::max(maxOffset, cq->minOffsetInQueue()));
    const std::int64_t stored = offsets->offset(level);
    std::int64_t result = kDelayForAWhileMillis;
    int delivered = 0;
    while (offset < maxOffset) {
        if (delivered >= kMaxDeliveriesPerRun) {
            result = 1; // a backlog: continue at once, but let the other levels run in between
            break;
        }
        storage::ConsumeQueue::Unit unit;
        if (!cq->unit(offset, unit))
            break;
        const std::int64_t t = now();
        const std::int64_t deliverAt
            = schedule::correctDeliverTimestamp(t, unit.tagsCode, levelDelay);
        if (deliverAt > t) {
            result = std::min(deliverAt - t, kDelayForAWhileMillis);
            break;
        }
        const storage::SelectedRecord sel = store->lookMessageByOffset(unit.commitLogOffset);
        protocol::MessageRecordView rec;
        if (sel.isValid()
            && protocol::decodeRecord(sel.bytes, rec, false).status == protocol::RecordStatus::Ok) {
            auto msg = schedule::messageTimeUp(rec, storeHostOr(rec.storeHost));
            if (msg.has_value()) {
                const storage::PutMessageResult put = store->putMessageAndWait(msg.value());
                const bool never = put.status == storage::PutMessageStatus::MessageIllegal
                    || put.status == storage::PutMessageStatus::PropertiesSizeExceeded;
                if (never) {
                    m_undeliverable.fetch_add(1, std::memory_order_relaxed);
                    qCWarning(lcBroker).noquote()
                        << "schedule: level" << level << "offset" << offset << "(commit-log offset"
                        << unit.commitLogOffset << ") can never be delivered to"
                        << msg.value().topic.left(200) << ":"
                        << storage::putMessageStatusName(put.status) << put.remark
                        << "- skipped; the record stays in the commit log";
                } else if (!put.isOk()) {
                    qCWarning(lcBroker).noquote()
                        << "schedule: re-put of level" << level << "offset" << offset << "to"
                        << msg.value().topic
                        << "failed:" << storage::putMessageStatusName(put.status) << put.remark
                        << "- retrying in 10 s";
                    result = kDelayForAPeriodMillis;
                    break;
                }
                if (!never) {
                    ++delivered;
                    if (m_ctx.statsManager)
                        m_ctx.statsManager->onScheduleDelivered(
                            msg.value().topic, put.msgNum, put.wroteBytes);
                }
            } else {
                qCWarning(lcBroker).noquote() << "schedule: skipping level" << level << "offset"
                                              << offset << ":" << msg.error().message();
            }
        } else {
            qCWarning(lcBroker) << "schedule: level" << level << "offset" << offset
                                << "points at no readable record (commit-log offset"
                                << unit.commitLogOffset << "), skipped";
        }
        ++offset;
    }
    if (offset != stored)
        offsets->setOffset(level, offset);
    return result;
}

std::vector<std::pair<QByteArray, QByteArray>> ScheduleMessageService::runtimeInfo() const
{
    std::vector<std::pair<QByteArray, QByteArray>> out;
    if (!m_ctx.store || !m_ctx.delayOffsets)
        return out;
    for (int level = 1; level <= maxLevel(); ++level) {
        storage::ConsumeQueue *cq = m_ctx.store->findConsumeQueue(
            protocol::topics::kSchedule, schedule::queueIdOfLevel(level));
        if (!cq)
            continue;
        out.emplace_back(QByteArrayLiteral("scheduleMessageOffset_") + QByteArray::number(level),
            QByteArray::number(m_ctx.delayOffsets->offset(level)) + ','
                + QByteArray::number(cq->maxOffsetInQueue()));
    }
    out.emplace_back(QByteArrayLiteral("scheduleMessageUndeliverable"),
        QByteArray::number(m_undeliverable.load(std::memory_order_relaxed)));
    return out;
}

void ScheduleMessageService::run()
{
    using namespace std::chrono;
    const std::int64_t persistEvery = m_ctx.config && m_ctx.config->flushDelayOffsetInterval > 0
        ? m_ctx.config->flushDelayOffsetInterval
        : 10000;
    // Monotonic time drives the timers; the injectable wall clock decides what is due.
    const auto mono = [] {
        return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
    };
    std::vector<std::int64_t> next(m_levels.size(), mono() + kFirstDelayMillis);
    std::int64_t nextPersist = mono() + persistEvery;

    while (!m_service.isStopping()) {
        for (std::size_t i = 0; i < next.size() && !m_service.isStopping(); ++i) {
            if (next[i] > mono())
                continue;
            std::int64_t delay = kDelayForAPeriodMillis;
            try {
                delay = deliverLevel(static_cast<int>(i) + 1);
            } catch (const std::exception &e) {
                qCWarning(lcBroker) << "schedule: level" << i + 1 << "failed:" << e.what();
            }
            next[i] = mono() + std::max<std::int64_t>(delay, 1);
        }
        if (m_service.isStopping())
            break;
        if (mono() >= nextPersist && m_ctx.delayOffsets) {
            if (Status s = m_ctx.delayOffsets->persist(); !s)
                qCWarning(lcBroker).noquote()
                    << "schedule: persisting delay offsets failed:" << s.message();
            nextPersist = mono() + persistEvery;
        }
        std::int64_t wakeAt = nextPersist;
        for (std::int64_t n : next)
            wakeAt = std::min(wakeAt, n);
        m_service.waitFor(milliseconds(std::max<std::int64_t>(wakeAt - mono(), 1)));
    }
}

} // namespace qrocket::broker
