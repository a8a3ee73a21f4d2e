#pragma once

// SlaveSynchronize: a slave copies its master's metadata (RocketMQ 4.9's SlaveSynchronize.
// syncAll): the topic table (GET_ALL_TOPIC_CONFIG 21) and the subscription groups
// (GET_ALL_SUBSCRIPTIONGROUP_CONFIG 201), each replaced whole when the master's DataVersion
// differs; the consumer offsets (GET_ALL_CONSUMER_OFFSET 43) merged every time as 4.9.7's
// putAll does (each topic@group of the master replaces the slave's; groups only the slave knows
// are kept) and the delay offsets (GET_ALL_DELAY_OFFSET 45) replaced every time; each persisted
// to the slave's config files; with aclEnable=true the ACL 2.0 users and ACLs too (QRocket's
// GET_AUTH_METADATA 9102, signed with innerAccessKey, replaced whole when they differ; a master
// without it, such as Apache RocketMQ, is logged once and the slave keeps its own). The
// timer checkpoint (GET_TIMER_CHECK_POINT 60) is saved as broker/timer/timersuccession.h's
// master-checkpoint when it carries a fire mark (with timerWheelEnable; a master without timer
// store answers an error, which is not logged: the slave then keeps what it had). The
// master is the broker address the name server returned at registration; nothing happens
// before there is one. A failing request is logged once until it works again.
//
// Threads: syncAll() may be called from any thread (the controller's timer); it only posts
// requests, and the answers are applied on the remoting client's I/O thread (the managers are
// thread-safe). The BrokerContext must outlive this object.

#include <QByteArray>

#include <atomic>
#include <functional>
#include <memory>

namespace qrocket::remoting {
class RemotingClient;
}

namespace qrocket::broker {

struct BrokerContext;

namespace ha {

class SlaveSynchronize
{
public:
    using AddressProvider = std::function<QByteArray()>;
    SlaveSynchronize(BrokerContext &context, AddressProvider masterAddress);
    ~SlaveSynchronize();
    SlaveSynchronize(const SlaveSynchronize &) = delete;
    SlaveSynchronize &operator=(const SlaveSynchronize &) = delete;

    void syncAll();
    /// Stops the remoting client (answers still pending are dropped). Not from its I/O thread.
    void shutdown();
    /// Tables applied so far (tests, status).
    int appliedCount() const { return m_applied.load(); }

private:
    enum Table {
        Topics,
        ConsumerOffsets,
        DelayOffsets,
        SubscriptionGroups,
        Auth,
        TimerCheckpoint,
        TableCount
    };
    void sync(Table table, const QByteArray &master);
    void apply(Table table, const QByteArray &master, const QByteArray &body);
    void failed(Table table, const QByteArray &master, const QString &why);

    BrokerContext &m_ctx;
    AddressProvider m_masterAddress;
    std::unique_ptr<remoting::RemotingClient> m_client;
    std::atomic<bool> m_failing[TableCount] {};
    std::atomic<int> m_applied {0};
};

} // namespace ha
} // namespace qrocket::broker
