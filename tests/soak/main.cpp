// qrocket-soak: issue 28's soak of controller mode (a program, bounded, not part of CI).
//
// Starts its own etcd, one qrocket-namesrv and 2 (or 3) qrocket-broker replicas of one
// brokerName in controller mode with SYNC acknowledgements (allAckInSyncStateSet) as real
// processes on loopback, all data in a temporary directory. Then, for --minutes:
//   - producers of QRocket's client send async at --rate messages/s (default: half of the peak
//     measured for --peak-seconds first), each message with a unique key in its body;
//   - push consumers (clustering) record every delivery by key;
//   - every --switch-every the master (read from etcd) is SIGKILLed once every replica is in the
//     SyncStateSet; the RTO (kill to the first send acknowledged by another replica) is printed;
//     the killed broker is started again and must rejoin the SyncStateSet as a follower;
//   - client churn: every --churn-every an extra consumer joins or leaves the group and an extra
//     producer starts or stops;
//   - every --report-every a table row per daemon: RSS, open files, threads, and per replica
//     the sends it acknowledged and their p99 latency in that interval, plus a totals row.
// At the end it stops sending, waits (at most --drain-seconds) for the consumers to catch up and
// checks that every acknowledged send was delivered at least once: lost and duplicate counts.
// Exit code: 0 when nothing was lost and every switch recovered, 1 otherwise, 2 when the cluster
// or the clients could not be set up, 77 without an etcd binary (skipped). SIGINT/SIGTERM end the
// load early (then the same checks); every child process dies with the program (PR_SET_PDEATHSIG).

#include "clientlib/common/signalwatcher.h"
#include "tests/soak/soakcluster.h"
#include "tests/soak/soakload.h"
#include "tests/soak/soakrun.h"

#include <QCommandLineParser>
#include <QCoreApplication>

#include <csignal>
#include <cstdio>
#include <unistd.h>

using namespace qrocket;
using namespace qrocket::soak;

namespace {

/// "20s", "3m", "90" (seconds); -1 when malformed.
int parseSeconds(const QString &text)
{
    bool ok = false;
    if (text.endsWith(QLatin1Char('m'))) {
        const int m = text.chopped(1).toInt(&ok);
        return ok && m >= 0 ? m * 60 : -1;
    }
    const int s = (text.endsWith(QLatin1Char('s')) ? text.chopped(1) : text).toInt(&ok);
    return ok && s >= 0 ? s : -1;
}

bool parseOptions(const QCoreApplication &app, Options &o)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Soak of controller-mode failover: etcd, a name server and SYNC broker replicas as "
        "processes, producers and push consumers, the master SIGKILLed periodically."));
    p.addHelpOption();
    const QCommandLineOption minutes(QStringLiteral("minutes"),
        QStringLiteral("Load duration (30)."), QStringLiteral("n"), QStringLiteral("30"));
    const QCommandLineOption switchEvery(QStringLiteral("switch-every"),
        QStringLiteral("Kill the master this often: 20s, 3m (3m)."), QStringLiteral("t"),
        QStringLiteral("3m"));
    const QCommandLineOption rate(QStringLiteral("rate"),
        QStringLiteral("Messages/s of all producers (0: half the measured peak)."),
        QStringLiteral("n"), QStringLiteral("0"));
    const QCommandLineOption replicas(QStringLiteral("replicas"),
        QStringLiteral("Broker replicas, 2 or 3 (2)."), QStringLiteral("n"), QStringLiteral("2"));
    const QCommandLineOption producers(QStringLiteral("producers"),
        QStringLiteral("Producers (2)."), QStringLiteral("n"), QStringLiteral("2"));
    const QCommandLineOption consumers(QStringLiteral("consumers"),
        QStringLiteral("Push consumers (2)."), QStringLiteral("n"), QStringLiteral("2"));
    const QCommandLineOption churn(QStringLiteral("churn-every"),
        QStringLiteral("Start or stop an extra consumer and producer this often, 0: never (45s)."),
        QStringLiteral("t"), QStringLiteral("45s"));
    const QCommandLineOption body(QStringLiteral("body-size"),
        QStringLiteral("Message body bytes (256)."), QStringLiteral("n"), QStringLiteral("256"));
    const QCommandLineOption drain(QStringLiteral("drain-seconds"),
        QStringLiteral("Longest wait for consumers at the end (180)."), QStringLiteral("n"),
        QStringLiteral("180"));
    const QCommandLineOption peak(QStringLiteral("peak-seconds"),
        QStringLiteral("Peak measurement when no --rate (10)."), QStringLiteral("n"),
        QStringLiteral("10"));
    const QCommandLineOption report(QStringLiteral("report-every"),
        QStringLiteral("Table row interval (60s)."), QStringLiteral("t"), QStringLiteral("60s"));
    const QCommandLineOption ttl(QStringLiteral("lease-ttl"),
        QStringLiteral("etcdLeaseTtlSeconds of the brokers (3)."), QStringLiteral("n"),
        QStringLiteral("3"));
    const QCommandLineOption inflight(QStringLiteral("max-in-flight"),
        QStringLiteral("Async sends in flight per producer (1000)."), QStringLiteral("n"),
        QStringLiteral("1000"));
    const QCommandLineOption dir(QStringLiteral("dir"),
        QStringLiteral("Parent of the run's temporary directory."), QStringLiteral("path"));
    const QCommandLineOption keep(
        QStringLiteral("keep"), QStringLiteral("Keep the run's directory."));
    p.addOptions({minutes, switchEvery, rate, replicas, producers, consumers, churn, body, drain,
        peak, report, ttl, inflight, dir, keep});
    p.process(app);
    o.minutes = p.value(minutes).toInt();
    o.switchEverySec = parseSeconds(p.value(switchEvery));
    o.rate = p.value(rate).toDouble();
    o.replicas = p.value(replicas).toInt();
    o.producers = p.value(producers).toInt();
    o.consumers = p.value(consumers).toInt();
    o.churnEverySec = parseSeconds(p.value(churn));
    o.bodySize = p.value(body).toInt();
    o.drainSec = p.value(drain).toInt();
    o.peakSec = p.value(peak).toInt();
    o.reportEverySec = parseSeconds(p.value(report));
    o.leaseTtl = p.value(ttl).toInt();
    o.maxInFlight = p.value(inflight).toInt();
    o.dir = p.value(dir);
    o.keep = p.isSet(keep);
    if (o.minutes < 1 || o.minutes > 24 * 60 || o.switchEverySec < 5 || o.rate < 0 || o.replicas < 2
        || o.replicas > kMaxReplicas || o.producers < 1 || o.consumers < 1 || o.churnEverySec < 0
        || o.bodySize < 32 || o.drainSec < 1 || o.peakSec < 3 || o.reportEverySec < 5
        || o.leaseTtl < 2 || o.maxInFlight < 1) {
        std::fprintf(stderr, "qrocket-soak: an option is out of range (see --help)\n");
        return false;
    }
    return true;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    Options o;
    if (!parseOptions(app, o))
        return 2;
    SignalWatcher watcher({SIGINT, SIGTERM});
    QObject::connect(&watcher, &SignalWatcher::received, [](int sig) {
        if (stopRequested()) // a second one: leave now (the children die with us)
            ::_exit(130);
        requestStop();
        say("signal %d: ending the load early", sig);
    });
    return SoakRun(o).run();
}
