#pragma once

// Test helpers for socket-level name server tests: a blocking raw-frame client (every wait
// bounded) and access to the recorded RocketMQ 4.9.7 frames of tests/data/vectors.

#include "clientlib/protocol/framecodec.h"
#include "tests/testlib/vectors.h"

#include <QDeadlineTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTcpSocket>

#include <optional>

namespace qrocket::testing {

using protocol::RemotingCommand;

/// One recorded frame of frames.jsonl by its id (empty object when missing).
inline QJsonObject recordedFrame(int id)
{
    QFile f(vectorPath(QStringLiteral("frames.jsonl")));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    while (!f.atEnd()) {
        const QJsonObject o = QJsonDocument::fromJson(f.readLine()).object();
        if (o.value(QLatin1String("id")).toInt() == id)
            return o;
    }
    return {};
}

inline QByteArray recordedBytes(int id, const char *field)
{
    return QByteArray::fromBase64(
        recordedFrame(id).value(QLatin1String(field)).toString().toLatin1());
}

inline RemotingCommand recordedCommand(int id)
{
    RemotingCommand cmd;
    protocol::decodeFrame(recordedBytes(id, "frame_b64"), cmd);
    return cmd;
}

class RawClient
{
public:
    bool connectTo(quint16 port, int timeoutMs = 3000)
    {
        m_socket.connectToHost(QStringLiteral("127.0.0.1"), port);
        return m_socket.waitForConnected(timeoutMs);
    }
    void sendRaw(const QByteArray &bytes)
    {
        m_socket.write(bytes);
        m_socket.flush();
    }
    void send(const RemotingCommand &cmd) { sendRaw(protocol::encodeFrame(cmd)); }

    /// The next frame, or nullopt on timeout, close or an undecodable stream.
    std::optional<RemotingCommand> readFrame(int timeoutMs = 5000)
    {
        QDeadlineTimer deadline(timeoutMs);
        for (;;) {
            RemotingCommand cmd;
            const auto r = protocol::decodeFrame(m_buffer, cmd);
            if (r.status == protocol::DecodeStatus::Ok) {
                m_buffer.remove(0, r.consumed);
                return cmd;
            }
            if (r.status == protocol::DecodeStatus::Invalid || deadline.hasExpired())
                return std::nullopt;
            if (m_socket.bytesAvailable() == 0
                && !m_socket.waitForReadyRead(int(qMax<qint64>(1, deadline.remainingTime()))))
                return std::nullopt;
            m_buffer += m_socket.readAll();
        }
    }

    /// Sends a request with a fresh opaque and waits for its response.
    std::optional<RemotingCommand> call(RemotingCommand request, int timeoutMs = 5000)
    {
        request.opaque = ++m_opaque;
        request.flag = 0;
        send(request);
        return readFrame(timeoutMs);
    }

    /// True once the server has closed the connection.
    bool waitForClosed(int timeoutMs = 5000)
    {
        QDeadlineTimer deadline(timeoutMs);
        while (m_socket.state() == QAbstractSocket::ConnectedState && !deadline.hasExpired()) {
            if (m_socket.waitForReadyRead(int(qMax<qint64>(1, deadline.remainingTime()))))
                m_socket.readAll();
        }
        return m_socket.state() != QAbstractSocket::ConnectedState;
    }
    void close() { m_socket.abort(); }
    QTcpSocket &socket() { return m_socket; }

private:
    QTcpSocket m_socket;
    QByteArray m_buffer;
    int m_opaque = 1000;
};

inline RemotingCommand request(int code,
    std::initializer_list<std::pair<const char *, QByteArray>> ext = {}, QByteArray body = {})
{
    RemotingCommand cmd = RemotingCommand::createRequest(code);
    for (const auto &[k, v] : ext)
        cmd.setExt(QByteArray(k), v);
    cmd.body = std::move(body);
    return cmd;
}

} // namespace qrocket::testing
