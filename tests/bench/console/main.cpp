// qrocket-bench-console: the console's GUI-thread cost at scale. A ClusterWidget is shown
// (offscreen unless a display is set) on a session that is fed synthetic catalogues through the
// same entry points the polls use (applyTopics, applyGroups, applyGroupStats): 10,000 topics and
// 2,000 groups. It prints the first fill and refresh times (a refresh where nothing changed, one
// with 1 % of the rows changed while sorted by name and while sorted by the changing column) and
// the longest GUI-thread stall, measured by a 5 ms QTimer heartbeat running through the whole
// run. The tables' saved state is cleared first, so every run starts sorted by name. The topic
// rows are prepared on a worker thread as the poll does; the figures are the GUI thread's.
//
//   build/bin/qrocket-bench-console [--topics N] [--groups N] [--rounds N] [--screenshot F.png]
// Targets (issue 18): first fill < 2 s, refresh < 500 ms, no stall > 50 ms. Exit 1 when missed.

#include "console/gui/clustersession.h"
#include "console/gui/clusterwidget.h"
#include "console/gui/consumersview.h"
#include "console/gui/groupmodel.h"
#include "console/gui/style.h"
#include "console/gui/topicmodel.h"
#include "console/gui/topicsview.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QSettings>
#include <QTableView>
#include <QTimer>

#include <cstdio>
#include <future>

using namespace qrocket;
using namespace qrocket::console;

namespace {

struct Heartbeat
{
    QElapsedTimer clock;
    qint64 last = 0;
    qint64 worst = 0;
    QTimer timer;

    Heartbeat()
    {
        clock.start();
        timer.setInterval(5);
        QObject::connect(&timer, &QTimer::timeout, [this] {
            const qint64 now = clock.elapsed();
            worst = std::max(worst, now - last);
            last = now;
        });
        timer.start();
    }
    void reset()
    {
        last = clock.elapsed();
        worst = 0;
    }
};

/// Runs the event loop for `ms` (lets the views paint and the heartbeat tick).
void spin(int ms)
{
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < ms)
        QApplication::processEvents(QEventLoop::AllEvents, 5);
}

