// Connection: the output queue of a plain server connection behind its flat buffer m_out, for
// answers whose large body is sent from the answer's own buffer (connection.h, writeSharedBody).

#include "clientlib/remoting/connection.h"
#include "clientlib/remoting/logging.h"

#include <QSocketNotifier>

namespace qrocket::remoting {

namespace {
/// What one queued segment costs beyond its bytes, charged against maxUnsentBytes: a peer that
/// never reads cannot queue references to one shared body without bound.
constexpr qint64 kSegmentOverhead = 64;
} // namespace

qint64 Connection::outQueueBytes() const
{
    return m_outQueueOwned + m_outQueueShared
        + kSegmentOverhead * static_cast<qint64>(m_outQueue.size());
}

void Connection::appendOwnedSegment(const char *data, qint64 size)
{
    if (m_outQueue.empty() || m_outQueue.back().shared)
        m_outQueue.push_back(OutSegment {});
    m_outQueue.back().bytes.append(data, size);
    m_outQueueOwned += size;
}

void Connection::pushSharedSegment(const QByteArray &body)
{
    m_outQueue.push_back(OutSegment {body, true});
    if (++m_sharedBodies[{body.constData(), body.size()}] == 1)
        m_outQueueShared += body.size();
}

void Connection::popOutSegment()
{
    OutSegment &front = m_outQueue.front();
    if (front.shared) {
        const auto it = m_sharedBodies.find({front.bytes.constData(), front.bytes.size()});
        if (it != m_sharedBodies.end() && --it->second == 0) {
            m_outQueueShared -= front.bytes.size();
            m_sharedBodies.erase(it);
        }
    } else {
        m_outQueueOwned -= front.bytes.size() - m_outQueuePos;
    }
    m_outQueue.pop_front();
    m_outQueuePos = 0;
}

void Connection::clearOutQueue()
{
    m_outQueue.clear();
    m_sharedBodies.clear();
    m_outQueuePos = 0;
    m_outQueueOwned = 0;
    m_outQueueShared = 0;
}

bool Connection::drainOutQueue()
{
    while (!m_outQueue.empty()) {
        const OutSegment &front = m_outQueue.front();
        const qsizetype left = front.bytes.size() - m_outQueuePos;
        QString error;
        const qint64 n = sendNow(front.bytes.constData() + m_outQueuePos, left, error);
        if (n < 0) {
            close(QStringLiteral("write failed: ") + error);
            return false;
        }
        if (n == left) {
            popOutSegment();
            continue;
        }
        m_outQueuePos += n;
        if (!front.shared)
            m_outQueueOwned -= n;
        return false; // the socket's buffer is full: the write notifier stays enabled
    }
    return true;
}

void Connection::writeSharedBody(const QByteArray &body, qint64 headBytes)
{
    if (m_closed || body.isEmpty())
        return;
    // The head just written does not count as "something else queued": a single frame larger
    // than the cap still goes out when nothing else is (ConnectionOptions::maxUnsentBytes).
    const qint64 queued = unsentBytes();
    if (!writesDescriptor() || !m_connected) {
        if (queued - headBytes > 0 && queued + body.size() > m_options.maxUnsentBytes) {
            overCap(queued + body.size());
            return;
        }
        if (!m_connected)
            m_preconnect.append(body);
        else if (m_inProcessInput || m_ownerCorked)
            m_corked.append(body);
        else {
            QString error; // not writeBytes(): its cap check would count the head as queued
            if (!writeOut(body.constData(), body.size(), error))
                close(QStringLiteral("write failed: ") + error);
        }
        return;
    }
    const bool known = m_sharedBodies.contains({body.constData(), body.size()});
    const qint64 charge = kSegmentOverhead + (known ? 0 : body.size());
    if (queued - headBytes > 0 && queued + charge > m_options.maxUnsentBytes) {
        overCap(queued + charge);
        return;
    }
    // The frames encoded before it (its own head among them) go first.
    flushCorked();
    if (m_closed)
        return;
    if (m_outPos < m_out.size() || !m_outQueue.empty()) {
        pushSharedSegment(body); // the write notifier is on while anything waits
        return;
    }
    QString error;
    const qint64 done = sendNow(body.constData(), body.size(), error);
    if (done < 0) {
        close(QStringLiteral("write failed: ") + error);
        return;
    }
    if (done == body.size())
        return;
    pushSharedSegment(body);
    m_outQueuePos = done;
    m_writeNotifier->setEnabled(true);
}

} // namespace qrocket::remoting
