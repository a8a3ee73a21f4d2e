#pragma once

// Helpers of the replication system tests: broker configs for a master and its slave, the
// commit-log bytes of a store read from disk, runtime-info values, and a producer of raw
// SEND_MESSAGE_V2 frames on several threads that records every acknowledged send.

#include "clientlib/protocol/bodies/routebodies.h"
#include "clientlib/protocol/messageid.h"
#include "clientlib/remoting/remotingclient.h"
#include "tests/system/broker/brokertestutil.h"

#include <QDir>
#include <QFile>

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

namespace qrocket::hatest {

using namespace qrocket::brokertest;

constexpr std::int64_t kCommitLogFileSize = 16 * 1024 * 1024;

/// The properties of one broker of a pair (`role` ASYNC_MASTER, SYNC_MASTER or SLAVE).
inline QByteArray brokerConf(const QString &store, quint16 port, const QByteArray &role,
    quint16 masterPort = 0, const QByteArray &extra = {})
{
    QByteArray c = "brokerClusterName=HaCluster\nbrokerName=broker-ha\nbrokerIP1=127.0.0.1\n"
                   "brokerIP2=127.0.0.1\nlistenPort="
        + QByteArray::number(port) + "\nstorePathRootDir=" + store.toUtf8() + "\nbrokerRole=" + role
        + "\nbrokerId=" + (role == "SLAVE" ? "1" : "0")
        + "\nmappedFileSizeCommitLog=" + QByteArray::number(kCommitLogFileSize)
        + "\nmappedFileSizeConsumeQueue=60000\nhaSendHeartbeatInterval=1000\n"
          "haHousekeepingInterval=3000\n";
    if (masterPort != 0)
        c += "haMasterAddress=127.0.0.1:" + QByteArray::number(masterPort + 1) + '\n';
    return c + extra;
}

inline RemotingCommand call(remoting::RemotingClient &client, quint16 port, RemotingCommand req)
{
    return invoke(client, localAddr(port), std::move(req));
}

/// Bytes [from, to) of the commit log under `storeRoot`, read from its files.
inline QByteArray readCommitLog(const QString &storeRoot, std::int64_t from, std::int64_t to)
{
    QByteArray out;
    std::int64_t at = from;
    while (at < to) {
        const std::int64_t fileStart = at - at % kCommitLogFileSize;
        QFile f(storeRoot + QStringLiteral("/commitlog/")
            + QStringLiteral("%1").arg(fileStart, 20, 10, QLatin1Char('0')));
        if (!f.open(QIODevice::ReadOnly) || !f.seek(at - fileStart))
            return out;
        const std::int64_t n = std::min(to - at, fileStart + kCommitLogFileSize - at);
        const QByteArray part = f.read(n);
        out += part;
        if (part.size() != n)
            return out;
        at += n;
    }
    return out;
}

/// GET_BROKER_RUNTIME_INFO as a map; empty when the broker does not answer.
inline std::map<QByteArray, QByteArray> runtimeInfo(
    remoting::RemotingClient &client, quint16 port, int timeoutMs = 3000)
{
    auto r = client.invokeSync(localAddr(port), request(28), timeoutMs);
    if (!r || r->code != 0)
        return {};
    auto t = protocol::KVTable::fromJson(r->body);
    return t ? t->table : std::map<QByteArray, QByteArray> {};
}

inline std::int64_t runtimeLong(
    remoting::RemotingClient &client, quint16 port, const QByteArray &key)
{
    const auto info = runtimeInfo(client, port);
    const auto it = info.find(key);
    bool ok = false;
    const std::int64_t v = it == info.end() ? -1 : it->second.toLongLong(&ok);
    return ok ? v : -1;
}

struct Acked
{
    std::int64_t offset; // commit-log offset of the record (from the offset msgId)
    QByteArray body;
};

/// Sends continuously from `threads` threads (each its own connection) until stop(); keeps
/// every send answered with `okCode` (SUCCESS by default) and counts the others.
class Producer
{
public:
    /// `options`: each thread's client (e.g. TLS to an enforcing broker).
    Producer(quint16 port, QByteArray topic, QByteArray tag, int threads, int bodySize = 200,
        remoting::RemotingClientOptions options = {})
        : m_port(port)
        , m_topic(std::move(topic))
        , m_tag(std::move(tag))
        , m_bodySize(bodySize)
        , m_options(std::move(options))
    {
        for (int t = 0; t < threads; ++t)
            m_threads.emplace_back([this, t] { run(t); });
    }
    ~Producer() { stop(); }
    void stop()
    {
        m_stop = true;
        for (auto &t : m_threads)
            if (t.joinable())
                t.join();
    }
    std::vector<Acked> acked() const
    {
        std::lock_guard lock(m_mutex);
        return m_acked;
    }
    int ackedCount() const { return m_ackedCount.load(); }
    int failedCount() const { return m_failed.load(); }
    int slaveNotAvailable() const { return m_slaveNotAvailable.load(); }

private:
    void run(int t)
    {
        remoting::RemotingClient client(m_options);
        for (int i = 0; !m_stop.load(); ++i) {
            QByteArray body
                = m_tag + "-t" + QByteArray::number(t) + "-" + QByteArray::number(i) + '-';
            body.append(QByteArray(std::max<qsizetype>(0, m_bodySize - body.size()), 'x'));
            auto r = client.invokeSync(localAddr(m_port), sendV2(m_topic, t % 4, body), 3000);
            if (r && r->code == 0) {
                const QByteArray *id = r->ext("msgId");
                auto decoded = id ? protocol::decodeOffsetMessageId(*id)
                                  : Result<protocol::OffsetMessageId>(Status::notFound({}));
                if (decoded) {
                    std::lock_guard lock(m_mutex);
                    m_acked.push_back({decoded->commitLogOffset, body});
                    ++m_ackedCount;
                    continue;
                }
            }
            if (r && r->code == 11)
                ++m_slaveNotAvailable;
            ++m_failed;
            if (!r) // the broker is gone: do not spin
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    }

    const quint16 m_port;
    const QByteArray m_topic;
    const QByteArray m_tag;
    const int m_bodySize;
    const remoting::RemotingClientOptions m_options;
    std::atomic<bool> m_stop {false};
    mutable std::mutex m_mutex;
    std::vector<Acked> m_acked;
    std::atomic<int> m_ackedCount {0};
    std::atomic<int> m_failed {0};
    std::atomic<int> m_slaveNotAvailable {0};
    std::vector<std::thread> m_threads;
};

} // namespace qrocket::hatest
