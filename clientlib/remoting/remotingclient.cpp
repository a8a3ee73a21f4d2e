#include "clientlib/remoting/remotingclient.h"

#include "clientlib/common/tsanannotations.h"
#include "clientlib/remoting/channelimpl.h"
#include "clientlib/remoting/ioworker.h"
#include "clientlib/remoting/logging.h"

#include <QRandomGenerator>
#include <QThread>

#include <condition_variable>
#include <cstring>
#include <optional>
#include <utility>

namespace qrocket::remoting {

namespace {

using Clock = std::chrono::steady_clock;

/// "host:port" or "[v6]:port".
bool parseAddress(const QByteArray &address, QString &host, quint16 &port)
{
    const qsizetype colon = address.lastIndexOf(':');
    if (colon <= 0)
        return false;
    QByteArray hostPart = address.left(colon).trimmed();
    if (hostPart.startsWith('[') && hostPart.endsWith(']'))
        hostPart = hostPart.mid(1, hostPart.size() - 2);
    bool ok = false;
    const uint value = address.mid(colon + 1).trimmed().toUInt(&ok);
    if (!ok || value == 0 || value > 65535 || hostPart.isEmpty())
        return false;
    host = QString::fromLatin1(hostPart);
    port = static_cast<quint16>(value);
    return true;
}

int remainingMillis(Clock::time_point deadline)
{
    const auto left
        = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, INT32_MAX));
}

} // namespace

struct RemotingClient::NameServerCall
{
    RemotingCommand request;
    Clock::time_point deadline;
    InvokeCallback callback;
    QList<QByteArray> addresses;
    int index = 0;
    int attempts = 0;
};

RemotingClient::RemotingClient(Options options, QObject *parent)
    : QObject(parent), m_options(std::move(options))
{
    if (m_options.tls.enable) {
        Result<QSslConfiguration> tls = clientTlsConfiguration(m_options.tls);
        if (tls) {
            m_tlsConfig = *tls;
        } else {
            m_tlsStatus
                = Status(tls.error().code(), QStringLiteral("TLS: ") + tls.error().message());
            qCWarning(lcRemotingClient, "%s", qPrintable(m_tlsStatus.message()));
        }
    }
    m_pool = std::make_unique<IoThreadPool>(m_options.threadName, 1, m_options.sweepInterval);
    m_worker = m_pool->worker(0);
    m_ioThread = m_worker->thread();
}

RemotingClient::~RemotingClient()
{
    shutdown();
}

void RemotingClient::shutdown()
{
    {
        std::lock_guard lock(m_poolMutex);
        if (m_shutdown.exchange(true))
            return;
    }
    if (isIoThread()) {
        qCCritical(lcRemotingClient, "RemotingClient::shutdown() called on its I/O thread");
        return;
    }
    m_pool->stop();
    // Calls queued after the last drain ran (its event died with the thread).
    std::vector<Submission> left;
    {
        std::lock_guard lock(m_poolMutex);
        left.swap(m_submitted);
    }
    for (Submission &s : left)
        completeInvocation(s.callback, Status::unavailable(QStringLiteral("client shut down")));
}

bool RemotingClient::isIoThread() const
{
    return QThread::currentThread() == m_ioThread;
}

template<typename Task>
bool RemotingClient::runOnIoThread(Task &&task)
{
    if (isIoThread()) {
        if (m_shutdown.load())
            return false;
        task();
        return true;
    }
    std::lock_guard lock(m_poolMutex);
    if (m_shutdown.load())
        return false;
    invokeOn(m_worker, std::forward<Task>(task), Qt::QueuedConnection);
    return true;
}

Connection *RemotingClient::connectionFor(const QByteArray &address)
{
    if (m_lastConnection && m_lastAddress.size() == address.size()
        && (m_lastAddress.constData() == address.constData()
            || std::memcmp(m_lastAddress.constData(), address.constData(),
                   static_cast<std::size_t>(address.size()))
                == 0)
        && !m_lastConnection->isClosed())
        return m_lastConnection;
    if (Connection *existing = m_connections.value(address); existing && !existing->isClosed()) {
        m_lastAddress = address;
        m_lastConnection = existing;
        return existing;
    }
    QString host;
    quint16 port = 0;
    if (!parseAddress(address, host, port))
        return nullptr;
    auto *connection = new Connection(m_options.connection, this, m_worker, address);
    m_connections.insert(address, connection);
    m_lastAddress = address;
    m_lastConnection = connection;
    qCDebug(lcRemotingClient, "connecting to %s", address.constData());
    connection->connectToHost(host, port, m_tlsConfig ? &*m_tlsConfig : nullptr);
    return connection;
}

