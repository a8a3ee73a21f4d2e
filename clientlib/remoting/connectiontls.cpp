// Connection's TLS paths (connection.h): the server's first-byte sniffing and server-side
// encryption, the client's encrypted connect, and handshake failures.

#include "clientlib/remoting/connection.h"
#include "clientlib/remoting/logging.h"
#include "clientlib/remoting/tlsconfig.h"

#include <QSocketNotifier>
#include <QSslSocket>

#include <cerrno>
#include <sys/socket.h>
#include <unistd.h>
#include <utility>

namespace qrocket::remoting {

namespace {

/// The content type of a TLS handshake record: the first byte a TLS client sends (RocketMQ's
/// HandshakeHandler tests the same byte). A plain RocketMQ frame starts with its length's high
/// byte, 0x00 for every frame under 16 MiB.
constexpr unsigned char kTlsHandshakeRecord = 0x16;
/// What a TLS socket reads ahead of the connection: bounded, so a paused connection (in-flight
/// cap) stops reading from the kernel as a plain one does.
constexpr qint64 kTlsReadBufferBytes = 1024 * 1024;

} // namespace

void Connection::sniffTls()
{
    unsigned char first = 0;
    ssize_t got = 0;
    do {
        got = ::recv(m_fd, &first, 1, MSG_PEEK | MSG_DONTWAIT);
    } while (got < 0 && errno == EINTR);
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return;
    if (got <= 0) {
        close(got == 0 ? QStringLiteral("peer closed the connection") : qt_error_string(errno));
        return;
    }
    m_sniffing = false;
    if (first == kTlsHandshakeRecord) {
        startServerTls();
        return;
    }
    if (m_tlsContext->mode() == TlsMode::Enforcing) {
        if (m_counters)
            m_counters->closedPlainRefused.fetch_add(1, std::memory_order_relaxed);
        static LogRateLimiter limiter;
        if (limiter.allow()) {
            qCWarning(lcRemoting,
                "refused a plain connection from %s (first byte 0x%02x): tls.server.mode is "
                "enforcing",
                m_remoteAddress.constData(), unsigned(first));
        }
        close(QStringLiteral("plain connection refused: tls.server.mode is enforcing"));
        return;
    }
    m_tlsContext = nullptr; // permissive: served plain from here on
    onReadyRead();
}

void Connection::startServerTls()
{
    const QSslConfiguration config = m_tlsContext->configuration();
    m_tlsContext = nullptr;
    // The descriptor goes to the TLS socket. This runs inside the read notifier's signal: the
    // raw notifiers are switched off now and deleted later.
    for (QSocketNotifier *notifier : {m_readNotifier, m_writeNotifier}) {
        notifier->setEnabled(false);
        notifier->deleteLater();
    }
    m_readNotifier = nullptr;
    m_writeNotifier = nullptr;
    const int fd = std::exchange(m_fd, -1);
    auto *socket = new QSslSocket(this);
    socket->setSslConfiguration(config);
    socket->setReadBufferSize(kTlsReadBufferBytes);
    if (!socket->setSocketDescriptor(fd, QAbstractSocket::ConnectedState, QIODevice::ReadWrite)) {
        const QString why = socket->errorString();
        delete socket;
        ::close(fd);
        close(QStringLiteral("cannot start TLS: ") + why);
        return;
    }
    m_tls = true;
    setUpSocket(socket);
    connect(socket, &QSslSocket::encrypted, this, [this] {
        m_frameStarted.invalidate();
        qCDebug(lcRemoting, "TLS connection %llu from %s encrypted",
            static_cast<unsigned long long>(m_id), m_remoteAddress.constData());
    });
    m_frameStarted.start(); // the handshake has the frame deadline
    if (m_counters)
        m_counters->tlsConnections.fetch_add(1, std::memory_order_relaxed);
    socket->startServerEncryption();
}

void Connection::connectEncrypted(
    const QString &host, quint16 port, const QSslConfiguration &config)
{
    auto *socket = new QSslSocket(this);
    socket->setSslConfiguration(config);
    m_tls = true;
    setUpSocket(socket);
    // Connected once encrypted: queued frames wait for the handshake.
    connect(socket, &QSslSocket::encrypted, this, &Connection::onConnected);
    socket->connectToHostEncrypted(host, port, QIODevice::ReadWrite);
}

QString Connection::peerClosedReason() const
{
    if (m_server || m_tls || m_receivedAny)
        return QStringLiteral("peer closed the connection");
    // What a plain client sees of a server in tls.server.mode=enforcing: a close, no answer.
    return QStringLiteral("peer closed the connection without answering (a server with "
                          "tls.server.mode=enforcing closes plain clients: connect with TLS?)");
}

bool Connection::tlsHandshaking() const
{
    return m_tls && !static_cast<QSslSocket *>(m_socket)->isEncrypted();
}

void Connection::closeTlsHandshakeTimeout()
{
    if (m_counters)
        m_counters->closedTlsFailed.fetch_add(1, std::memory_order_relaxed);
    static LogRateLimiter limiter;
    if (limiter.allow()) {
        qCWarning(lcRemoting, "closing %s: TLS handshake not complete in %lld ms (frame timeout)",
            m_remoteAddress.constData(), static_cast<long long>(m_options.frameTimeout.count()));
    }
    close(QStringLiteral("TLS handshake not complete in time"));
}

void Connection::onTlsError(QAbstractSocket::SocketError error)
{
    if (m_closed)
        return;
    auto *socket = static_cast<QSslSocket *>(m_socket);
    const bool handshaking = !socket->isEncrypted();
    QString reason;
    if (error == QAbstractSocket::SslHandshakeFailedError) {
        QStringList errors;
        for (const QSslError &e : socket->sslHandshakeErrors())
            errors.append(e.errorString());
        reason = QStringLiteral("TLS handshake failed: ")
            + (errors.isEmpty() ? socket->errorString() : errors.join(QStringLiteral("; ")));
    } else if (error == QAbstractSocket::RemoteHostClosedError) {
        reason = handshaking ? QStringLiteral("peer closed the connection during the TLS handshake")
                             : QStringLiteral("peer closed the connection");
    } else {
        reason = (handshaking ? QStringLiteral("TLS handshake failed: ") : QString())
            + socket->errorString();
    }
    if (m_server && handshaking) {
        if (m_counters)
            m_counters->closedTlsFailed.fetch_add(1, std::memory_order_relaxed);
        static LogRateLimiter limiter;
        if (limiter.allow()) {
            qCWarning(lcRemoting, "TLS connection from %s closed: %s", m_remoteAddress.constData(),
                qPrintable(reason));
        }
    } else if (!m_server && handshaking) {
        qCWarning(lcRemotingClient, "TLS connection to %s failed: %s", m_remoteAddress.constData(),
            qPrintable(reason));
    }
    close(reason);
}

} // namespace qrocket::remoting
