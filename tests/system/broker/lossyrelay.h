#pragma once

// LossyRelay: a loopback TCP relay for remoting frames that loses the broker's answers to a share
// of sends (SEND_MESSAGE 10, SEND_MESSAGE_V2 310, SEND_BATCH_MESSAGE 320), the way a reply lost
// in the network looks to a producer after the broker stored the message:
//   - "cut": the answer is dropped and the client's connection closed at once (the producer sees
//     the connection fail and retries within its sendMsgTimeout);
//   - "silent": the answer is dropped and the connection kept (the producer's attempt times out;
//     the application sends the same message again).
// The n-th send seen (over every connection, from 1) is cut when n % cutEvery == 0 and silenced
// when n % silentEvery == 0 (0: never). Answers of a name server can be rewritten instead: every
// `from` in a response body becomes `to` (a route that names the broker's address names the
// relay's), so a client that asks this relay for routes sends to the broker through the other.
//
// Frames are read from their length prefix and header (JSON or RocketMQ binary); nothing else is
// parsed. Runs on a thread of its own (the test's producers block in sendSync on theirs).

#include <QByteArray>
#include <QEventLoop>
#include <QHostAddress>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTcpServer>
#include <QTcpSocket>
#include <QThread>

#include <atomic>
#include <cstdint>
#include <future>
#include <memory>
#include <set>

namespace qrocket::brokertest {

struct RelayPolicy
{
    int cutEvery = 0;
    int silentEvery = 0;
    QByteArray rewriteFrom; // in response bodies (name-server relay)
    QByteArray rewriteTo;
};

struct RelayCounts
{
    std::atomic<int> sends {0};
    std::atomic<int> cut {0};
    std::atomic<int> silenced {0};
};

namespace relaydetail {

inline std::uint32_t be32(const char *p)
{
    const auto *u = reinterpret_cast<const unsigned char *>(p);
    return (std::uint32_t(u[0]) << 24) | (std::uint32_t(u[1]) << 16) | (std::uint32_t(u[2]) << 8)
        | std::uint32_t(u[3]);
}

inline void putBe32(char *p, std::uint32_t v)
{
    p[0] = char(v >> 24);
    p[1] = char(v >> 16);
    p[2] = char(v >> 8);
    p[3] = char(v);
}

struct FrameHead
{
    int code = -1;
    int opaque = 0;
    bool response = false;
    qsizetype headerLength = 0;
};

/// The head of a whole frame `f` (length prefix included).
inline FrameHead head(const QByteArray &f)
{
    FrameHead h;
    const std::uint32_t typeAndLength = be32(f.constData() + 4);
    h.headerLength = qsizetype(typeAndLength & 0xFFFFFF);
    const char *hdr = f.constData() + 8;
    if ((typeAndLength >> 24) == 1) { // binary: code i16, language u8, version i16, opaque, flag
        h.code = std::int16_t((std::uint8_t(hdr[0]) << 8) | std::uint8_t(hdr[1]));
        h.opaque = int(be32(hdr + 5));
        h.response = (be32(hdr + 9) & 1) != 0;
        return h;
    }
    const QJsonObject o = QJsonDocument::fromJson(QByteArray(hdr, h.headerLength)).object();
    h.code = o.value(QLatin1String("code")).toInt(-1);
    h.opaque = o.value(QLatin1String("opaque")).toInt();
    h.response = (o.value(QLatin1String("flag")).toInt() & 1) != 0;
    return h;
}

/// Cuts the whole frames off the front of `buffer`.
inline std::vector<QByteArray> frames(QByteArray &buffer)
{
    std::vector<QByteArray> out;
    while (buffer.size() >= 8) {
        const qsizetype total = qsizetype(be32(buffer.constData())) + 4;
        if (buffer.size() < total)
            break;
        out.push_back(buffer.left(total));
        buffer.remove(0, total);
    }
    return out;
}

class Pipe : public QObject
{
public:
    Pipe(QTcpSocket *client, quint16 target, const RelayPolicy &policy, RelayCounts &counts)
        : m_client(client), m_policy(policy), m_counts(counts)
    {
        m_client->setParent(this);
        m_target.setParent(this);
        connect(m_client, &QTcpSocket::readyRead, this, &Pipe::fromClient);
        connect(&m_target, &QTcpSocket::readyRead, this, &Pipe::fromTarget);
        connect(&m_target, &QTcpSocket::connected, this, [this] {
            m_target.write(m_pending);
            m_pending.clear();
        });
        connect(m_client, &QTcpSocket::disconnected, this, &Pipe::close);
        connect(&m_target, &QTcpSocket::disconnected, this, &Pipe::close);
        connect(&m_target, &QTcpSocket::errorOccurred, this, &Pipe::close);
        m_target.connectToHost(QHostAddress::LocalHost, target);
    }

private:
    void fromClient()
    {
        m_fromClient += m_client->readAll();
        for (QByteArray &f : frames(m_fromClient)) {
            const FrameHead h = head(f);
            if (!h.response && (h.code == 10 || h.code == 310 || h.code == 320)) {
                const int n = ++m_counts.sends;
                if (m_policy.cutEvery > 0 && n % m_policy.cutEvery == 0)
                    m_cut.insert(h.opaque);
                else if (m_policy.silentEvery > 0 && n % m_policy.silentEvery == 0)
                    m_silent.insert(h.opaque);
            }
            if (m_target.state() == QAbstractSocket::ConnectedState)
                m_target.write(f);
            else
                m_pending += f;
        }
    }