void RemotingClient::invokeAsync(
    const QByteArray &address, RemotingCommand request, int timeoutMillis, InvokeCallback callback)
{
    const auto deadline = Clock::now() + std::chrono::milliseconds(std::max(timeoutMillis, 0));
    if (m_options.requestHook)
        m_options.requestHook(request);
    if (isIoThread()) {
        if (m_shutdown.load()) {
            completeInvocation(callback, Status::unavailable(QStringLiteral("client shut down")));
            return;
        }
        startInvoke(address, std::move(request), deadline, std::move(callback));
        return;
    }
    // Other threads queue the call; one posted event per batch starts every queued call.
    {
        std::lock_guard lock(m_poolMutex);
        if (!m_shutdown.load()) {
            m_submitted.push_back(
                Submission {address, std::move(request), deadline, std::move(callback)});
            if (!m_drainPosted) {
                m_drainPosted = true;
                invokeOn(
                    m_worker, [this] { drainSubmitted(); }, Qt::QueuedConnection);
            }
            return;
        }
    }
    completeInvocation(callback, Status::unavailable(QStringLiteral("client shut down")));
}

void RemotingClient::drainSubmitted()
{
    std::vector<Submission> batch;
    {
        std::lock_guard lock(m_poolMutex);
        batch.swap(m_submitted);
        m_drainPosted = false;
    }
    // The batch's frames go out with one write per connection, not one per request.
    std::vector<Connection *> corked;
    if (batch.size() > 1)
        m_corking = &corked;
    for (Submission &s : batch) {
        if (m_shutdown.load()) {
            completeInvocation(s.callback, Status::unavailable(QStringLiteral("client shut down")));
            continue;
        }
        startInvoke(s.address, std::move(s.request), s.deadline, std::move(s.callback));
    }
    m_corking = nullptr;
    // A connection closed meanwhile is only deleted later (deleteLater), and uncork() writes
    // nothing on a closed one.
    for (Connection *c : corked)
        c->uncork();
}

void RemotingClient::startInvoke(const QByteArray &address, RemotingCommand request,
    Clock::time_point deadline, InvokeCallback callback)
{
    if (Clock::now() >= deadline) {
        completeInvocation(callback,
            Status::timeout(
                QStringLiteral("timed out before sending to %1").arg(QLatin1String(address))));
        return;
    }
    if (!m_tlsStatus) {
        completeInvocation(callback, m_tlsStatus);
        return;
    }
    Connection *connection = connectionFor(address);
    if (!connection) {
        completeInvocation(callback,
            Status::invalidArgument(
                QStringLiteral("bad address \"%1\"").arg(QLatin1String(address))));
        return;
    }
    if (m_corking && !connection->isCorked()) {
        connection->cork();
        m_corking->push_back(connection);
    }
    connection->invokeUntil(std::move(request), deadline, std::move(callback));
}

void RemotingClient::invokeOneway(const QByteArray &address, RemotingCommand request)
{
    request.flag = RemotingCommand::kFlagOneway;
    if (m_options.requestHook)
        m_options.requestHook(request);
    runOnIoThread([this, address, request = std::move(request)]() mutable {
        Connection *connection = m_tlsStatus ? connectionFor(address) : nullptr;
        if (!connection) {
            qCWarning(lcRemotingClient, "oneway request to \"%s\" dropped (bad address or TLS)",
                address.constData());
            return;
        }
        request.opaque = nextOpaque();
        connection->sendCommand(request);
    });
}

Result<RemotingCommand> RemotingClient::waitFor(
    const std::function<void(InvokeCallback)> &start, int timeoutMillis)
{
    if (isIoThread()) {
        return Status::internal(
            QStringLiteral("synchronous invocation on the remoting I/O thread would deadlock"));
    }
    struct State
    {
        std::mutex mutex;
        std::condition_variable done;
        std::optional<Result<RemotingCommand>> result;
    };
    auto state = std::make_shared<State>();
    start([state](Result<RemotingCommand> result) {
        {
            std::lock_guard lock(state->mutex);
            state->result.emplace(std::move(result));
        }
        state->done.notify_all();
    });
    std::unique_lock lock(state->mutex);
    // The callback always comes (the sweep times it out); the margin only guards against a bug.
    const auto bound
        = std::chrono::milliseconds(std::max(timeoutMillis, 0)) + std::chrono::seconds(5);
    if (!state->done.wait_for(lock, bound, [&] { return state->result.has_value(); }))
        return Status::timeout(QStringLiteral("no completion within %1 ms").arg(timeoutMillis));
    return std::move(*state->result);
}

