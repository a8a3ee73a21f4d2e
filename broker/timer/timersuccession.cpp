#include "broker/timer/timersuccession.h"

#include "broker/common/logging.h"
#include "broker/timer/timertransform.h"
#include "storage/messagestore.h"

#include <QDir>
#include <QFile>
#include <QSaveFile>

#include <algorithm>

namespace qrocket::broker::timer {

namespace {

constexpr std::int64_t kRocketMqBodySize = 56;
constexpr std::int64_t kMarkMagic = 0x5152464d41524b31LL; // "QRFMARK1"
constexpr std::int64_t kMarkSize = 5 * 8;

void putLong(QByteArray &out, std::int64_t v)
{
    for (int i = 7; i >= 0; --i)
        out.append(static_cast<char>((static_cast<std::uint64_t>(v) >> (8 * i)) & 0xff));
}

std::int64_t getLong(QByteArrayView in, qsizetype at)
{
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i)
        v = (v << 8) | static_cast<std::uint8_t>(in[at + i]);
    return static_cast<std::int64_t>(v);
}

} // namespace

QByteArray encodeFireMark(const FireMark &mark)
{
    QByteArray out;
    out.reserve(kMarkSize);
    putLong(out, kMarkMagic);
    putLong(out, mark.fire);
    putLong(out, mark.from);
    putLong(out, mark.queueOffset);
    putLong(out, mark.precisionMs);
    return out;
}

std::optional<FireMark> parseFireMark(QByteArrayView body)
{
    if (body.size() != kRocketMqBodySize + kMarkSize
        || getLong(body, kRocketMqBodySize) != kMarkMagic)
        return std::nullopt;
    FireMark m;
    m.fire = getLong(body, kRocketMqBodySize + 8);
    m.from = getLong(body, kRocketMqBodySize + 16);
    m.queueOffset = getLong(body, kRocketMqBodySize + 24);
    m.precisionMs = getLong(body, kRocketMqBodySize + 32);
    if (m.precisionMs <= 0 || m.fire <= 0 || m.fire % m.precisionMs != 0 || m.from < 0
        || m.queueOffset < 0)
        return std::nullopt;
    return m;
}

QString masterCheckpointPath(const QString &timerDir)
{
    return timerDir + QStringLiteral("/master-checkpoint");
}

bool saveMasterCheckpoint(const QString &timerDir, const QByteArray &body)
{
    if (!QDir().mkpath(timerDir))
        return false;
    QSaveFile file(masterCheckpointPath(timerDir));
    if (!file.open(QIODevice::WriteOnly) || file.write(body) != body.size())
        return false;
    return file.commit();
}

std::optional<FireMark> loadMasterMark(const QString &timerDir)
{
    QFile file(masterCheckpointPath(timerDir));
    if (!file.open(QIODevice::ReadOnly))
        return std::nullopt;
    return parseFireMark(file.read(kRocketMqBodySize + kMarkSize + 1));
}

void discardOwnWheel(const QString &timerDir)
{
    const bool had = QFile::exists(timerDir + QStringLiteral("/checkpoint"));
    QFile::remove(timerDir + QStringLiteral("/checkpoint"));
    QFile::remove(timerDir + QStringLiteral("/wheel"));
    QDir(timerDir + QStringLiteral("/timerlog")).removeRecursively();
    if (had)
        qCInfo(lcBroker).noquote()
            << "timer: a slave keeps no wheel: removed the stale one in" << timerDir;
}

bool forEachRecord(const storage::MessageStore &store, std::int64_t from, std::int64_t to,
    const std::function<bool(const protocol::MessageRecordView &, std::int64_t offset)> &visit)
{
    const std::int64_t fileSize = store.config().mappedFileSizeCommitLog;
    std::int64_t offset = std::max(from, store.commitLogMinOffset());
    to = std::min(to, store.commitLogMaxOffset());
    while (offset < to) {
        const storage::SelectedRecord sel = store.commitLogData(offset);
        if (!sel.isValid())
            return false;
        const QByteArrayView bytes = sel.bytes;
        std::int64_t at = 0;
        bool nextFile = false;
        while (at < bytes.size() && offset + at < to) {
            protocol::MessageRecordView rec;
            const auto res = protocol::decodeRecord(bytes.sliced(at), rec, false);
            if (res.status == protocol::RecordStatus::Blank) {
                nextFile = true;
                break;
            }
            if (res.status != protocol::RecordStatus::Ok || res.size <= 0)
                return false;
            if (!visit(rec, offset + at))
                return true;
            at += res.size;
        }
        if (!nextFile && at == 0)
            return false;
        offset = nextFile ? (offset / fileSize + 1) * fileSize : offset + at;
    }
    return true;
}