    void fromTarget()
    {
        m_fromTarget += m_target.readAll();
        for (QByteArray &f : frames(m_fromTarget)) {
            const FrameHead h = head(f);
            if (h.response && m_cut.erase(h.opaque)) {
                ++m_counts.cut;
                close(); // the answer is lost with the connection
                return;
            }
            if (h.response && m_silent.erase(h.opaque)) {
                ++m_counts.silenced;
                continue;
            }
            if (h.response && !m_policy.rewriteFrom.isEmpty()) {
                const qsizetype bodyAt = 8 + h.headerLength;
                QByteArray body = f.mid(bodyAt);
                if (body.contains(m_policy.rewriteFrom)) {
                    body.replace(m_policy.rewriteFrom, m_policy.rewriteTo);
                    f = f.left(bodyAt) + body;
                    putBe32(f.data(), std::uint32_t(f.size() - 4));
                }
            }
            m_client->write(f);
        }
    }

    void close()
    {
        if (m_closing)
            return;
        m_closing = true;
        m_client->abort();
        m_target.abort();
        deleteLater();
    }

    QTcpSocket *m_client;
    QTcpSocket m_target;
    const RelayPolicy &m_policy;
    RelayCounts &m_counts;
    QByteArray m_fromClient, m_fromTarget, m_pending;
    std::set<int> m_cut, m_silent; // opaques of this connection's sends whose answer is lost
    bool m_closing = false;
};

} // namespace relaydetail

class LossyRelay
{
public:
    LossyRelay(quint16 target, RelayPolicy policy) : m_policy(std::move(policy))
    {
        std::promise<quint16> port;
        auto ready = port.get_future();
        m_thread.reset(QThread::create([this, target, &port] {
            QTcpServer server;
            if (!server.listen(QHostAddress::LocalHost, 0)) {
                port.set_value(0);
                return;
            }
            QObject::connect(&server, &QTcpServer::newConnection, &server, [&] {
                while (QTcpSocket *s = server.nextPendingConnection())
                    (new relaydetail::Pipe(s, target, m_policy, m_counts))->setParent(&server);
            });
            port.set_value(server.serverPort());
            QEventLoop loop; // until quit() (open pipes go with the server, their parent)
            loop.exec();
        }));
        m_thread->start();
        m_port = ready.get();
    }
    ~LossyRelay()
    {
        m_thread->quit();
        m_thread->wait();
    }
    quint16 port() const { return m_port; }
    const RelayCounts &counts() const { return m_counts; }

private:
    RelayPolicy m_policy;
    RelayCounts m_counts;
    std::unique_ptr<QThread> m_thread;
    quint16 m_port = 0;
};

} // namespace qrocket::brokertest
