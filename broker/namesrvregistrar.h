#pragma once

// NamesrvRegistrar: the broker's side of name-server registration (protocol.md §3.1-3.3,
// RocketMQ's BrokerOuterAPI and BrokerController.registerBrokerAll / registerIncrementBrokerData)
// and UNREGISTER_BROKER at shutdown. Name servers answering a slave's registration give the
// master's address and HA address, kept here.
//
// Two kinds of REGISTER_BROKER (body RegisterBrokerBody; JSON, or RocketMQ's zlib form with
// compressed=true when compressedRegister is on; bodyCrc32 = crc32Masked(body)):
// - full: the whole topic table (registerBrokerAll()). Unless forced, preceded by
//   QUERY_DATA_VERSION and skipped when the name server answers changed=false (RocketMQ's
//   needRegister);
// - incremental: only the topics named by registerTopicsChanged() (registerIncrementBrokerData),
//   with the current DataVersion. A name server merges those into the broker's routes and keeps
//   the rest (RocketMQ 4.9.7's RouteInfoManager does the same with a partial table). A name
//   server that has not taken a full registration over the current connection (a new or closed
//   connection: it may have restarted or dropped the broker) gets a full one instead.
//
// At most one registration (or data-version query) is in flight per name server. Work that
// arrives meanwhile is merged (a full registration absorbs pending topics; topics accumulate)
// and sent as one follow-up when the answer comes, so a burst of changes costs a few
// registrations, not one each. After a failure nothing more is sent to that name server until
// the next registerBrokerAll() (the periodic timer), which is then a full registration.
//
// Threads: every method may be called from any thread; requests are posted, answers handled on
// the remoting client's I/O thread (which also builds follow-up bodies). unregisterBrokerAll()
// blocks (bounded) and must not run on that I/O thread.

#include "broker/config/topicconfig.h"
#include "clientlib/protocol/bodies/routebodies.h"

#include <QByteArray>
#include <QList>

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>

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

    /// The broker's gRPC port (0: none), sent with every REGISTER_BROKER as QRocket's "grpcPort"
    /// header field: QRocket's name servers give it back with the routes, RocketMQ's ignore it
    /// (a header decodes its declared fields only). A header field, not a body field, so the
    /// compressed body form carries it too.
    void setGrpcPort(int port) { m_grpcPort.store(port); }
    using RouteCallback = std::function<void(std::optional<protocol::TopicRouteData>)>;
    /// GET_ROUTEINFO_BY_TOPIC to the name servers in turn (the next one when a request fails);
    /// `done` (on the remoting I/O thread) gets the route, or nullopt when no name server
    /// answered with one (none configured or reachable, the topic unknown, a bad body).
    void queryRoute(const QByteArray &topic, int timeoutMs, RouteCallback done);

    /// A full registration with every name server (forceRegister: skip the data-version check).
    void registerBrokerAll(bool forceRegister);
    /// An incremental registration of `topics` (created or updated; their current configs are
    /// sent) with every name server. `version` is the DataVersion the change gave the table: the
    /// registration carries the latest such version of the topics it sends, not the table's
    /// current one, which may count a change whose notification has not arrived yet (a name
    /// server holding a version must hold every change up to it, or it would ignore the
    /// registration that brings the late one).
    void registerTopicsChanged(const QList<QByteArray> &topics, const DataVersion &version);
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
    /// REGISTER_BROKER requests sent so far, full and incremental, and their bodies' bytes.
    std::int64_t fullRegistrationsSent() const { return m_fullSent.load(); }
    std::int64_t incrementalRegistrationsSent() const { return m_incrementalSent.load(); }
    std::int64_t registrationBodyBytes() const { return m_bodyBytes.load(); }
    /// Full registrations skipped because the name server's data version was current.
    std::int64_t registrationsSkipped() const { return m_skipped.load(); }

private:
    /// What a name server is owed, and whether something is in flight to it.
    struct Target
    {
        bool inFlight = false;
        bool fullPending = false;
        bool forcePending = false; // the pending full registration skips the version check
        bool fullAcked = false; // took a full registration over the current connection
        bool suspended = false; // the last attempt failed: wait for registerBrokerAll()
        bool recovering = false; // after a failure: the next full one gets a new DataVersion
        std::set<QByteArray> topics; // pending incremental topics
        DataVersion topicsVersion; // the latest change version among them
    };
    enum class Kind { Full, Query, Incremental };

    /// Sends what `nameServer` is owed unless something is in flight (m_mutex not held).
    void kick(const QByteArray &nameServer);
    /// REGISTER_BROKER of the named topics with `version` (nullptr: all of them with the table's
    /// current version, a full registration).
    void registerTo(const QByteArray &nameServer, const std::set<QByteArray> *topics,
        const DataVersion &version = {});
    void queryThenRegister(const QByteArray &nameServer);
    /// The answer to the request in flight to `nameServer`: records it and sends what is owed.
    void finished(const QByteArray &nameServer, bool ok, bool fullTaken);
    /// The connection to `nameServer` closed: its next registration is a full one.
    void nameServerClosed(const QByteArray &nameServer);
    /// The body of the named topics with `version` (nullptr: all, with the current version),
    /// compressed when compressedRegister is on (*compressed says which form it is).
    QByteArray encodeBody(
        const std::set<QByteArray> *only, const DataVersion &version, bool *compressed) const;
    /// Every topic (or the named ones) as RocketMQ registers them (brokerPermission applied).
    std::map<QByteArray, TopicConfig> registeredTable(const std::set<QByteArray> *only) const;

    void queryRouteFrom(QList<QByteArray> servers, qsizetype index, QByteArray topic, int timeoutMs,
        RouteCallback done);

    BrokerContext &m_ctx;
    std::unique_ptr<remoting::RemotingClient> m_client;
    std::atomic<int> m_grpcPort {0};
    mutable std::mutex m_mutex;
    QList<QByteArray> m_nameServers; // guarded by m_mutex
    QByteArray m_brokerAddr; // guarded by m_mutex
    QByteArray m_haServerAddr; // guarded by m_mutex
    QByteArray m_masterAddr; // guarded by m_mutex
    QByteArray m_masterHaAddr; // guarded by m_mutex
    QList<QByteArray> m_failing; // name servers whose last attempt failed; guarded by m_mutex
    std::map<QByteArray, Target> m_targets; // guarded by m_mutex
    std::atomic<int> m_registrations {0};
    std::atomic<std::int64_t> m_fullSent {0};
    std::atomic<std::int64_t> m_incrementalSent {0};
    std::atomic<std::int64_t> m_bodyBytes {0};
    std::atomic<std::int64_t> m_skipped {0};
};

} // namespace qrocket::broker
