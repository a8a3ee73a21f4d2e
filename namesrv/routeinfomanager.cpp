#include "namesrv/routeinfomanager.h"

#include "clientlib/protocol/jsontext.h"
#include "namesrv/logging.h"

#include <QDateTime>
#include <QElapsedTimer>

#include <algorithm>

namespace qrocket::namesrv {

namespace {

std::int64_t monotonicMs()
{
    static const QElapsedTimer timer = [] {
        QElapsedTimer t;
        t.start();
        return t;
    }();
    return timer.elapsed();
}

QList<QByteArray> toList(const std::set<QByteArray> &s)
{
    return QList<QByteArray>(s.begin(), s.end());
}

} // namespace

RouteInfoManager::RouteInfoManager(QObject *parent) : QObject(parent), m_clock(&monotonicMs)
{ }

RouteInfoManager::~RouteInfoManager() = default;

void RouteInfoManager::setClock(Clock monotonicMs)
{
    m_clock = std::move(monotonicMs);
}

void RouteInfoManager::setDeleteTopicWithBrokerRegistration(bool on)
{
    std::unique_lock locker(m_lock);
    m_deleteTopicWithBrokerRegistration = on;
}

RegisterBrokerResult RouteInfoManager::registerBroker(const QByteArray &clusterName,
    const QByteArray &brokerAddr, const QByteArray &brokerName, std::int64_t brokerId,
    const QByteArray &haServerAddr, const RegisterBrokerBody &body,
    const remoting::ChannelPtr &channel, bool incremental, int grpcPort)
{
    m_registrations.fetch_add(1, std::memory_order_relaxed);
    RegisterBrokerResult result;
    bool newLive = false;
    const TopicConfigSerializeWrapper &wrapper = body.topicConfigSerializeWrapper;
    {
        std::unique_lock locker(m_lock);
        bool clusterChanged = m_clusterAddrTable[clusterName].insert(brokerName).second;

        auto [bdIt, registerFirst] = m_brokerAddrTable.try_emplace(brokerName);
        BrokerData &bd = bdIt->second;
        const BrokerData before = bd;
        bd.cluster = clusterName;
        bd.brokerName = brokerName;
        // Slave -> master switch: the same address under another id is dropped first.
        for (auto it = bd.brokerAddrs.begin(); it != bd.brokerAddrs.end();) {
            if (it->second == brokerAddr && it->first != brokerId)
                it = bd.brokerAddrs.erase(it);
            else
                ++it;
        }
        auto [addrIt, addrInserted] = bd.brokerAddrs.insert_or_assign(brokerId, brokerAddr);
        Q_UNUSED(addrIt);
        registerFirst = registerFirst || addrInserted;
        if (clusterChanged || !(bd == before))
            ++m_clusterGeneration;

        if (brokerId == kMasterId) {
            const auto live = m_brokerLiveTable.find(brokerAddr);
            const bool changed = live == m_brokerLiveTable.end()
                || !(live->second.dataVersion == wrapper.dataVersion);
            if (changed || registerFirst) {
                for (const auto &[name, tc] : wrapper.topicConfigTable)
                    createAndUpdateQueueData(brokerName, name, tc);
                if (m_deleteTopicWithBrokerRegistration && changed && !registerFirst
                    && !incremental) {
                    for (auto it = m_topicQueueTable.begin(); it != m_topicQueueTable.end();) {
                        if (!wrapper.topicConfigTable.contains(it->first))
                            it->second.erase(brokerName);
                        if (it->second.empty()) {
                            it = m_topicQueueTable.erase(it);
                            ++m_topicsGeneration;
                        } else {
                            ++it;
                        }
                    }
                }
            }
        }

        BrokerLiveInfo info;
        info.lastUpdateMs = now();
        info.lastUpdateEpochMs = QDateTime::currentMSecsSinceEpoch();
        info.dataVersion = wrapper.dataVersion;
        info.channel = channel;
        info.haServerAddr = haServerAddr;
        info.grpcPort = grpcPort;
        info.clusterName = clusterName;
        info.brokerName = brokerName;
        info.brokerId = brokerId;
        newLive = m_brokerLiveTable.insert_or_assign(brokerAddr, std::move(info)).second;

        if (body.filterServerList.empty())
            m_filterServerTable.erase(brokerAddr);
        else
            m_filterServerTable[brokerAddr] = body.filterServerList;

        if (brokerId != kMasterId) {
            const auto master = bd.brokerAddrs.find(kMasterId);
            if (master != bd.brokerAddrs.end()) {
                const auto masterLive = m_brokerLiveTable.find(master->second);
                if (masterLive != m_brokerLiveTable.end()) {
                    result.haServerAddr = masterLive->second.haServerAddr;
                    result.masterAddr = master->second;
                }
            }
        }
    }
    if (newLive) {
        qCInfo(lcNamesrvRoute).noquote()
            << "new broker registered:" << brokerAddr << "cluster" << clusterName << "name"
            << brokerName << "id" << brokerId << "HAServer" << haServerAddr;
        emit brokerRegistered(clusterName, brokerName, brokerId, brokerAddr);
    }
    return result;
}

void RouteInfoManager::createAndUpdateQueueData(
    const QByteArray &brokerName, const QByteArray &topic, const TopicConfig &tc)
{
    const QueueData qd {brokerName, tc.readQueueNums, tc.writeQueueNums, tc.perm, tc.topicSysFlag};
    auto [topicIt, newTopic] = m_topicQueueTable.try_emplace(topic);
    if (newTopic)
        ++m_topicsGeneration;
    auto &byBroker = topicIt->second;
    const auto it = byBroker.find(brokerName);
    if (it == byBroker.end()) {
        qCDebug(lcNamesrvRoute).noquote() << "new topic registered:" << topic << "on" << brokerName;
        byBroker.emplace(brokerName, qd);
    } else if (!(it->second == qd)) {
        qCDebug(lcNamesrvRoute).noquote() << "topic changed:" << topic << "on" << brokerName;
        it->second = qd;
    }
}

void RouteInfoManager::unregisterBroker(const QByteArray &clusterName, const QByteArray &brokerAddr,
    const QByteArray &brokerName, std::int64_t brokerId)
{
    bool wasLive = false;
    {
        std::unique_lock locker(m_lock);
        wasLive = m_brokerLiveTable.erase(brokerAddr) > 0;
        m_filterServerTable.erase(brokerAddr);

        bool removeBrokerName = false;
        const auto bd = m_brokerAddrTable.find(brokerName);
        if (bd != m_brokerAddrTable.end()) {
            if (bd->second.brokerAddrs.erase(brokerId) > 0)
                ++m_clusterGeneration;
            if (bd->second.brokerAddrs.empty()) {
                m_brokerAddrTable.erase(bd);
                removeBrokerName = true;
            }
        }
        if (removeBrokerName) {
            const auto cluster = m_clusterAddrTable.find(clusterName);
            if (cluster != m_clusterAddrTable.end()) {
                cluster->second.erase(brokerName);
                if (cluster->second.empty())
                    m_clusterAddrTable.erase(cluster);
            }
            removeTopicsOfBrokerName(brokerName);
        }
    }
    qCInfo(lcNamesrvRoute).noquote()
        << "broker unregistered:" << brokerAddr << "cluster" << clusterName << "name" << brokerName
        << "id" << brokerId << (wasLive ? "" : "(was not live)");
    noteDeparture({clusterName, brokerName, brokerId, brokerAddr, "unregistered",
        "the broker sent UNREGISTER_BROKER (a clean shutdown)", 0, 0});
    emit brokerUnregistered(clusterName, brokerName, brokerId, brokerAddr);
}

void RouteInfoManager::removeTopicsOfBrokerName(const QByteArray &brokerName)
{
    for (auto it = m_topicQueueTable.begin(); it != m_topicQueueTable.end();) {
        it->second.erase(brokerName);
        if (it->second.empty()) {
            qCDebug(lcNamesrvRoute).noquote() << "topic removed (no queue data left):" << it->first;
            it = m_topicQueueTable.erase(it);
            ++m_topicsGeneration;
        } else {
            ++it;
        }
    }
}

bool RouteInfoManager::isBrokerTopicConfigChanged(
    const QByteArray &brokerAddr, const DataVersion &version) const
{
    const auto prev = queryBrokerTopicConfig(brokerAddr);
    return !prev || !(*prev == version);
}

std::optional<DataVersion> RouteInfoManager::queryBrokerTopicConfig(
    const QByteArray &brokerAddr) const
{
    std::shared_lock locker(m_lock);
    const auto it = m_brokerLiveTable.find(brokerAddr);
    if (it == m_brokerLiveTable.end())
        return std::nullopt;
    return it->second.dataVersion;
}

void RouteInfoManager::updateBrokerInfoUpdateTimestamp(const QByteArray &brokerAddr)
{
    std::unique_lock locker(m_lock);
    const auto it = m_brokerLiveTable.find(brokerAddr);
    if (it != m_brokerLiveTable.end()) {
        it->second.lastUpdateMs = now();
        it->second.lastUpdateEpochMs = QDateTime::currentMSecsSinceEpoch();
    }
}

std::optional<TopicRouteData> RouteInfoManager::pickupTopicRouteData(const QByteArray &topic) const
{
    std::shared_lock locker(m_lock);
    const auto qdIt = m_topicQueueTable.find(topic);
    if (qdIt == m_topicQueueTable.end() || qdIt->second.empty())
        return std::nullopt;
    TopicRouteData route;
    route.queueDatas.reserve(qdIt->second.size());
    for (const auto &[brokerName, qd] : qdIt->second) {
        route.queueDatas.push_back(qd);
        const auto bd = m_brokerAddrTable.find(brokerName);
        if (bd == m_brokerAddrTable.end())
            continue;
        route.brokerDatas.push_back(bd->second);
        route.brokerDatas.back().grpcPorts = grpcPortsLocked(bd->second);
        for (const auto &[id, addr] : bd->second.brokerAddrs) {
            const auto fs = m_filterServerTable.find(addr);
            if (fs != m_filterServerTable.end())
                route.filterServerTable[addr] = fs->second;
        }
    }
    if (route.brokerDatas.empty())
        return std::nullopt;
    return route;
}

std::map<std::int64_t, int> RouteInfoManager::grpcPortsLocked(const BrokerData &bd) const
{
    std::map<std::int64_t, int> ports;
    for (const auto &[id, addr] : bd.brokerAddrs) {
        const auto live = m_brokerLiveTable.find(addr);
        if (live != m_brokerLiveTable.end() && live->second.grpcPort > 0)
            ports.emplace(id, live->second.grpcPort);
    }
    return ports;
}

std::optional<QByteArray> RouteInfoManager::topicRouteJson(
    const QByteArray &topic, const QByteArray &orderTopicConf) const
{
    std::shared_lock locker(m_lock);
    const auto qdIt = m_topicQueueTable.find(topic);
    if (qdIt == m_topicQueueTable.end() || qdIt->second.empty())
        return std::nullopt;
    QByteArray out;
    out.reserve(128 + 160 * static_cast<qsizetype>(qdIt->second.size()));
    out += "{\"brokerDatas\":[";
    bool found = false;
    const bool hasFilterServers = !m_filterServerTable.empty();
    for (const auto &[brokerName, qd] : qdIt->second) {
        const auto bd = m_brokerAddrTable.find(brokerName);
        if (bd == m_brokerAddrTable.end())
            continue;
        if (found)
            out += ',';
        found = true;
        std::map<std::int64_t, int> grpcPorts = grpcPortsLocked(bd->second);
        if (grpcPorts.empty()) {
            appendBrokerData(out, bd->second);
        } else {
            BrokerData withPorts = bd->second;
            withPorts.grpcPorts = std::move(grpcPorts);
            appendBrokerData(out, withPorts);
        }
    }
    if (!found)
        return std::nullopt;
    out += "],\"filterServerTable\":{";
    if (hasFilterServers) {
        bool first = true;
        for (const auto &[brokerName, qd] : qdIt->second) {
            const auto bd = m_brokerAddrTable.find(brokerName);
            if (bd == m_brokerAddrTable.end())
                continue;
            for (const auto &[id, addr] : bd->second.brokerAddrs) {
                const auto fs = m_filterServerTable.find(addr);
                if (fs == m_filterServerTable.end())
                    continue;
                if (!first)
                    out += ',';
                first = false;
                protocol::jsontext::appendQuoted(out, addr);
                out += ":[";
                for (std::size_t i = 0; i < fs->second.size(); ++i) {
                    if (i)
                        out += ',';
                    protocol::jsontext::appendQuoted(out, fs->second[i]);
                }
                out += ']';
            }
        }
    }
    out += '}';
    if (!orderTopicConf.isEmpty()) {
        out += ",\"orderTopicConf\":";
        protocol::jsontext::appendQuoted(out, orderTopicConf);
    }
    out += ",\"queueDatas\":[";
    bool first = true;
    for (const auto &[brokerName, qd] : qdIt->second) {
        if (!first)
            out += ',';
        first = false;
        appendQueueData(out, qd);
    }
    out += "]}";
    return out;
}

QByteArray RouteInfoManager::clusterInfoJson() const
{
    std::shared_lock locker(m_lock);
    std::lock_guard cache(m_bodyMutex);
    if (!m_clusterBody.valid || m_clusterBody.generation != m_clusterGeneration) {
        m_clusterBody.bytes = namesrv::clusterInfoJson(m_brokerAddrTable, m_clusterAddrTable);
        m_clusterBody.generation = m_clusterGeneration;
        m_clusterBody.valid = true;
    }
    return m_clusterBody.bytes;
}

QByteArray RouteInfoManager::freshClusterInfoJson() const
{
    std::shared_lock locker(m_lock);
    return namesrv::clusterInfoJson(m_brokerAddrTable, m_clusterAddrTable);
}

QByteArray RouteInfoManager::allTopicListJson() const
{
    std::shared_lock locker(m_lock);
    std::lock_guard cache(m_bodyMutex);
    if (!m_topicListBody.valid || m_topicListBody.generation != m_topicsGeneration) {
        m_topicListBody.bytes = topicListJsonLocked();
        m_topicListBody.generation = m_topicsGeneration;
        m_topicListBody.valid = true;
    }
    return m_topicListBody.bytes;
}

QByteArray RouteInfoManager::freshAllTopicListJson() const
{
    std::shared_lock locker(m_lock);
    return topicListJsonLocked();
}

QByteArray RouteInfoManager::topicListJsonLocked() const
{
    // topicListJson(allTopicList()) without the list: {"topicList":["a","b"]}.
    QByteArray out;
    out.reserve(16 + 24 * static_cast<qsizetype>(m_topicQueueTable.size()));
    out += "{\"topicList\":[";
    bool first = true;
    for (const auto &[topic, byBroker] : m_topicQueueTable) {
        if (!first)
            out += ',';
        first = false;
        protocol::jsontext::appendQuoted(out, topic);
    }
    out += "]}";
    return out;
}

QList<QByteArray> RouteInfoManager::allTopicList() const
{
    std::shared_lock locker(m_lock);
    QList<QByteArray> topics;
    topics.reserve(static_cast<qsizetype>(m_topicQueueTable.size()));
    for (const auto &[topic, byBroker] : m_topicQueueTable)
        topics.append(topic);
    return topics;
}

QList<QByteArray> RouteInfoManager::topicsByCluster(const QByteArray &cluster) const
{
    std::shared_lock locker(m_lock);
    QList<QByteArray> topics;
    const auto names = m_clusterAddrTable.find(cluster);
    if (names == m_clusterAddrTable.end())
        return topics;
    for (const auto &[topic, byBroker] : m_topicQueueTable) {
        for (const auto &[brokerName, qd] : byBroker) {
            if (names->second.contains(brokerName)) {
                topics.append(topic);
                break;
            }
        }
    }
    return topics;
}

QList<QByteArray> RouteInfoManager::systemTopicList(QByteArray *brokerAddr) const
{
    std::shared_lock locker(m_lock);
    std::set<QByteArray> names;
    for (const auto &[cluster, brokerNames] : m_clusterAddrTable) {
        names.insert(cluster);
        names.insert(brokerNames.begin(), brokerNames.end());
    }
    if (brokerAddr) {
        brokerAddr->clear();
        for (const auto &[name, bd] : m_brokerAddrTable) {
            if (!bd.brokerAddrs.empty()) {
                *brokerAddr = bd.brokerAddrs.begin()->second;
                break;
            }
        }
    }
    return toList(names);
}

QList<QByteArray> RouteInfoManager::unitTopics() const
{
    std::shared_lock locker(m_lock);
    QList<QByteArray> topics;
    for (const auto &[topic, byBroker] : m_topicQueueTable) {
        if (!byBroker.empty() && (byBroker.begin()->second.topicSysFlag & kTopicSysFlagUnit))
            topics.append(topic);
    }
    return topics;
}

QList<QByteArray> RouteInfoManager::hasUnitSubTopics() const
{
    std::shared_lock locker(m_lock);
    QList<QByteArray> topics;
    for (const auto &[topic, byBroker] : m_topicQueueTable) {
        if (!byBroker.empty() && (byBroker.begin()->second.topicSysFlag & kTopicSysFlagUnitSub))
            topics.append(topic);
    }
    return topics;
}

QList<QByteArray> RouteInfoManager::hasUnitSubUnUnitTopics() const
{
    std::shared_lock locker(m_lock);
    QList<QByteArray> topics;
    for (const auto &[topic, byBroker] : m_topicQueueTable) {
        if (byBroker.empty())
            continue;
        const int flag = byBroker.begin()->second.topicSysFlag;
        if (!(flag & kTopicSysFlagUnit) && (flag & kTopicSysFlagUnitSub))
            topics.append(topic);
    }
    return topics;
}

void RouteInfoManager::deleteTopic(const QByteArray &topic, const QByteArray &clusterName)
{
    std::unique_lock locker(m_lock);
    if (clusterName.isEmpty()) {
        if (m_topicQueueTable.erase(topic) > 0)
            ++m_topicsGeneration;
        return;
    }
    const auto names = m_clusterAddrTable.find(clusterName);
    const auto byBroker = m_topicQueueTable.find(topic);
    if (names == m_clusterAddrTable.end() || byBroker == m_topicQueueTable.end())
        return;
    for (const QByteArray &brokerName : names->second)
        byBroker->second.erase(brokerName);
    if (byBroker->second.empty()) {
        m_topicQueueTable.erase(byBroker);
        ++m_topicsGeneration;
    }
}

int RouteInfoManager::wipeWritePermOfBroker(const QByteArray &brokerName)
{
    std::unique_lock locker(m_lock);
    int count = 0;
    for (auto &[topic, byBroker] : m_topicQueueTable) {
        const auto it = byBroker.find(brokerName);
        if (it != byBroker.end()) {
            it->second.perm &= ~kPermWrite;
            ++count;
        }
    }
    return count;
}

int RouteInfoManager::addWritePermOfBroker(const QByteArray &brokerName)
{
    std::unique_lock locker(m_lock);
    int count = 0;
    for (auto &[topic, byBroker] : m_topicQueueTable) {
        const auto it = byBroker.find(brokerName);
        if (it != byBroker.end()) {
            it->second.perm = kPermRead | kPermWrite;
            ++count;
        }
    }
    return count;
}

void RouteInfoManager::removeBrokerAddrLocked(const QByteArray &brokerAddr)
{
    m_brokerLiveTable.erase(brokerAddr);
    m_filterServerTable.erase(brokerAddr);
    std::set<QByteArray> removedNames;
    for (auto it = m_brokerAddrTable.begin(); it != m_brokerAddrTable.end();) {
        auto &addrs = it->second.brokerAddrs;
        if (std::erase_if(addrs, [&](const auto &entry) { return entry.second == brokerAddr; }) > 0)
            ++m_clusterGeneration;
        if (addrs.empty()) {
            removedNames.insert(it->first);
            it = m_brokerAddrTable.erase(it);
        } else {
            ++it;
        }
    }
    if (removedNames.empty())
        return;
    for (auto it = m_clusterAddrTable.begin(); it != m_clusterAddrTable.end();) {
        for (const QByteArray &name : removedNames)
            it->second.erase(name);
        it = it->second.empty() ? m_clusterAddrTable.erase(it) : std::next(it);
    }
    for (const QByteArray &name : removedNames)
        removeTopicsOfBrokerName(name);
}

int RouteInfoManager::scanNotActiveBroker(std::int64_t expiredMs)
{
    QList<std::pair<QByteArray, remoting::ChannelPtr>> expired;
    QList<BrokerDeparture> gone;
    {
        std::unique_lock locker(m_lock);
        const std::int64_t t = now();
        for (const auto &[addr, info] : m_brokerLiveTable) {
            if (info.lastUpdateMs + expiredMs < t) {
                expired.append({addr, info.channel});
                gone.append({info.clusterName, info.brokerName, info.brokerId, addr, "expired",
                    "no registration for " + QByteArray::number(t - info.lastUpdateMs)
                        + " ms (brokerChannelExpiredTime " + QByteArray::number(expiredMs)
                        + " ms); last registration at "
                        + QByteArray::number(info.lastUpdateEpochMs),
                    0, 0});
            }
        }
        for (const auto &[addr, channel] : expired)
            removeBrokerAddrLocked(addr);
    }
    for (BrokerDeparture &d : gone)
        noteDeparture(std::move(d));
    for (const auto &[addr, channel] : expired) {
        qCWarning(lcNamesrvRoute).noquote()
            << "broker expired:" << addr << "silent for more than" << expiredMs << "ms";
        if (channel)
            channel->close();
        emit brokerExpired(addr, QStringLiteral("no registration for %1 ms").arg(expiredMs));
    }
    return static_cast<int>(expired.size());
}

void RouteInfoManager::onChannelDestroy(std::uint64_t channelId)
{
    QByteArray found;
    BrokerDeparture gone;
    {
        std::unique_lock locker(m_lock);
        for (const auto &[addr, info] : m_brokerLiveTable) {
            if (info.channel && info.channel->id() == channelId) {
                found = addr;
                gone = {info.clusterName, info.brokerName, info.brokerId, addr, "connectionClosed",
                    "its connection to the name server closed (the broker stopped, crashed or "
                    "lost the network)",
                    0, 0};
                break;
            }
        }
        if (found.isEmpty())
            return;
        removeBrokerAddrLocked(found);
    }
    noteDeparture(std::move(gone));
    qCInfo(lcNamesrvRoute).noquote() << "broker connection closed, removed:" << found;
    emit brokerExpired(found, QStringLiteral("connection closed"));
}

QList<BrokerLiveness> RouteInfoManager::brokerLiveness() const
{
    std::shared_lock locker(m_lock);
    const std::int64_t t = now();
    QList<BrokerLiveness> out;
    out.reserve(static_cast<qsizetype>(m_brokerLiveTable.size()));
    for (const auto &[addr, info] : m_brokerLiveTable) {
        out.append(BrokerLiveness {info.clusterName, info.brokerName, info.brokerId, addr,
            info.haServerAddr, info.lastUpdateEpochMs, t - info.lastUpdateMs, info.dataVersion});
    }
    return out;
}

bool RouteInfoManager::isBrokerLive(const QByteArray &brokerAddr) const
{
    std::shared_lock locker(m_lock);
    return m_brokerLiveTable.contains(brokerAddr);
}

int RouteInfoManager::liveBrokerCount() const
{
    std::shared_lock locker(m_lock);
    return static_cast<int>(m_brokerLiveTable.size());
}

int RouteInfoManager::topicCount() const
{
    std::shared_lock lock(m_lock);
    return static_cast<int>(m_topicQueueTable.size());
}

void RouteInfoManager::noteDeparture(BrokerDeparture d)
{
    d.epochMs = QDateTime::currentMSecsSinceEpoch();
    d.ageMs = now(); // the event's monotonic time; departures() turns it into an age
    std::lock_guard locker(m_historyMutex);
    if (!m_departures.contains(d.brokerAddr) && m_departures.size() >= kMaxDepartures) {
        auto oldest = std::min_element(m_departures.begin(), m_departures.end(),
            [](const auto &a, const auto &b) { return a.second.ageMs < b.second.ageMs; });
        m_departures.erase(oldest);
    }
    m_departures[d.brokerAddr] = std::move(d);
}

QList<BrokerDeparture> RouteInfoManager::departures(const QByteArray &brokerName) const
{
    const std::int64_t t = now();
    QList<BrokerDeparture> out;
    std::lock_guard locker(m_historyMutex);
    for (const auto &[addr, d] : m_departures) {
        if (d.brokerName != brokerName)
            continue;
        out.append(d);
        out.back().ageMs = t - d.ageMs;
    }
    return out;
}

void RouteInfoManager::noteRegistrationError(
    const QByteArray &brokerName, const QByteArray &brokerAddr, const QByteArray &error)
{
    if (brokerName.isEmpty())
        return;
    BrokerDeparture d;
    d.brokerName = brokerName.left(256);
    d.brokerAddr = brokerAddr.left(256);
    d.kind = "registrationRefused";
    d.reason = error.left(1024);
    d.epochMs = QDateTime::currentMSecsSinceEpoch();
    d.ageMs = now();
    std::lock_guard locker(m_historyMutex);
    if (!m_registrationErrors.contains(d.brokerName)
        && m_registrationErrors.size() >= kMaxDepartures)
        m_registrationErrors.erase(m_registrationErrors.begin());
    m_registrationErrors[d.brokerName] = std::move(d);
}

std::optional<BrokerDeparture> RouteInfoManager::lastRegistrationError(
    const QByteArray &brokerName) const
{
    const std::int64_t t = now();
    std::lock_guard locker(m_historyMutex);
    const auto it = m_registrationErrors.find(brokerName);
    if (it == m_registrationErrors.end())
        return std::nullopt;
    BrokerDeparture d = it->second;
    d.ageMs = t - d.ageMs;
    return d;
}

} // namespace qrocket::namesrv
