#include "tests/testlib/frametap.h"

#include <QTcpSocket>

#include <algorithm>
#include <functional>
#include <memory>

namespace qrocket::testlib {

namespace {

std::uint32_t readBe32(const char *p)
{
    const auto *u = reinterpret_cast<const unsigned char *>(p);
    return (std::uint32_t(u[0]) << 24) | (std::uint32_t(u[1]) << 16) | (std::uint32_t(u[2]) << 8)
        | std::uint32_t(u[3]);
}

/// The request code of a frame from its first bytes (length prefix, header type and length,
/// header), or -1 when it cannot be read.
int frameCode(const QByteArray &start)
{
    if (start.size() < 10)
        return -1;
    const std::uint32_t typeAndLength = readBe32(start.constData() + 4);
    const std::uint32_t type = typeAndLength >> 24;
    const char *header = start.constData() + 8;
    if (type == 1) { // RocketMQ binary header: i16 code first
        const auto *u = reinterpret_cast<const unsigned char *>(header);
        return static_cast<std::int16_t>((u[0] << 8) | u[1]);
    }
    const QByteArrayView json(header, start.size() - 8);
    const qsizetype at = json.indexOf("\"code\":");
    if (at < 0)
        return -1;
    qsizetype i = at + 7;
    bool negative = false;
    if (i < json.size() && json[i] == '-') {
        negative = true;
        ++i;
    }
    int code = 0;
    bool digits = false;
    for (; i < json.size() && json[i] >= '0' && json[i] <= '9'; ++i) {
        code = code * 10 + (json[i] - '0');
        digits = true;
    }
    return digits ? (negative ? -code : code) : -1;
}

/// One relayed connection: client <-> tap <-> target. Counts the client's frames.
class Relay : public QObject
{
public:
    Relay(QTcpSocket *client, quint16 targetPort,
        std::function<void(const QByteArray &, std::int64_t)> count, const bool *hold)
        : m_client(client), m_count(std::move(count)), m_hold(hold)
    {
        m_client->setParent(this);
        m_target.setParent(this);
        connect(m_client, &QTcpSocket::readyRead, this, &Relay::fromClient);
        connect(&m_target, &QTcpSocket::readyRead, this,
            [this] { m_client->write(m_target.readAll()); });
        connect(&m_target, &QTcpSocket::connected, this, &Relay::flush);
        connect(m_client, &QTcpSocket::disconnected, this, &Relay::close);
        connect(&m_target, &QTcpSocket::disconnected, this, &Relay::close);
        connect(&m_target, &QTcpSocket::errorOccurred, this, &Relay::close);
        m_target.connectToHost(QHostAddress::LocalHost, targetPort);
    }

    /// Forwards what was kept back (the target connected, or the tap released its hold).
    void flush()
    {
        if (*m_hold || m_target.state() != QAbstractSocket::ConnectedState || m_pending.isEmpty())
            return;
        m_target.write(m_pending);
        m_pending.clear();
    }

private:
    void fromClient()
    {
        const QByteArray data = m_client->readAll();
        scan(data);
        m_pending += data;
        flush();
    }
    /// Follows the frame boundaries of the client's stream: `m_head` collects the start of the
    /// current frame (up to 512 bytes: enough for the code), `m_left` counts its bytes still to
    /// skip once it has been counted.
    void scan(const QByteArray &data)
    {
        qsizetype pos = 0;
        while (!m_lost) {
            if (m_left > 0) {
                if (pos == data.size())
                    return;
                const std::int64_t skip = std::min<std::int64_t>(m_left, data.size() - pos);
                pos += skip;
                m_left -= skip;
                continue;
            }
            qsizetype target = 8;
            std::int64_t frame = 0;
            if (m_head.size() >= 8) {
                const std::uint32_t length = readBe32(m_head.constData());
                if (length < 4 || length > 256u * 1024 * 1024) {
                    m_lost = true; // not remoting frames: relay only
                    return;
                }
                frame = 4 + std::int64_t(length);
                target = static_cast<qsizetype>(std::min<std::int64_t>(frame, 512));
            }
            if (m_head.size() < target) {
                if (pos == data.size())
                    return;
                const qsizetype take = std::min(target - m_head.size(), data.size() - pos);
                m_head += QByteArrayView(data).sliced(pos, take);
                pos += take;
                continue;
            }
            m_count(m_head, frame);
            m_left = frame - m_head.size();
            m_head.clear();
        }
    }

public:
    void close()
    {
        if (m_closing)
            return;
        m_closing = true;
        m_client->disconnectFromHost();
        m_target.disconnectFromHost();
        deleteLater();
    }

private:
    QTcpSocket *m_client;
    QTcpSocket m_target;
    std::function<void(const QByteArray &, std::int64_t)> m_count;
    const bool *m_hold;
    QByteArray m_pending;
    QByteArray m_head;
    std::int64_t m_left = 0;
    bool m_lost = false;
    bool m_closing = false;
};

} // namespace

FrameTap::FrameTap(quint16 targetPort, QObject *parent) : QObject(parent), m_targetPort(targetPort)
{
    connect(&m_server, &QTcpServer::newConnection, this, &FrameTap::onNewConnection);
}

FrameTap::~FrameTap() = default;

bool FrameTap::listen(quint16 port)
{
    return m_server.listen(QHostAddress::LocalHost, port);
}

void FrameTap::onNewConnection()
{
    while (QTcpSocket *client = m_server.nextPendingConnection()) {
        auto *relay = new Relay(
            client, m_targetPort,
            [this](const QByteArray &start, std::int64_t frameBytes) { count(start, frameBytes); },
            &m_hold);
        relay->setParent(this);
        connect(this, &FrameTap::released, relay, &Relay::flush);
        connect(this, &FrameTap::dropRequested, relay, &Relay::close);
    }
}

void FrameTap::count(const QByteArray &frameStart, std::int64_t frameBytes)
{
    const int code = frameCode(frameStart);
    std::int64_t headerBytes = 0;
    if (frameStart.size() >= 8)
        headerBytes = readBe32(frameStart.constData() + 4) & 0xFFFFFF;
    std::lock_guard lock(m_mutex);
    Counts &c = m_counts[code];
    ++c.frames;
    c.bytes += frameBytes;
    c.bodyBytes += std::max<std::int64_t>(0, frameBytes - 8 - headerBytes);
    c.maxFrameBytes = std::max(c.maxFrameBytes, frameBytes);
}

FrameTap::Counts FrameTap::counts(int code) const
{
    std::lock_guard lock(m_mutex);
    const auto it = m_counts.find(code);
    return it == m_counts.end() ? Counts() : it->second;
}

void FrameTap::setHold(bool hold)
{
    m_hold = hold;
    if (!hold)
        Q_EMIT released();
}

void FrameTap::dropConnections()
{
    Q_EMIT dropRequested();
}

void FrameTap::reset()
{
    std::lock_guard lock(m_mutex);
    m_counts.clear();
}

} // namespace qrocket::testlib
