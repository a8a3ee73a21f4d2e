#include "tests/soak/soakrun.h"

#include <QDateTime>
#include <QEventLoop>
#include <QFile>
#include <QTemporaryDir>
#include <QTimer>

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <unistd.h>

namespace qrocket::soak {

namespace {

std::atomic<bool> g_stop {false};

constexpr std::int64_t kNoAckLimitMs = 60000; // a switch without an acknowledgement this long
constexpr std::int64_t kRejoinLimitMs = 120000;
constexpr std::int64_t kDeferLimitMs = 120000;
constexpr double kChurnRate = 20; // messages/s of the churn producer

QByteArray setText(const std::vector<int> &set)
{
    QByteArray out = "{";
    for (std::size_t i = 0; i < set.size(); ++i)
        out += (i ? "," : "") + QByteArray::number(set[i]);
    return out + '}';
}

double ms(double micros)
{
    return micros / 1000.0;
}

} // namespace

void say(const char *fmt, ...)
{
    const QByteArray ts
        = QDateTime::currentDateTimeUtc().toString(QStringLiteral("HH:mm:ss")).toUtf8();
    std::printf("[%s] ", ts.constData());
    va_list args;
    va_start(args, fmt);
    std::vprintf(fmt, args);
    va_end(args);
    std::printf("\n");
    std::fflush(stdout);
}

void pump(int ms)
{
    QEventLoop loop;
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
}

void requestStop()
{
    g_stop = true;
}

bool stopRequested()
{
    return g_stop.load();
}

SoakRun::SoakRun(Options options) : m_o(std::move(options))
{ }

SoakRun::~SoakRun()
{
    stopClients();
    if (m_cluster)
        m_cluster->stop();
}

int SoakRun::run()
{
    if (testlib::EtcdProcess::program().isEmpty()) {
        say("no etcd binary (Debian: etcd-server; or set QROCKET_ETCD): skipped");
        return 77; // ctest's SKIP_RETURN_CODE for tst_soak_smoke
    }
    if (!setUp()) {
        stopClients();
        if (m_cluster) {
            for (int i = 0; i < m_cluster->replicas(); ++i)
                say("broker%d said (tail):\n%s", i, m_cluster->brokerTail(i, 3000).constData());
        }
        return 2;
    }
    load();
    return finish();
}

bool SoakRun::setUp()
{
    m_dir = m_o.dir.isEmpty()
        ? std::make_unique<QTemporaryDir>()
        : std::make_unique<QTemporaryDir>(m_o.dir + QStringLiteral("/qrocket-soak-XXXXXX"));
    if (!m_dir->isValid()) {
        say("cannot create the run's directory");
        return false;
    }
    m_dir->setAutoRemove(!m_o.keep);
    say("qrocket-soak: %d min, switch every %d s, %d replicas, %d producers, %d consumers, "
        "churn every %d s, body %d B, lease TTL %d s; directory %s",
        m_o.minutes, m_o.switchEverySec, m_o.replicas, m_o.producers, m_o.consumers,
        m_o.churnEverySec, m_o.bodySize, m_o.leaseTtl, qPrintable(m_dir->path()));
    m_cluster = std::make_unique<SoakCluster>(m_dir->path(), m_o.replicas, m_o.leaseTtl);
    if (!m_cluster->start()) {
        say("cluster: %s", qPrintable(m_cluster->error()));
        return false;
    }
    for (int i = 0; i < m_cluster->replicas(); ++i) {
        m_stats.ports[std::size_t(i)] = m_cluster->brokerAddr(i).split(':').value(1).toInt();
        say("broker%d at %s", i, m_cluster->brokerAddr(i).constData());
    }
    say("name server at %s", m_cluster->namesrvAddr().constData());
    if (!waitForFullSyncStateSet(60000)) {
        say("no master with every replica in its SyncStateSet within 60 s");
        return false;
    }
    // Warm-up: sync sends until one is acknowledged (the first creates the topic through
    // TBW102 and registers its route).
    QString error;
    {
        LoadProducer warm(
            m_cluster->namesrvAddr(), "warmup", m_ledger, m_stats, 0, m_o.bodySize, 1);
        if (Status s = warm.start(false); !s) {
            say("warm-up producer: %s", qPrintable(s.toString()));
            return false;
        }
        const std::int64_t until = steadyMs() + 60000;
        bool sent = false;
        while (!sent && steadyMs() < until && !stopRequested()) {
            error = warm.sendOneSync();
            sent = error.isEmpty();
            if (!sent)
                pump(500);
        }
        if (!sent) {
            say("warm-up send never succeeded in 60 s: %s", qPrintable(error));
            return false;
        }
    }
    for (int i = 0; i < m_o.consumers; ++i) {
        auto c = startConsumer(
            m_cluster->namesrvAddr(), "soak-c" + QByteArray::number(i), m_ledger, &error);
        if (!c) {
            say("consumer %d: %s", i, qPrintable(error));
            return false;
        }
        m_consumers.push_back(std::move(c));
    }
    const std::int64_t until = steadyMs() + 60000;
    auto allAssigned = [&] {
        for (auto &c : m_consumers)
            if (c->assignedQueues().empty())
                return false;
        return true;
    };
    while (!allAssigned() && steadyMs() < until && !stopRequested())
        pump(200);
    if (!allAssigned()) {
        say("the consumers own no queues after 60 s");
        return false;
    }
    m_rate = m_o.rate > 0 ? m_o.rate : measurePeak() / 2;
    if (m_rate <= 0) {
        say("the peak measurement acknowledged nothing");
        return false;
    }
    for (int i = 0; i < m_o.producers; ++i) {
        auto p
            = std::make_unique<LoadProducer>(m_cluster->namesrvAddr(), "p" + QByteArray::number(i),
                m_ledger, m_stats, m_rate / m_o.producers, m_o.bodySize, m_o.maxInFlight);
        if (Status s = p->start(); !s) {
            say("producer %d: %s", i, qPrintable(s.toString()));
            return false;
        }
        m_producers.push_back(std::move(p));
    }
    say("load: %.0f msg/s from %d producers%s", m_rate, m_o.producers,
        m_o.rate > 0 ? " (--rate)" : " (half the measured peak)");
    return true;
}

bool SoakRun::waitForFullSyncStateSet(int timeoutMs)
{
    const std::int64_t until = steadyMs() + timeoutMs;
    while (steadyMs() < until && !stopRequested()) {
        const auto e = m_cluster->election();
        if (e && e->master >= 0 && int(e->syncStateSet.size()) == m_cluster->replicas()) {
            say("master broker%d, epoch %lld, SyncStateSet %s", e->master,
                static_cast<long long>(e->epoch), setText(e->syncStateSet).constData());
            return true;
        }
        pump(300);
    }
    return false;
}

double SoakRun::measurePeak()
{
    // As fast as 256 sends in flight per producer allow, for --peak-seconds; the rate counted
    // over all but the first two seconds (connections, routes).
    std::vector<std::unique_ptr<LoadProducer>> peak;
    for (int i = 0; i < m_o.producers; ++i) {
        peak.push_back(std::make_unique<LoadProducer>(m_cluster->namesrvAddr(),
            "peak" + QByteArray::number(i), m_ledger, m_stats, 0, m_o.bodySize, 256));
        if (Status s = peak.back()->start(); !s) {
            say("peak producer: %s", qPrintable(s.toString()));
            return 0;
        }
    }
    pump(2000);
    const std::int64_t t0 = steadyMs();
    const std::int64_t ok0 = m_stats.ok.load();
    pump((m_o.peakSec - 2) * 1000);
    const double seconds = double(steadyMs() - t0) / 1000.0;
    const double rate = double(m_stats.ok.load() - ok0) / seconds;
    peak.clear(); // stops them (waits for their sends in flight)
    say("peak: %.0f acknowledged sends/s over %.1f s (%d producers, 256 in flight each)", rate,
        seconds, m_o.producers);
    return rate;
}

void SoakRun::load()
{
    const std::int64_t start = steadyMs();
    const std::int64_t end = start + std::int64_t(m_o.minutes) * 60000;
    m_nextSwitchAt = start + std::int64_t(m_o.switchEverySec) * 1000;
    std::int64_t nextReport = start + std::int64_t(m_o.reportEverySec) * 1000;
    std::int64_t nextChurn
        = m_o.churnEverySec > 0 ? start + std::int64_t(m_o.churnEverySec) * 1000 : end + 1;
    int interval = 0;
    // The interval's cumulative starting points.
    for (int i = 0; i < kMaxReplicas; ++i)
        m_prevLatency[std::size_t(i)] = m_stats.latency[std::size_t(i)].snapshot();
    m_prevAll = m_stats.allLatency.snapshot();
    m_prevOk = m_stats.ok.load();
    m_prevFailed = m_stats.failed.load();
    m_prevDeliveries = m_ledger.deliveries();
    m_prevThrottled = m_stats.throttled.load();
    report(0);
    while (!stopRequested()) {
        const std::int64_t now = steadyMs();
        if (now >= end && m_switchState == SwitchState::Idle)
            break;
        if (now >= end + kNoAckLimitMs + kRejoinLimitMs) // a switch still open: bounded
            break;
        if (now < end)
            stepSwitch(now);
        else if (m_switchState != SwitchState::Idle)
            stepSwitch(now); // finish the switch under way (no new one)
        if (now >= nextChurn && now < end) {
            stepChurn();
            nextChurn += std::int64_t(m_o.churnEverySec) * 1000;
        }
        if (now >= nextReport) {
            report(++interval);
            nextReport += std::int64_t(m_o.reportEverySec) * 1000;
        }
        pump(100);
    }
    // The last (partial) interval.
    report(++interval);
}

void SoakRun::stepSwitch(std::int64_t now)
{
    switch (m_switchState) {
    case SwitchState::Idle: {
        if (now < m_nextSwitchAt || now - m_lastPoll < 1000)
            return;
        m_lastPoll = now;
        const auto e = m_cluster->election();
        if (!e || e->master < 0 || int(e->syncStateSet.size()) < m_cluster->replicas()) {
            if (m_deferredSince == 0) {
                m_deferredSince = now;
                say("switch deferred: master %d, SyncStateSet %s (waiting for every replica)",
                    e ? e->master : -1, e ? setText(e->syncStateSet).constData() : "?");
            }
            if (now - m_deferredSince > kDeferLimitMs) {
                say("switch SKIPPED: the SyncStateSet was not full for %lld s",
                    static_cast<long long>(kDeferLimitMs / 1000));
                ++m_skippedSwitches;
                m_deferredSince = 0;
                m_nextSwitchAt = now + std::int64_t(m_o.switchEverySec) * 1000;
            }
            return;
        }
        m_deferredSince = 0;
        SwitchRecord r;
        r.killed = e->master;
        m_oldEpoch = e->epoch;
        m_stats.firstAckAfterMs = 0;
        m_stats.watchKilled = -1;
        r.killedAt = steadyMs();
        m_stats.watchSinceMs = r.killedAt;
        m_stats.watchKilled = r.killed;
        m_cluster->killBroker(r.killed);
        say("switch %zu: SIGKILL master broker%d (epoch %lld)", m_switches.size() + 1, r.killed,
            static_cast<long long>(e->epoch));
        m_switches.push_back(r);
        m_switchState = SwitchState::WaitingRto;
        return;
    }
    case SwitchState::WaitingRto: {
        SwitchRecord &r = m_switches.back();
        if (r.electedMs < 0 && now - m_lastPoll >= 250) {
            m_lastPoll = now;
            const auto e = m_cluster->election();
            if (e && e->master >= 0 && e->epoch > m_oldEpoch) {
                r.electedMs = steadyMs() - r.killedAt;
                r.newMaster = e->master;
            }
        }
        const std::int64_t first = m_stats.firstAckAfterMs.load();
        const bool acked = first != 0;
        if (!acked && now - r.killedAt < kNoAckLimitMs)
            return;
        m_stats.watchKilled = -1;
        if (r.newMaster < 0) { // the acknowledgement came before a poll saw the new record
            const auto e = m_cluster->election();
            if (e && e->master >= 0 && e->epoch > m_oldEpoch)
                r.newMaster = e->master; // elected: unknown, before the RTO
        }
        if (acked) {
            r.rtoMs = first - r.killedAt;
            say("switch %zu: new master broker%d elected after %lld ms; RTO %lld ms (kill to "
                "the first acknowledged send)",
                m_switches.size(), r.newMaster, static_cast<long long>(r.electedMs),
                static_cast<long long>(r.rtoMs));
        } else {
            say("switch %zu: NO acknowledged send within %lld s of the kill (elected after %lld "
                "ms; last send error: %s)",
                m_switches.size(), static_cast<long long>(kNoAckLimitMs / 1000),
                static_cast<long long>(r.electedMs), qPrintable(m_stats.lastError));
        }
        m_cluster->saveOutput(r.killed,
            m_dir->filePath(QStringLiteral("broker%1-until-switch%2.log")
                                .arg(r.killed)
                                .arg(m_switches.size())));
        if (!m_cluster->startBroker(r.killed)) {
            ++m_restartFailures;
            say("switch %zu: restarting broker%d failed: %s", m_switches.size(), r.killed,
                qPrintable(m_cluster->error()));
        }
        // A restart on another port (the old one taken) moves the replica.
        m_stats.ports[std::size_t(r.killed)]
            = m_cluster->brokerAddr(r.killed).split(':').value(1).toInt();
        r.restartedAt = steadyMs();
        m_switchState = SwitchState::Rejoining;
        return;
    }
    case SwitchState::Rejoining: {
        SwitchRecord &r = m_switches.back();
        if (now - m_lastPoll < 500)
            return;
        m_lastPoll = now;
        const auto e = m_cluster->election();
        const bool back = e
            && std::find(e->syncStateSet.begin(), e->syncStateSet.end(), r.killed)
                != e->syncStateSet.end();
        if (back) {
            r.rejoinMs = steadyMs() - r.restartedAt;
            say("switch %zu: broker%d rejoined the SyncStateSet %lld ms after its restart "
                "(master broker%d, epoch %lld, set %s)",
                m_switches.size(), r.killed, static_cast<long long>(r.rejoinMs), e->master,
                static_cast<long long>(e->epoch), setText(e->syncStateSet).constData());
        } else if (now - r.restartedAt > kRejoinLimitMs) {
            say("switch %zu: broker%d NOT back in the SyncStateSet %lld s after its restart",
                m_switches.size(), r.killed, static_cast<long long>(kRejoinLimitMs / 1000));
            say("broker%d said (tail):\n%s", r.killed,
                m_cluster->brokerTail(r.killed, 3000).constData());
        } else {
            return;
        }
        m_switchState = SwitchState::Idle;
        m_nextSwitchAt = std::max(now, r.killedAt + std::int64_t(m_o.switchEverySec) * 1000);
        return;
    }
    }
}

void SoakRun::stepChurn()
{
    // Alternates: an extra consumer joins the group (rebalance) or leaves it; an extra producer
    // connects and sends, or shuts down.
    ++m_churnCount;
    if (m_churnConsumer) {
        m_churnConsumer->shutdown();
        m_churnConsumer.reset();
    } else {
        QString error;
        m_churnConsumer = startConsumer(m_cluster->namesrvAddr(),
            "soak-churn-c" + QByteArray::number(m_churnCount), m_ledger, &error);
        if (!m_churnConsumer) {
            ++m_churnFailures;
            say("churn: consumer did not start: %s", qPrintable(error));
        }
    }
    if (m_churnProducer) {
        m_churnProducer->stop();
        m_churnProducer.reset();
    } else {
        m_churnProducer = std::make_unique<LoadProducer>(m_cluster->namesrvAddr(),
            "churn" + QByteArray::number(m_churnCount), m_ledger, m_stats, kChurnRate, m_o.bodySize,
            100);
        if (Status s = m_churnProducer->start(); !s) {
            ++m_churnFailures;
            say("churn: producer did not start: %s", qPrintable(s.toString()));
            m_churnProducer.reset();
        }
    }
}

void SoakRun::report(int interval)
{
    if (interval == 0)
        std::printf("%6s %-8s %8s %-8s %8s %9s %5s %5s %9s %9s\n", "t(min)", "daemon", "pid",
            "role", "RSS(MiB)", "anon(MiB)", "fds", "thr", "acked", "p99(ms)");
    // The row's time in minutes since the load began; "end" after the drain.
    const QByteArray t = interval < 0
        ? QByteArray("end")
        : QByteArray::number(double(interval) * m_o.reportEverySec / 60.0, 'f', 1);
    const auto e = m_cluster->election();
    int broker = 0;
    auto daemons = m_cluster->daemons();
    daemons.push_back({QStringLiteral("soak"), qint64(::getpid())});
    for (const auto &d : daemons) {
        const ProcStats s = procStats(d.pid);
        m_trend[d.name].push_back({s.rssKiB, s.fds, s.threads, d.pid, s.anonKiB});
        const bool isBroker = d.name.startsWith(QLatin1String("broker"));
        QByteArray role = "-";
        QByteArray acked = "-";
        QByteArray p99 = "-";
        if (isBroker) {
            const int i = broker++;
            if (d.pid < 0)
                role = "down";
            else if (e && e->master == i)
                role = "master";
            else if (e
                && std::find(e->syncStateSet.begin(), e->syncStateSet.end(), i)
                    != e->syncStateSet.end())
                role = "in-sync";
            else
                role = "follower";
            const auto now = m_stats.latency[std::size_t(i)].snapshot();
            const auto delta = now - m_prevLatency[std::size_t(i)];
            m_prevLatency[std::size_t(i)] = now;
            acked = QByteArray::number(qulonglong(delta.count));
            if (delta.count > 0)
                p99 = QByteArray::number(ms(delta.percentile(0.99)), 'f', 2);
        }
        // A daemon that is down (killed, not yet restarted) has no figures: "-".
        const auto figure = [](std::int64_t v, double scale, int decimals) {
            return v < 0 ? QByteArray("-") : QByteArray::number(double(v) / scale, 'f', decimals);
        };
        std::printf("%6s %-8s %8s %-8s %8s %9s %5s %5s %9s %9s\n", t.constData(),
            qPrintable(d.name), figure(d.pid, 1, 0).constData(), role.constData(),
            figure(s.rssKiB, 1024.0, 1).constData(), figure(s.anonKiB, 1024.0, 1).constData(),
            figure(s.fds, 1, 0).constData(), figure(s.threads, 1, 0).constData(), acked.constData(),
            p99.constData());
    }
    const auto all = m_stats.allLatency.snapshot();
    const auto delta = all - m_prevAll;
    m_prevAll = all;
    const std::int64_t ok = m_stats.ok.load();
    const std::int64_t failed = m_stats.failed.load();
    const std::int64_t deliveries = m_ledger.deliveries();
    const std::int64_t throttled = m_stats.throttled.load();
    std::printf("%6s %-8s sends acked %lld, failed %lld, p99 %.2f ms, max %.1f ms; delivered "
                "%lld; throttled %lld\n",
        t.constData(), "ALL", static_cast<long long>(ok - m_prevOk),
        static_cast<long long>(failed - m_prevFailed), ms(delta.percentile(0.99)),
        ms(double(delta.maxFromBuckets())), static_cast<long long>(deliveries - m_prevDeliveries),
        static_cast<long long>(throttled - m_prevThrottled));
    std::fflush(stdout);
    m_prevOk = ok;
    m_prevFailed = failed;
    m_prevDeliveries = deliveries;
    m_prevThrottled = throttled;
}

void SoakRun::stopClients()
{
    if (m_churnProducer)
        m_churnProducer->stop();
    m_churnProducer.reset();
    for (auto &p : m_producers)
        p->stop();
    m_producers.clear();
    if (m_churnConsumer)
        m_churnConsumer->shutdown();
    m_churnConsumer.reset();
    for (auto &c : m_consumers)
        c->shutdown();
    m_consumers.clear();
}

int SoakRun::finish()
{
    // Stop sending; the consumers keep consuming until every acknowledged key arrived, nothing
    // arrived for 60 s, or --drain-seconds passed.
    if (m_churnProducer)
        m_churnProducer->stop();
    for (auto &p : m_producers)
        p->stop();
    say("sending stopped; waiting up to %d s for the consumers", m_o.drainSec);
    const std::int64_t drainStart = steadyMs();
    std::int64_t lastProgress = drainStart;
    std::int64_t lastDeliveries = m_ledger.deliveries();
    std::int64_t lastSay = drainStart;
    Ledger::Totals t = m_ledger.totals();
    while (t.lost > 0 && steadyMs() - drainStart < std::int64_t(m_o.drainSec) * 1000
        && steadyMs() - lastProgress < 60000) {
        pump(500);
        const std::int64_t d = m_ledger.deliveries();
        if (d != lastDeliveries) {
            lastDeliveries = d;
            lastProgress = steadyMs();
        }
        if (steadyMs() - lastSay >= 10000) {
            lastSay = steadyMs();
            say("draining: %lld acknowledged not yet delivered", static_cast<long long>(t.lost));
        }
        t = m_ledger.totals();
    }
    say("drained in %lld ms", static_cast<long long>(steadyMs() - drainStart));
    report(-1); // the daemons after the drain
    stopClients();

    std::printf("\n== summary ==\n");
    std::printf("rate %.0f msg/s, %d min; sends acknowledged %lld, failed %lld (not "
                "acknowledged: allowed to be lost)\n",
        m_rate, m_o.minutes, static_cast<long long>(t.acked),
        static_cast<long long>(m_stats.failed.load()));
    std::printf("deliveries %lld; LOST (acknowledged, never delivered) %lld; duplicates %lld; "
                "delivered although not acknowledged %lld; foreign %lld\n",
        static_cast<long long>(t.deliveries), static_cast<long long>(t.lost),
        static_cast<long long>(t.duplicates), static_cast<long long>(t.unackedDelivered),
        static_cast<long long>(t.foreign));
    if (t.lost > 0) {
        // Every lost key, and the run's directory kept: the stores say where each one is.
        const QString path = m_dir->filePath(QStringLiteral("lost-keys.txt"));
        QFile f(path);
        if (f.open(QIODevice::WriteOnly))
            f.write(m_ledger.someLost(int(std::min<std::int64_t>(t.lost, 10000000))).join('\n'));
        m_dir->setAutoRemove(false);
        std::printf("some lost keys: %s\nall in %s (the run's directory is kept)\n",
            m_ledger.someLost(20).join(' ').constData(), qPrintable(path));
    }
    std::printf("switches %zu (skipped %d, restart failures %d); churn steps %d (failures %d)\n",
        m_switches.size(), m_skippedSwitches, m_restartFailures, m_churnCount, m_churnFailures);
    std::printf("%6s %7s %10s %11s %8s %11s\n", "switch", "killed", "new", "elected(ms)", "RTO(ms)",
        "rejoin(ms)");
    bool allRecovered = true;
    std::int64_t worst = 0;
    for (std::size_t i = 0; i < m_switches.size(); ++i) {
        const SwitchRecord &r = m_switches[i];
        std::printf("%6zu %7d %10d %11lld %8lld %11lld\n", i + 1, r.killed, r.newMaster,
            static_cast<long long>(r.electedMs), static_cast<long long>(r.rtoMs),
            static_cast<long long>(r.rejoinMs));
        if (r.rtoMs < 0)
            allRecovered = false;
        worst = std::max(worst, r.rtoMs);
    }
    std::printf("worst RTO %lld ms\n", static_cast<long long>(worst));
    std::printf("RSS/fds/threads trend (first row -> 5th row -> last row; max RSS; restarts = new "
                "pids):\n");
    for (const auto &[name, samples] : m_trend) {
        std::int64_t maxRss = 0;
        int restarts = 0; // another live pid than the previous live one
        std::int64_t lastPid = -1;
        for (const auto &sample : samples) {
            maxRss = std::max(maxRss, sample[0]);
            if (sample[3] > 0) {
                if (lastPid > 0 && sample[3] != lastPid)
                    ++restarts;
                lastPid = sample[3];
            }
        }
        const auto &a = samples.front();
        const auto &m = samples[std::min<std::size_t>(5, samples.size() - 1)];
        const auto &b = samples.back();
        std::printf("  %-8s RSS %.1f -> %.1f -> %.1f MiB (max %.1f), anon %.1f -> %.1f -> %.1f "
                    "MiB, fds %lld -> %lld -> %lld, threads %lld -> %lld -> %lld, restarts %d\n",
            qPrintable(name), double(a[0]) / 1024.0, double(m[0]) / 1024.0, double(b[0]) / 1024.0,
            double(maxRss) / 1024.0, double(a[4]) / 1024.0, double(m[4]) / 1024.0,
            double(b[4]) / 1024.0, static_cast<long long>(a[1]), static_cast<long long>(m[1]),
            static_cast<long long>(b[1]), static_cast<long long>(a[2]),
            static_cast<long long>(m[2]), static_cast<long long>(b[2]), restarts);
    }
    const bool ok = t.lost == 0 && allRecovered && t.acked > 0;
    std::printf("verdict: %s\n", ok ? "PASS" : "FAIL");
    std::fflush(stdout);
    m_cluster->stop();
    if (!ok) { // the evidence: each broker's output since its last start (earlier ones are saved)
        m_dir->setAutoRemove(false);
        for (int i = 0; i < m_cluster->replicas(); ++i)
            m_cluster->saveOutput(i, m_dir->filePath(QStringLiteral("broker%1-last.log").arg(i)));
        std::printf("run directory kept: %s\n", qPrintable(m_dir->path()));
    }
    return ok ? 0 : 1;
}

} // namespace qrocket::soak
