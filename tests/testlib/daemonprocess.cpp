#include "tests/testlib/daemonprocess.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QTcpServer>
#include <QTcpSocket>
#include <QThread>

#include <csignal>

namespace qrocket::testlib {

QString binDir()
{
    const QByteArray dir = qgetenv("QROCKET_BIN_DIR");
    return dir.isEmpty() ? QDir::currentPath() : QString::fromLocal8Bit(dir);
}

quint16 freePort()
{
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0))
        return 0;
    return probe.serverPort();
}

bool waitForPort(quint16 port, int timeoutMs)
{
    QDeadlineTimer deadline(timeoutMs);
    while (!deadline.hasExpired()) {
        QTcpSocket s;
        s.connectToHost(QHostAddress::LocalHost, port);
        if (s.waitForConnected(
                std::min<qint64>(500, std::max<qint64>(1, deadline.remainingTime()))))
            return true;
        // Refused at once: the daemon is not listening yet. Poll again shortly (bounded by the
        // deadline above).
        QThread::msleep(20);
    }
    return false;
}

DaemonProcess::DaemonProcess(QString program) : m_program(std::move(program))
{ }

DaemonProcess::~DaemonProcess()
{
    if (isRunning())
        kill();
}

bool DaemonProcess::start(const QString &configPath, const QByteArray &config, quint16 port,
    const QStringList &extraArgs, int timeoutMs)
{
    QFile f(configPath);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(config) != config.size()) {
        m_error = QStringLiteral("cannot write %1").arg(configPath);
        return false;
    }
    f.close();
    m_output.clear();
    m_process = std::make_unique<QProcess>();
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    QStringList args {QStringLiteral("-c"), configPath};
    args += extraArgs;
    m_process->start(QDir(binDir()).filePath(m_program), args);
    if (!m_process->waitForStarted(timeoutMs)) {
        m_error = QStringLiteral("%1 did not start: %2").arg(m_program, m_process->errorString());
        return false;
    }
    if (port != 0 && !waitForPort(port, timeoutMs)) {
        m_error = QStringLiteral("%1 is not listening on %2 after %3 ms; output:\n%4")
                      .arg(m_program)
                      .arg(port)
                      .arg(timeoutMs)
                      .arg(QString::fromLocal8Bit(output()));
        return false;
    }
    return true;
}

int DaemonProcess::stop(int timeoutMs)
{
    if (!m_process || m_process->state() == QProcess::NotRunning)
        return m_process ? m_process->exitCode() : -1;
    ::kill(static_cast<pid_t>(m_process->processId()), SIGTERM);
    if (!m_process->waitForFinished(timeoutMs)) {
        kill();
        return -1;
    }
    output();
    return m_process->exitStatus() == QProcess::NormalExit ? m_process->exitCode() : -1;
}

void DaemonProcess::kill()
{
    if (!m_process || m_process->state() == QProcess::NotRunning)
        return;
    m_process->kill();
    m_process->waitForFinished(10000);
    output();
}

bool DaemonProcess::isRunning() const
{
    return m_process && m_process->state() != QProcess::NotRunning;
}

qint64 DaemonProcess::pid() const
{
    return m_process ? m_process->processId() : 0;
}

QByteArray DaemonProcess::output()
{
    if (m_process)
        m_output += m_process->readAll();
    return m_output;
}

bool startOnFreePort(DaemonProcess &daemon, const QString &configPath, quint16 &port,
    const std::function<QByteArray(quint16 port)> &config)
{
    for (int attempt = 0; attempt < 5; ++attempt) {
        if (port == 0 || attempt > 0)
            port = freePort();
        if (port < 1026)
            continue;
        if (daemon.start(configPath, config(port), port))
            return true;
        qWarning("daemon did not start on %u: %s", port, daemon.output().constData());
    }
    return false;
}

quint16 startNamesrv(DaemonProcess &namesrv, const QString &dir)
{
    const quint16 port = freePort();
    if (port == 0)
        return 0;
    const QByteArray conf = "listenPort=" + QByteArray::number(port)
        + "\nkvConfigPath=" + QDir(dir).filePath(QStringLiteral("kvConfig.json")).toUtf8() + "\n";
    if (!namesrv.start(QDir(dir).filePath(QStringLiteral("namesrv.conf")), conf, port))
        return 0;
    return port;
}

std::pair<int, QByteArray> runProgram(
    const QString &program, const QStringList &args, int timeoutMs)
{
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(program, args);
    if (!p.waitForStarted(timeoutMs))
        return {-1, p.errorString().toLocal8Bit()};
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished(5000);
        return {-1, p.readAll() + "\n(timed out)"};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAll()};
}

} // namespace qrocket::testlib