Result<RemotingCommand> RemotingClient::invokeSync(
    const QByteArray &address, RemotingCommand request, int timeoutMillis)
{
    return waitFor(
        [&](InvokeCallback cb) {
            invokeAsync(address, std::move(request), timeoutMillis, std::move(cb));
        },
        timeoutMillis);
}

void RemotingClient::setNameServerAddresses(const QByteArray &addressList)
{
    QList<QByteArray> addresses;
    for (const QByteArray &part : addressList.split(';')) {
        const QByteArray address = part.trimmed();
        if (!address.isEmpty())
            addresses.append(address);
    }
    std::lock_guard lock(m_nameServerMutex);
    if (addresses == m_nameServers)
        return;
    m_nameServers = addresses;
    m_nameServerIndex = 0;
    if (m_options.randomNameServerStart && addresses.size() > 1)
        m_nameServerIndex = static_cast<int>(
            QRandomGenerator::global()->bounded(static_cast<quint32>(addresses.size())));
}

QList<QByteArray> RemotingClient::nameServerAddresses() const
{
    std::lock_guard lock(m_nameServerMutex);
    return m_nameServers;
}

QByteArray RemotingClient::currentNameServer() const
{
    std::lock_guard lock(m_nameServerMutex);
    return m_nameServers.isEmpty() ? QByteArray() : m_nameServers.at(m_nameServerIndex);
}

void RemotingClient::invokeNameServer(
    RemotingCommand request, int timeoutMillis, InvokeCallback callback)
{
    auto call = std::make_shared<NameServerCall>();
    call->request = std::move(request);
    call->deadline = Clock::now() + std::chrono::milliseconds(std::max(timeoutMillis, 0));
    call->callback = std::move(callback);
    {
        std::lock_guard lock(m_nameServerMutex);
        call->addresses = m_nameServers;
        call->index = m_nameServerIndex;
    }
    if (call->addresses.isEmpty()) {
        completeInvocation(
            call->callback, Status::unavailable(QStringLiteral("no name server address set")));
        return;
    }
    attemptNameServer(std::move(call));
}

void RemotingClient::attemptNameServer(std::shared_ptr<NameServerCall> call)
{
    const int count = static_cast<int>(call->addresses.size());
    const QByteArray address = call->addresses.at(call->index % count);
    ++call->attempts;
    invokeAsync(address, call->request, remainingMillis(call->deadline),
        [this, call, address, count](Result<RemotingCommand> result) {
            if (!result.has_value() && result.error().code() == Status::Code::Unavailable
                && call->attempts < count && !m_shutdown.load()
                && remainingMillis(call->deadline) > 0) {
                call->index = (call->index + 1) % count;
                qCInfo(lcRemotingClient, "name server %s unreachable (%s); trying %s",
                    address.constData(), qPrintable(result.error().message()),
                    call->addresses.at(call->index).constData());
                {
                    std::lock_guard lock(m_nameServerMutex);
                    if (m_nameServers == call->addresses)
                        m_nameServerIndex = call->index;
                }
                attemptNameServer(call);
                return;
            }
            completeInvocation(call->callback, std::move(result));
        });
}

Result<RemotingCommand> RemotingClient::invokeNameServerSync(
    RemotingCommand request, int timeoutMillis)
{
    return waitFor(
        [&](InvokeCallback cb) {
            invokeNameServer(std::move(request), timeoutMillis, std::move(cb));
        },
        timeoutMillis);
}

void RemotingClient::registerProcessor(
    int requestCode, RequestProcessorPtr processor, ExecutorPtr executor)
{
    m_table.registerProcessor(requestCode, std::move(processor), std::move(executor));
}

void RemotingClient::setDefaultProcessor(RequestProcessorPtr processor, ExecutorPtr executor)
{
    m_table.setDefaultProcessor(std::move(processor), std::move(executor));
}

void RemotingClient::closeConnection(const QByteArray &address)
{
    runOnIoThread([this, address] {
        if (Connection *connection = m_connections.value(address))
            connection->close(QStringLiteral("closed by application"));
    });
}

void RemotingClient::handleRequest(const ChannelPtr &channel, protocol::RemotingCommand request)
{
    m_table.dispatch(channel, std::move(request));
}

void RemotingClient::connectionClosed(Connection *connection)
{
    if (connection == m_lastConnection) {
        m_lastConnection = nullptr;
        m_lastAddress = QByteArray();
    }
    const auto it = m_connections.constFind(connection->remoteAddress());
    if (it != m_connections.cend() && it.value() == connection)
        m_connections.erase(it);
    Q_EMIT channelClosed(connection->id(), connection->remoteAddress());
}

} // namespace qrocket::remoting
