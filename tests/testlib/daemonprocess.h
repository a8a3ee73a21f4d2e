#pragma once

// DaemonProcess: runs a QRocket daemon (qrocket-namesrv, qrocket-broker) as a real child process
// for system and interop tests: writes its config file, starts it, waits (bounded) until its port
// accepts connections, and stops it with SIGTERM (clean) or SIGKILL (crash). Output is kept so a
// failing test can print it.

#include <QByteArray>
#include <QProcess>
#include <QString>
#include <QStringList>

#include <memory>

namespace qrocket::testlib {

/// The directory of the built daemons (env QROCKET_BIN_DIR, set by ctest).
QString binDir();
/// A TCP port on 127.0.0.1 that was free a moment ago (bind to port 0, read it, close).
quint16 freePort();
/// true when something accepts TCP connections on 127.0.0.1:port within `timeoutMs`.
bool waitForPort(quint16 port, int timeoutMs);

class DaemonProcess
{
public:
    /// `program` is a file name in binDir() ("qrocket-namesrv").
    explicit DaemonProcess(QString program);
    ~DaemonProcess(); // kills the process if still running

    DaemonProcess(const DaemonProcess &) = delete;
    DaemonProcess &operator=(const DaemonProcess &) = delete;

    /// Writes `config` (properties text) to `configPath` and starts `program -c configPath args`.
    /// Returns false with the reason in error() if it does not start or if `port` (when non-zero)
    /// does not accept connections within `timeoutMs`.
    bool start(const QString &configPath, const QByteArray &config, quint16 port,
        const QStringList &extraArgs = {}, int timeoutMs = 10000);
    /// SIGTERM and wait (bounded); returns the exit code, or -1 if it had to be killed.
    int stop(int timeoutMs = 15000);
    /// SIGKILL and wait for the process to be gone.
    void kill();
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

/// Runs a program to completion (bounded) and returns {exit code, merged output}; exit code -1
/// when it could not start or timed out (then it is killed).
std::pair<int, QByteArray> runProgram(
    const QString &program, const QStringList &args, int timeoutMs = 10000);

} // namespace qrocket::testlib
