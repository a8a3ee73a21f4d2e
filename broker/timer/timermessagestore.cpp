#include "broker/timer/timermessagestore.h"

#include "broker/common/logging.h"
#include "clientlib/protocol/messageproperties.h"
#include "storage/core/mappedfile.h"
#include "storage/messagestore.h"

#include <QDateTime>
#include <QDir>
#include <QFile>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <exception>

namespace qrocket::broker {

using namespace timer;

using storage::MessageStore;
using storage::PutMessageStatus;
namespace MessageConst = protocol::MessageConst;

struct TimerMessageStore::Entry
{
    std::uint32_t magic;
    std::uint32_t flags;
    std::int64_t prev;
    std::int64_t phyOffset;
    std::int32_t size;
    std::int32_t reserved; // recordMark() of the record (0: written before marks existed)
    std::int64_t slotTime;
    std::int64_t cqOffset;
};
static_assert(sizeof(TimerMessageStore::Entry) == 48);

struct TimerMessageStore::Slot
{
    std::int64_t time;
    std::int64_t last;
};
static_assert(sizeof(TimerMessageStore::Slot) == 16);

namespace {

constexpr std::uint32_t kEntryMagic = 0x51544d52; // "QTMR"
constexpr std::uint32_t kFlagMarker = 1;
constexpr std::int64_t kEntrySize = 48;
constexpr std::int64_t kFooterSize = 64;
constexpr std::int64_t kCheckpointMagic = 0x5152544d52310001LL;
constexpr std::int64_t kCheckpointSize = 4096;

enum Field : int {
    kMagic,
    kPrecision,
    kSlots,
    kEnqueueCq, // next rmq_sys_wheel_timer queue offset to enqueue
    kLogPos, // next timer-log position
    kFire, // slot time being fired (or next)
    kCursorSlot, // the slot kCursor belongs to
    kCursor, // next entry of kCursorSlot to deliver, -1 when done
    kPendingPos, // entry whose delivery put is under way, -1 none
    kPendingFrom, // commit-log max offset before that put
    kEnqueued,
    kDelivered,
    kSkipped,
    kStartSlot, // the slot whose start recorded kStartCq (timersuccession.h: the fire mark's Q)
    kStartCq, // kEnqueueCq when that slot started
    kInheritEnd, // an inheritance (timersuccession.h): queue offsets below it, 0 none
    kInheritMarkFire,
    kInheritMarkQueue,
    kInheritFrom,
    kInheritTo,
    kInheritMaxSkip, // the latest due slot of an inherited entry not enqueued
    kFieldCount
};

template<typename T>
std::atomic_ref<T> atomicAt(T &v)
{
    return std::atomic_ref<T>(v);
}

bool hasResult(PutMessageStatus s)
{
    return s == PutMessageStatus::PutOk || s == PutMessageStatus::FlushDiskTimeout
        || s == PutMessageStatus::FlushSlaveTimeout || s == PutMessageStatus::SlaveNotAvailable;
}

Result<std::shared_ptr<storage::MappedFile>> openOrCreate(
    const QString &path, std::int64_t from, std::int64_t size)
{
    return storage::MappedFile::open(path, from, size, !QFile::exists(path));
}

void putBigEndian(QByteArray &out, std::int64_t v)
{
    for (int i = 7; i >= 0; --i)
        out.append(static_cast<char>((static_cast<std::uint64_t>(v) >> (8 * i)) & 0xff));
}

} // namespace

TimerMessageStore::TimerMessageStore(MessageStore &store, TimerStoreOptions options)
    : m_store(store), m_opt(std::move(options))
{
    if (!m_opt.clock)
        m_opt.clock = [] { return QDateTime::currentMSecsSinceEpoch(); };
    if (m_opt.rules.precisionMs <= 0)
        m_opt.rules.precisionMs = 1000;
    if (m_opt.logFileSize < 4096)
        m_opt.logFileSize = 4096;
    m_slots = 2 * ((m_opt.rules.maxDelayMs + m_opt.rules.precisionMs - 1) / m_opt.rules.precisionMs)
        + 16;
}

TimerMessageStore::~TimerMessageStore()
{
    stop();
    flushFiles();
}

std::int64_t TimerMessageStore::ck(int field) const
{
    auto *p = reinterpret_cast<std::int64_t *>(m_checkpoint->data());
    return atomicAt(p[field]).load(std::memory_order_acquire);
}

void TimerMessageStore::setCk(int field, std::int64_t v)
{
    auto *p = reinterpret_cast<std::int64_t *>(m_checkpoint->data());
    atomicAt(p[field]).store(v, std::memory_order_release);
}

TimerMessageStore::Slot *TimerMessageStore::slotOf(std::int64_t slotTime) const
{
    const std::int64_t index = (slotTime / m_opt.rules.precisionMs) % m_slots;
    return reinterpret_cast<Slot *>(m_wheel->data()) + index;
}

const TimerMessageStore::Entry *TimerMessageStore::entryAt(std::int64_t pos) const
{
    return const_cast<TimerMessageStore *>(this)->entryAt(pos);
}

TimerMessageStore::Entry *TimerMessageStore::entryAt(std::int64_t pos)
{
    if (pos < 0)
        return nullptr;
    const std::int64_t base = pos / m_opt.logFileSize * m_opt.logFileSize;
    if (pos - base + kEntrySize > m_opt.logFileSize - kFooterSize)
        return nullptr;
    std::lock_guard lock(m_logMutex);
    auto it = m_log.find(base);
    if (it == m_log.end())
        return nullptr;
    return reinterpret_cast<Entry *>(it->second->data() + (pos - base));
}

Result<std::int64_t> TimerMessageStore::reserveEntry(std::int64_t pos)
{
    std::int64_t base = pos / m_opt.logFileSize * m_opt.logFileSize;
    if (pos - base + kEntrySize > m_opt.logFileSize - kFooterSize) {
        base += m_opt.logFileSize;
        pos = base;
    }
    std::lock_guard lock(m_logMutex);
    if (!m_log.count(base)) {
        auto file = openOrCreate(
            m_opt.dir + QStringLiteral("/timerlog/") + storage::offsetToFileName(base), base,
            m_opt.logFileSize);
        if (!file)
            return file.error();
        auto *footer = reinterpret_cast<std::int64_t *>(
            file.value()->data() + m_opt.logFileSize - kFooterSize);
        atomicAt(*footer).store(0, std::memory_order_release);
        m_log.emplace(base, std::move(file.value()));
    }
    return pos;
}

Status TimerMessageStore::openLog()
{
    QDir dir(m_opt.dir + QStringLiteral("/timerlog"));
    if (!dir.exists() && !QDir().mkpath(dir.path()))
        return Status::ioError(QStringLiteral("cannot create %1").arg(dir.path()));
    for (const QString &name : dir.entryList(QDir::Files, QDir::Name)) {
        bool ok = false;
        const std::int64_t base = name.toLongLong(&ok);
        if (!ok || base % m_opt.logFileSize != 0) {
            qCWarning(lcBroker).noquote() << "timer: ignoring" << dir.filePath(name);
            continue;
        }
        auto file = storage::MappedFile::open(dir.filePath(name), base, m_opt.logFileSize, false);
        if (!file)
            return file.error();
        m_log.emplace(base, std::move(file.value()));
    }
    return {};
}

Status TimerMessageStore::open()
{
    if (!QDir().mkpath(m_opt.dir))
        return Status::ioError(QStringLiteral("cannot create %1").arg(m_opt.dir));
    auto cp = openOrCreate(m_opt.dir + QStringLiteral("/checkpoint"), 0, kCheckpointSize);
    if (!cp)
        return cp.error();
    m_checkpoint = std::move(cp.value());
    const bool fresh = ck(kMagic) != kCheckpointMagic;
    if (!fresh && (ck(kPrecision) != m_opt.rules.precisionMs || ck(kSlots) != m_slots)) {
        const std::int64_t waiting = ck(kEnqueued) - ck(kDelivered) - ck(kSkipped);
        if (waiting > 0)
            return Status::invalidArgument(
                QStringLiteral("timer: timerPrecisionMs/timerMaxDelaySec changed (precision %1 -> "
                               "%2 ms, %3 -> %4 slots) while %5 timer messages wait; restore "
                               "the old values")
                    .arg(ck(kPrecision))
                    .arg(m_opt.rules.precisionMs)
                    .arg(ck(kSlots))
                    .arg(m_slots)
                    .arg(waiting));
        qCInfo(lcBroker) << "timer: wheel geometry changed with nothing waiting: new wheel";
        QFile::remove(m_opt.dir + QStringLiteral("/wheel"));
        QDir(m_opt.dir + QStringLiteral("/timerlog")).removeRecursively();
    }
    auto wheel = openOrCreate(
        m_opt.dir + QStringLiteral("/wheel"), 0, m_slots * static_cast<std::int64_t>(sizeof(Slot)));
    if (!wheel)
        return wheel.error();
    m_wheel = std::move(wheel.value());
    if (Status st = openLog(); !st)
        return st;
    if (fresh || ck(kPrecision) != m_opt.rules.precisionMs || ck(kSlots) != m_slots) {
        storage::ConsumeQueue *cq = m_store.findConsumeQueue(kTimerTopic, 0);
        const std::int64_t p = m_opt.rules.precisionMs;
        // A new wheel after a geometry change (nothing waiting) goes on where the old one was.
        const std::int64_t enqueueFrom
            = !fresh ? ck(kEnqueueCq) : (cq ? cq->minOffsetInQueue() : 0);
        // A fresh wheel over a non-empty queue inherits it (a promoted slave, a lost checkpoint).
        const Inheritance::Plan plan
            = fresh ? Inheritance::plan(m_store, m_opt.dir, p) : Inheritance::Plan {};
        const std::int64_t logPos = m_log.empty() ? 0 : m_log.rbegin()->first + m_opt.logFileSize;
        setCk(kPrecision, p);
        setCk(kSlots, m_slots);
        setCk(kEnqueueCq, enqueueFrom);
        setCk(kLogPos, logPos);
        setCk(kFire, now() / p * p);
        setCk(kCursorSlot, 0);
        setCk(kCursor, -1);
        setCk(kPendingPos, -1);
        setCk(kPendingFrom, 0);
        setCk(kEnqueued, 0);
        setCk(kDelivered, 0);
        setCk(kSkipped, 0);
        setCk(kStartSlot, 0);
        setCk(kStartCq, 0);
        setCk(kInheritEnd, plan.end);
        setCk(kInheritMarkFire, plan.markFire);
        setCk(kInheritMarkQueue, plan.markQueue);
        setCk(kInheritFrom, plan.from);
        setCk(kInheritTo, plan.to);
        setCk(kInheritMaxSkip, 0);
        setCk(kMagic, kCheckpointMagic);
    }
    return recover();
}

Status TimerMessageStore::recover()
{
    const std::int64_t p = m_opt.rules.precisionMs;
    // 1. An enqueue published but not checkpointed: keep it (it is in its slot's list).
    std::int64_t pos = ck(kLogPos);
    const std::int64_t base = pos / m_opt.logFileSize * m_opt.logFileSize;
    if (pos - base + kEntrySize > m_opt.logFileSize - kFooterSize)
        pos = base + m_opt.logFileSize;
    if (const Entry *e = entryAt(pos); e && e->magic == kEntryMagic) {
        const Slot *s = slotOf(e->slotTime);
        if (s->time == e->slotTime && s->last == pos && e->cqOffset + 1 >= ck(kEnqueueCq)) {
            if (e->cqOffset + 1 > ck(kEnqueueCq)) {
                setCk(kEnqueueCq, e->cqOffset + 1);
                setCk(kEnqueued, ck(kEnqueued) + 1);
            }
            setCk(kLogPos, pos + kEntrySize);
            qCInfo(lcBroker) << "timer: recovered the enqueue of queue offset" << e->cqOffset;
        }
    }
    // 2. A delivery under way at the crash: delivered already, or not?
    const std::int64_t pending = ck(kPendingPos);
    if (pending >= 0 && ck(kCursorSlot) == ck(kFire) && ck(kCursor) == pending) {
        const Entry *e = entryAt(pending);
        bool found = false;
        if (e && e->magic == kEntryMagic) {
            const storage::SelectedRecord sel = m_store.lookMessageByOffset(e->phyOffset);
            protocol::MessageRecordView src;
            if (sel.isValid()
                && protocol::decodeRecord(sel.bytes, src, false).status
                    == protocol::RecordStatus::Ok)
                found = findDelivery(ck(kPendingFrom), src);
            qCInfo(lcBroker) << "timer: delivery of commit-log offset" << e->phyOffset
                             << (found ? "was stored before the crash: not delivered again"
                                       : "was not stored before the crash: delivering it");
            if (found) {
                setCk(kCursor, e->prev);
                setCk(kDelivered, ck(kDelivered) + 1);
            }
        }
    }
    setCk(kPendingPos, -1);
    // 3. The queue may have been cut back with the commit log (#10668): never wait beyond it.
    storage::ConsumeQueue *cq = m_store.findConsumeQueue(kTimerTopic, 0);
    const std::int64_t maxCq = cq ? cq->maxOffsetInQueue() : 0;
    if (ck(kEnqueueCq) > maxCq) {
        qCWarning(lcBroker) << "timer: enqueue offset" << ck(kEnqueueCq)
                            << "beyond rmq_sys_wheel_timer's end" << maxCq << "- clamped";
        setCk(kEnqueueCq, maxCq);
    }
    if (cq && ck(kEnqueueCq) < cq->minOffsetInQueue())
        setCk(kEnqueueCq, cq->minOffsetInQueue());
    const std::int64_t fire = ck(kFire);
    m_startedSlot.store(ck(kCursorSlot) == fire ? fire : fire - p);
    if (ck(kCursorSlot) == fire) { // resuming a slot: its recall markers again
        const Slot *s = slotOf(fire);
        collectMarkers(s->time == fire ? s->last : -1);
    }
    qCInfo(lcBroker) << "timer: open; fire time" << fire << "enqueue offset" << ck(kEnqueueCq)
                     << "waiting" << backlog();
    return {};
}

void TimerMessageStore::start()
{
    if (m_service.isRunning() || !m_checkpoint)
        return;
    m_service.start([this] { run(); }, "qr-timer");
}

void TimerMessageStore::stop()
{
    if (m_service.isRunning())
        m_service.stop();
}

void TimerMessageStore::run()
{
    while (!m_service.isStopping()) {
        std::int64_t wait = 100;
        try {
            wait = runOnce();
        } catch (const TEST_Crash &) {
            return;
        } catch (const std::exception &e) {
            qCWarning(lcBroker) << "timer: round failed:" << e.what();
        }
        if (wait > 0)
            m_service.waitFor(std::chrono::milliseconds(wait));
    }
    flushFiles();
}

int TimerMessageStore::enqueue(int max, bool &stalled)
{
    stalled = false;
    storage::ConsumeQueue *cq = m_store.findConsumeQueue(kTimerTopic, 0);
    if (!cq)
        return 0;
    const std::int64_t p = m_opt.rules.precisionMs;
    int n = 0;
    std::int64_t offset = ck(kEnqueueCq);
    const std::int64_t maxCq = cq->maxOffsetInQueue();
    if (offset < cq->minOffsetInQueue()) {
        offset = cq->minOffsetInQueue();
        setCk(kEnqueueCq, offset);
    }
    while (n < max && offset < maxCq) {
        storage::ConsumeQueue::Unit unit;
        if (!cq->unit(offset, unit))
            break;
        const bool marker = unit.tagsCode < 0;
        std::int64_t slot = marker ? -unit.tagsCode : unit.tagsCode;
        if (offset < ck(kInheritEnd)) {
            const std::int64_t due = slotTimeOf(std::max<std::int64_t>(slot, 1), p);
            const Inheritance::Plan plan {ck(kInheritEnd), ck(kInheritMarkFire),
                ck(kInheritMarkQueue), ck(kInheritFrom), ck(kInheritTo)};
            if (m_inheritance.skip(m_store, plan, offset, due, marker, unit.commitLogOffset)) {
                setCk(kInheritMaxSkip, std::max(ck(kInheritMaxSkip), due));
                setCk(kEnqueueCq, ++offset);
                ++n;
                continue;
            }
        } else if (m_inheritance.loaded()) {
            m_inheritance.finish();
        }
        const std::int64_t fire = ck(kFire);
        const bool started = ck(kCursorSlot) == fire;
        slot = std::max(slotTimeOf(std::max<std::int64_t>(slot, 1), p), started ? fire + p : fire);
        Slot *s = slotOf(slot);
        if (s->time != slot && s->time >= fire && s->last >= 0) {
            stalled = true; // the wheel's window is full: wait for the fire to catch up
            break;
        }
        auto reserved = reserveEntry(ck(kLogPos));
        if (!reserved) {
            qCWarning(lcBroker).noquote()
                << "timer: cannot extend the timer log:" << reserved.error().message();
            stalled = true;
            break;
        }
        const std::int64_t pos = reserved.value();
        Entry *e = entryAt(pos);
        const std::int64_t prev = s->time == slot ? s->last : -1;
        const std::uint32_t mark = recordMark(m_store.commitLogData(unit.commitLogOffset).bytes);
        *e = Entry {kEntryMagic, marker ? kFlagMarker : 0u, prev, unit.commitLogOffset, unit.size,
            static_cast<std::int32_t>(mark), slot, offset};
        // The file's latest slot time before the entry is published (the file is deleted only
        // once the wheel fired past it).
        auto *footer = reinterpret_cast<std::int64_t *>(reinterpret_cast<char *>(e)
            - (pos % m_opt.logFileSize) + m_opt.logFileSize - kFooterSize);
        if (atomicAt(*footer).load() < slot)
            atomicAt(*footer).store(slot, std::memory_order_release);
        // No fence here: each store below is a release store, which already orders the entry's
        // plain writes before it for a reader that acquires the slot (and GCC refuses
        // atomic_thread_fence under -fsanitize=thread with -Werror).
        if (s->time != slot) {
            atomicAt(s->last).store(-1, std::memory_order_release);
            atomicAt(s->time).store(slot, std::memory_order_release);
        }
        atomicAt(s->last).store(pos, std::memory_order_release); // published
        if (TEST_crashAt && TEST_crashAt(1))
            throw TEST_Crash {};
        setCk(kEnqueueCq, offset + 1);
        setCk(kLogPos, pos + kEntrySize);
        setCk(kEnqueued, ck(kEnqueued) + 1);
        ++offset;
        ++n;
    }
    return n;
}

void TimerMessageStore::collectMarkers(std::int64_t head)
{
    m_deleteKeys.clear();
    for (std::int64_t pos = head; pos >= 0;) {
        const Entry *e = entryAt(pos);
        if (!e || e->magic != kEntryMagic)
            break;
        if (e->flags & kFlagMarker) {
            const storage::SelectedRecord sel = m_store.lookMessageByOffset(e->phyOffset);
            protocol::MessageRecordView rec;
            if (sel.isValid()
                && protocol::decodeRecord(sel.bytes, rec, false).status
                    == protocol::RecordStatus::Ok) {
                const QByteArrayView key = protocol::findProperty(rec.properties, prop::DelUniqKey);
                if (!key.isEmpty())
                    m_deleteKeys.insert(key.toByteArray());
            }
        }
        pos = e->prev;
    }
}

bool TimerMessageStore::startSlot(std::int64_t slotTime)
{
    if (m_gateOffset < 0) {
        std::lock_guard lock(m_gateMutex);
        m_startedSlot.store(slotTime);
        m_gateOffset = m_store.commitLogMaxOffset();
    }
    // Everything put before the slot's time (messages and recall markers) must be in its list.
    if (m_store.dispatchedOffset() < m_gateOffset)
        return false;
    bool stalled = false;
    while (enqueue(kEnqueueBatch, stalled) > 0 && !stalled) { }
    m_gateOffset = -1;
    setCk(kStartCq, ck(kEnqueueCq));
    setCk(kStartSlot, slotTime);
    const Slot *s = slotOf(slotTime);
    const std::int64_t head = s->time == slotTime ? s->last : -1;
    collectMarkers(head);
    setCk(kCursor, head);
    setCk(kCursorSlot, slotTime);
    return true;
}

TimerMessageStore::DeliverResult TimerMessageStore::deliver(std::int64_t pos, const Entry &e)
{
    if (e.flags & kFlagMarker)
        return DeliverResult::Skipped;
    const storage::SelectedRecord sel = m_store.lookMessageByOffset(e.phyOffset);
    protocol::MessageRecordView rec;
    if (!sel.isValid()
        || protocol::decodeRecord(sel.bytes, rec, false).status != protocol::RecordStatus::Ok
        || rec.topic != kTimerTopic || rec.queueOffset != e.cqOffset
        || (e.reserved != 0 && static_cast<std::uint32_t>(e.reserved) != recordMark(sel.bytes))) {
        qCWarning(lcBroker) << "timer: entry of queue offset" << e.cqOffset
                            << "points at no rmq_sys_wheel_timer record it was made from "
                               "(commit-log offset"
                            << e.phyOffset << ", cleaned, truncated or written again): skipped";
        return DeliverResult::Skipped;
    }
    if (!m_deleteKeys.empty()) {
        const QByteArray key
            = deleteKey(protocol::findProperty(rec.properties, MessageConst::RealTopic),
                protocol::findProperty(rec.properties, MessageConst::UniqClientMessageIdKeyIdx));
        if (m_deleteKeys.count(key)) {
            qCDebug(lcBroker) << "timer: recalled" << key;
            return DeliverResult::Skipped;
        }
    }
    const protocol::HostAddress host = m_opt.storeHost ? m_opt.storeHost() : rec.storeHost;
    auto msg = timerMessageTimeUp(rec, host.port != 0 ? host : rec.storeHost, now());
    if (!msg) {
        qCWarning(lcBroker).noquote()
            << "timer: skipping queue offset" << e.cqOffset << ":" << msg.error().message();
        return DeliverResult::Skipped;
    }
    setCk(kPendingFrom, m_store.commitLogMaxOffset());
    setCk(kPendingPos, pos);
    const storage::PutMessageResult put = m_store.putMessageAndWait(msg.value());
    if (TEST_crashAt && hasResult(put.status) && TEST_crashAt(2))
        throw TEST_Crash {};
    if (put.status == PutMessageStatus::MessageIllegal
        || put.status == PutMessageStatus::PropertiesSizeExceeded) {
        qCWarning(lcBroker).noquote()
            << "timer: queue offset" << e.cqOffset << "can never be delivered to"
            << msg.value().topic.left(200) << ":" << storage::putMessageStatusName(put.status)
            << put.remark << "- skipped";
        return DeliverResult::Skipped;
    }
    if (!hasResult(put.status)) {
        setCk(kPendingPos, -1);
        qCWarning(lcBroker).noquote()
            << "timer: delivery to" << msg.value().topic
            << "failed:" << storage::putMessageStatusName(put.status) << put.remark << "- retrying";
        return DeliverResult::Retry;
    }
    return DeliverResult::Done;
}

int TimerMessageStore::fire(int max, bool &waiting)
{
    waiting = false;
    const std::int64_t p = m_opt.rules.precisionMs;
    int n = 0;
    int emptySlots = 0;
    while (n < max && emptySlots < 100000) {
        const std::int64_t f = ck(kFire);
        if (now() < f) {
            waiting = true;
            return n;
        }
        if (ck(kCursorSlot) != f && !startSlot(f)) {
            waiting = true;
            return n;
        }
        const std::int64_t cursor = ck(kCursor);
        if (cursor < 0) {
            m_deleteKeys.clear();
            setCk(kFire, f + p); // the slot is done: one store moves on
            publishMark(f);
            m_lastFireMs.store(f);
            ++emptySlots;
            continue;
        }
        const Entry *e = entryAt(cursor);
        if (!e || e->magic != kEntryMagic || e->slotTime != f) {
            qCCritical(lcBroker) << "timer: slot" << f << "links to a bad entry at" << cursor
                                 << "- the rest of the slot is lost";
            setCk(kCursor, -1);
            continue;
        }
        const Entry entry = *e;
        const DeliverResult r = deliver(cursor, entry);
        if (r == DeliverResult::Retry) {
            waiting = true;
            return n;
        }
        setCk(kCursor, entry.prev);
        setCk(kPendingPos, -1);
        if (r == DeliverResult::Done)
            setCk(kDelivered, ck(kDelivered) + 1);
        else
            setCk(kSkipped, ck(kSkipped) + 1);
        ++n;
    }
    return n;
}

bool TimerMessageStore::findDelivery(
    std::int64_t from, const protocol::MessageRecordView &source) const
{
    bool found = false;
    forEachRecord(m_store, from, m_store.commitLogMaxOffset(),
        [&](const protocol::MessageRecordView &rec, std::int64_t) {
            found = isDeliveryOf(rec, source);
            return !found;
        });
    return found;
}

void TimerMessageStore::publishMark(std::int64_t slot)
{
    // Only a slot whose start is known (Q), after any inheritance, past what it skipped.
    const std::int64_t p = m_opt.rules.precisionMs;
    if (ck(kStartSlot) != slot || ck(kStartCq) < ck(kInheritEnd) || slot + p <= ck(kInheritMaxSkip))
        return;
    const FireMark mark {slot + p, m_store.commitLogMaxOffset(), ck(kStartCq), p};
    std::lock_guard lock(m_markMutex);
    m_mark = mark;
}

std::optional<FireMark> TimerMessageStore::fireMark() const
{
    std::lock_guard lock(m_markMutex);
    return m_mark;
}

void TimerMessageStore::deleteFiredLogFiles()
{
    std::vector<std::shared_ptr<storage::MappedFile>> gone;
    {
        std::lock_guard lock(m_logMutex);
        const std::int64_t fire = ck(kFire);
        const std::int64_t writeBase = ck(kLogPos) / m_opt.logFileSize * m_opt.logFileSize;
        for (auto it = m_log.begin(); it != m_log.end();) {
            const auto *footer = reinterpret_cast<const std::int64_t *>(
                it->second->data() + m_opt.logFileSize - kFooterSize);
            if (it->first >= writeBase
                || atomicAt(*const_cast<std::int64_t *>(footer)).load() >= fire)
                break;
            gone.push_back(it->second);
            it = m_log.erase(it);
        }
    }
    for (auto &f : gone) {
        qCInfo(lcBroker).noquote() << "timer: deleting fired timer log" << f->path();
        f->unlinkFile();
    }
}

void TimerMessageStore::flushFiles()
{
    if (m_checkpoint)
        m_checkpoint->sync();
    if (m_wheel)
        m_wheel->sync();
    std::shared_ptr<storage::MappedFile> last;
    {
        std::lock_guard lock(m_logMutex);
        if (!m_log.empty())
            last = m_log.rbegin()->second;
    }
    if (last)
        last->sync();
}

std::int64_t TimerMessageStore::runOnce()
{
    bool stalled = false;
    const int enqueued = enqueue(kEnqueueBatch, stalled);
    bool waiting = false;
    const int fired = fire(kFireBatch, waiting);
    const std::int64_t mono = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now().time_since_epoch())
                                  .count();
    if (mono >= m_nextFlush) {
        deleteFiredLogFiles();
        flushFiles();
        m_nextFlush = mono + std::max<std::int64_t>(m_opt.flushIntervalMs, 10);
    }
    if ((enqueued == kEnqueueBatch && !stalled) || (fired > 0 && !waiting))
        return 0;
    if (m_gateOffset >= 0)
        return 1; // waiting for the reput thread
    return std::clamp<std::int64_t>(ck(kFire) - now(), 1, 100);
}

