#include "broker/stats/brokerstatsmanager.h"

#include <QDateTime>

#include <algorithm>
#include <charconv>
#include <initializer_list>
#include <string>

namespace qrocket::broker {

using stats::StatsItem;
using stats::Window;

namespace {

std::string_view view(QByteArrayView v)
{
    return {v.data(), static_cast<std::size_t>(v.size())};
}

/// "a@b[@c]" built on the stack (a heap string only past 512 bytes, which valid topic and group
/// names never reach): the counters look keys up without allocating.
class JoinedKey
{
public:
    JoinedKey(std::initializer_list<std::string_view> parts)
    {
        std::size_t length = parts.size() - 1;
        for (std::string_view p : parts)
            length += p.size();
        char *out = m_stack.data();
        if (length > m_stack.size()) {
            m_heap.resize(length);
            out = m_heap.data();
        }
        char *at = out;
        for (std::string_view p : parts) {
            if (at != out)
                *at++ = '@';
            at = std::copy(p.begin(), p.end(), at);
        }
        m_view = std::string_view(out, length);
    }
    JoinedKey(const JoinedKey &) = delete;
    JoinedKey &operator=(const JoinedKey &) = delete;

    std::string_view view() const { return m_view; }

private:
    std::array<char, 512> m_stack;
    std::string m_heap;
    std::string_view m_view;
};

std::int64_t systemClock()
{
    return QDateTime::currentMSecsSinceEpoch();
}

} // namespace

BrokerStatsManager::BrokerStatsManager(QByteArray clusterName, Clock clock)
    : m_clusterName(std::move(clusterName)), m_clock(clock ? std::move(clock) : Clock(systemClock))
{
    m_due.fill(m_clock()); // RocketMQ samples at once, then at a fixed rate
}

void BrokerStatsManager::onTopicPut(QByteArrayView topic, int msgNum, std::int64_t bytes)
{
    auto &items = m_topics.findOrCreate(view(topic));
    items[TopicPutNums].add(msgNum, 1);
    items[TopicPutSize].add(bytes, 1);
}

void BrokerStatsManager::onPut(QByteArrayView topic, int msgNum, std::int64_t bytes)
{
    onTopicPut(topic, msgNum, bytes);
    m_brokerPut.add(msgNum, 0);
}

void BrokerStatsManager::onGet(QByteArrayView group, QByteArrayView topic, int queueId,
    int msgCount, std::int64_t bytes, std::int64_t latencyMillis)
{
    {
        const JoinedKey key {view(topic), view(group)};
        auto &items = m_groups.findOrCreate(key.view());
        items[GroupGetNums].add(msgCount, 1);
        items[GroupGetSize].add(bytes, 1);
    }
    m_brokerGet.add(msgCount, 0);
    std::array<char, 12> digits;
    const auto end = std::to_chars(digits.data(), digits.data() + digits.size(), queueId).ptr;
    const JoinedKey key {
        std::string_view(digits.data(), end - digits.data()), view(topic), view(group)};
    // Java adds the latency as an int.
    m_latency.findOrCreate(key.view())[0].add(static_cast<std::int32_t>(latencyMillis), 1);
}

void BrokerStatsManager::onSendBack(QByteArrayView group, QByteArrayView topic)
{
    const JoinedKey key {view(topic), view(group)};
    m_groups.findOrCreate(key.view())[SendBackPutNums].add(1, 1);
}

void BrokerStatsManager::onScheduleDelivered(QByteArrayView topic, int msgNum, std::int64_t bytes)
{
    auto &items = m_groups.findOrCreate("SCHEDULE_TOPIC_XXXX@SCHEDULE_CONSUMER");
    items[GroupGetNums].add(msgNum, 1);
    items[GroupGetSize].add(bytes, 1);
    onPut(topic, msgNum, bytes);
}

void BrokerStatsManager::sampleAll(Window w, std::int64_t nowMillis)
{
    m_topics.forEach([&](auto &items) {
        for (StatsItem &item : items)
            item.sample(w, nowMillis);
    });
    m_groups.forEach([&](auto &items) {
        for (StatsItem &item : items)
            item.sample(w, nowMillis);
    });
    m_latency.forEach([&](auto &items) { items[0].sample(w, nowMillis); });
    m_brokerPut.sample(w, nowMillis);
    m_brokerGet.sample(w, nowMillis);
}

void BrokerStatsManager::tick()
{
    std::lock_guard lock(m_sampleMutex);
    const std::int64_t now = m_clock();
    for (const Window w : stats::kWindows) {
        const auto i = static_cast<std::size_t>(w);
        if (now < m_due[i])
            continue;
        sampleAll(w, now);
        // A fixed rate; after a stall, the next period starts now instead of catching up.
        m_due[i] += stats::kWindowPeriodMillis[i];
        if (m_due[i] <= now)
            m_due[i] = now + stats::kWindowPeriodMillis[i];
    }
}

void BrokerStatsManager::setClock(Clock clock)
{
    std::lock_guard lock(m_sampleMutex);
    m_clock = clock ? std::move(clock) : Clock(systemClock);
    m_due.fill(m_clock());
}

std::optional<BrokerStatsManager::StatsData> BrokerStatsManager::statsData(
    QByteArrayView statsName, QByteArrayView statsKey) const
{
    const StatsItem *item = nullptr;
    const std::string_view key = view(statsKey);
    if (statsName == "TOPIC_PUT_NUMS" || statsName == "TOPIC_PUT_SIZE") {
        if (auto *items = m_topics.find(key))
            item = &(*items)[statsName == "TOPIC_PUT_NUMS" ? TopicPutNums : TopicPutSize];
    } else if (statsName == "GROUP_GET_NUMS" || statsName == "GROUP_GET_SIZE"
        || statsName == "SNDBCK_PUT_NUMS") {
        if (auto *items = m_groups.find(key))
            item = &(*items)[statsName == "GROUP_GET_NUMS" ? GroupGetNums
                    : statsName == "GROUP_GET_SIZE"        ? GroupGetSize
                                                           : SendBackPutNums];
    } else if (statsName == "GROUP_GET_LATENCY") {
        if (auto *items = m_latency.find(key))
            item = &(*items)[0];
    } else if (statsKey == m_clusterName) {
        if (statsName == "BROKER_PUT_NUMS")
            item = &m_brokerPut;
        else if (statsName == "BROKER_GET_NUMS")
            item = &m_brokerGet;
    }
    if (!item || !item->used())
        return std::nullopt;
    std::lock_guard lock(m_sampleMutex);
    StatsData out;
    for (const Window w : stats::kWindows)
        out[static_cast<std::size_t>(w)] = item->snapshot(w);
    return out;
}

double BrokerStatsManager::groupGetTps(QByteArrayView group, QByteArrayView topic) const
{
    const JoinedKey key {view(topic), view(group)};
    const auto *items = m_groups.find(key.view());
    if (!items)
        return 0;
    std::lock_guard lock(m_sampleMutex);
    return (*items)[GroupGetNums].snapshot(Window::Minute).tps;
}

BrokerStatsManager::Figures BrokerStatsManager::figures() const
{
    Figures out;
    std::lock_guard lock(m_sampleMutex);
    m_topics.forEachKeyed([&](const std::string &key, const auto &items) {
        if (!items[TopicPutNums].used())
            return;
        KeyFigures f;
        f.key = key;
        f.nums = items[TopicPutNums].value();
        f.size = items[TopicPutSize].value();
        f.numsTps = items[TopicPutNums].snapshot(Window::Minute).tps;
        f.sizeTps = items[TopicPutSize].snapshot(Window::Minute).tps;
        out.topics.push_back(std::move(f));
    });
    m_groups.forEachKeyed([&](const std::string &key, const auto &items) {
        KeyFigures f;
        f.key = key;
        f.nums = items[GroupGetNums].value();
        f.size = items[GroupGetSize].value();
        f.sendBack = items[SendBackPutNums].value();
        f.numsTps = items[GroupGetNums].snapshot(Window::Minute).tps;
        f.sizeTps = items[GroupGetSize].snapshot(Window::Minute).tps;
        out.groups.push_back(std::move(f));
    });
    m_latency.forEachKeyed([&](const std::string &key, const auto &items) {
        KeyFigures f;
        f.key = key;
        f.avgLatency = items[0].snapshot(Window::Minute).avgpt;
        out.latency.push_back(std::move(f));
    });
    out.brokerPut = m_brokerPut.value();
    out.brokerGet = m_brokerGet.value();
    out.brokerPutTps = m_brokerPut.snapshot(Window::Minute).tps;
    out.brokerGetTps = m_brokerGet.snapshot(Window::Minute).tps;
    return out;
}

} // namespace qrocket::broker
