#include "tests/soak/soakcluster.h"

#include "broker/controller/elector.h"
#include "broker/controller/etcdclient.h"

#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QTimer>

namespace qrocket::soak {

using broker::controller::ElectionRecord;
using broker::controller::EtcdClient;

ProcStats procStats(qint64 pid)
{
    ProcStats s;
    if (pid <= 0)
        return s;
    const QString base = QStringLiteral("/proc/%1/").arg(pid);
    QFile status(base + QStringLiteral("status"));
    if (!status.open(QIODevice::ReadOnly))
        return s;
    for (const QByteArray &line : status.readAll().split('\n')) {
        if (line.startsWith("VmRSS:"))
            s.rssKiB = line.mid(6).simplified().split(' ').value(0).toLongLong();
        else if (line.startsWith("RssAnon:"))
            s.anonKiB = line.mid(8).simplified().split(' ').value(0).toLongLong();
        else if (line.startsWith("Threads:"))
            s.threads = line.mid(8).simplified().toInt();
    }
    const QDir fd(base + QStringLiteral("fd"));
    if (fd.exists())
        s.fds = int(fd.entryList(QDir::AllEntries | QDir::System | QDir::NoDotAndDotDot).size());
    return s;
}

SoakCluster::SoakCluster(QString dir, int replicas, int leaseTtlSeconds)
    : m_dir(std::move(dir)), m_ttl(leaseTtlSeconds)
{
    for (int i = 0; i < replicas; ++i)
        m_brokers.push_back(
            std::make_unique<testlib::DaemonProcess>(QStringLiteral("qrocket-broker")));
    m_ports.assign(std::size_t(replicas), 0);
}

SoakCluster::~SoakCluster()
{
    stop();
}

QByteArray SoakCluster::brokerConf(int i, quint16 port) const
{
    const QString store = QDir(m_dir).filePath(QStringLiteral("store%1").arg(i));
    // Controller mode, SYNC: a send is acknowledged once every replica of the SyncStateSet has it.
    // 64 MiB commit-log files: a 30-minute run at 2,000 msg/s writes about 1 GiB per replica.
    return "brokerClusterName=" + kCluster + "\nbrokerName=" + kBrokerName
        + "\nbrokerIP1=127.0.0.1\nbrokerIP2=127.0.0.1\nlistenPort=" + QByteArray::number(port)
        + "\nnamesrvAddr=127.0.0.1:" + QByteArray::number(m_nsPort) + "\nstorePathRootDir="
        + store.toUtf8() + "\nbrokerRole=SYNC_MASTER\nenableControllerMode=true\netcdEndpoints="
        + m_etcd.endpoint().toUtf8() + "\netcdLeaseTtlSeconds=" + QByteArray::number(m_ttl)
        + "\nallAckInSyncStateSet=true\nhaMaxTimeSlaveNotCatchup=15000"
          "\nmappedFileSizeCommitLog=67108864\nautoCreateTopicEnable=true"
          "\nautoCreateSubscriptionGroup=true\n";
}

bool SoakCluster::start()
{
    if (testlib::EtcdProcess::program().isEmpty()) {
        m_error = QStringLiteral("no etcd binary (Debian: etcd-server; or set QROCKET_ETCD)");
        return false;
    }
    if (!QFile::exists(QDir(testlib::binDir()).filePath(QStringLiteral("qrocket-broker")))) {
        m_error = QStringLiteral("no qrocket-broker in %1 (set QROCKET_BIN_DIR)")
                      .arg(testlib::binDir());
        return false;
    }
    if (!m_etcd.start(QDir(m_dir).filePath(QStringLiteral("etcd")))) {
        m_error = QStringLiteral("etcd: ") + m_etcd.error();
        return false;
    }
    m_etcdPid = m_etcd.pid();
    m_etcdClient = std::make_unique<EtcdClient>(QStringList {m_etcd.endpoint()}, 2000);
    const QString ns = QDir(m_dir).filePath(QStringLiteral("ns"));
    QDir().mkpath(ns);
    m_nsPort = testlib::startNamesrv(m_namesrv, ns);
    if (m_nsPort == 0) {
        m_error = QStringLiteral("namesrv: ") + m_namesrv.error();
        return false;
    }
    for (int i = 0; i < replicas(); ++i)
        if (!startBroker(i))
            return false;
    return true;
}

void SoakCluster::stop()
{
    for (auto &b : m_brokers)
        if (b && b->isRunning())
            b->stop(20000);
    if (m_namesrv.isRunning())
        m_namesrv.stop();
    m_etcdClient.reset();
    if (m_etcd.isRunning())
        m_etcd.kill();
}

QByteArray SoakCluster::namesrvAddr() const
{
    return "127.0.0.1:" + QByteArray::number(m_nsPort);
}

QByteArray SoakCluster::brokerAddr(int i) const
{
    return "127.0.0.1:" + QByteArray::number(m_ports[std::size_t(i)]);
}

int SoakCluster::indexOfPort(int port) const
{
    for (int i = 0; i < replicas(); ++i)
        if (m_ports[std::size_t(i)] == port)
            return i;
    return -1;
}

bool SoakCluster::startBroker(int i)
{
    auto &b = *m_brokers[std::size_t(i)];
    const QString conf = QDir(m_dir).filePath(QStringLiteral("broker%1.conf").arg(i));
    quint16 &port = m_ports[std::size_t(i)];
    if (!testlib::startOnFreePort(b, conf, port, [&](quint16 p) { return brokerConf(i, p); })) {
        m_error = QStringLiteral("broker%1: %2").arg(i).arg(b.error());
        return false;
    }
    return true;
}

void SoakCluster::killBroker(int i)
{
    m_brokers[std::size_t(i)]->kill();
}

bool SoakCluster::brokerRunning(int i) const
{
    return m_brokers[std::size_t(i)]->isRunning();
}

bool SoakCluster::brokerSaid(int i, const QByteArray &text)
{
    return m_brokers[std::size_t(i)]->output().contains(text);
}

QByteArray SoakCluster::brokerTail(int i, int bytes)
{
    return m_brokers[std::size_t(i)]->output().right(bytes);
}

namespace {

/// The record under `key` (nullopt: absent, unreadable or no answer within 5 s).
std::optional<ElectionRecord> readRecord(EtcdClient &client, const QByteArray &key, bool &answered)
{
    std::optional<ElectionRecord> rec;
    bool done = false;
    QEventLoop loop;
    QTimer::singleShot(5000, &loop, &QEventLoop::quit);
    client.get(key, [&](Result<std::optional<broker::controller::EtcdKeyValue>> r) {
        if (r && r->has_value())
            rec = ElectionRecord::fromJson((*r)->value);
        answered = bool(r);
        done = true;
        loop.quit();
    });
    if (!done)
        loop.exec();
    if (!done)
        answered = false;
    return rec;
}

} // namespace

std::optional<Election> SoakCluster::election()
{
    if (!m_etcdClient)
        return std::nullopt;
    const QByteArray prefix = "/qrocket/" + kCluster + '/' + kBrokerName;
    bool answered = false;
    // The master key (bound to the master's lease) says who is master now; the state key
    // (no lease) holds the current epoch and SyncStateSet.
    const auto master = readRecord(*m_etcdClient, prefix + "/master", answered);
    if (!answered)
        return std::nullopt;
    const auto state = readRecord(*m_etcdClient, prefix + "/state", answered);
    if (!answered)
        return std::nullopt;
    Election e;
    if (master)
        e.epoch = master->epoch;
    for (int i = 0; i < replicas(); ++i) {
        if (master && master->masterAddr == brokerAddr(i))
            e.master = i;
        if (state && state->inSyncStateSet(brokerAddr(i)))
            e.syncStateSet.push_back(i);
    }
    return e;
}

void SoakCluster::saveOutput(int i, const QString &path)
{
    QFile f(path);
    if (f.open(QIODevice::WriteOnly))
        f.write(m_brokers[std::size_t(i)]->output());
}

std::vector<SoakCluster::Daemon> SoakCluster::daemons()
{
    std::vector<Daemon> out;
    out.push_back({QStringLiteral("etcd"), m_etcd.isRunning() ? m_etcdPid : -1});
    out.push_back(
        {QStringLiteral("namesrv"), m_namesrv.isRunning() ? m_namesrv.pid() : qint64(-1)});
    for (int i = 0; i < replicas(); ++i) {
        auto &b = *m_brokers[std::size_t(i)];
        out.push_back({QStringLiteral("broker%1").arg(i), b.isRunning() ? b.pid() : qint64(-1)});
    }
    return out;
}

} // namespace qrocket::soak
