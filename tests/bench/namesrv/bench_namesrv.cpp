// qrocket-bench-namesrv: GET_ROUTEINFO_BY_TOPIC requests/s against an in-process name server
// with N registered topics, over C pipelined connections, next to a remoting echo baseline (a
// RemotingServer whose only processor answers SUCCESS with the request body) measured in the
// same run with the same client.
//
//   qrocket-bench-namesrv [--topics 1000] [--connections 8] [--depth 32] [--seconds 5]
//
// The client keeps `depth` requests in flight on each connection (responses are counted by their
// length prefix; one response per phase is fully decoded and checked). Servers and client share
// the machine, so the figures are for comparison, not absolute capacity.

#include "clientlib/common/byteorder.h"
#include "clientlib/protocol/framecodec.h"
#include "clientlib/remoting/remotingserver.h"
#include "namesrv/namesrvcontroller.h"
#include "namesrv/routeinfomanager.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QLoggingCategory>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTimer>

#include <cstdio>
#include <memory>
#include <vector>

using namespace qrocket;
using protocol::RemotingCommand;

namespace {

constexpr int kEchoCode = 9999;

class EchoProcessor final : public remoting::RequestProcessor
{
public:
    void processRequest(
        const remoting::ChannelPtr &, RemotingCommand request, remoting::Responder respond) override
    {
        RemotingCommand response = RemotingCommand::createResponse(request, 0);
        response.body = request.body;
        respond(std::move(response));
    }
};

/// One pipelined connection: sends pre-encoded frames round robin, `depth` in flight.
class LoadConnection
{
public:
    LoadConnection(const std::vector<QByteArray> &frames, int depth, std::size_t start)
        : m_frames(frames), m_depth(depth), m_next(start)
    {
        QObject::connect(&m_socket, &QTcpSocket::readyRead, &m_socket, [this] { onReadyRead(); });
    }

    bool connectTo(quint16 port)
    {
        m_socket.connectToHost(QStringLiteral("127.0.0.1"), port);
        m_socket.setSocketOption(QAbstractSocket::LowDelayOption, 1);
        return m_socket.waitForConnected(3000);
    }
    void start()
    {
        QByteArray batch;
        for (int i = 0; i < m_depth; ++i)
            batch += nextFrame();
        m_socket.write(batch);
    }
    void stop() { m_stopped = true; }
    qint64 completed() const { return m_completed; }
    const QByteArray &firstResponse() const { return m_firstResponse; }
    bool drained() const { return m_inFlightAtStop <= 0; }

private:
    const QByteArray &nextFrame()
    {
        const QByteArray &f = m_frames[m_next % m_frames.size()];
        ++m_next;
        return f;
    }

    void onReadyRead()
    {
        m_buffer += m_socket.readAll();
        qsizetype pos = 0;
        QByteArray batch;
        int answered = 0;
        while (m_buffer.size() - pos >= 4) {
            const qsizetype frameLen = 4 + readI32(m_buffer.constData() + pos);
            if (m_buffer.size() - pos < frameLen)
                break;
            if (m_firstResponse.isEmpty())
                m_firstResponse = m_buffer.mid(pos, frameLen);
            pos += frameLen;
            ++answered;
        }
        m_buffer.remove(0, pos);
        if (m_stopped) {
            m_inFlightAtStop -= answered;
            return;
        }
        m_completed += answered;
        for (int i = 0; i < answered; ++i)
            batch += nextFrame();
        if (!batch.isEmpty())
            m_socket.write(batch);
    }

    const std::vector<QByteArray> &m_frames;
    const int m_depth;
    std::size_t m_next;
    QTcpSocket m_socket;
    QByteArray m_buffer;
    QByteArray m_firstResponse;
    qint64 m_completed = 0;
    qint64 m_inFlightAtStop = 0;
    bool m_stopped = false;
};

struct PhaseResult
{
    double requestsPerSecond = 0;
    int firstResponseCode = -1;
    qsizetype firstResponseBytes = 0;
};

PhaseResult runPhase(
    quint16 port, const std::vector<QByteArray> &frames, int connections, int depth, int seconds)
{
    std::vector<std::unique_ptr<LoadConnection>> conns;
    for (int i = 0; i < connections; ++i) {
        conns.push_back(std::make_unique<LoadConnection>(frames, depth, std::size_t(i) * 131));
        if (!conns.back()->connectTo(port)) {
            std::fprintf(stderr, "cannot connect to port %u\n", port);
            return {};
        }
    }
    // Warm-up of 0.5 s, then the measured window.
    for (auto &c : conns)
        c->start();
    QEventLoop loop;
    QTimer::singleShot(500, &loop, &QEventLoop::quit);
    loop.exec();
    qint64 base = 0;
    for (auto &c : conns)
        base += c->completed();
    QElapsedTimer timer;
    timer.start();
    QTimer::singleShot(seconds * 1000, &loop, &QEventLoop::quit);
    loop.exec();
    qint64 total = 0;
    for (auto &c : conns) {
        total += c->completed();
        c->stop();
    }
    const double elapsed = double(timer.nsecsElapsed()) / 1e9;
    PhaseResult result;
    result.requestsPerSecond = double(total - base) / elapsed;
    RemotingCommand first;
    if (protocol::decodeFrame(conns.front()->firstResponse(), first).status
        == protocol::DecodeStatus::Ok) {
        result.firstResponseCode = first.code;
        result.firstResponseBytes = first.body.size();
    }
    // Let in-flight responses arrive before the sockets go away.
    QTimer::singleShot(200, &loop, &QEventLoop::quit);
    loop.exec();
    return result;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("qrocket-bench-namesrv"));
    QCommandLineParser parser;
    parser.addHelpOption();
    const QCommandLineOption topicsOpt(QStringLiteral("topics"), QStringLiteral("Topics."),
        QStringLiteral("n"), QStringLiteral("1000"));
    const QCommandLineOption connOpt(QStringLiteral("connections"), QStringLiteral("Connections."),
        QStringLiteral("n"), QStringLiteral("8"));
    const QCommandLineOption depthOpt(QStringLiteral("depth"),
        QStringLiteral("Requests in flight per connection."), QStringLiteral("n"),
        QStringLiteral("32"));
    const QCommandLineOption secondsOpt(QStringLiteral("seconds"),
        QStringLiteral("Measured seconds per phase."), QStringLiteral("n"), QStringLiteral("5"));
    parser.addOptions({topicsOpt, connOpt, depthOpt, secondsOpt});
    parser.process(app);
    const int topics = qMax(1, parser.value(topicsOpt).toInt());
    const int connections = qMax(1, parser.value(connOpt).toInt());
    const int depth = qMax(1, parser.value(depthOpt).toInt());
    const int seconds = qMax(1, parser.value(secondsOpt).toInt());

