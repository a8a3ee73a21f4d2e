#pragma once

// Helpers for the client library's tests: an EmbeddedCluster with the options these tests use,
// client options pointing at it, and bounded waits on counters filled by listener threads.

#include "broker/config/brokerconfig.h"
#include "clientlib/client/producer.h"
#include "clientlib/client/pushconsumer.h"
#include "clientlib/embedded/embeddedcluster.h"
#include "storage/core/storeconfig.h"

#include <QElapsedTimer>
#include <QTest>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

/// QVERIFY a Result or Status, printing its error only when there is one.
#define QVERIFY_OK(expr)                                                                           \
    do {                                                                                           \
        const auto &qrocketOutcome = (expr);                                                       \
        QVERIFY2(static_cast<bool>(qrocketOutcome),                                                \
            qPrintable(::qrocket::clienttest::errorText(qrocketOutcome)));                         \
    } while (false)

namespace qrocket::clienttest {

template<typename T>
QString errorText(const Result<T> &r)
{
    return r ? QString() : r.error().toString();
}
inline QString errorText(const Status &s)
{
    return s.toString();
}

/// Starts `brokers` brokers (SQL92 on, fast transaction checks); QVERIFY-fails when it cannot.
inline std::unique_ptr<EmbeddedCluster> startCluster(int brokers = 1,
    std::function<void(int, broker::BrokerConfig &, storage::MessageStoreConfig &)> extra = {})
{
    EmbeddedClusterOptions o;
    o.brokerCount = brokers;
    o.configureBroker = [extra](int i, broker::BrokerConfig &b, storage::MessageStoreConfig &s) {
        b.enablePropertyFilter = true;
        b.transactionTimeOut = 500;
        b.transactionCheckInterval = 500;
        if (extra)
            extra(i, b, s);
    };
    auto cluster = std::make_unique<EmbeddedCluster>(o);
    const Status s = cluster->start();
    if (!s) {
        qWarning("cluster: %s", qPrintable(s.message()));
        return nullptr;
    }
    return cluster;
}

inline client::ClientConfig clientConfig(const EmbeddedCluster &cluster, const QByteArray &instance)
{
    client::ClientConfig c;
    c.namesrvAddr = cluster.namesrvAddress().toUtf8();
    c.clientIP = "127.0.0.1";
    c.instanceName = instance;
    c.pollNameServerInterval = 1000;
    c.heartbeatBrokerInterval = 1000;
    c.persistConsumerOffsetInterval = 500;
    return c;
}

/// Waits until `done()` or `ms` passed, spinning the event loop; true when done.
inline bool waitFor(const std::function<bool()> &done, int ms)
{
    QElapsedTimer t;
    t.start();
    while (!done()) {
        if (t.elapsed() > ms)
            return false;
        QTest::qWait(10);
    }
    return true;
}

/// Thread-safe record of what a listener received.
struct Received
{
    std::mutex mutex;
    std::multiset<QByteArray> bodies;
    std::set<QByteArray> uniq;
    std::vector<client::MessageExt> messages;
    std::atomic<int> count {0};

    void add(const client::MessageExt &m)
    {
        std::lock_guard lock(mutex);
        bodies.insert(m.body());
        uniq.insert(m.msgId());
        messages.push_back(m);
        ++count;
    }
    std::size_t distinct()
    {
        std::lock_guard lock(mutex);
        return uniq.size();
    }
};

} // namespace qrocket::clienttest
