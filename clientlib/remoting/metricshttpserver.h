#pragma once

// MetricsHttpServer: the GET /metrics endpoint of both daemons, served by Qt's HTTP server
// (Qt6::HttpServer, no parser of our own) on a thread of its own, so a scrape never runs on
// the daemon's I/O or main threads; the daemon's collector builds the answer from snapshots of
// its counters and tables (short locks, never held while the text is written).
//
//   MetricsHttpServer::Options o;
//   o.host = QHostAddress::LocalHost;   // the default: an operator opens it on purpose
//   o.port = 5557;
//   o.authenticate = [](QByteArrayView user, QByteArrayView secret) { ... };   // optional
//   MetricsHttpServer server(o, [] { return collect(); });
//   if (Status st = server.start(); !st) ...
//
// Answers: GET /metrics -> 200 text/plain; version=0.0.4; when `authenticate` is set,
// only with an HTTP basic Authorization header it accepts (else 401 with WWW-Authenticate);
// another method on /metrics -> 405; any other path -> 404. One scrape at a time (the server
// thread's event loop).

#include "clientlib/common/status.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QHostAddress>
#include <QString>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

class QThread;
class QObject;

namespace qrocket::remoting {

class MetricsHttpServer
{
public:
    struct Options
    {
        QHostAddress host = QHostAddress(QHostAddress::LocalHost);
        quint16 port = 0; // 0: any free port (tests), see port()
        /// Basic-auth check of a scrape (user, password); unset: no credentials asked.
        std::function<bool(QByteArrayView, QByteArrayView)> authenticate;
    };
    /// Builds the answer; runs on the server's thread.
    using Collector = std::function<QByteArray()>;

    MetricsHttpServer(Options options, Collector collect);
    ~MetricsHttpServer();
    MetricsHttpServer(const MetricsHttpServer &) = delete;
    MetricsHttpServer &operator=(const MetricsHttpServer &) = delete;

    /// Starts the thread and listens; an error names the address when it cannot.
    Status start();
    void stop();
    /// The bound port once started, else 0.
    quint16 port() const { return m_port.load(); }
    /// Scrapes answered 200, and refused with 401 (any thread).
    std::uint64_t scrapes() const { return m_scrapes.load(std::memory_order_relaxed); }
    std::uint64_t unauthorized() const { return m_unauthorized.load(std::memory_order_relaxed); }

    /// Splits "Basic base64(user:password)"; false when the header is not that.
    static bool parseBasicAuth(QByteArrayView header, QByteArray *user, QByteArray *password);

private:
    class Server;

    Options m_options;
    Collector m_collect;
    std::unique_ptr<QThread> m_thread;
    QObject *m_server = nullptr; // lives on m_thread
    std::atomic<quint16> m_port {0};
    std::atomic<std::uint64_t> m_scrapes {0};
    std::atomic<std::uint64_t> m_unauthorized {0};
};

} // namespace qrocket::remoting
