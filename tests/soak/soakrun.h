#pragma once

// SoakRun: the soak's phases (qrocket-soak's main.cpp says what it does): the cluster, the
// warm-up, the peak measurement, the load with master switches, client churn and the
// per-interval table, then the drain and the verdict. Runs on the main thread; every wait is
// bounded and pumps the event loop (the daemons' output pipes and the etcd client live there).

#include "tests/soak/soakcluster.h"
#include "tests/soak/soakload.h"

#include <QString>
#include <QTemporaryDir>

#include <map>
#include <memory>
#include <vector>

namespace qrocket::soak {

struct Options
{
    int minutes = 30;
    int switchEverySec = 180;
    double rate = 0;
    int replicas = 2;
    int producers = 2;
    int consumers = 2;
    int churnEverySec = 45;
    int bodySize = 256;
    int drainSec = 180;
    int peakSec = 10;
    int reportEverySec = 60;
    int leaseTtl = 3;
    int maxInFlight = 1000;
    QString dir;
    bool keep = false;
};

/// printf to stdout with a UTC time stamp and a newline, flushed.
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/// Runs the event loop for `ms`.
void pump(int ms);
/// SIGINT/SIGTERM: end the load early.
void requestStop();
bool stopRequested();

struct SwitchRecord
{
    int killed = -1;
    std::int64_t killedAt = 0;
    std::int64_t electedMs = -1; // kill to a new master in etcd
    std::int64_t rtoMs = -1; // kill to the first acknowledged send by another replica
    std::int64_t restartedAt = 0;
    std::int64_t rejoinMs = -1; // restart to back in the SyncStateSet
    int newMaster = -1;
};

class SoakRun
{
public:
    explicit SoakRun(Options options);
    ~SoakRun();
    /// The exit code.
    int run();

private:
    bool setUp();
    bool waitForFullSyncStateSet(int timeoutMs);
    double measurePeak();
    void load();
    void stepSwitch(std::int64_t now);
    void stepChurn();
    void report(int minute);
    int finish();
    void stopClients();

    enum class SwitchState { Idle, WaitingRto, Rejoining };

    Options m_o;
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<SoakCluster> m_cluster;
    Ledger m_ledger;
    SendStats m_stats;
    std::vector<std::unique_ptr<LoadProducer>> m_producers;
    std::vector<std::unique_ptr<client::PushConsumer>> m_consumers;
    std::unique_ptr<LoadProducer> m_churnProducer;
    std::unique_ptr<client::PushConsumer> m_churnConsumer;
    int m_churnCount = 0;
    int m_churnFailures = 0;
    double m_rate = 0;

    SwitchState m_switchState = SwitchState::Idle;
    std::int64_t m_nextSwitchAt = 0;
    std::int64_t m_deferredSince = 0;
    std::int64_t m_lastPoll = 0;
    std::int64_t m_oldEpoch = 0;
    std::vector<SwitchRecord> m_switches;
    int m_skippedSwitches = 0;
    int m_restartFailures = 0;

    // The previous interval's cumulative figures.
    std::array<bench::HistogramSnapshot, kMaxReplicas> m_prevLatency {};
    bench::HistogramSnapshot m_prevAll {};
    std::int64_t m_prevOk = 0;
    std::int64_t m_prevFailed = 0;
    std::int64_t m_prevDeliveries = 0;
    std::int64_t m_prevThrottled = 0;
    /// Per daemon name: RSS (KiB), fds, threads, pid and RssAnon (KiB) per interval (the trend
    /// at the end).
    std::map<QString, std::vector<std::array<std::int64_t, 5>>> m_trend;
};

} // namespace qrocket::soak
