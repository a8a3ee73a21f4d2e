#pragma once

// One name server for a whole test case and brokers started on free ports against it, with raw
// requests over one RemotingClient: what the broker feature suites that run real processes share.

#include "tests/system/broker/brokertestutil.h"
#include "tests/testlib/daemonprocess.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <memory>

namespace qrocket::brokertest {

class SingleBrokerFixture
{
public:
    /// Why the suite cannot run (daemons not built), or empty.
    static QString missingDaemons()
    {
        const QDir bin(testlib::binDir());
        if (!QFile::exists(bin.filePath(QStringLiteral("qrocket-broker")))
            || !QFile::exists(bin.filePath(QStringLiteral("qrocket-namesrv"))))
            return QStringLiteral("qrocket-broker / qrocket-namesrv not built");
        return {};
    }

    /// Starts the shared name server; the error text on failure, else empty.
    QString startNamesrv()
    {
        if (!m_dir.isValid())
            return QStringLiteral("no temporary directory");
        m_namesrv = std::make_unique<testlib::DaemonProcess>(QStringLiteral("qrocket-namesrv"));
        m_nsPort = testlib::startNamesrv(*m_namesrv, m_dir.path());
        return m_nsPort != 0 ? QString() : m_namesrv->error();
    }

    void stopNamesrv()
    {
        if (m_namesrv)
            m_namesrv->stop();
    }

    /// A broker `brokerName` on loopback with a 16 MB commit log, storing under `store`, with
    /// `extraConfig` ("key=value\n" lines) appended; its port becomes port().
    bool startBroker(testlib::DaemonProcess &broker, const QString &store,
        const QByteArray &brokerName, const QByteArray &extraConfig)
    {
        return testlib::startOnFreePort(
            broker, m_dir.filePath(QStringLiteral("broker.conf")), m_port, [&](quint16 port) {
                return "brokerName=" + brokerName
                    + "\nbrokerIP1=127.0.0.1\nbrokerIP2=127.0.0.1\nlistenPort="
                    + QByteArray::number(port) + "\nnamesrvAddr=127.0.0.1:"
                    + QByteArray::number(m_nsPort) + "\nstorePathRootDir=" + store.toUtf8()
                    + "\nmappedFileSizeCommitLog=16777216\n" + extraConfig;
            });
    }

    RemotingCommand call(RemotingCommand req)
    {
        return invoke(m_client, localAddr(m_port), std::move(req));
    }

    /// GET_MAX_OFFSET (30) of one queue; -1 when refused.
    std::int64_t maxOffset(const QByteArray &topic, int queueId)
    {
        const RemotingCommand r = call(request(30, {{"topic", topic}, {"queueId", num(queueId)}}));
        return r.code == 0 ? r.extLong("offset").value_or(-1) : -1;
    }

    QString path(const QString &name) const { return m_dir.filePath(name); }
    quint16 port() const { return m_port; }
    quint16 namesrvPort() const { return m_nsPort; }
    remoting::RemotingClient &client() { return m_client; }

private:
    QTemporaryDir m_dir;
    std::unique_ptr<testlib::DaemonProcess> m_namesrv;
    quint16 m_nsPort = 0;
    quint16 m_port = 0;
    remoting::RemotingClient m_client;
};

} // namespace qrocket::brokertest
