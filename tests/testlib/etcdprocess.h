#pragma once

// EtcdProcess: a single-member etcd (/usr/bin/etcd, Debian's etcd-server) as a child process for
// controller-mode tests: loopback only, free client and peer ports, its data in a directory the
// test owns. start() waits (bounded) until etcd reports itself healthy (GET /health), so the
// first request of a test finds a leader. The process dies with the test (PR_SET_PDEATHSIG).

#include <QByteArray>
#include <QProcess>
#include <QString>

#include <memory>

namespace qrocket::testlib {

class EtcdProcess
{
public:
    EtcdProcess() = default;
    ~EtcdProcess(); // kills the process if still running
    EtcdProcess(const EtcdProcess &) = delete;
    EtcdProcess &operator=(const EtcdProcess &) = delete;

    /// The etcd binary ($QROCKET_ETCD, else etcd on PATH, else /usr/bin/etcd); empty if none.
    static QString program();
    /// Starts etcd with its data in `dataDir`. The ports are chosen on the first start and kept
    /// by later ones (a restart serves the same endpoint). False with error() when it does not
    /// start or is not healthy within `timeoutMs`.
    bool start(const QString &dataDir, int timeoutMs = 20000);
    /// SIGKILL and wait until it is gone.
    void kill();
    /// SIGSTOP / SIGCONT (a frozen etcd: connections open, no answers).
    void pause();
    void resume();
    bool isRunning() const;
    /// The process id; -1 when not running.
    qint64 pid() const;
    /// "http://127.0.0.1:<client port>".
    QString endpoint() const;
    quint16 clientPort() const { return m_clientPort; }
    QByteArray output();
    QString error() const { return m_error; }

private:
    bool healthy(int timeoutMs) const;

    std::unique_ptr<QProcess> m_process;
    quint16 m_clientPort = 0;
    quint16 m_peerPort = 0;
    QByteArray m_output;
    QString m_error;
};

} // namespace qrocket::testlib