TimerMessageStore::RecallResult TimerMessageStore::recall(
    const storage::MessageExtBrokerInner &marker, std::int64_t slotMs,
    storage::PutMessageResult *put)
{
    std::lock_guard lock(m_gateMutex);
    if (slotMs <= m_startedSlot.load())
        return RecallResult::AlreadyDue;
    storage::PutMessageResult r = m_store.putMessageAndWait(marker);
    const bool ok = hasResult(r.status);
    if (put)
        *put = std::move(r);
    return ok ? RecallResult::Ok : RecallResult::PutFailed;
}

std::function<std::int64_t(const protocol::MessageRecordView &)>
TimerMessageStore::wrapTagsCodeResolver(
    std::function<std::int64_t(const protocol::MessageRecordView &)> next)
{
    return [next = std::move(next)](const protocol::MessageRecordView &rec) -> std::int64_t {
        if (rec.topic == kTimerTopic)
            return timerTagsCode(rec);
        return next ? next(rec) : 0;
    };
}

std::int64_t TimerMessageStore::backlog() const
{
    if (!m_checkpoint)
        return 0;
    return std::max<std::int64_t>(
        0, ck(kEnqueued) - ck(kDelivered) - ck(kSkipped) + enqueueBehind());
}

std::int64_t TimerMessageStore::enqueueBehind() const
{
    if (!m_checkpoint)
        return 0;
    storage::ConsumeQueue *cq = m_store.findConsumeQueue(kTimerTopic, 0);
    return cq ? std::max<std::int64_t>(0, cq->maxOffsetInQueue() - ck(kEnqueueCq)) : 0;
}

