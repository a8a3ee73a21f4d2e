#pragma once

// Helpers shared by the remoting tests: small processors and a raw loopback peer that writes and
// reads frames by hand (for garbage, half-sent frames and checks of the exact reply).

#include "clientlib/protocol/framecodec.h"
#include "clientlib/remoting/remotingclient.h"
#include "clientlib/remoting/remotingserver.h"

#include <QFile>
#include <QNetworkProxy>
#include <QTcpSocket>
#include <QTest>

#include <atomic>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace qrocket::remoting::test {

using protocol::RemotingCommand;

inline constexpr int kEchoCode = 1000;
inline constexpr int kSilentCode = 1001;
inline constexpr int kRejectCode = 1002;
inline constexpr int kThrowCode = 1003;
inline constexpr int kCountCode = 1004;

/// Answers with code 0, the request's body and its "seq" ext field.
class EchoProcessor final : public RequestProcessor
{
public:
    void processRequest(const ChannelPtr &, RemotingCommand request, Responder respond) override
    {
        RemotingCommand response;
        response.body = request.body;
        if (const QByteArray *seq = request.ext("seq"))
            response.setExt(QByteArrayLiteral("seq"), *seq);
        respond(std::move(response));
    }
};

/// Never answers.
class SilentProcessor final : public RequestProcessor
{
public:
    std::atomic<int> calls {0};
    void processRequest(const ChannelPtr &, RemotingCommand, Responder) override { ++calls; }
};

class RejectingProcessor final : public RequestProcessor
{
public:
    void processRequest(const ChannelPtr &, RemotingCommand, Responder) override { }
    bool rejectRequest() const override { return true; }
};

class ThrowingProcessor final : public RequestProcessor
{
public:
    void processRequest(const ChannelPtr &, RemotingCommand, Responder) override
    {
        throw std::runtime_error("boom from processor");
    }
};

/// Answers code 0 and keeps the channel of the last request: the server's side of a client's
/// connection.
class ChannelCapture final : public RequestProcessor
{
public:
    void processRequest(const ChannelPtr &channel, RemotingCommand, Responder respond) override
    {
        {
            std::lock_guard lock(m_mutex);
            m_channel = channel;
        }
        respond(RemotingCommand());
    }
    ChannelPtr channel() const
    {
        std::lock_guard lock(m_mutex);
        return m_channel;
    }

private:
    mutable std::mutex m_mutex;
    ChannelPtr m_channel;
};

/// Runs a function per request (captures what the test needs).
class FunctionProcessor final : public RequestProcessor
{
public:
    using Function = std::function<void(const ChannelPtr &, RemotingCommand, Responder)>;
    explicit FunctionProcessor(Function f) : m_f(std::move(f)) { }
    void processRequest(
        const ChannelPtr &channel, RemotingCommand request, Responder respond) override
    {
        m_f(channel, std::move(request), std::move(respond));
    }

private:
    Function m_f;
};

/// A field of /proc/self/status in KiB ("VmPeak", "VmRSS", "VmHWM"); 0 when unknown.
inline qint64 procStatusKiB(QByteArrayView field)
{
    QFile f(QStringLiteral("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (line.startsWith(field) && line.size() > field.size() && line[field.size()] == ':')
            return line.mid(field.size() + 1).trimmed().split(' ').front().toLongLong();
    }
    return 0;
}

/// The process's peak virtual size (VmPeak), in KiB.
inline qint64 vmPeakKiB()
{
    return procStatusKiB("VmPeak");
}

inline RemotingServer::Options loopbackServerOptions()
{
    RemotingServer::Options options;
    options.listenAddress = QHostAddress::LocalHost;
    options.port = 0;
    options.ioThreads = 2;
    options.sweepInterval = std::chrono::milliseconds(20);
    return options;
}

inline QByteArray addressOf(const RemotingServer &server)
{
    return "127.0.0.1:" + QByteArray::number(server.serverPort());
}

inline RemotingCommand makeRequest(int code, QByteArray body = {})
{
    RemotingCommand request = RemotingCommand::createRequest(code);
    request.body = std::move(body);
    return request;
}

/// A hand-driven connection on the test thread.
class RawPeer
{
public:
    // Loopback needs no proxy; asking the system for one runs libproxy, whose state is shared
    // with the I/O threads' client sockets and races under ThreadSanitizer (Qt's, not QRocket's).
    RawPeer() { m_socket.setProxy(QNetworkProxy::NoProxy); }

    bool connectTo(quint16 port)
    {
        m_socket.connectToHost(QHostAddress::LocalHost, port);
        return m_socket.waitForConnected(5000);
    }
    /// Connects from `source` (e.g. 127.0.0.2: Linux routes all of 127/8 to lo), a second peer
    /// address for the per-address limits.
    bool connectFrom(const QHostAddress &source, quint16 port)
    {
        if (!m_socket.bind(source))
            return false;
        m_socket.connectToHost(QHostAddress::LocalHost, port);
        return m_socket.waitForConnected(5000);
    }
    void write(const QByteArray &bytes)
    {
        m_socket.write(bytes);
        m_socket.flush();
    }
    void send(const RemotingCommand &cmd) { write(protocol::encodeFrame(cmd)); }
    bool isConnected() const { return m_socket.state() == QAbstractSocket::ConnectedState; }
    QTcpSocket &socket() { return m_socket; }

    /// Waits up to timeoutMs for one complete frame.
    bool readFrame(RemotingCommand &out, int timeoutMs)
    {
        QElapsedTimer timer;
        timer.start();
        for (;;) {
            m_in.append(m_socket.readAll());
            const auto result = protocol::decodeFrame(m_in, out);
            if (result.status == protocol::DecodeStatus::Ok) {
                m_in.remove(0, result.consumed);
                return true;
            }
            if (result.status == protocol::DecodeStatus::Invalid)
                return false;
            const qint64 left = timeoutMs - timer.elapsed();
            if (left <= 0 || !m_socket.waitForReadyRead(static_cast<int>(left)))
                return false;
        }
    }

private:
    QTcpSocket m_socket;
    QByteArray m_in;
};

/// Collects invocation results from any thread.
class ResultSink
{
public:
    InvokeCallback callback()
    {
        return [this](Result<RemotingCommand> result) {
            std::lock_guard lock(m_mutex);
            m_results.push_back(std::move(result));
        };
    }
    int count() const
    {
        std::lock_guard lock(m_mutex);
        return static_cast<int>(m_results.size());
    }
    Result<RemotingCommand> at(int i) const
    {
        std::lock_guard lock(m_mutex);
        return m_results.at(static_cast<std::size_t>(i));
    }

private:
    mutable std::mutex m_mutex;
    std::vector<Result<RemotingCommand>> m_results;
};

} // namespace qrocket::remoting::test
