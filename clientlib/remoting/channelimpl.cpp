#include "clientlib/remoting/channelimpl.h"

#include "clientlib/common/tsanannotations.h"
#include "clientlib/protocol/framecodec.h"
#include "clientlib/remoting/connection.h"
#include "clientlib/remoting/logging.h"

#include <QThread>

#include <atomic>
#include <exception>
#include <utility>

namespace qrocket::remoting {

int nextOpaque()
{
    static std::atomic<int> counter {0};
    return counter.fetch_add(1, std::memory_order_relaxed);
}

void completeInvocation(InvokeCallback &callback, Result<RemotingCommand> result)
{
    if (!callback)
        return;
    try {
        std::exchange(callback, nullptr)(std::move(result));
    } catch (const std::exception &e) {
        qCWarning(lcRemoting, "invoke callback threw: %s", e.what());
    } catch (...) {
        qCWarning(lcRemoting, "invoke callback threw a non-standard exception");
    }
}

PendingCallback::~PendingCallback()
{
    if (callback)
        completeInvocation(callback, Status::unavailable(QStringLiteral("channel closed")));
}

ChannelImpl::ChannelImpl(std::uint64_t id, QByteArray remoteAddress, Connection *connection,
    QThread *ioThread, int maxInflight)
    : m_id(id)
    , m_ioThread(ioThread)
    , m_maxInflight(maxInflight)
    , m_remoteAddress(std::move(remoteAddress))
    , m_remoteHostValid(protocol::HostAddress::parse(m_remoteAddress, m_remoteHost))
    , m_connection(connection)
{ }

QByteArray ChannelImpl::remoteAddress() const
{
    std::lock_guard lock(m_mutex);
    return m_remoteAddress;
}

bool ChannelImpl::remoteHost(protocol::HostAddress &out) const
{
    std::lock_guard lock(m_mutex);
    out = m_remoteHost;
    return m_remoteHostValid;
}

bool ChannelImpl::isActive() const
{
    std::lock_guard lock(m_mutex);
    return m_connection != nullptr;
}

void ChannelImpl::setRemoteAddress(QByteArray address)
{
    std::lock_guard lock(m_mutex);
    m_remoteAddress = std::move(address);
    m_remoteHost = {};
    m_remoteHostValid = protocol::HostAddress::parse(m_remoteAddress, m_remoteHost);
}

void ChannelImpl::detach()
{
    std::lock_guard lock(m_mutex);
    m_connection = nullptr;
    m_outbox.clear();
    m_outboxBodies.clear();
}

void ChannelImpl::close()
{
    std::unique_lock lock(m_mutex);
    if (!m_connection)
        return;
    if (QThread::currentThread() == m_ioThread) {
        Connection *connection = m_connection;
        lock.unlock();
        connection->close(QStringLiteral("closed by application"));
        return;
    }
    invokeOn(
        m_connection,
        [self = shared_from_this()] {
            Connection *connection = nullptr;
            {
                std::lock_guard guard(self->m_mutex);
                connection = self->m_connection;
            }
            if (connection)
                connection->close(QStringLiteral("closed by application"));
        },
        Qt::QueuedConnection);
}

void ChannelImpl::send(RemotingCommand cmd)
{
    std::unique_lock lock(m_mutex);
    if (!m_connection)
        return;
    if (QThread::currentThread() == m_ioThread) {
        // Only this thread deletes the Connection, so it stays valid after unlocking.
        Connection *connection = m_connection;
        lock.unlock();
        connection->sendCommand(cmd);
        return;
    }
    lock.unlock();
    // A large body (a prepared whole-table answer shared between requests) is not copied: the
    // frame's head goes into the outbox, the body by reference (Connection::writeSharedBody).
    const bool share = cmd.body.size() >= Connection::kShareBodyBytes;
    QByteArray frame;
    if (share)
        protocol::encodeFrameHead(cmd, frame);
    else
        protocol::encodeFrame(cmd, frame);
    lock.lock();
    if (!m_connection)
        return;
    m_outbox.append(frame);
    if (share)
        m_outboxBodies.emplace_back(m_outbox.size(), std::move(cmd.body));
    if (!m_flushPosted) {
        m_flushPosted = true;
        invokeOn(
            m_connection, [self = shared_from_this()] { self->flushOutbox(); },
            Qt::QueuedConnection);
    }
}

bool ChannelImpl::sendEncoded(QByteArrayView frame)
{
    std::unique_lock lock(m_mutex);
    if (!m_connection)
        return true; // closed: dropped, as send() drops
    if (QThread::currentThread() == m_ioThread) {
        // Only this thread deletes the Connection, so it stays valid after unlocking.
        Connection *connection = m_connection;
        lock.unlock();
        connection->writeBytes(frame);
        return true;
    }
    m_outbox.append(frame);
    if (!m_flushPosted) {
        m_flushPosted = true;
        invokeOn(
            m_connection, [self = shared_from_this()] { self->flushOutbox(); },
            Qt::QueuedConnection);
    }
    return true;
}

void ChannelImpl::flushOutbox()
{
    QByteArray data;
    std::vector<std::pair<qsizetype, QByteArray>> bodies;
    Connection *connection = nullptr;
    {
        std::lock_guard lock(m_mutex);
        data.swap(m_outbox);
        bodies.swap(m_outboxBodies);
        m_flushPosted = false;
        connection = m_connection;
    }
    if (!connection || data.isEmpty())
        return;
    qsizetype at = 0;
    for (const auto &[end, body] : bodies) {
        // The frames up to the end of the body's head, then the body.
        const qsizetype headStart = at;
        connection->writeBytes(QByteArrayView(data).sliced(at, end - at));
        at = end;
        connection->writeSharedBody(body, end - headStart);
    }
    if (at < data.size())
        connection->writeBytes(QByteArrayView(data).sliced(at));
}

void ChannelImpl::invokeAsync(RemotingCommand request, int timeoutMillis, InvokeCallback callback)
{
    std::unique_lock lock(m_mutex);
    if (!m_connection) {
        lock.unlock();
        callback(Status::unavailable(QStringLiteral("channel closed")));
        return;
    }
    if (QThread::currentThread() == m_ioThread) {
        Connection *connection = m_connection;
        lock.unlock();
        connection->invoke(std::move(request), timeoutMillis, std::move(callback));
        return;
    }
    auto pending = std::make_shared<PendingCallback>(std::move(callback));
    invokeOn(
        m_connection,
        [self = shared_from_this(), request = std::move(request), timeoutMillis,
            pending]() mutable {
            Connection *connection = nullptr;
            {
                std::lock_guard guard(self->m_mutex);
                connection = self->m_connection;
            }
            if (connection)
                connection->invoke(std::move(request), timeoutMillis, pending->take());
            // else: `pending` completes with Unavailable when released.
        },
        Qt::QueuedConnection);
}

bool ChannelImpl::markReadPaused()
{
    m_readPaused.store(true, std::memory_order_seq_cst);
    if (m_inflight.load(std::memory_order_seq_cst) > m_maxInflight / 2)
        return true;
    // Drained meanwhile. If a releaser already took the flag, its resume is posted and finds the
    // connection reading: harmless.
    m_readPaused.store(false, std::memory_order_seq_cst);
    return false;
}

void ChannelImpl::releaseRequest()
{
    if (m_maxInflight <= 0)
        return;
    const int left = m_inflight.fetch_sub(1, std::memory_order_seq_cst) - 1;
    if (left > m_maxInflight / 2 || !m_readPaused.load(std::memory_order_seq_cst)
        || !m_readPaused.exchange(false, std::memory_order_seq_cst))
        return;
    std::lock_guard lock(m_mutex);
    if (!m_connection)
        return;
    invokeOn(
        m_connection,
        [self = shared_from_this()] {
            Connection *connection = nullptr;
            {
                std::lock_guard guard(self->m_mutex);
                connection = self->m_connection;
            }
            if (connection)
                connection->resumeReading();
        },
        Qt::QueuedConnection);
}

void ChannelImpl::invokeOneway(RemotingCommand request)
{
    request.flag = RemotingCommand::kFlagOneway;
    request.opaque = nextOpaque();
    send(std::move(request));
}

} // namespace qrocket::remoting
