#include "broker/managers/producermanager.h"

#include "broker/common/logging.h"

#include <QDateTime>

#include <algorithm>

namespace qrocket::broker {

ProducerManager::ProducerManager(std::int64_t channelExpiredTimeoutMs, Clock clock)
    : m_expiry(channelExpiredTimeoutMs)
    , m_clock(clock ? std::move(clock) : Clock([] { return QDateTime::currentMSecsSinceEpoch(); }))
{ }

bool ProducerManager::registerProducer(QByteArrayView group, ClientChannelInfo info)
{
    if (!info.channel || group.isEmpty())
        return false;
    info.lastUpdateTimestamp = m_clock();
    const std::uint64_t id = info.channel->id();
    std::lock_guard lock(m_mutex);
    auto &chans = m_groups[group.toByteArray()];
    auto [it, inserted] = chans.insert_or_assign(id, std::move(info));
    if (inserted)
        qCDebug(lcBrokerClient).noquote()
            << "new producer" << QString::fromUtf8(it->second.clientId) << "in"
            << QString::fromUtf8(group);
    return inserted;
}

bool ProducerManager::unregisterProducer(
    QByteArrayView group, QByteArrayView clientId, const remoting::ChannelPtr &channel)
{
    std::lock_guard lock(m_mutex);
    auto g = m_groups.find(group.toByteArray());
    if (g == m_groups.end())
        return false;
    const auto removed = std::erase_if(g->second, [&](const auto &e) {
        return e.second.clientId == clientId || (channel && e.first == channel->id());
    });
    if (g->second.empty())
        m_groups.erase(g);
    return removed > 0;
}

QList<QByteArray> ProducerManager::channelClosed(std::uint64_t channelId)
{
    QList<QByteArray> out;
    std::lock_guard lock(m_mutex);
    for (auto g = m_groups.begin(); g != m_groups.end();) {
        if (g->second.erase(channelId))
            out.append(g->first);
        g = g->second.empty() ? m_groups.erase(g) : std::next(g);
    }
    return out;
}

int ProducerManager::scanExpired()
{
    const std::int64_t now = m_clock();
    std::vector<ClientChannelInfo> expired;
    {
        std::lock_guard lock(m_mutex);
        for (auto g = m_groups.begin(); g != m_groups.end();) {
            std::erase_if(g->second, [&](const auto &e) {
                if (now - e.second.lastUpdateTimestamp <= m_expiry)
                    return false;
                expired.push_back(e.second);
                return true;
            });
            g = g->second.empty() ? m_groups.erase(g) : std::next(g);
        }
    }
    for (const ClientChannelInfo &c : expired) {
        qCInfo(lcBrokerClient).noquote() << "producer" << QString::fromUtf8(c.clientId)
                                         << "expired (no heartbeat for" << m_expiry << "ms)";
        if (c.channel)
            c.channel->close();
    }
    return static_cast<int>(expired.size());
}

remoting::ChannelPtr ProducerManager::availableChannel(QByteArrayView group)
{
    std::lock_guard lock(m_mutex);
    auto g = m_groups.find(group.toByteArray());
    if (g == m_groups.end() || g->second.empty())
        return {};
    std::vector<const ClientChannelInfo *> active;
    for (const auto &[id, c] : g->second) {
        if (c.channel && c.channel->isActive())
            active.push_back(&c);
    }
    if (active.empty())
        return {};
    return active[m_rotation++ % active.size()]->channel;
}

remoting::ChannelPtr ProducerManager::findChannel(QByteArrayView clientId) const
{
    std::lock_guard lock(m_mutex);
    for (const auto &[name, chans] : m_groups) {
        for (const auto &[id, c] : chans) {
            if (c.clientId == clientId)
                return c.channel;
        }
    }
    return {};
}

std::vector<ClientChannelInfo> ProducerManager::connections(QByteArrayView group) const
{
    std::vector<ClientChannelInfo> out;
    {
        std::lock_guard lock(m_mutex);
        auto g = m_groups.find(group.toByteArray());
        if (g == m_groups.end())
            return out;
        for (const auto &[id, c] : g->second)
            out.push_back(c);
    }
    std::sort(out.begin(), out.end(), [](const ClientChannelInfo &a, const ClientChannelInfo &b) {
        return a.clientId < b.clientId;
    });
    return out;
}

QList<QByteArray> ProducerManager::groups() const
{
    QList<QByteArray> out;
    std::lock_guard lock(m_mutex);
    for (const auto &[name, chans] : m_groups)
        out.append(name);
    return out;
}

} // namespace qrocket::broker
