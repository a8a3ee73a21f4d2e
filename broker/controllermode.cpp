#include "broker/controllermode.h"

#include "broker/brokercontroller.h"
#include "broker/common/brokercontext.h"
#include "broker/common/logging.h"
#include "broker/controller/elector.h"
#include "broker/controller/epochfile.h"
#include "broker/controller/etcdclient.h"
#include "broker/ha/haclient.h"
#include "broker/ha/haservice.h"
#include "storage/messagestore.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>

#include <limits>

namespace qrocket::broker::controller {

ControllerMode::ControllerMode(
    const BrokerConfig &config, const storage::MessageStoreConfig &storeConfig, QObject *parent)
    : QObject(parent), m_config(config), m_storeConfig(storeConfig)
{ }

ControllerMode::~ControllerMode()
{
    shutdown();
}

Status ControllerMode::start()
{
    if (m_config.listenPort <= 0)
        return Status::invalidArgument(
            QStringLiteral("enableControllerMode needs a fixed listenPort (it names the broker "
                           "in the SyncStateSet)"));
    auto endpoints = EtcdClient::parseEndpoints(m_config.etcdEndpoints);
    if (!endpoints)
        return endpoints.error();
    if (!QDir().mkpath(m_storeConfig.storePathRootDir))
        return Status::ioError(
            QStringLiteral("cannot create %1").arg(m_storeConfig.storePathRootDir));
    m_epochs = std::make_unique<EpochFile>(EpochFile::filePath(m_storeConfig.storePathRootDir));
    if (Status st = m_epochs->load(); !st)
        return st;
    if (Status st = restart(false, nullptr); !st)
        return st;

    ElectorOptions options;
    options.clusterName = m_config.brokerClusterName.toUtf8();
    options.brokerName = m_config.brokerName.toUtf8();
    options.brokerAddr = m_config.brokerAddr();
    options.haAddr
        = m_config.brokerIP2.toUtf8() + ':' + QByteArray::number(m_storeConfig.haListenPort);
    options.leaseTtlSeconds = m_config.etcdLeaseTtlSeconds;
    options.pollIntervalMs = std::min(500, m_config.etcdLeaseTtlSeconds * 1000 / 4);
    options.fenceMarginMs = std::min(1000, m_config.etcdLeaseTtlSeconds * 1000 / 5);
    options.maxNotCatchupMs = m_storeConfig.haMaxTimeSlaveNotCatchup;
    // Each request well inside a keep-alive period, so a slow etcd is noticed in time.
    const int requestTimeoutMs = std::max(300, m_config.etcdLeaseTtlSeconds * 1000 / 4);
    m_elector = std::make_unique<Elector>(
        std::make_unique<EtcdClient>(*endpoints, requestTimeoutMs), options,
        [this] { return commitLogEndForCampaign(); }, *m_epochs);
    m_elector->setReplicaOffsetProvider([this]() -> std::int64_t {
        return m_broker ? m_broker->context().store->commitLogMaxOffset() : 0;
    });
    m_elector->setReplicaAcksHook([this](const std::vector<QByteArray> &haPeers, int setSize) {
        applyAckRule(haPeers, setSize);
    });
    m_elector->setHaLocalAddressProvider([this]() -> QByteArray {
        ha::HAClient *client = m_broker ? m_broker->haClient() : nullptr;
        return client ? client->localAddress() : QByteArray();
    });
    m_elector->setHaAckProvider([this](const QByteArray &peer) -> std::int64_t {
        ha::HAService *server = m_broker ? m_broker->haService() : nullptr;
        return server ? server->ackOffsetOf(peer) : -1;
    });
    connect(m_elector.get(), &Elector::becameMaster, this, &ControllerMode::onBecameMaster);
    connect(m_elector.get(), &Elector::following, this, &ControllerMode::onFollowing);
    connect(m_elector.get(), &Elector::fenced, this, [this](const QString &why) {
        qCWarning(lcBrokerHa).noquote() << "controller: puts refused from now on:" << why;
    });
    m_elector->start();
    qCInfo(lcBrokerHa).noquote() << "controller mode: broker" << options.brokerAddr << "of"
                                 << m_config.brokerName << "electing through"
                                 << endpoints->join(QLatin1Char(','));
    return {};
}

void ControllerMode::shutdown()
{
    if (m_shutdown)
        return;
    m_shutdown = true;
    if (m_elector) {
        m_elector->stop(true);
        // Give the resignation (a lease revocation) a bounded moment to reach etcd.
        QElapsedTimer clock;
        clock.start();
        while (clock.elapsed() < 300)
            QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
    }
    if (m_broker)
        m_broker->shutdown();
    m_elector.reset();
    m_broker.reset();
}

std::int64_t ControllerMode::commitLogEndForCampaign()
{
    if (!m_broker)
        return 0;
    // Replication stops first: the new epoch starts where this log ends, and nothing the old
    // master sends may land after that point.
    if (ha::HAClient *client = m_broker->haClient())
        client->stop();
    return m_broker->context().store->commitLogMaxOffset();
}

void ControllerMode::onBecameMaster(std::int64_t epoch)
{
    qCInfo(lcBrokerHa).noquote() << "controller: taking over as master, epoch" << epoch;
    if (Status st = restart(true, nullptr); !st) {
        qCCritical(lcBrokerHa).noquote() << "controller: cannot start as master:" << st.message();
        m_elector->stop(true); // let another replica take over
    }
}

void ControllerMode::onFollowing(const ElectionRecord &master)
{
    if (m_shutdown)
        return;
    if (Status st = restart(false, &master); !st)
        qCCritical(lcBrokerHa).noquote()
            << "controller: cannot follow" << master.masterAddr << ":" << st.message();
}

Status ControllerMode::startBroker(bool asMaster, const QByteArray &haMaster)
{
    BrokerConfig config = m_config;
    storage::MessageStoreConfig store = m_storeConfig;
    const QString masterRole = m_config.brokerRole == QLatin1String("ASYNC_MASTER")
        ? QStringLiteral("ASYNC_MASTER")
        : QStringLiteral("SYNC_MASTER");
    config.brokerRole = asMaster ? masterRole : QStringLiteral("SLAVE");
    config.brokerId = asMaster ? 0 : std::max<std::int64_t>(1, m_config.brokerId);
    store.brokerRole = config.brokerRole;
    store.haMasterAddress = asMaster ? QString() : QString::fromUtf8(haMaster);
    if (Status st = config.validate(); !st)
        return st;
    m_broker = std::make_unique<BrokerController>(config, store);
    m_broker->setEpochHistory([this] {
        std::lock_guard lock(m_historyMutex);
        return m_history;
    });
    m_broker->setElectionState([elector = m_elector.get()] {
        const ElectionRecord r = elector->recordSnapshot();
        return std::make_pair(r.masterAddr, r.syncStateSet);
    });
    if (asMaster)
        m_broker->setWriteGate([elector = m_elector.get()] { return elector->writesAllowed(); });
    if (Status st = m_broker->initialize(); !st)
        return st;
    // A new master's SyncStateSet is itself alone: it acknowledges on its own until a replica
    // qualifies (Elector::setReplicaAcksHook turns the wait on first).
    if (asMaster) {
        applyAckRule({}, 1);
        if (ha::HAService *server = m_broker->haService())
            server->setNewSlavesFromFirstByte(!m_storeConfig.syncFromLastFile);
    }
    return {};
}

void ControllerMode::applyAckRule(const std::vector<QByteArray> &haPeers, int setSize)
{
    if (!m_broker)
        return;
    storage::MessageStore &store = *m_broker->context().store;
    const int peers = int(haPeers.size());
    // allAckInSyncStateSet: every replica waited for; else inSyncReplicas copies, the master's
    // counted (RocketMQ 5).
    const int needed = m_storeConfig.allAckInSyncStateSet
        ? peers
        : std::min(peers, std::max(0, m_storeConfig.inSyncReplicas - 1));
    // The order matters: the HA server counts only these replicas before the store waits.
    if (ha::HAService *server = m_broker->haService())
        server->setAckPeers(haPeers, needed);
    store.setInSyncReplicas(setSize);
    store.setReplicaAcksRequired(needed > 0);
}

Status ControllerMode::restart(bool asMaster, const ElectionRecord *master)
{
    QElapsedTimer clock;
    clock.start();
    publishHistory(); // a win appended to it
    if (m_broker) {
        m_broker->shutdown();
        m_broker.reset();
    }
    const QByteArray haMaster = master ? master->masterHaAddr : QByteArray();
    if (Status st = startBroker(asMaster, haMaster); !st)
        return st;
    if (master) {
        const std::int64_t localEnd = m_broker->context().store->commitLogMaxOffset();
        const auto cut = EpochFile::truncationPoint(m_epochs->entries(), localEnd, master->epochs,
            std::numeric_limits<std::int64_t>::max());
        if (!cut) {
            m_broker->shutdown();
            m_broker.reset();
            return Status::corruption(
                QStringLiteral("this commit log shares no epoch with master %1's (epoch %2): "
                               "not following it; a person must decide")
                    .arg(QString::fromUtf8(master->masterAddr))
                    .arg(master->epoch));
        }
        if (*cut < localEnd) {
            qCWarning(lcBrokerHa).noquote()
                << "controller: cutting the commit log from" << localEnd << "to" << *cut
                << "(the last offset shared with master" << master->masterAddr << "epoch"
                << master->epoch << ")";
            m_broker->shutdown();
            m_broker.reset();
            if (Status st = truncateCommitLog(m_storeConfig, *cut); !st)
                return st;
            if (Status st = startBroker(asMaster, haMaster); !st)
                return st;
        }
        if (Status st = m_epochs->replace(master->epochs); !st)
            return st;
        publishHistory();
    }
    if (Status st = m_broker->start(); !st)
        return st;
    qCInfo(lcBrokerHa).noquote() << "controller: running as"
                                 << (asMaster ? QStringLiteral("master")
                                              : QStringLiteral("slave of ")
                                                + QString::fromUtf8(haMaster.isEmpty()
                                                        ? QByteArray("(none yet)")
                                                        : haMaster))
                                 << "after" << clock.elapsed() << "ms";
    return {};
}

void ControllerMode::publishHistory()
{
    std::vector<std::pair<std::int64_t, std::int64_t>> history;
    history.reserve(m_epochs->entries().size());
    for (const EpochEntry &e : m_epochs->entries())
        history.emplace_back(e.epoch, e.startOffset);
    std::lock_guard lock(m_historyMutex);
    m_history = std::move(history);
}

Status ControllerMode::truncateCommitLog(
    const storage::MessageStoreConfig &storeConfig, std::int64_t offset)
{
    const QDir dir(storeConfig.commitLogDir());
    const std::int64_t fileSize = storeConfig.mappedFileSizeCommitLog;
    for (const QString &name : dir.entryList(QDir::Files, QDir::Name)) {
        bool ok = false;
        const std::int64_t start = name.toLongLong(&ok);
        if (!ok)
            continue;
        const QString path = dir.filePath(name);
        if (start >= offset) {
            if (!QFile::remove(path))
                return Status::ioError(QStringLiteral("cannot remove %1").arg(path));
            continue;
        }
        if (offset >= start + fileSize)
            continue;
        QFile f(path);
        if (!f.open(QIODevice::ReadWrite))
            return Status::ioError(QStringLiteral("cannot open %1: %2").arg(path, f.errorString()));
        const std::int64_t from = offset - start;
        const QByteArray zeros(64 * 1024, '\0');
        if (!f.seek(from))
            return Status::ioError(QStringLiteral("cannot seek in %1").arg(path));
        for (std::int64_t pos = from; pos < f.size();) {
            const std::int64_t n = std::min<std::int64_t>(zeros.size(), f.size() - pos);
            if (f.write(zeros.constData(), n) != n)
                return Status::ioError(
                    QStringLiteral("cannot write %1: %2").arg(path, f.errorString()));
            pos += n;
        }
        if (!f.flush())
            return Status::ioError(QStringLiteral("cannot write %1").arg(path));
    }
    // The next open recovers as after a crash: it finds the end at `offset` and cuts the
    // consume queues and the index there too.
    QFile abort(storeConfig.abortPath());
    if (!abort.open(QIODevice::WriteOnly))
        return Status::ioError(QStringLiteral("cannot create %1").arg(storeConfig.abortPath()));
    return {};
}

} // namespace qrocket::broker::controller
