#pragma once

// HAService: the master's side of replication (RocketMQ 4.9's HAService + HAConnection,
// protocol.md §8.8). Listens on haListenPort; each slave connection streams committed commit-log
// bytes from the offset the slave reports (0: from the start of the last commit-log file) in
// transfers of at most haTransferBatchSize bytes, with a heartbeat header after
// haSendHeartbeatInterval of silence, and never past what the store has written. The slave's
// reports are its acknowledgements: they feed the store's SYNC_MASTER wait
// (storage::GroupTransferService) and the runtime info.
//
// Refused and dropped, loudly, with the other connections served as before: a slave reporting
// an offset beyond this master's commit-log end (the master lost data, or the slave followed
// another master: it is told this master's end with a heartbeat header, then the connection is
// closed; nothing is truncated or merged on either side), a negative offset, an acknowledgement
// beyond what was written, a report that stays incomplete, and silence longer than
// haHousekeepingInterval.
//
// Who may connect (the commit log is the whole data set, and a connection's reports count as a
// slave's acknowledgements for SYNC_MASTER): peers matching haAllowedAddresses (RocketMQ ACL
// address patterns, clientlib/common/addresspattern.h); when it is not set, loopback peers and
// this broker's own addresses (`ownAddresses`: brokerIP1, brokerIP2), so a slave on the same
// host works and any other host needs the key. At most haMaxConnections connections are open.
// A peer outside the list, one beyond the cap, and one whose threads cannot be started
// (std::system_error) are closed right after accept, before any byte is sent or any report is
// read, counted (refusedByAddress(), refusedByLimit()) and logged at most once per 10 s per
// reason with the number refused in between. The accept thread drains a burst of connections at
// once, so a flood costs an accept and a close per connection, no thread.
//
// Where it listens (start()): every address, IPv4 and IPv6, when no address is given or a
// wildcard (0.0.0.0, ::); the loopback of both families (127.0.0.1 and ::1) for a loopback
// address, since a one-host cluster's slaves may be told either; else that address only. An
// address this host does not have (EADDRNOTAVAIL: brokerIP2 is a NAT or container's outside
// address) falls back to every address with a warning; the allow list still applies.
//
// TLS (setTls(): the broker's tls.server.* keys, clientlib/remoting/tlsconfig.h): with
// tls.server.mode disabled the stream is plain as in RocketMQ. Permissive or enforcing: the
// connection's first thread peeks at the first byte (recv MSG_PEEK, within
// haHousekeepingInterval): 0x16 (a TLS handshake record; a plain slave's first byte is the high
// byte of its offset, 0x00) makes it a TLS connection, served by that one thread with an event
// loop owning a QSslSocket that both streams the log and reads the reports
// (tls.server.need.client.auth=require: a slave without a trusted certificate fails the
// handshake and gets nothing). A plain one is closed in enforcing mode before any byte is sent
// or any report read (refusedPlain()), served as without TLS in permissive mode. Certificate
// files are reloaded when they change (TlsServerContext), for new connections.
//
// Threads: one accept thread, and per plain connection a reader (reports) and a writer
// (transfers), all blocking in poll() with bounded waits; the sockets are plain non-blocking
// descriptors (bulk streaming to a few peers needs no event loop). A TLS connection has one
// thread (QSslSocket is not thread-safe), woken by an eventfd when new bytes are written. wakeup()
// may be called from any thread (the store's append observer): it costs a fence and a relaxed load
// unless a writer is idle. start()/stop() from the owning thread; the store must outlive the
// service.

#include "broker/ha/hasocket.h"
#include "clientlib/common/addresspattern.h"
#include "clientlib/remoting/tlssettings.h"

#include <QByteArray>
#include <QStringList>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace qrocket::storage {
class MessageStore;
struct MessageStoreConfig;
} // namespace qrocket::storage

namespace qrocket::remoting {
class TlsServerContext;
}

namespace qrocket::broker::ha {

class HAConnection;

class HAService
{
public:
    /// `ownAddresses`: this broker's addresses (brokerIP1, brokerIP2), allowed beside loopback
    /// when haAllowedAddresses is not set.
    HAService(storage::MessageStore &store, const storage::MessageStoreConfig &config,
        const QStringList &ownAddresses = {});
    ~HAService();
    HAService(const HAService &) = delete;
    HAService &operator=(const HAService &) = delete;

    /// TLS on the HA port from the broker's tls.server.* keys (before start(); tls.server.mode
    /// disabled, the default: plain).
    void setTls(const remoting::TlsSettings &settings) { m_tlsSettings = settings; }
    /// Listens on `port` (0: a free port) at `address` (see the file comment; empty: every
    /// address) and starts accepting slaves. InvalidArgument for a bad haAllowedAddresses,
    /// IoError when it cannot listen or start its thread, the TLS
    /// context's error when tls.server.* do not load.
    Status start(quint16 port, const QString &address = {});
    /// Waits (at most min(5 s, haHousekeepingInterval)) until every connected slave has
    /// acknowledged the commit-log end, then closes every connection and joins every thread.
    /// Call it once no more puts arrive. Idempotent.
    void stop();
    quint16 port() const { return m_port; }

    /// New commit-log bytes are readable: wakes the idle connection writers.
    void wakeup();

