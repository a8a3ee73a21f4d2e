#pragma once

// NamesrvRegistrar: the broker's side of name-server registration (protocol.md §3.1-3.3,
// RocketMQ's BrokerOuterAPI): REGISTER_BROKER to every name server in parallel (body =
// RegisterBrokerBody JSON, bodyCrc32 = crc32Masked(body), compressed=false), preceded by
// QUERY_DATA_VERSION when forceRegister is off, and UNREGISTER_BROKER at shutdown. Name servers
// answering a slave's registration give the master's address and HA address, kept here.
//
// Threads: registerBrokerAll() may be called from any thread; it only posts requests (answers
// are handled on the remoting client's I/O thread). unregisterBrokerAll() blocks (bounded) and
// must not run on that I/O thread.

#include "broker/config/topicconfig.h"

#include <QByteArray>
#include <QList>

#include <atomic>
#include <memory>
#include <mutex>

namespace qrocket::remoting {
class RemotingClient;
}

namespace qrocket::broker {

struct BrokerContext;

class NamesrvRegistrar
{
public:
    explicit NamesrvRegistrar(BrokerContext &context);
    ~NamesrvRegistrar();
    NamesrvRegistrar(const NamesrvRegistrar &) = delete;
    NamesrvRegistrar &operator=(const NamesrvRegistrar &) = delete;

    /// "host:port;host:port".
    void setNameServers(const QByteArray &addressList);
    QList<QByteArray> nameServers() const;
    /// The broker's registered address ("ip:listenPort") and HA address ("ip2:port+1").
    void setBrokerAddresses(QByteArray brokerAddr, QByteArray haServerAddr);

    /// Registers with every name server (forceRegister: skip the data-version check).
    void registerBrokerAll(bool forceRegister);
    /// UNREGISTER_BROKER to every name server in parallel; waits at most `timeoutMs`.
    void unregisterBrokerAll(int timeoutMs);
    /// Stops the remoting client (pending requests fail). Not from its I/O thread.
    void shutdown();

    /// The RegisterBrokerBody JSON of the current topic table (also used by tests).
    QByteArray registerBody() const;

    QByteArray masterAddr() const;
    QByteArray masterHaServerAddr() const;
    /// Successful REGISTER_BROKER answers so far (tests, status).
    int registrationCount() const { return m_registrations.load(); }

private:
    void registerTo(const QByteArray &nameServer, const QByteArray &body);
    void queryThenRegister(
        const QByteArray &nameServer, const QByteArray &body, const DataVersion &version);

    BrokerContext &m_ctx;
    std::unique_ptr<remoting::RemotingClient> m_client;
    mutable std::mutex m_mutex;
    QList<QByteArray> m_nameServers; // guarded by m_mutex
    QByteArray m_brokerAddr; // guarded by m_mutex
    QByteArray m_haServerAddr; // guarded by m_mutex
    QByteArray m_masterAddr; // guarded by m_mutex
    QByteArray m_masterHaAddr; // guarded by m_mutex
    QList<QByteArray> m_failing; // name servers whose last attempt failed; guarded by m_mutex
    std::atomic<int> m_registrations {0};
};

} // namespace qrocket::broker