    QLoggingCategory::setFilterRules(QStringLiteral("qrocket.*.info=false"));
    QTemporaryDir dir;

    // Name server with `topics` topics on two brokers (master + slave) of one cluster.
    namesrv::NamesrvConfig config;
    config.listenAddress = QStringLiteral("127.0.0.1");
    config.listenPort = 0;
    config.kvConfigPath = dir.filePath(QStringLiteral("kvConfig.json"));
    config.configStorePath = dir.filePath(QStringLiteral("namesrv.properties"));
    namesrv::NamesrvController ns(config);
    if (Status st = ns.start(); !st.isOk()) {
        std::fprintf(stderr, "name server: %s\n", qPrintable(st.toString()));
        return 1;
    }
    namesrv::RegisterBrokerBody body;
    body.topicConfigSerializeWrapper.dataVersion = {1, 1700000000000};
    std::vector<QByteArray> routeFrames;
    for (int i = 0; i < topics; ++i) {
        namesrv::TopicConfig tc;
        tc.topicName = "BenchTopic_" + QByteArray::number(i);
        tc.readQueueNums = tc.writeQueueNums = 8;
        body.topicConfigSerializeWrapper.topicConfigTable[tc.topicName] = tc;
        RemotingCommand req = RemotingCommand::createRequest(105);
        req.opaque = i;
        req.setExt("topic", tc.topicName);
        routeFrames.push_back(protocol::encodeFrame(req));
    }
    ns.routeInfoManager().registerBroker(
        "BenchCluster", "127.0.0.1:10911", "broker-a", 0, "127.0.0.1:10912", body, nullptr);
    ns.routeInfoManager().registerBroker(
        "BenchCluster", "127.0.0.1:11911", "broker-a", 1, "127.0.0.1:11912", body, nullptr);

    // Echo baseline: same remoting server code, same I/O thread count, trivial processor.
    remoting::RemotingServer::Options echoOptions;
    echoOptions.listenAddress = QHostAddress::LocalHost;
    echoOptions.ioThreads = config.serverSelectorThreads;
    remoting::RemotingServer echo(echoOptions);
    echo.registerProcessor(kEchoCode, std::make_shared<EchoProcessor>());
    if (Status st = echo.start(); !st.isOk()) {
        std::fprintf(stderr, "echo server: %s\n", qPrintable(st.toString()));
        return 1;
    }
    std::vector<QByteArray> echoFrames;
    for (int i = 0; i < 64; ++i) {
        RemotingCommand req = RemotingCommand::createRequest(kEchoCode);
        req.opaque = i;
        req.setExt("topic", "BenchTopic_" + QByteArray::number(i));
        echoFrames.push_back(protocol::encodeFrame(req));
    }

    std::printf("qrocket-bench-namesrv: %d topics, %d connections, %d in flight each, %d s per "
                "phase, %d server I/O threads\n",
        topics, connections, depth, seconds, config.serverSelectorThreads);
    const PhaseResult e = runPhase(echo.serverPort(), echoFrames, connections, depth, seconds);
    std::printf("  remoting echo baseline   : %10.0f requests/s (response code %d)\n",
        e.requestsPerSecond, e.firstResponseCode);
    const PhaseResult r = runPhase(ns.serverPort(), routeFrames, connections, depth, seconds);
    std::printf("  GET_ROUTEINFO_BY_TOPIC   : %10.0f requests/s (response code %d, %lld-byte "
                "route body)\n",
        r.requestsPerSecond, r.firstResponseCode, static_cast<long long>(r.firstResponseBytes));
    if (e.requestsPerSecond > 0)
        std::printf(
            "  route / echo             : %10.2f\n", r.requestsPerSecond / e.requestsPerSecond);
    echo.stop();
    ns.shutdown();
    return (r.firstResponseCode == 0 && e.firstResponseCode == 0) ? 0 : 1;
}