std::int64_t TimerMessageStore::readBehindMs() const
{
    if (!m_checkpoint)
        return 0;
    return std::max<std::int64_t>(0, now() - ck(kFire));
}

std::int64_t TimerMessageStore::delivered() const
{
    return m_checkpoint ? ck(kDelivered) : 0;
}

std::int64_t TimerMessageStore::skipped() const
{
    return m_checkpoint ? ck(kSkipped) : 0;
}

std::int64_t TimerMessageStore::fireTime() const
{
    return m_checkpoint ? ck(kFire) : 0;
}

QByteArray TimerMessageStore::checkpointBody() const
{
    QByteArray out;
    out.reserve(56);
    const std::int64_t enq = m_checkpoint ? ck(kEnqueueCq) : 0;
    putBigEndian(out, fireTime()); // lastReadTimeMs
    putBigEndian(out, m_checkpoint ? ck(kLogPos) : 0); // lastTimerLogFlushPos
    putBigEndian(out, enq); // lastTimerQueueOffset
    putBigEndian(out, enq); // masterTimerQueueOffset
    putBigEndian(out, 0); // dataVersion.stateVersion
    putBigEndian(out, now()); // dataVersion.timestamp
    putBigEndian(out, delivered() + skipped()); // dataVersion.counter
    if (const auto mark = fireMark())
        out += encodeFireMark(*mark); // timersuccession.h (RocketMQ ignores trailing bytes)
    return out;
}

