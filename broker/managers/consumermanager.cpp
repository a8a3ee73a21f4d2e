#include "broker/managers/consumermanager.h"

#include "broker/common/logging.h"

#include <QDateTime>

#include <algorithm>
#include <set>

namespace qrocket::broker {

ConsumerManager::ConsumerManager(std::int64_t channelExpiredTimeoutMs, Clock clock)
    : m_expiry(channelExpiredTimeoutMs)
    , m_clock(clock ? std::move(clock) : Clock([] { return QDateTime::currentMSecsSinceEpoch(); }))
{ }

ConsumerManager::RegisterResult ConsumerManager::registerConsumer(
    const ConsumerData &data, ClientChannelInfo info)
{
    RegisterResult result;
    if (!info.channel || data.groupName.isEmpty())
        return result;
    const std::int64_t now = m_clock();
    info.lastUpdateTimestamp = now;
    const std::uint64_t id = info.channel->id();
    {
        // Once per heartbeat (every 30 s per client), not per message.
        std::vector<QByteArray> own;
        own.reserve(data.subscriptionDataSet.size());
        for (const SubscriptionData &sub : data.subscriptionDataSet)
            own.push_back(sub.topic + '(' + sub.expressionType + ':' + sub.subString + ')');
        std::sort(own.begin(), own.end());
        info.subscriptions.clear();
        for (const QByteArray &one : own)
            info.subscriptions += (info.subscriptions.isEmpty() ? "" : ", ") + one;
    }

    std::lock_guard lock(m_mutex);
    Group &g = m_groups[data.groupName];
    g.info.groupName = data.groupName;
    g.info.consumeType = data.consumeType;
    g.info.messageModel = data.messageModel;
    g.info.consumeFromWhere = data.consumeFromWhere;
    g.info.lastUpdateTimestamp = now;

    auto it = g.channels.find(id);
    if (it == g.channels.end()) {
        qCInfo(lcBrokerClient).noquote() << "new consumer" << QString::fromUtf8(info.clientId)
                                         << "in" << QString::fromUtf8(data.groupName) << "from"
                                         << QString::fromUtf8(info.channel->remoteAddress());
        g.channels.emplace(id, std::move(info));
        result.newChannel = true;
    } else {
        if (it->second.clientId != info.clientId)
            qCWarning(lcBrokerClient).noquote() << "consumer channel changed client id from"
                                                << QString::fromUtf8(it->second.clientId) << "to"
                                                << QString::fromUtf8(info.clientId);
        it->second = std::move(info);
    }

    auto &subs = g.info.subscriptions;
    for (const SubscriptionData &sub : data.subscriptionDataSet) {
        auto s = subs.find(sub.topic);
        if (s == subs.end()) {
            subs.emplace(sub.topic, sub);
            result.subscriptionChanged = true;
        } else if (sub.subVersion > s->second.subVersion) {
            s->second = sub;
        }
    }
    for (auto s = subs.begin(); s != subs.end();) {
        const bool kept
            = std::any_of(data.subscriptionDataSet.begin(), data.subscriptionDataSet.end(),
                [&](const SubscriptionData &d) { return d.topic == s->first; });
        if (kept) {
            ++s;
        } else {
            s = subs.erase(s);
            result.subscriptionChanged = true;
        }
    }
    return result;
}

std::vector<ConsumerManager::Removal> ConsumerManager::removeWhere(
    const std::function<bool(const ClientChannelInfo &)> &pred, bool closeChannels)
{
    std::vector<Removal> removed;
    std::vector<remoting::ChannelPtr> toClose;
    {
        std::lock_guard lock(m_mutex);
        for (auto g = m_groups.begin(); g != m_groups.end();) {
            const std::size_t first = removed.size();
            for (auto c = g->second.channels.begin(); c != g->second.channels.end();) {
                if (pred(c->second)) {
                    removed.push_back({g->first, c->second.clientId, false});
                    if (closeChannels)
                        toClose.push_back(c->second.channel);
                    c = g->second.channels.erase(c);
                } else {
                    ++c;
                }
            }
            if (removed.size() > first && g->second.channels.empty()) {
                for (std::size_t i = first; i < removed.size(); ++i)
                    removed[i].groupRemoved = true;
                qCInfo(lcBrokerClient).noquote()
                    << "consumer group" << QString::fromUtf8(g->first) << "has no member left";
                g = m_groups.erase(g);
            } else {
                ++g;
            }
        }
    }
    for (const auto &ch : toClose) {
        if (ch)
            ch->close();
    }
    return removed;
}

std::optional<ConsumerManager::Removal> ConsumerManager::unregisterConsumer(
    QByteArrayView group, QByteArrayView clientId, const remoting::ChannelPtr &channel)
{
    Removal out {group.toByteArray(), clientId.toByteArray(), false};
    bool any = false;
    std::lock_guard lock(m_mutex);
    auto g = m_groups.find(out.group);
    if (g == m_groups.end())
        return std::nullopt;
    auto &chans = g->second.channels;
    for (auto c = chans.begin(); c != chans.end();) {
        const bool match = c->second.clientId == clientId || (channel && c->first == channel->id());
        if (match) {
            c = chans.erase(c);
            any = true;
        } else {
            ++c;
        }
    }
    if (!any)
        return std::nullopt;
    qCInfo(lcBrokerClient).noquote() << "unregistered consumer" << QString::fromUtf8(clientId)
                                     << "from" << QString::fromUtf8(group);
    if (chans.empty()) {
        m_groups.erase(g);
        out.groupRemoved = true;
    }
    return out;
}

std::vector<ConsumerManager::Removal> ConsumerManager::channelClosed(
    const remoting::ChannelPtr &channel)
{
    return channel ? channelClosed(channel->id()) : std::vector<Removal>();
}

std::vector<ConsumerManager::Removal> ConsumerManager::channelClosed(std::uint64_t channelId)
{
    return removeWhere(
        [channelId](
            const ClientChannelInfo &c) { return c.channel && c.channel->id() == channelId; },
        false);
}

std::vector<ConsumerManager::Removal> ConsumerManager::scanExpired()
{
    const std::int64_t now = m_clock();
    auto removed = removeWhere(
        [&](const ClientChannelInfo &c) { return now - c.lastUpdateTimestamp > m_expiry; }, true);
    for (const Removal &r : removed)
        qCInfo(lcBrokerClient).noquote()
            << "consumer" << QString::fromUtf8(r.clientId) << "of" << QString::fromUtf8(r.group)
            << "expired (no heartbeat for" << m_expiry << "ms)";
    return removed;
}

QList<QByteArray> ConsumerManager::consumerIds(QByteArrayView group) const
{
    std::set<QByteArray> ids;
    {
        std::lock_guard lock(m_mutex);
        auto g = m_groups.find(group.toByteArray());
        if (g == m_groups.end())
            return {};
        for (const auto &[id, c] : g->second.channels)
            ids.insert(c.clientId);
    }
    return QList<QByteArray>(ids.begin(), ids.end());
}

std::vector<remoting::ChannelPtr> ConsumerManager::channels(QByteArrayView group) const
{
    std::vector<remoting::ChannelPtr> out;
    std::lock_guard lock(m_mutex);
    auto g = m_groups.find(group.toByteArray());
    if (g != m_groups.end()) {
        for (const auto &[id, c] : g->second.channels)
            out.push_back(c.channel);
    }
    return out;
}

remoting::ChannelPtr ConsumerManager::findChannel(
    QByteArrayView group, QByteArrayView clientId) const
{
    std::lock_guard lock(m_mutex);
    auto g = m_groups.find(group.toByteArray());
    if (g == m_groups.end())
        return {};
    for (const auto &[id, c] : g->second.channels) {
        if (c.clientId == clientId)
            return c.channel;
    }
    return {};
}

std::optional<SubscriptionData> ConsumerManager::findSubscription(
    QByteArrayView group, QByteArrayView topic) const
{
    std::lock_guard lock(m_mutex);
    auto g = m_groups.find(group.toByteArray());
    if (g == m_groups.end())
        return std::nullopt;
    auto s = g->second.info.subscriptions.find(topic.toByteArray());
    if (s == g->second.info.subscriptions.end())
        return std::nullopt;
    return s->second;
}

ConsumerGroupInfo ConsumerManager::snapshot(const Group &g)
{
    ConsumerGroupInfo info = g.info;
    info.channels.clear();
    for (const auto &[id, c] : g.channels)
        info.channels.push_back(c);
    std::sort(info.channels.begin(), info.channels.end(),
        [](const ClientChannelInfo &a, const ClientChannelInfo &b) {
            return a.clientId < b.clientId;
        });
    return info;
}

std::optional<ConsumerGroupInfo> ConsumerManager::groupInfo(QByteArrayView group) const
{
    std::lock_guard lock(m_mutex);
    auto g = m_groups.find(group.toByteArray());
    if (g == m_groups.end())
        return std::nullopt;
    return snapshot(g->second);
}

QList<QByteArray> ConsumerManager::groupsSubscribing(QByteArrayView topic) const
{
    QList<QByteArray> out;
    std::lock_guard lock(m_mutex);
    for (const auto &[name, g] : m_groups) {
        if (g.info.subscriptions.count(topic.toByteArray()))
            out.append(name);
    }
    return out;
}

QList<QByteArray> ConsumerManager::groups() const
{
    QList<QByteArray> out;
    std::lock_guard lock(m_mutex);
    for (const auto &[name, g] : m_groups)
        out.append(name);
    return out;
}

} // namespace qrocket::broker
