// ClusterSession: the Admin, the poller and the broker part of the values (see clustersession.h;
// the topic, group and focus polls are in sessioncatalog.cpp).

#include "console/gui/clustersession.h"

#include <QDateTime>
#include <QElapsedTimer>

#include <algorithm>

namespace qrocket::console {

namespace {

constexpr int kFastTimeoutMs = 2500;

QString errorText(const Status &s)
{
    return s.toString();
}

} // namespace

std::int64_t ClusterSession::nowMono()
{
    static QElapsedTimer clock = [] {
        QElapsedTimer t;
        t.start();
        return t;
    }();
    // +1 so that 0 can mean "never".
    return clock.elapsed() + 1;
}

namespace {

remoting::TlsSettings &consoleTls()
{
    static remoting::TlsSettings tls = [] {
        remoting::TlsSettings t;
        t.configFile.clear(); // only what the command line says
        return t;
    }();
    return tls;
}

} // namespace

void ClusterSession::setClientTls(const remoting::TlsSettings &tls)
{
    consoleTls() = tls;
}

remoting::TlsSettings ClusterSession::clientTls()
{
    return consoleTls();
}

client::ClientConfig ClusterSession::clientConfig() const
{
    client::ClientConfig config;
    config.namesrvAddr = m_namesrvAddr.toUtf8();
    config.tls = m_tls;
    config.accessKey = m_credentials.accessKey;
    config.secretKey = m_credentials.secretKey;
    return config;
}

ClusterSession::ClusterSession(QString namesrvAddr, const Credentials &credentials, QObject *parent)
    : ClusterSession(ConnectionSettings {std::move(namesrvAddr), credentials, std::nullopt}, parent)
{ }

ClusterSession::ClusterSession(const ConnectionSettings &settings, QObject *parent)
    : QObject(parent)
    , m_namesrvAddr(settings.namesrvAddr)
    , m_credentials(settings.credentials)
    , m_tls(settings.tls.value_or(consoleTls()))
{
    client::AdminOptions options;
    options.client = clientConfig();
    options.timeoutMs = 3000;
    options.callbackThreads = 4;
    m_admin = std::make_shared<client::Admin>(options);
    m_timer.setInterval(1000);
    connect(&m_timer, &QTimer::timeout, this, &ClusterSession::tick);
}

ClusterSession::~ClusterSession()
{
    m_timer.stop();
    // Completes every queued call (Unavailable) and waits for the running ones: afterwards no
    // callback refers to this object any more.
    m_admin->shutdown();
}

Status ClusterSession::start()
{
    if (m_namesrvAddr.trimmed().isEmpty())
        return Status::invalidArgument(QStringLiteral("no name server address given"));
    if (Status s = m_admin->start(); !s)
        return s;
    m_timer.start();
    QMetaObject::invokeMethod(this, &ClusterSession::tick, Qt::QueuedConnection);
    return {};
}

void ClusterSession::setPollInterval(int ms)
{
    m_timer.setInterval(std::max(50, ms));
}

void ClusterSession::refreshCatalog()
{
    m_catalogDue = true;
}

void ClusterSession::tick()
{
    const bool catalog = m_catalogDue || m_tick % 10 == 0;
    m_catalogDue = false;
    pollCluster();
    pollLiveness();
    pollBrokerConfigs();
    pollElections();
    if (m_tick % 5 == 0 || catalog)
        pollStoreFiles();
    if (catalog) {
        pollTopics();
        pollGroups();
    }
    pollGroupStats();
    pollFocusTopic();
    pollTopicRates();
    if (m_tick % 2 == 0)
        pollFocusGroup();
    ++m_tick;
    updateProblems();
}

// -- brokers ------------------------------------------------------------------------------

BrokerInfo *ClusterSession::brokerAt(const QByteArray &address)
{
    for (BrokerInfo &b : m_brokers) {
        if (b.address == address)
            return &b;
    }
    return nullptr;
}

const BrokerInfo *ClusterSession::broker(const QByteArray &address) const
{
    for (const BrokerInfo &b : m_brokers) {
        if (b.address == address)
            return &b;
    }
    return nullptr;
}

std::vector<QByteArray> ClusterSession::clusterNames() const
{
    std::vector<QByteArray> names;
    for (const BrokerInfo &b : m_brokers) {
        if (!b.cluster.isEmpty() && std::find(names.begin(), names.end(), b.cluster) == names.end())
            names.push_back(b.cluster);
    }
    std::sort(names.begin(), names.end());
    return names;
}

std::vector<QByteArray> ClusterSession::masterAddresses() const
{
    std::vector<QByteArray> out;
    for (const BrokerInfo &b : m_brokers) {
        if (b.registered && b.brokerId == protocol::kMasterBrokerId)
            out.push_back(b.address);
    }
    return out;
}

std::int64_t ClusterSession::heartbeatAge(const BrokerInfo &b) const
{
    if (!b.livenessKnown)
        return -1;
    return b.heartbeatAgeMs + (nowMono() - b.livenessSampleMono);
}

std::int64_t ClusterSession::lateAfterMs(const BrokerInfo &b)
{
    return b.registerPeriodMs + std::max<std::int64_t>(2000, b.registerPeriodMs / 2);
}

Liveness ClusterSession::liveness(const BrokerInfo &b) const
{
    if (!b.registered)
        return b.everRegistered ? Liveness::Expired : Liveness::Unknown;
    const std::int64_t age = heartbeatAge(b);
    if (age < 0)
        return Liveness::Live; // listed by the name server, age unknown (stock RocketMQ)
    if (age >= m_expiryMs)
        return Liveness::Expired;
    if (age > lateAfterMs(b))
        return Liveness::Late;
    return Liveness::Live;
}

const std::deque<BrokerSample> &ClusterSession::history(const QByteArray &address) const
{
    static const std::deque<BrokerSample> empty;
    auto it = m_history.find(address);
    return it == m_history.end() ? empty : it->second;
}

void ClusterSession::pollCluster()
{
    if (m_inFlight.contains(QStringLiteral("cluster")))
        return;
    m_inFlight.insert(QStringLiteral("cluster"));
    m_admin->clusterOverviewAsync(true,
        onGui<client::ClusterOverview>([this](Result<client::ClusterOverview> r) {
            m_inFlight.remove(QStringLiteral("cluster"));
            applyOverview(std::move(r));
        }),
        kFastTimeoutMs);
}

void ClusterSession::applyOverview(Result<client::ClusterOverview> r)
{
    const std::int64_t now = nowMono();
    if (!r) {
        m_cluster.error = errorText(r.error());
        emit brokersUpdated();
        updateProblems();
        return;
    }
    m_cluster.error.clear();
    m_cluster.lastOkMono = now;
    QSet<QByteArray> wasRegistered;
    for (BrokerInfo &b : m_brokers) {
        if (b.registered)
            wasRegistered.insert(b.address);
        b.registered = false;
    }
    const std::int64_t epochNow = QDateTime::currentMSecsSinceEpoch();
    for (const client::BrokerNode &node : r->nodes) {
        BrokerInfo *b = brokerAt(node.address);
        if (!b) {
            m_brokers.push_back({});
            b = &m_brokers.back();
            b->address = node.address;
        }
        // A master that (re)appears: ask for the catalogue (topics, groups, files) at once.
        if (node.brokerId == protocol::kMasterBrokerId && !wasRegistered.contains(node.address))
            m_catalogDue = true;
        b->cluster = node.cluster;
        b->brokerName = node.brokerName;
        b->brokerId = node.brokerId;
        b->registered = true;
        b->everRegistered = true;
        if (!node.runtimeStatus) {
            b->runtimeOk = false;
            b->runtimeError = errorText(node.runtimeStatus);
            continue;
        }
        const client::admin::BrokerRuntimeInfo &rt = node.runtimeInfo;
        b->runtimeOk = true;
        b->runtimeError.clear();
        b->runtimeOkMono = now;
        b->version = rt.versionDesc();
        b->diskRatio = rt.number("commitLogDiskRatio", -1);
        b->consumeQueueDiskRatio = rt.number("consumeQueueDiskRatio", -1);
        b->diskFull = rt.value("diskFull") == "true";
        b->diskFullReason = b->diskFull ? QString::fromUtf8(rt.value("diskFullReason")) : QString();
        b->commitLogMinOffset = rt.integer("commitLogMinOffset");
        b->commitLogMaxOffset = rt.integer("commitLogMaxOffset");
        // TPS from the day totals sampled a second apart (exact per second); the broker's own
        // 10 s averages when there is no previous sample or the totals were reset (midnight).
        const std::int64_t put = rt.integer("msgPutTotalTodayNow", -1);
        const std::int64_t get = rt.integer("msgGetTotalTodayNow", -1);
        const std::int64_t dt = now - b->totalsMono;
        if (b->putTotal >= 0 && put >= b->putTotal && dt > 0)
            b->putTps = static_cast<double>(put - b->putTotal) * 1000.0 / static_cast<double>(dt);
        else
            b->putTps = rt.number("putTps");
        if (b->getTotal >= 0 && get >= b->getTotal && dt > 0)
            b->getTps = static_cast<double>(get - b->getTotal) * 1000.0 / static_cast<double>(dt);
        else
            b->getTps = rt.number("getTransferedTps");
        b->putTotal = put;
        b->getTotal = get;
        b->totalsMono = now;
        std::deque<BrokerSample> &h = m_history[b->address];
        h.push_back({epochNow, b->putTps, b->getTps, b->diskRatio});
        while (h.size() > kHistorySamples)
            h.pop_front();
    }
    std::sort(m_brokers.begin(), m_brokers.end(), [](const BrokerInfo &a, const BrokerInfo &b) {
        return std::tie(a.cluster, a.brokerName, a.brokerId, a.address)
            < std::tie(b.cluster, b.brokerName, b.brokerId, b.address);
    });
    emit brokersUpdated();
    updateProblems();
}

void ClusterSession::pollLiveness()
{
    if (m_inFlight.contains(QStringLiteral("liveness")))
        return;
    // A name server without the extension is probed again once a minute (the Java one answers
    // nothing and costs a whole timeout).
    if (m_liveness.notSupported && m_tick - m_livenessProbeTick < 60)
        return;
    m_livenessProbeTick = m_tick;
    m_inFlight.insert(QStringLiteral("liveness"));
    m_admin->brokerLivenessAsync({},
        onGui<client::admin::BrokerLiveness>([this](Result<client::admin::BrokerLiveness> r) {
            m_inFlight.remove(QStringLiteral("liveness"));
            applyLiveness(std::move(r));
        }),
        kFastTimeoutMs);
}

void ClusterSession::applyLiveness(Result<client::admin::BrokerLiveness> r)
{
    const std::int64_t now = nowMono();
    if (!r) {
        m_liveness.notSupported = r.error().code() == Status::Code::NotSupported;
        m_liveness.error = errorText(r.error());
        emit brokersUpdated();
        updateProblems();
        return;
    }
    m_liveness = {now, {}, false};
    if (r->brokerChannelExpiredTime > 0)
        m_expiryMs = r->brokerChannelExpiredTime;
    for (BrokerInfo &b : m_brokers)
        b.livenessKnown = false;
    for (const client::admin::BrokerLivenessEntry &e : r->brokers) {
        BrokerInfo *b = brokerAt(e.brokerAddr);
        if (!b) {
            m_brokers.push_back({});
            b = &m_brokers.back();
            b->address = e.brokerAddr;
            b->cluster = e.clusterName;
            b->brokerName = e.brokerName;
            b->brokerId = e.brokerId;
        }
        b->livenessKnown = true;
        b->heartbeatAgeMs = e.ageMillis;
        b->livenessSampleMono = now;
        b->lastHeartbeatEpochMs = e.lastUpdateTimestamp;
    }
    emit brokersUpdated();
}

void ClusterSession::pollBrokerConfigs()
{
    const std::int64_t now = nowMono();
    for (BrokerInfo &b : m_brokers) {
        if (b.configOk || !b.registered || (b.configAskedMono && now - b.configAskedMono < 30000))
            continue;
        b.configAskedMono = now;
        const QByteArray address = b.address;
        m_admin->brokerConfigAsync(address,
            onGui<client::admin::ConfigProperties>(
                [this, address](Result<client::admin::ConfigProperties> r) {
                    BrokerInfo *info = brokerAt(address);
                    if (!info || !r)
                        return;
                    info->configOk = true;
                    bool ok = false;
                    const qlonglong period = r->value(u"registerNameServerPeriod").toLongLong(&ok);
                    if (ok && period > 0)
                        info->registerPeriodMs = period;
                    info->deleteWhen = r->value(u"deleteWhen");
                    info->fileReservedTime = r->value(u"fileReservedTime");
                    info->diskMaxUsedSpaceRatio = r->value(u"diskMaxUsedSpaceRatio");
                    info->diskSpaceCleanForciblyRatio = r->value(u"diskSpaceCleanForciblyRatio");
                    info->diskSpaceWarningLevelRatio = r->value(u"diskSpaceWarningLevelRatio");
                    info->controllerMode = r->value(u"enableControllerMode") == u"true";
                    emit brokersUpdated();
                    emit storageUpdated();
                }),
            kFastTimeoutMs);
    }
}

void ClusterSession::pollStoreFiles()
{
    if (m_storeNotSupported && m_tick % 60 != 0)
        return;
    for (const QByteArray &address : masterAddresses()) {
        const QString key = QStringLiteral("store:") + QString::fromUtf8(address);
        if (m_inFlight.contains(key))
            continue;
        m_inFlight.insert(key);
        m_admin->storeFilesAsync(address,
            onGui<client::admin::StoreFiles>(
                [this, address, key](Result<client::admin::StoreFiles> r) {
                    m_inFlight.remove(key);
                    BrokerInfo *b = brokerAt(address);
                    if (!b)
                        return;
                    if (!r) {
                        b->store.error = errorText(r.error());
                        b->store.notSupported = r.error().code() == Status::Code::NotSupported;
                        m_storeNotSupported = b->store.notSupported;
                    } else {
                        b->store = {nowMono(), {}, false};
                        b->storeFiles = std::move(r).value();
                        m_storeNotSupported = false;
                    }
                    emit storageUpdated();
                }),
            kFastTimeoutMs);
    }
}

// -- problems -----------------------------------------------------------------------------

QString ClusterSession::problemSummary() const
{
    QStringList parts;
    if (!m_cluster.error.isEmpty())
        parts << QStringLiteral("cluster info: ") + m_cluster.error;
    if (!m_liveness.error.isEmpty() && !m_liveness.notSupported)
        parts << QStringLiteral("liveness: ") + m_liveness.error;
    if (!m_topicsPart.error.isEmpty())
        parts << QStringLiteral("topics: ") + m_topicsPart.error;
    if (!m_groupsPart.error.isEmpty())
        parts << QStringLiteral("groups: ") + m_groupsPart.error;
    int unreachable = 0;
    for (const BrokerInfo &b : m_brokers)
        unreachable += b.registered && !b.runtimeOk && !b.runtimeError.isEmpty();
    if (unreachable)
        parts << QStringLiteral("%1 broker(s) not answering runtime info").arg(unreachable);
    return parts.join(QStringLiteral("; "));
}

void ClusterSession::updateProblems()
{
    const QString now = problemSummary();
    if (now != m_lastProblems) {
        m_lastProblems = now;
        emit problemsChanged(now);
    }
}

} // namespace qrocket::console
