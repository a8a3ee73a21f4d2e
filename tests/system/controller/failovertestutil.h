#pragma once

// Helpers of the controller-mode system tests (tst_failover, tst_fencing): a SYNC producer that
// follows whichever of two brokers accepts its sends and keeps every acknowledgement with the
// broker that gave it and when it arrived, the check that acknowledged sends are in a store's
// commit log at their offsets, byte for byte, a controller-mode broker's config and a blocking
// read of the election record.

#include "broker/controller/elector.h"
#include "broker/controller/etcdclient.h"
#include "clientlib/common/byteorder.h"
#include "tests/system/ha/hatestutil.h"

#include <QEventLoop>
#include <QString>
#include <QTimer>

#include <algorithm>
#include <array>
#include <chrono>

namespace qrocket::hatest {

/// broker.conf of one SYNC_MASTER-configured broker of `brokerName` in controller mode.
inline QByteArray controllerBrokerConf(const QByteArray &cluster, const QByteArray &brokerName,
    quint16 port, quint16 namesrvPort, const QString &store, const QString &etcdEndpoint,
    int leaseTtlSeconds, std::int64_t commitLogFileSize)
{
    return "brokerClusterName=" + cluster + "\nbrokerName=" + brokerName
        + "\nbrokerIP1=127.0.0.1\nbrokerIP2=127.0.0.1\nlistenPort=" + QByteArray::number(port)
        + "\nnamesrvAddr=127.0.0.1:" + QByteArray::number(namesrvPort) + "\nstorePathRootDir="
        + store.toUtf8() + "\nbrokerRole=SYNC_MASTER\nenableControllerMode=true\netcdEndpoints="
        + etcdEndpoint.toUtf8() + "\netcdLeaseTtlSeconds=" + QByteArray::number(leaseTtlSeconds)
        + "\nmappedFileSizeCommitLog=" + QByteArray::number(commitLogFileSize)
        + "\nmappedFileSizeConsumeQueue=60000\nhaSendHeartbeatInterval=1000\n"
          "haHousekeepingInterval=3000\n";
}

/// The election record under `key` (nullopt when absent, unreadable or after 5 s).
inline std::optional<broker::controller::ElectionRecord> readElectionRecord(
    broker::controller::EtcdClient &client, const QByteArray &key)
{
    std::optional<broker::controller::ElectionRecord> out;
    bool done = false;
    QEventLoop loop;
    QTimer::singleShot(5000, &loop, &QEventLoop::quit);
    client.get(key, [&](Result<std::optional<broker::controller::EtcdKeyValue>> r) {
        if (r && r->has_value())
            out = broker::controller::ElectionRecord::fromJson((*r)->value);
        done = true;
        loop.quit();
    });
    if (!done)
        loop.exec();
    return out;
}

struct AckedAt
{
    int broker; // index of the broker that acknowledged
    std::int64_t offset;
    QByteArray body;
    std::int64_t atMs; // steady ms when the acknowledgement arrived
};

inline std::int64_t steadyMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

/// Sends SYNC from `threads` threads to whichever of `ports` accepts (moving to the other one
/// after a refusal or a failure) until stop(); keeps every acknowledged send.
class FailoverProducer
{
public:
    FailoverProducer(
        std::array<quint16, 2> ports, QByteArray tag, int threads, QByteArray topic = "Failover")
        : FailoverProducer(std::vector<quint16>(ports.begin(), ports.end()), std::move(tag),
            threads, std::move(topic))
    { }
    /// Any number of brokers: after a refusal or a failure it tries the next one.
    FailoverProducer(
        std::vector<quint16> ports, QByteArray tag, int threads, QByteArray topic = "Failover")
        : m_ports(std::move(ports)), m_tag(std::move(tag)), m_topic(std::move(topic))
    {
        for (int t = 0; t < threads; ++t)
            m_threads.emplace_back([this, t] { run(t); });
    }
    ~FailoverProducer() { stop(); }
    void stop()
    {
        m_stop = true;
        for (auto &t : m_threads)
            if (t.joinable())
                t.join();
    }
    std::vector<AckedAt> acked() const
    {
        std::lock_guard lock(m_mutex);
        return m_acked;
    }
    int ackedBy(int broker) const
    {
        std::lock_guard lock(m_mutex);
        return int(std::count_if(
            m_acked.begin(), m_acked.end(), [&](const AckedAt &a) { return a.broker == broker; }));
    }
    /// Sends answered with a code other than SUCCESS, or not answered.
    int refused() const { return m_refused.load(); }
    /// Acknowledgements by `broker` that arrived at or after `sinceMs` (steady ms).
    int ackedBySince(int broker, std::int64_t sinceMs) const
    {
        std::lock_guard lock(m_mutex);
        return int(std::count_if(m_acked.begin(), m_acked.end(),
            [&](const AckedAt &a) { return a.broker == broker && a.atMs >= sinceMs; }));
    }

private:
    void run(int t)
    {
        remoting::RemotingClient client;
        int target = 0;
        for (int i = 0; !m_stop.load(); ++i) {
            QByteArray body = m_tag + "-t" + QByteArray::number(t) + "-" + QByteArray::number(i)
                + '-' + QByteArray(120, 'x');
            auto r
                = client.invokeSync(localAddr(m_ports[target]), sendV2(m_topic, t % 4, body), 3000);
            if (r && r->code == 0) {
                const QByteArray *id = r->ext("msgId");
                auto decoded = id ? protocol::decodeOffsetMessageId(*id)
                                  : Result<protocol::OffsetMessageId>(Status::notFound({}));
                if (decoded) {
                    std::lock_guard lock(m_mutex);
                    m_acked.push_back({target, decoded->commitLogOffset, body, steadyMs()});
                    continue;
                }
            }
            m_refused.fetch_add(1);
            // Refused (a slave, fenced, no replica) or gone: try the next one.
            target = (target + 1) % int(m_ports.size());
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    }

    const std::vector<quint16> m_ports;
    std::atomic<int> m_refused {0};
    const QByteArray m_tag;
    const QByteArray m_topic;
    std::atomic<bool> m_stop {false};
    mutable std::mutex m_mutex;
    std::vector<AckedAt> m_acked;
    std::vector<std::thread> m_threads;
};

/// Empty when every acknowledged send is in the commit log under `storeRoot` (which ends at
/// `end`) at its offset with its body; else what is wrong with the first one that is not.
inline QString missingAcked(
    const QString &storeRoot, std::int64_t end, const std::vector<AckedAt> &acked)
{
    for (const AckedAt &a : acked) {
        if (a.offset >= end)
            return QStringLiteral("acked by broker %1 at %2, the store ends at %3")
                .arg(a.broker)
                .arg(a.offset)
                .arg(end);
        const QByteArray head = readCommitLog(storeRoot, a.offset, a.offset + 4);
        if (head.size() != 4)
            return QStringLiteral("acked at %1: unreadable").arg(a.offset);
        const QByteArray rec
            = readCommitLog(storeRoot, a.offset, a.offset + readI32(head.constData()));
        protocol::MessageRecordView v;
        if (protocol::decodeRecord(rec, v, true).status != protocol::RecordStatus::Ok)
            return QStringLiteral("acked at %1: no valid record there").arg(a.offset);
        if (QByteArray(v.body.toByteArray()) != a.body)
            return QStringLiteral("acked at %1: another body there").arg(a.offset);
    }
    return {};
}

} // namespace qrocket::hatest
