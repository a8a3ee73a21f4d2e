#pragma once

// HAClient: the slave's side of replication (RocketMQ 4.9's HAService.HAClient, protocol.md
// §8.8). Connects to the master's HA address (haMasterAddress, else the one the name server
// gave at registration), reports this store's commit-log end on connect, after every batch it
// appended and at least every haSendHeartbeatInterval, and appends what the master streams byte
// for byte (storage::MessageStore::appendReplicated; reput then builds the consume queues and
// the index), whole records only: the start of a record whose end is still on its way waits in
// memory, so that a slave killed at any moment recovers to a record boundary. A drop (or
// haHousekeepingInterval without a byte from the master) closes the connection; it reconnects after
// min(5 s, haSendHeartbeatInterval) and resumes at its own end.
//
// A master whose stream starts before this slave's end (its commit log is behind: it lost
// data, or this slave followed another master) is refused with a critical log line and not
// followed; nothing is truncated. It is tried again every haHousekeepingInterval, and refused
// again until someone repairs one side. A stream starting past this slave's end (a gap), a
// malformed header or a transfer larger than the read buffer drops the connection.
//
// TLS (setTls(): the broker's tls.enable and tls.client.* keys, as for its name-server and
// master connections): the connection is TLS from its first byte, the master's certificate
// verified (tls.client.authServer, tls.client.trustCertPath) against the host of the HA
// address, with the slave's certificate when tls.client.certPath is set (a master with
// tls.server.need.client.auth=require wants one). A handshake failure is logged with the
// certificate errors and retried like a failed connect; the client never falls back to plain.
//
// Threads: one thread, blocking in poll() (TLS: QSslSocket's waitFor* functions, the thread
// given an event dispatcher) with bounded waits. `masterAddress` is called on it.
// start()/stop() from the owning thread; the store must outlive the client.

#include "broker/ha/hasocket.h"
#include "clientlib/remoting/tlssettings.h"

#include <QByteArray>
#include <QSslConfiguration>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace qrocket::storage {
class MessageStore;
struct MessageStoreConfig;
} // namespace qrocket::storage

namespace qrocket::broker::ha {

class HALink;

class HAClient
{
public:
    using AddressProvider = std::function<QByteArray()>;
    HAClient(storage::MessageStore &store, const storage::MessageStoreConfig &config,
        AddressProvider masterAddress);
    ~HAClient();
    HAClient(const HAClient &) = delete;
    HAClient &operator=(const HAClient &) = delete;

    /// TLS to the master when `settings.enable` (before start()). When the files do not load,
    /// the client logs why and does not connect (never plain instead).
    void setTls(const remoting::TlsSettings &settings);
    void start();
    void stop();

    bool isConnected() const { return m_connected.load(std::memory_order_acquire); }
    /// True while the current master is refused (its commit log is behind this slave's).
    bool isRefusingMaster() const { return m_refused.load(std::memory_order_acquire); }
    QByteArray masterAddress() const;
    /// This end of the connection to the master while connected ("ip:port" as the master's
    /// HAService names the slave), else empty: controller mode reports it to etcd so that the
    /// master can tell which HA connection is which replica of the SyncStateSet.
    QByteArray localAddress() const;
    /// The offset last reported to the master.
    std::int64_t reportedOffset() const { return m_reported.load(std::memory_order_acquire); }
    /// When the master last sent something (ms since epoch, 0: never).
    std::int64_t lastReadTimestamp() const { return m_lastReadWall.load(); }
    /// When this slave last reported its offset to the master (ms since epoch, 0: never).
    std::int64_t lastWriteTimestamp() const { return m_lastWriteWall.load(); }

private:
    enum class SessionEnd { Dropped, Refused, Stopped };
    void run();
    SessionEnd session(HALink &link);
    /// Processes the whole transfers in the read buffer; false ends the session (`end` says how).
    bool dispatch(HALink &link, SessionEnd &end);
    bool report(HALink &link);
    /// Connects to `addr` (TLS when configured) and runs a session; false when it could not
    /// connect (`why` says why).
    bool connectAndServe(const QByteArray &addr, SessionEnd &end, QString &why);
    /// Sleeps `ms` unless stop() is called.
    void pause(int ms);

    storage::MessageStore &m_store;
    const int m_heartbeatMs;
    const int m_housekeepingMs;
    AddressProvider m_masterAddress;
    std::optional<QSslConfiguration> m_tlsConfig; // tls.enable and the files loaded
    Status m_tlsStatus; // tls.enable and the files did not load

    /// Appends the whole records of `bytes` (at `offset`) and keeps the incomplete rest in
    /// m_carry; false when the bytes are not commit-log records or cannot be appended.
    bool appendWhole(std::int64_t offset, QByteArrayView bytes);

    std::vector<char> m_buffer; // the read buffer, allocated once
    std::int64_t m_have = 0; // bytes in m_buffer
    // The start of a record whose end has not arrived yet (transfers end anywhere): appended
    // once whole, so that the commit log only ever holds whole records. Allocated once.
    std::vector<char> m_carry;
    std::int64_t m_carrySize = 0;
    std::int64_t m_carryOffset = 0; // commit-log offset of m_carry's first byte
    std::int64_t m_lastReport = 0; // steady ms

    std::atomic<bool> m_stopping {false};
    std::atomic<bool> m_connected {false};
    std::atomic<bool> m_refused {false};
    std::atomic<std::int64_t> m_reported {-1};
    std::atomic<std::int64_t> m_lastReadWall {0};
    std::atomic<std::int64_t> m_lastWriteWall {0};
    mutable std::mutex m_mutex; // guards m_currentMaster; m_cv waits on it
    std::condition_variable m_cv;
    QByteArray m_currentMaster;
    QByteArray m_localAddress; // guarded by m_mutex
    std::thread m_thread;
};

} // namespace qrocket::broker::ha
