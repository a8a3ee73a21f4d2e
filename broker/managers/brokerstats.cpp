#include "broker/managers/brokerstats.h"

#include <charconv>
#include <cmath>

namespace qrocket::broker {

QByteArray BrokerStats::javaDouble(double value)
{
    if (std::isnan(value))
        return QByteArrayLiteral("NaN");
    if (std::isinf(value))
        return value > 0 ? QByteArrayLiteral("Infinity") : QByteArrayLiteral("-Infinity");
    const double magnitude = std::fabs(value);
    char buf[64];
    if (magnitude == 0 || (magnitude >= 1e-3 && magnitude < 1e7)) {
        // Shortest digits that read back the same, with at least one fraction digit.
        const auto r = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed);
        QByteArray out(buf, r.ptr - buf);
        if (!out.contains('.'))
            out += ".0";
        return out;
    }
    // Computerized scientific notation: "1.0E7", "1.234E-5".
    const auto r = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
    QByteArray out(buf, r.ptr - buf);
    const qsizetype e = out.indexOf('e');
    QByteArray mantissa = out.left(e);
    if (!mantissa.contains('.'))
        mantissa += ".0";
    const int exponent = out.mid(e + 1).toInt();
    return mantissa + 'E' + QByteArray::number(exponent);
}

void BrokerStats::onGetMessage(bool found, std::int64_t elapsedMillis)
{
    (found ? m_found : m_miss).fetch_add(1, std::memory_order_relaxed);
    std::int64_t max = m_getTimeMax.load(std::memory_order_relaxed);
    while (elapsedMillis > max
        && !m_getTimeMax.compare_exchange_weak(max, elapsedMillis, std::memory_order_relaxed)) { }
}

void BrokerStats::setQueueProbes(
    QueueSize send, std::int64_t sendCapacity, QueueSize pull, std::int64_t pullCapacity)
{
    m_sendQueue = std::move(send);
    m_sendCapacity = sendCapacity;
    m_pullQueue = std::move(pull);
    m_pullCapacity = pullCapacity;
}

void BrokerStats::sample(
    std::int64_t nowMillis, std::int64_t putTotal, std::int64_t transferredTotal)
{
    std::lock_guard lock(m_mutex);
    m_samples.push_back({nowMillis, putTotal, getFoundTotal(), getMissTotal(), transferredTotal});
    while (m_samples.size() > kMaxSamples + 1)
        m_samples.pop_front();
}

void BrokerStats::recordMorning(std::int64_t putTotal, std::int64_t transferredTotal)
{
    std::lock_guard lock(m_mutex);
    m_putYesterdayMorning = m_putTodayMorning;
    m_getYesterdayMorning = m_getTodayMorning;
    m_putTodayMorning = putTotal;
    m_getTodayMorning = transferredTotal;
}

QByteArray BrokerStats::rates(std::int64_t Snapshot::*field, bool total) const
{
    // Call under m_mutex. StoreStatsService: the rate between the newest sample and the one
    // `window` samples before it; an empty text when there are not that many (getTotalTps: 0.0).
    QByteArray out;
    for (const std::size_t window : {10u, 60u, 600u}) {
        if (window != 10)
            out += ' ';
        if (m_samples.size() <= window) {
            if (total)
                out += "0.0";
            continue;
        }
        const Snapshot &last = m_samples.back();
        const Snapshot &before = m_samples[m_samples.size() - (window + 1)];
        const double millis = static_cast<double>(last.time - before.time);
        auto rate = [&](std::int64_t Snapshot::*f) {
            return static_cast<double>(last.*f - before.*f) / millis * 1000;
        };
        out += javaDouble(total ? rate(&Snapshot::found) + rate(&Snapshot::miss) : rate(field));
    }
    return out;
}

std::vector<std::pair<QByteArray, QByteArray>> BrokerStats::runtimeInfo() const
{
    const QByteArray zero = QByteArrayLiteral("0");
    std::lock_guard lock(m_mutex);
    return {
        {"sendThreadPoolQueueSize", QByteArray::number(m_sendQueue ? m_sendQueue() : 0)},
        {"sendThreadPoolQueueCapacity", QByteArray::number(m_sendCapacity)},
        {"sendThreadPoolQueueHeadWaitTimeMills", zero},
        {"pullThreadPoolQueueSize", QByteArray::number(m_pullQueue ? m_pullQueue() : 0)},
        {"pullThreadPoolQueueCapacity", QByteArray::number(m_pullCapacity)},
        {"pullThreadPoolQueueHeadWaitTimeMills", zero},
        {"queryThreadPoolQueueSize", zero},
        {"queryThreadPoolQueueCapacity", "20000"},
        {"queryThreadPoolQueueHeadWaitTimeMills", zero},
        {"EndTransactionQueueSize", zero},
        {"EndTransactionThreadPoolQueueCapacity", "100000"},
        {"msgPutTotalYesterdayMorning", QByteArray::number(m_putYesterdayMorning)},
        {"msgPutTotalTodayMorning", QByteArray::number(m_putTodayMorning)},
        {"msgGetTotalYesterdayMorning", QByteArray::number(m_getYesterdayMorning)},
        {"msgGetTotalTodayMorning", QByteArray::number(m_getTodayMorning)},
        {"getMessageEntireTimeMax",
            QByteArray::number(m_getTimeMax.load(std::memory_order_relaxed))},
        {"putTps", rates(&Snapshot::put)},
        {"getFoundTps", rates(&Snapshot::found)},
        {"getMissTps", rates(&Snapshot::miss)},
        {"getTotalTps", rates(nullptr, true)},
        {"getTransferedTps", rates(&Snapshot::transferred)},
    };
}

} // namespace qrocket::broker
