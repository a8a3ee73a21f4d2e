#include "tests/testlib/etcdprocess.h"

#include "tests/testlib/daemonprocess.h"

#include <QDeadlineTimer>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTcpSocket>
#include <QThread>

#include <csignal>

namespace qrocket::testlib {

EtcdProcess::~EtcdProcess()
{
    kill();
}

QString EtcdProcess::program()
{
    const QString fromEnv = qEnvironmentVariable("QROCKET_ETCD");
    if (!fromEnv.isEmpty())
        return fromEnv;
    const QString onPath = QStandardPaths::findExecutable(QStringLiteral("etcd"));
    if (!onPath.isEmpty())
        return onPath;
    return QFileInfo::exists(QStringLiteral("/usr/bin/etcd")) ? QStringLiteral("/usr/bin/etcd")
                                                              : QString();
}

QString EtcdProcess::endpoint() const
{
    return QStringLiteral("http://127.0.0.1:%1").arg(m_clientPort);
}

bool EtcdProcess::healthy(int timeoutMs) const
{
    QTcpSocket s;
    s.connectToHost(QStringLiteral("127.0.0.1"), m_clientPort);
    if (!s.waitForConnected(timeoutMs))
        return false;
    s.write("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    QByteArray answer;
    QDeadlineTimer deadline(timeoutMs);
    while (!deadline.hasExpired() && s.state() == QAbstractSocket::ConnectedState) {
        if (s.waitForReadyRead(int(std::max<qint64>(1, deadline.remainingTime()))))
            answer += s.readAll();
        if (answer.contains("\"health\":\"true\""))
            return true;
    }
    answer += s.readAll();
    return answer.contains("\"health\":\"true\"");
}

bool EtcdProcess::start(const QString &dataDir, int timeoutMs)
{
    kill();
    const QString etcd = program();
    if (etcd.isEmpty()) {
        m_error = QStringLiteral("no etcd binary (install etcd-server)");
        return false;
    }
    if (m_clientPort == 0) {
        m_clientPort = freePort();
        m_peerPort = freePort();
        while (m_peerPort == m_clientPort)
            m_peerPort = freePort();
    }
    const QString client = QStringLiteral("http://127.0.0.1:%1").arg(m_clientPort);
    const QString peer = QStringLiteral("http://127.0.0.1:%1").arg(m_peerPort);
    m_output.clear();
    m_process = std::make_unique<QProcess>();
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    dieWithTheTest(*m_process);
    m_process->start(etcd,
        {QStringLiteral("--data-dir"), dataDir, QStringLiteral("--listen-client-urls"), client,
            QStringLiteral("--advertise-client-urls"), client, QStringLiteral("--listen-peer-urls"),
            peer, QStringLiteral("--initial-advertise-peer-urls"), peer,
            QStringLiteral("--initial-cluster"), QStringLiteral("default=") + peer});
    if (!m_process->waitForStarted(timeoutMs)) {
        m_error = QStringLiteral("etcd did not start: %1").arg(m_process->errorString());
        return false;
    }
    QDeadlineTimer deadline(timeoutMs);
    while (!deadline.hasExpired()) {
        if (m_process->state() != QProcess::Running)
            break;
        if (healthy(500))
            return true;
        QThread::msleep(50); // not listening yet, or no leader yet (bounded by the deadline)
    }
    m_error = QStringLiteral("etcd on port %1 not healthy after %2 ms; output:\n%3")
                  .arg(m_clientPort)
                  .arg(timeoutMs)
                  .arg(QString::fromUtf8(output().right(4000)));
    kill();
    return false;
}

void EtcdProcess::kill()
{
    if (!m_process)
        return;
    if (m_process->state() != QProcess::NotRunning) {
        ::kill(pid_t(m_process->processId()), SIGCONT); // a paused one too
        m_process->kill();
        m_process->waitForFinished(10000);
    }
    m_output += m_process->readAll();
    m_process.reset();
}

void EtcdProcess::pause()
{
    if (isRunning())
        ::kill(pid_t(m_process->processId()), SIGSTOP);
}

void EtcdProcess::resume()
{
    if (isRunning())
        ::kill(pid_t(m_process->processId()), SIGCONT);
}

bool EtcdProcess::isRunning() const
{
    return m_process && m_process->state() != QProcess::NotRunning;
}

qint64 EtcdProcess::pid() const
{
    return isRunning() ? m_process->processId() : -1;
}

QByteArray EtcdProcess::output()
{
    if (m_process)
        m_output += m_process->readAll();
    return m_output;
}

} // namespace qrocket::testlib
