#pragma once

// DaemonProcess: runs a QRocket daemon (qrocket-namesrv, qrocket-broker) as a real child process
// for system and interop tests: writes its config file, starts it, waits (bounded) until its port
// accepts connections, and stops it with SIGTERM (clean) or SIGKILL (crash). Output is kept so a
// failing test can print it.

#include <QByteArray>
#include <QProcess>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>

namespace qrocket::testlib {

/// The directory of the built daemons (env QROCKET_BIN_DIR, set by ctest).
QString binDir();
/// A TCP port for a daemon that was free a moment ago together with its neighbours port - 2 ..
/// port + 1 (a broker also binds listenPort - 2 and + 1). Chosen at random below the kernel's
/// ephemeral port range, where no outgoing connection, live or in TIME_WAIT, can hold it; from
/// that range (bind to port 0) only when there is no room below it.
quint16 freePort();
/// true when something accepts TCP connections on 127.0.0.1:port within `timeoutMs`.
bool waitForPort(quint16 port, int timeoutMs);

/// Makes the child `process` starts die (SIGKILL) when the test process does: a test that
/// crashes, or that ctest kills at its timeout, runs no destructor, and an orphaned daemon would
/// keep its ports, its store and a share of the CPU for the rest of the run. Call before start().
/// (PR_SET_PDEATHSIG follows the thread that forks: start children from the main thread.)
void dieWithTheTest(QProcess &process);

class DaemonProcess
{
public:
    /// `program` is a file name in binDir() ("qrocket-namesrv").
    explicit DaemonProcess(QString program);
    ~DaemonProcess(); // kills the process if still running

    DaemonProcess(const DaemonProcess &) = delete;
    DaemonProcess &operator=(const DaemonProcess &) = delete;

    /// Writes `config` (properties text) to `configPath` and starts `program -c configPath args`.
    /// A broker measures a fixed half-empty disk (QROCKET_DISK_SPACE_FILE, `configPath`.disk)
    /// unless the test set that variable itself: the shared host's fill level is not the test's.
    /// Returns false with the reason in error() if it does not start or if `port` (when non-zero)
    /// does not accept connections within `timeoutMs`.
    bool start(const QString &configPath, const QByteArray &config, quint16 port,
        const QStringList &extraArgs = {}, int timeoutMs = 10000);
    /// SIGTERM and wait (bounded); returns the exit code, or -1 if it had to be killed.
    int stop(int timeoutMs = 15000);
    /// SIGKILL and wait for the process to be gone.
    void kill();
    /// SIGSTOP / SIGCONT: a frozen daemon (its sockets open, nothing answered; a partition
    /// without root). stop() and kill() resume it first.
    void pause();
    void resume();
    bool isRunning() const;
    qint64 pid() const;
    /// Everything the daemon printed so far (stdout and stderr merged).
    QByteArray output();
    QString error() const { return m_error; }

private:
    QString m_program;
    std::unique_ptr<QProcess> m_process;
    QByteArray m_output;
    QString m_error;
};

/// Starts `daemon` with `config(port)` written to `configPath`, listening on `port`: the given
/// port first (a free one when 0), then up to four fresh free ports, since a port found free can
/// be taken before the daemon binds it. Ports below 1026 are skipped (a broker also binds
/// listenPort - 2). On success `port` is the daemon's; on failure each attempt's output was logged.
bool startOnFreePort(DaemonProcess &daemon, const QString &configPath, quint16 &port,
    const std::function<QByteArray(quint16 port)> &config);

/// Starts qrocket-namesrv on a free port with namesrv.conf and kvConfig.json in `dir`. Returns its
/// port, or 0 with the reason in namesrv.error().
quint16 startNamesrv(DaemonProcess &namesrv, const QString &dir);

/// Runs a program to completion (bounded) and returns {exit code, merged output}; exit code -1
/// when it could not start or timed out (then it is killed).
std::pair<int, QByteArray> runProgram(
    const QString &program, const QStringList &args, int timeoutMs = 10000);

} // namespace qrocket::testlib
