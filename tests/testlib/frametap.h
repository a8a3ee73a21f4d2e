#pragma once

// FrameTap: a loopback TCP relay that counts the remoting frames a client sends through it, per
// request code. Put it between a broker and its name server (the broker's namesrvAddr is the
// tap's address) to count what registrations cost on the wire: REGISTER_BROKER (103) frames and
// bytes, QUERY_DATA_VERSION (322), and so on. Bytes are forwarded unchanged both ways.
//
// Frames are read from their length prefix and header alone (JSON or RocketMQ binary header), so
// this needs no protocol library. A connection whose stream does not look like remoting frames is
// still relayed; its frames are just not counted.
//
// Thread-safety: the tap lives on the thread that created it (its event loop must run); the
// counters may be read from any thread.

#include <QByteArray>
#include <QHostAddress>
#include <QObject>
#include <QTcpServer>

#include <cstdint>
#include <map>
#include <mutex>

namespace qrocket::testlib {

class FrameTap : public QObject
{
    Q_OBJECT

public:
    struct Counts
    {
        std::int64_t frames = 0;
        std::int64_t bytes = 0; // whole frames, length prefix included
        std::int64_t bodyBytes = 0;
        std::int64_t maxFrameBytes = 0;
    };

    /// Relays to 127.0.0.1:`targetPort`.
    explicit FrameTap(quint16 targetPort, QObject *parent = nullptr);
    ~FrameTap() override;

    /// Listens on 127.0.0.1 (port 0: any free port). False when it cannot.
    bool listen(quint16 port = 0);
    quint16 port() const { return m_server.serverPort(); }

    /// Frames the clients sent with request code `code` so far.
    Counts counts(int code) const;
    /// Forgets every count.
    void reset();
    /// While held, what clients send is counted but kept back (not forwarded) until released:
    /// a name server that is slow to answer, on demand.
    void setHold(bool hold);
    /// Closes every relayed connection (both sides), as a restarting server would.
    void dropConnections();

private:
    void onNewConnection();
    void count(const QByteArray &frameStart, std::int64_t frameBytes);

Q_SIGNALS:
    void released();
    void dropRequested();

private:
    QTcpServer m_server;
    const quint16 m_targetPort;
    mutable std::mutex m_mutex;
    std::map<int, Counts> m_counts; // guarded by m_mutex
    bool m_hold = false; // on the tap's thread only
};

} // namespace qrocket::testlib
