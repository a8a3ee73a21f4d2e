#include "clientlib/remoting/remotingserver.h"

#include "clientlib/common/tsanannotations.h"
#include "clientlib/remoting/ioworker.h"
#include "clientlib/remoting/logging.h"

#include <QTcpServer>
#include <QThread>

#include <functional>

namespace qrocket::remoting {

/// QTcpServer that hands descriptors on instead of creating sockets on its own thread.
class TcpListener final : public QTcpServer
{
public:
    TcpListener(std::function<void(qintptr)> onIncoming, QObject *parent)
        : QTcpServer(parent), m_onIncoming(std::move(onIncoming))
    { }

protected:
    void incomingConnection(qintptr descriptor) override { m_onIncoming(descriptor); }

private:
    std::function<void(qintptr)> m_onIncoming;
};

RemotingServer::RemotingServer(Options options, QObject *parent)
    : QObject(parent), m_options(std::move(options))
{ }

RemotingServer::~RemotingServer()
{
    stop();
}

void RemotingServer::registerProcessor(
    int requestCode, RequestProcessorPtr processor, ExecutorPtr executor)
{
    m_table.registerProcessor(requestCode, std::move(processor), std::move(executor));
}

void RemotingServer::setDefaultProcessor(RequestProcessorPtr processor, ExecutorPtr executor)
{
    m_table.setDefaultProcessor(std::move(processor), std::move(executor));
}

Status RemotingServer::start()
{
    if (m_pool)
        return Status::ok();
    m_pool = std::make_unique<IoThreadPool>(
        m_options.threadName, m_options.ioThreads, m_options.sweepInterval);
    IoWorker *acceptWorker = m_pool->worker(0);
    Status status;
    quint16 port = 0;
    invokeOn(
        acceptWorker,
        [this, acceptWorker, &status, &port] {
            auto *listener = new TcpListener(
                [this](qintptr descriptor) { acceptDescriptor(descriptor); }, acceptWorker);
            listener->setListenBacklogSize(m_options.listenBacklog);
            if (!listener->listen(m_options.listenAddress, m_options.port)) {
                status = Status::ioError(QStringLiteral("cannot listen on %1:%2: %3")
                                             .arg(m_options.listenAddress.toString())
                                             .arg(m_options.port)
                                             .arg(listener->errorString()));
                delete listener;
                return;
            }
            m_listener = listener;
            port = listener->serverPort();
        },
        Qt::BlockingQueuedConnection);
    if (!status) {
        qCWarning(lcRemotingServer, "%s", qPrintable(status.message()));
        m_pool->stop();
        m_pool.reset();
        return status;
    }
    m_port = port;
    qCInfo(lcRemotingServer, "listening on %s:%u with %d I/O threads",
        qPrintable(m_options.listenAddress.toString()), unsigned(m_port), m_pool->size());
    return Status::ok();
}

void RemotingServer::stop()
{
    if (!m_pool)
        return;
    if (m_pool->isIoThread()) {
        qCCritical(lcRemotingServer, "RemotingServer::stop() called on an I/O thread; ignored");
        return;
    }
    invokeOn(
        m_pool->worker(0),
        [this] {
            delete m_listener;
            m_listener = nullptr;
        },
        Qt::BlockingQueuedConnection);
    m_pool->stop();
    m_pool.reset();
    qCInfo(lcRemotingServer, "stopped listening on port %u", unsigned(m_port));
    m_port = 0;
}

void RemotingServer::acceptDescriptor(qintptr descriptor)
{
    IoWorker *worker = m_pool->next();
    auto adopt = [this, worker, descriptor] {
        auto *connection = new Connection(m_options.connection, this, worker);
        if (!connection->adoptDescriptor(descriptor))
            return;
        m_connectionCount.fetch_add(1);
        Q_EMIT channelConnected(connection->id(), connection->remoteAddress());
    };
    if (worker->thread() == QThread::currentThread())
        adopt();
    else
        invokeOn(worker, adopt, Qt::QueuedConnection);
}

void RemotingServer::handleRequest(const ChannelPtr &channel, protocol::RemotingCommand request)
{
    m_table.dispatch(channel, std::move(request));
}

void RemotingServer::connectionClosed(Connection *connection)
{
    if (connection->remoteAddress().isEmpty())
        return; // never adopted
    m_connectionCount.fetch_sub(1);
    Q_EMIT channelClosed(connection->id(), connection->remoteAddress());
}

} // namespace qrocket::remoting
