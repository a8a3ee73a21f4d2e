#include "tests/testlib/daemonprocess.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QProcessEnvironment>
#include <QRandomGenerator>
#include <QTcpServer>
#include <QTcpSocket>
#include <QThread>

#include <csignal>
#include <memory>
#include <sys/prctl.h>
#include <unistd.h>
#include <vector>

namespace qrocket::testlib {

QString binDir()
{
    const QByteArray dir = qgetenv("QROCKET_BIN_DIR");
    return dir.isEmpty() ? QDir::currentPath() : QString::fromLocal8Bit(dir);
}

namespace {

/// The broker's disk-space test seam: a file "total free available" read at each disk check.
constexpr char kDiskSeam[] = "QROCKET_DISK_SPACE_FILE";

/// The first port of the kernel's ephemeral range (outgoing connections take their local port
/// from it), 32768 when it cannot be read.
int ephemeralLow()
{
    QFile f(QStringLiteral("/proc/sys/net/ipv4/ip_local_port_range"));
    if (f.open(QIODevice::ReadOnly)) {
        bool ok = false;
        const int low = f.readAll().simplified().split(' ').value(0).toInt(&ok);
        if (ok && low > 0)
            return low;
    }
    return 32768;
}

/// true when every port of [first, last] can be listened on for all addresses (the daemons' bind,
/// with the same SO_REUSEADDR that QTcpServer sets).
bool bindable(int first, int last)
{
    std::vector<std::unique_ptr<QTcpServer>> held;
    for (int p = first; p <= last; ++p) {
        auto probe = std::make_unique<QTcpServer>();
        if (p < 1 || p > 65535 || !probe->listen(QHostAddress::Any, quint16(p)))
            return false;
        held.push_back(std::move(probe));
    }
    return true;
}

} // namespace

quint16 freePort()
{
    // Below the ephemeral range when there is room: a port there is never the local port of an
    // outgoing connection, live or in TIME_WAIT (either makes a listener's bind fail, and a busy
    // test run leaves thousands), and a connect to it can never connect to itself.
    constexpr int kLowest = 10000;
    const int high = ephemeralLow() - 2;
    if (high - kLowest >= 1000) {
        for (int attempt = 0; attempt < 200; ++attempt) {
            const int port = int(QRandomGenerator::global()->bounded(kLowest + 2, high));
            if (bindable(port - 2, port + 1))
                return quint16(port);
        }
    }
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

void dieWithTheTest(QProcess &process)
{
    const pid_t parent = ::getpid();
    process.setChildProcessModifier([parent] {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) // the test died before the line above
            ::_exit(127);
    });
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
    kill(); // a daemon from an earlier start() of this object
    m_output.clear();
    m_process = std::make_unique<QProcess>();
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    QStringList args {QStringLiteral("-c"), configPath};
    args += extraArgs;
    if (m_program == QLatin1String("qrocket-broker") && !qEnvironmentVariableIsSet(kDiskSeam)) {
        // The shared host's disk is not the test's: at 90 % used (seen on CI while other jobs
        // filled it) every broker refuses sends. A broker started here sees a half-empty
        // 100 GiB disk unless the test moves the disk itself (by setting the seam).
        const QString diskFile = configPath + QStringLiteral(".disk");
        QFile d(diskFile);
        if (!d.open(QIODevice::WriteOnly | QIODevice::Truncate)
            || d.write("107374182400 53687091200 53687091200\n") < 0) {
            m_error = QStringLiteral("cannot write %1").arg(diskFile);
            return false;
        }
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QLatin1String(kDiskSeam), diskFile);
        m_process->setProcessEnvironment(env);
    }
    dieWithTheTest(*m_process);
    m_process->start(QDir(binDir()).filePath(m_program), args);
    if (!m_process->waitForStarted(timeoutMs)) {
        m_error = QStringLiteral("%1 did not start: %2").arg(m_program, m_process->errorString());
        return false;
    }
    if (port != 0 && !waitForPort(port, timeoutMs)) {
        // Stop it (it may still be starting, or be gone already) so that what it printed, such
        // as why it could not bind, is read from the pipe into the message.
        kill();
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
    resume(); // a paused one would never see the SIGTERM
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

void DaemonProcess::pause()
{
    if (isRunning())
        ::kill(static_cast<pid_t>(m_process->processId()), SIGSTOP);
}

void DaemonProcess::resume()
{
    if (isRunning())
        ::kill(static_cast<pid_t>(m_process->processId()), SIGCONT);
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
        qWarning("daemon did not start on %u: %s", port, qPrintable(daemon.error()));
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