/// Times `work` run from the event loop, then lets the views catch up (paint); the time
/// includes that catch-up.
double timed(const std::function<void()> &work)
{
    QElapsedTimer t;
    t.start();
    work();
    QApplication::processEvents();
    return static_cast<double>(t.nsecsElapsed()) / 1e6;
}

} // namespace

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("QRocketBench"));
    QSettings().clear(); // a previous run's sort order would change what is measured
    initConsoleResources();
    applyConsoleStyle(app, true);
    QCommandLineParser parser;
    parser.addHelpOption();
    const QCommandLineOption topicsOpt(QStringLiteral("topics"), QStringLiteral("Topics (10000)."),
        QStringLiteral("n"), QStringLiteral("10000"));
    const QCommandLineOption groupsOpt(QStringLiteral("groups"), QStringLiteral("Groups (2000)."),
        QStringLiteral("n"), QStringLiteral("2000"));
    const QCommandLineOption roundsOpt(QStringLiteral("rounds"),
        QStringLiteral("Refresh rounds (10)."), QStringLiteral("n"), QStringLiteral("10"));
    const QCommandLineOption shotOpt(QStringLiteral("screenshot"),
        QStringLiteral("Write the topics view after the topic rounds to this PNG."),
        QStringLiteral("file"));
    parser.addOptions({topicsOpt, groupsOpt, roundsOpt, shotOpt});
    parser.process(app);
    const int nTopics = parser.value(topicsOpt).toInt();
    const int nGroups = parser.value(groupsOpt).toInt();
    const int rounds = parser.value(roundsOpt).toInt();
    if (nTopics <= 0 || nGroups <= 0 || rounds <= 0) {
        std::fprintf(stderr,
            "qrocket-bench-console: --topics, --groups and --rounds need positive numbers\n");
        return 2;
    }

    ClusterWidget w(QStringLiteral("127.0.0.1:1")); // never started: fed by hand
    w.resize(1400, 860);
    w.show();
    ClusterSession *s = w.session();
    Heartbeat beat;
    spin(200);

    // -- topics -----------------------------------------------------------------------------
    std::vector<QByteArray> names;
    std::map<QByteArray, TopicInfo> configs;
    for (int i = 0; i < nTopics; ++i) {
        QByteArray name = (i % 10 == 0 ? "%RETRY%G" : (i % 25 == 0 ? "%DLQ%G" : "Topic-"))
            + QByteArray::number(i);
        names.push_back(name);
        configs[name] = TopicInfo {name, TopicType::Normal, 2, 16, 16, 6, false};
    }
    w.showView(ViewName::Topics);
    QTableView *topicTable = w.topicsView()->table();
    topicTable->sortByColumn(TopicModel::Name, Qt::AscendingOrder);
    spin(100);
    // What a topic poll does once its answers are in: the rows are prepared (merged, classified,
    // sorted) on a worker thread, as the poll does on an Admin callback thread, while the event
    // loop runs; the time returned is the GUI thread's part only (applyPreparedTopics and the
    // repaint). The worker's time is printed apart.
    double prepareMax = 0;
    const auto feed = [&] {
        QElapsedTimer prep;
        prep.start();
        auto rows = std::async(std::launch::async,
            [&] { return ClusterSession::prepareTopics(names, configs, s->systemTopics()); });
        while (rows.wait_for(std::chrono::milliseconds(0)) != std::future_status::ready)
            QApplication::processEvents(QEventLoop::AllEvents, 1);
        prepareMax = std::max(prepareMax, static_cast<double>(prep.nsecsElapsed()) / 1e6);
        std::vector<TopicInfo> ready = rows.get();
        return timed([&] { s->applyPreparedTopics(std::move(ready), {}); });
    };
    beat.reset();
    const double topicFill = feed();
    spin(100);
    const qint64 topicFillStall = beat.worst;
    // The same catalogue again (the usual 10 s poll of a quiet cluster).
    double sameMax = 0;
    double sameSum = 0;
    beat.reset();
    for (int r = 0; r < rounds; ++r) {
        const double ms = feed();
        sameMax = std::max(sameMax, ms);
        sameSum += ms;
        spin(20);
    }
    const qint64 sameStall = beat.worst;
    // 1 % of the topics change; 20 go, 20 come.
    int round = 0;
    const auto change = [&] {
        const int r = round++;
        for (int i = r % 100; i < nTopics; i += 100)
            configs[names[static_cast<std::size_t>(i)]].writeQueues += 1;
        for (int k = 0; k < 20; ++k) {
            names.erase(names.begin() + (r * 37 + k * 13) % static_cast<int>(names.size()));
            QByteArray fresh = "Fresh-" + QByteArray::number(r) + "-" + QByteArray::number(k);
            names.push_back(fresh);
            configs[fresh] = TopicInfo {fresh, TopicType::Normal, 1, 8, 8, 6, false};
        }
    };
    double topicRefreshMax = 0;
    double topicRefreshSum = 0;
    beat.reset();
    for (int r = 0; r < rounds; ++r) {
        change();
        const double ms = feed();
        topicRefreshMax = std::max(topicRefreshMax, ms);
        topicRefreshSum += ms;
        spin(50);
    }
    const qint64 topicRefreshStall = beat.worst;
    // The same while sorted by the column that changes (rows move).
    beat.reset();
    const double sortMs
        = timed([&] { topicTable->sortByColumn(TopicModel::WriteQueues, Qt::DescendingOrder); });
    double sortedRefreshMax = 0;
    double sortedRefreshSum = 0;
    for (int r = 0; r < rounds; ++r) {
        change();
        const double ms = feed();
        sortedRefreshMax = std::max(sortedRefreshMax, ms);
        sortedRefreshSum += ms;
        spin(50);
    }
    const double sortBackMs
        = timed([&] { topicTable->sortByColumn(TopicModel::Name, Qt::AscendingOrder); });
    spin(50);
    const qint64 sortedRefreshStall = beat.worst;
    // Typing in the search field: one keystroke re-filters every row.
    beat.reset();
    const double searchMs
        = timed([&] { w.topicsView()->searchEdit()->setText(QStringLiteral("Topic-12")); });
    const double clearMs = timed([&] { w.topicsView()->searchEdit()->clear(); });
    spin(50);
    const qint64 searchStall = beat.worst;
    if (parser.isSet(shotOpt) && !w.grab().save(parser.value(shotOpt))) {
        std::fprintf(
            stderr, "qrocket-bench-console: cannot write %s\n", qPrintable(parser.value(shotOpt)));
        return 2;
    }

    // -- groups -----------------------------------------------------------------------------
    std::map<QByteArray, GroupInfo> groups;
    for (int i = 0; i < nGroups; ++i) {
        GroupInfo g;
        g.name = "Group-" + QByteArray::number(i);
        g.brokers = 2;
        groups[g.name] = g;
    }
    w.showView(ViewName::Consumers);
    spin(100);
    beat.reset();
    const double groupFill = timed([&] { s->applyGroups(groups, {}, true); });
    // Stats for every group (what the round-robin delivers over ~30 s, here in one pass).
    client::admin::ConsumeStats stats;
    for (int q = 0; q < 16; ++q)
        stats.offsetTable[protocol::MessageQueue {"Topic-1", "broker-0", q}] = {1000, 900, 0};
    const double statsAll = timed([&] {
        for (const auto &entry : groups)
            s->applyGroupStats(entry.first, stats);
        QApplication::processEvents(); // the coalesced groupsUpdated
    });
    spin(100);
    const qint64 groupFillStall = beat.worst;
    double groupRefreshMax = 0;
    beat.reset();
    for (int r = 0; r < rounds; ++r) {
        // One second of the round-robin: kGroupStatsBudget answers, then the catalogue again.
        const double ms = timed([&] {
            int k = 0;
            for (const auto &entry : groups) {
                if ((k++ + r * ClusterSession::kGroupStatsBudget) % nGroups
                    < ClusterSession::kGroupStatsBudget) {
                    stats.offsetTable.begin()->second.brokerOffset += 1;
                    s->applyGroupStats(entry.first, stats);
                }
            }
            QApplication::processEvents();
            s->applyGroups(groups, {}, true);
        });
        groupRefreshMax = std::max(groupRefreshMax, ms);
        spin(50);
    }
    const qint64 groupRefreshStall = beat.worst;

    const qint64 worstStall = std::max({topicFillStall, sameStall, topicRefreshStall,
        sortedRefreshStall, searchStall, groupFillStall, groupRefreshStall});
    std::printf("qrocket-bench-console: %d topics, %d groups, %d refresh rounds (offscreen=%s)\n",
        nTopics, nGroups, rounds, qgetenv("QT_QPA_PLATFORM") == "offscreen" ? "yes" : "no");
    std::printf("  topics  first fill          %8.1f ms  (stall %lld ms)\n", topicFill,
        static_cast<long long>(topicFillStall));
    std::printf("  topics  refresh unchanged   %8.1f ms max, %.1f ms avg  (stall %lld ms)\n",
        sameMax, sameSum / rounds, static_cast<long long>(sameStall));
    std::printf("  topics  refresh 1%% changed  %8.1f ms max, %.1f ms avg  (stall %lld ms)\n",
        topicRefreshMax, topicRefreshSum / rounds, static_cast<long long>(topicRefreshStall));
    std::printf(
        "  topics  same, sorted by write queues %.1f ms max, %.1f ms avg  (stall %lld ms)\n",
        sortedRefreshMax, sortedRefreshSum / rounds, static_cast<long long>(sortedRefreshStall));
    std::printf("  topics  rows prepared off the GUI thread in %.1f ms at most\n", prepareMax);
    std::printf("  topics  sort by write queues / by name %.1f / %.1f ms\n", sortMs, sortBackMs);
    std::printf("  topics  search / clear      %8.1f / %.1f ms  (stall %lld ms)\n", searchMs,
        clearMs, static_cast<long long>(searchStall));
    std::printf("  groups  first fill          %8.1f ms, stats of all %.1f ms  (stall %lld ms)\n",
        groupFill, statsAll, static_cast<long long>(groupFillStall));
    std::printf("  groups  refresh (1 s of round-robin + catalogue) %.1f ms max  (stall %lld ms)\n",
        groupRefreshMax, static_cast<long long>(groupRefreshStall));
    std::printf("  longest GUI-thread stall    %8lld ms\n", static_cast<long long>(worstStall));
    const bool ok = topicFill < 2000 && groupFill < 2000 && topicRefreshMax < 500
        && sortedRefreshMax < 500 && groupRefreshMax < 500 && worstStall <= 50;
    std::printf(
        "  targets (fill < 2 s, refresh < 500 ms, stall <= 50 ms): %s\n", ok ? "met" : "MISSED");
    return ok ? 0 : 1;
}