    struct SlaveState
    {
        QByteArray address; // the slave's "ip:port"
        std::int64_t ackOffset = -1; // last reported offset (-1: none yet)
        std::int64_t lag = 0; // master's commit-log end - ackOffset
        std::int64_t sentOffset = -1; // where the next transfer starts
    };
    std::vector<SlaveState> slaves() const;
    /// Controller mode: acknowledgements count only from the HA connections of these peers
    /// ("ip:port" as slaves() names them: the replicas of the SyncStateSet and those about to
    /// join it), and a put is acknowledged once `needed` of them have it (all of them with
    /// allAckInSyncStateSet). A peer without a live connection has nothing; while one is missing
    /// the store counts no slave connection (SYNC puts answer SLAVE_NOT_AVAILABLE). Without a
    /// call (plain master/slave) any slave's acknowledgement counts, as in RocketMQ.
    void setAckPeers(std::vector<QByteArray> peers, int needed);
    /// The acknowledged offset of `peer`'s live connection, -1 without one.
    std::int64_t ackOffsetOf(const QByteArray &peer) const;
    /// Controller mode (syncFromLastFile=false): a slave whose first report is 0 (an empty commit
    /// log) is sent the master's whole log from its minimum offset instead of from the start of
    /// its last file (RocketMQ 4.9's rule, kept for plain master/slave).
    void setNewSlavesFromFirstByte(bool on) { m_newSlavesFromFirstByte.store(on); }
    bool newSlavesFromFirstByte() const { return m_newSlavesFromFirstByte.load(); }
    int connectionCount() const { return m_live.load(std::memory_order_acquire); }
    /// Connections closed at accept because the peer is not in the allow list.
    std::int64_t refusedByAddress() const { return m_refusedByAddress.load(); }
    /// Connections closed at accept because haMaxConnections were open or their threads could
    /// not be started.
    std::int64_t refusedByLimit() const { return m_refusedByLimit.load(); }
    /// Plain connections closed because tls.server.mode is enforcing.
    std::int64_t refusedPlain() const { return m_refusedPlain.load(); }
    /// TLS handshakes started on the HA port.
    std::int64_t tlsConnections() const { return m_tlsConnections.load(); }
    /// The allow list in force, as the refusal log line shows it.
    QString allowedAddresses() const { return m_allowedText; }
    /// The largest offset any slave acknowledged (RocketMQ's push2SlaveMaxOffset).
    std::int64_t push2SlaveMaxOffset() const
    {
        return m_push2SlaveMax.load(std::memory_order_acquire);
    }

private:
    friend class HAConnection;
    void acceptLoop();
    /// Accepts what is waiting on `listenFd` (a burst at once) and admits or refuses each.
    void acceptPending(int listenFd);
    void admit(SocketFd fd, const QHostAddress &peer);
    /// stop(): waits until the connected slaves acknowledged the commit-log end, bounded.
    void drain(int timeoutMs);
    /// Joins and forgets closed connections (accept thread).
    void reap(bool all);
    void notifyTransferSome(std::int64_t offset);
    /// setAckPeers() in force: recomputes the store's acknowledged offset and connection count.
    void recomputePeerAcks();
    void connectionClosed();
    void countConnection(int delta);
    /// Writer side: sleeps up to `timeoutMs` unless wakeup(), `closed`, or (next >= 0) the
    /// store already has bytes at `next`.
    void waitForData(int timeoutMs, const std::atomic<bool> &closed, std::int64_t next);
    void wakeAllWriters();
    /// A TLS connection's eventfd, written by wakeAllWriters() while registered.
    void addWakeFd(int fd);
    void removeWakeFd(int fd);

    storage::MessageStore &m_store;
    const int m_heartbeatMs;
    const int m_housekeepingMs;
    const int m_batchSize;
    const std::int64_t m_fileSize;
    const int m_maxConnections;
    std::vector<AddressPattern> m_allowed;
    QString m_allowedText; // for the log
    Status m_allowedError; // a bad haAllowedAddresses: start() fails with it

    remoting::TlsSettings m_tlsSettings;
    std::shared_ptr<remoting::TlsServerContext> m_tls; // null: tls.server.mode disabled

    std::vector<SocketFd> m_listen; // one dual-stack socket, or one per bound address
    quint16 m_port = 0;
    std::atomic<bool> m_stopping {false};
    std::thread m_acceptThread;

    mutable std::mutex m_connectionsMutex; // guards m_connections
    std::vector<std::shared_ptr<HAConnection>> m_connections;
    std::mutex m_countMutex; // orders the updates of m_live and the store's count
    std::atomic<int> m_live {0};
    std::atomic<std::int64_t> m_push2SlaveMax {0};
    // setAckPeers(): m_peerMode is read on every report; the rest under m_ackMutex (taken
    // before m_connectionsMutex).
    std::atomic<bool> m_peerMode {false};
    std::atomic<bool> m_newSlavesFromFirstByte {false};
    std::mutex m_ackMutex;
    std::vector<QByteArray> m_ackPeers;
    int m_ackNeeded = 0;
    std::vector<std::int64_t> m_ackScratch; // one per peer, reused
    std::atomic<std::int64_t> m_refusedByAddress {0};
    std::atomic<std::int64_t> m_refusedByLimit {0};
    std::atomic<std::int64_t> m_refusedPlain {0};
    std::atomic<std::int64_t> m_tlsConnections {0};
    // Rate limits of the refusal warnings (accept thread only).
    struct Throttle
    {
        std::int64_t lastMs = -1;
        std::int64_t skipped = 0;
    };
    Throttle m_addressWarning;
    Throttle m_limitWarning;
    Throttle m_acceptWarning;

    // Idle writers sleep on m_wakeCv; wakeup() bumps m_wakeGeneration when any does.
    std::mutex m_wakeMutex;
    std::condition_variable m_wakeCv;
    std::uint64_t m_wakeGeneration = 0; // guarded by m_wakeMutex
    std::vector<int> m_wakeFds; // TLS connections' eventfds, guarded by m_wakeMutex
    std::atomic<int> m_sleepers {0};
};

} // namespace qrocket::broker::ha