void InheritedDeliveries::load(
    const storage::MessageStore &store, std::int64_t from, std::int64_t to)
{
    clear();
    const bool whole = forEachRecord(
        store, from, to, [this](const protocol::MessageRecordView &rec, std::int64_t offset) {
            if (const auto digest = deliveryDigest(rec))
                m_byDigest.emplace_back(*digest, offset);
            return true;
        });
    if (!whole)
        qCWarning(lcBroker) << "timer: the inheritance scan stopped at an unreadable record in"
                            << from << "-" << to;
    std::sort(m_byDigest.begin(), m_byDigest.end());
    m_taken.assign(m_byDigest.size(), false);
}

bool InheritedDeliveries::takeDeliveryOf(
    const storage::MessageStore &store, const protocol::MessageRecordView &source)
{
    const std::uint64_t digest = parkedDigest(source);
    auto it = std::lower_bound(m_byDigest.begin(), m_byDigest.end(),
        std::pair<std::uint64_t, std::int64_t> {digest, std::numeric_limits<std::int64_t>::min()});
    for (; it != m_byDigest.end() && it->first == digest; ++it) {
        const auto index = static_cast<std::size_t>(it - m_byDigest.begin());
        if (m_taken[index])
            continue;
        const storage::SelectedRecord sel = store.lookMessageByOffset(it->second);
        protocol::MessageRecordView delivered;
        if (sel.isValid()
            && protocol::decodeRecord(sel.bytes, delivered, false).status
                == protocol::RecordStatus::Ok
            && isDeliveryOf(delivered, source)) {
            m_taken[index] = true;
            return true;
        }
    }
    return false;
}

void InheritedDeliveries::clear()
{
    m_byDigest.clear();
    m_byDigest.shrink_to_fit();
    m_taken.clear();
    m_taken.shrink_to_fit();
}

Inheritance::Plan Inheritance::plan(
    const storage::MessageStore &store, const QString &timerDir, std::int64_t precisionMs)
{
    Plan plan;
    storage::ConsumeQueue *cq = store.findConsumeQueue(kTimerTopic, 0);
    if (!cq || cq->maxOffsetInQueue() <= cq->minOffsetInQueue())
        return plan;
    plan.end = cq->maxOffsetInQueue();
    plan.to = store.commitLogMaxOffset();
    const std::optional<FireMark> mark = loadMasterMark(timerDir);
    if (mark && mark->precisionMs == precisionMs && mark->from <= plan.to
        && mark->from >= store.commitLogMinOffset()) {
        plan.markFire = mark->fire;
        plan.markQueue = mark->queueOffset;
        plan.from = mark->from;
        qCInfo(lcBroker) << "timer: inheriting queue offsets" << cq->minOffsetInQueue() << "-"
                         << plan.end << "with the master's fire mark: slots before" << mark->fire
                         << "fired, deliveries from commit-log offset" << mark->from << "to"
                         << plan.to;
        return plan;
    }
    storage::ConsumeQueue::Unit first;
    plan.from = cq->unit(cq->minOffsetInQueue(), first) ? first.commitLogOffset
                                                        : store.commitLogMinOffset();
    qCInfo(lcBroker) << "timer: inheriting queue offsets" << cq->minOffsetInQueue() << "-"
                     << plan.end
                     << (mark ? "(the master's fire mark does not fit this store)"
                              : "(no fire mark of a master)")
                     << ": deliveries looked up from commit-log offset" << plan.from << "to"
                     << plan.to;
    return plan;
}

bool Inheritance::skip(const storage::MessageStore &store, const Plan &plan,
    std::int64_t queueOffset, std::int64_t dueSlot, bool marker, std::int64_t commitLogOffset)
{
    if (queueOffset >= plan.end)
        return false;
    if (queueOffset < plan.markQueue && dueSlot < plan.markFire)
        return true; // fired by the old master before its mark
    if (marker)
        return false; // a recall marker of a slot still to fire
    if (!m_loaded) {
        m_deliveries.load(store, plan.from, plan.to);
        m_loaded = true;
        qCInfo(lcBroker) << "timer: inheritance scan found" << m_deliveries.size()
                         << "timer deliveries in commit-log offsets" << plan.from << "-" << plan.to;
    }
    const storage::SelectedRecord sel = store.lookMessageByOffset(commitLogOffset);
    protocol::MessageRecordView source;
    if (!sel.isValid()
        || protocol::decodeRecord(sel.bytes, source, false).status != protocol::RecordStatus::Ok
        || source.topic != kTimerTopic)
        return false; // the enqueue's delivery skips it with its own warning
    return m_deliveries.takeDeliveryOf(store, source);
}

void Inheritance::finish()
{
    m_deliveries.clear();
    m_loaded = false;
}

} // namespace qrocket::broker::timer