QByteArray TimerMessageStore::metricsJson() const
{
    // QRocket keeps no per-topic counts: the whole backlog is reported under the timer topic.
    return QByteArrayLiteral("{\"dataVersion\":{\"counter\":")
        + QByteArray::number(delivered() + skipped()) + QByteArrayLiteral(",\"stateVersion\":0,")
        + QByteArrayLiteral("\"timestamp\":") + QByteArray::number(now())
        + QByteArrayLiteral("},\"timingCount\":{\"") + kTimerTopic.toByteArray()
        + QByteArrayLiteral("\":{\"count\":") + QByteArray::number(backlog())
        + QByteArrayLiteral(",\"timeStamp\":") + QByteArray::number(m_lastFireMs.load())
        + QByteArrayLiteral("}}}");
}

std::vector<std::pair<QByteArray, QByteArray>> TimerMessageStore::runtimeInfo() const
{
    return {
        {QByteArrayLiteral("timerReadBehind"), QByteArray::number(readBehindMs())},
        {QByteArrayLiteral("timerOffsetBehind"), QByteArray::number(enqueueBehind())},
        {QByteArrayLiteral("timerCongestNum"), QByteArray::number(backlog())},
        {QByteArrayLiteral("timerBacklog"), QByteArray::number(backlog())},
        {QByteArrayLiteral("timerDelivered"), QByteArray::number(delivered())},
    };
}

} // namespace qrocket::broker
