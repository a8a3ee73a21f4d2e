#include "broker/managers/rebalancelockmanager.h"

#include "broker/common/logging.h"

#include <QDateTime>

#include <set>
#include <utility>

namespace qrocket::broker {

namespace {

QString describe(const QByteArray &group, const protocol::MessageQueue &mq)
{
    return QStringLiteral("group %1 queue %2/%3/%4")
        .arg(
            QString::fromUtf8(group), QString::fromUtf8(mq.topic), QString::fromUtf8(mq.brokerName))
        .arg(mq.queueId);
}

} // namespace

RebalanceLockManager::RebalanceLockManager(std::int64_t lockMaxLiveTimeMs, Clock clock)
    : m_maxLiveMs(lockMaxLiveTimeMs > 0 ? lockMaxLiveTimeMs : kDefaultLockMaxLiveTimeMs)
    , m_clock(std::move(clock))
{ }

std::int64_t RebalanceLockManager::now() const
{
    return m_clock ? m_clock() : QDateTime::currentMSecsSinceEpoch();
}

bool RebalanceLockManager::expired(const LockEntry &entry, std::int64_t nowMs) const
{
    return nowMs - entry.lastUpdateTimestamp > m_maxLiveMs;
}

bool RebalanceLockManager::lockOne(GroupTable &table, const MessageQueue &mq,
    const QByteArray &clientId, std::int64_t nowMs, const QByteArray &group)
{
    auto it = table.find(mq);
    if (it == table.end()) {
        table.emplace(mq, LockEntry {clientId, nowMs});
        qCInfo(lcBrokerClient).noquote()
            << "rebalance lock granted:" << describe(group, mq) << "to" << clientId;
        return true;
    }
    LockEntry &entry = it->second;
    if (entry.clientId == clientId) {
        entry.lastUpdateTimestamp = nowMs; // renewal (also revives the client's expired lock)
        return true;
    }
    if (expired(entry, nowMs)) {
        qCInfo(lcBrokerClient).noquote()
            << "rebalance lock expired, taken over:" << describe(group, mq) << "from"
            << entry.clientId << "to" << clientId;
        entry.clientId = clientId;
        entry.lastUpdateTimestamp = nowMs;
        return true;
    }
    qCDebug(lcBrokerClient).noquote() << "rebalance lock refused:" << describe(group, mq)
                                      << "held by" << entry.clientId << "asked by" << clientId;
    return false;
}

std::vector<protocol::MessageQueue> RebalanceLockManager::tryLockBatch(
    const QByteArray &group, const std::vector<MessageQueue> &mqs, const QByteArray &clientId)
{
    std::vector<MessageQueue> locked;
    locked.reserve(mqs.size());
    std::set<MessageQueue> seen;
    const std::int64_t nowMs = now();
    std::lock_guard lock(m_mutex);
    GroupTable &table = m_groups[group];
    for (const MessageQueue &mq : mqs) {
        if (!seen.insert(mq).second)
            continue;
        if (lockOne(table, mq, clientId, nowMs, group))
            locked.push_back(mq);
    }
    if (table.empty())
        m_groups.erase(group);
    return locked;
}

bool RebalanceLockManager::tryLock(
    const QByteArray &group, const MessageQueue &mq, const QByteArray &clientId)
{
    const std::int64_t nowMs = now();
    std::lock_guard lock(m_mutex);
    return lockOne(m_groups[group], mq, clientId, nowMs, group);
}

int RebalanceLockManager::unlockBatch(
    const QByteArray &group, const std::vector<MessageQueue> &mqs, const QByteArray &clientId)
{
    std::lock_guard lock(m_mutex);
    auto groupIt = m_groups.find(group);
    if (groupIt == m_groups.end())
        return 0;
    GroupTable &table = groupIt->second;
    int released = 0;
    for (const MessageQueue &mq : mqs) {
        auto it = table.find(mq);
        if (it == table.end())
            continue;
        if (it->second.clientId != clientId) {
            qCDebug(lcBrokerClient).noquote()
                << "rebalance unlock ignored:" << describe(group, mq) << "held by"
                << it->second.clientId << "not" << clientId;
            continue;
        }
        table.erase(it);
        ++released;
        qCInfo(lcBrokerClient).noquote()
            << "rebalance lock released:" << describe(group, mq) << "by" << clientId;
    }
    if (table.empty())
        m_groups.erase(groupIt);
    return released;
}

bool RebalanceLockManager::isLockedBy(
    const QByteArray &group, const MessageQueue &mq, const QByteArray &clientId) const
{
    const std::int64_t nowMs = now();
    std::lock_guard lock(m_mutex);
    auto groupIt = m_groups.find(group);
    if (groupIt == m_groups.end())
        return false;
    auto it = groupIt->second.find(mq);
    return it != groupIt->second.end() && it->second.clientId == clientId
        && !expired(it->second, nowMs);
}

QByteArray RebalanceLockManager::holder(const QByteArray &group, const MessageQueue &mq) const
{
    std::lock_guard lock(m_mutex);
    auto groupIt = m_groups.find(group);
    if (groupIt == m_groups.end())
        return {};
    auto it = groupIt->second.find(mq);
    return it == groupIt->second.end() ? QByteArray() : it->second.clientId;
}

int RebalanceLockManager::lockCount(const QByteArray &group) const
{
    std::lock_guard lock(m_mutex);
    auto groupIt = m_groups.find(group);
    return groupIt == m_groups.end() ? 0 : static_cast<int>(groupIt->second.size());
}

} // namespace qrocket::broker
