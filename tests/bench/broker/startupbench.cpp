// qrocket-bench-startup: how long a broker with many topics and consume queues takes to start.
// Builds a store once: one message in each of --queues queues of the first --cq-topics topics
// (so each of those queues has a consume-queue file), a topics.json of --topics topics, then
// measures, --runs times each:
//   - in process: MessageStore::open() on that store (it returns once the commit log is
//     checked; the consume queues are checked after, in the background: the time until all
//     are is printed too) and TopicConfigManager::load() of topics.json;
//   - the qrocket-broker daemon: from its start until it accepts connections (it listens after
//     open() returned), and the recovery time it logs.
// --crash: every measured start follows a crash (in process: the `abort` file left as a
// killed broker leaves it; the daemon: started, then killed with SIGKILL once its consume
// queues are all checked, before each start).
//
//   qrocket-bench-startup [--topics 100000] [--cq-topics 5000] [--queues 2] [--runs 3]
//                         [--dir DIR]   (keep the store there and reuse it when it exists)
//                         [--no-daemon] (in process only: a loaded machine may keep the daemon
//                                        from listening within the start timeout)
//
// topics.json is also given in CPU time (the loading thread's), which other load on the machine
// does not inflate.
//
// Consume-queue files are made small (mappedFileSizeConsumeQueue=6000) so that many fit on the
// disk; each still costs an open file and a mapping while the broker runs, so their number is
// bounded by the open-files limit (ulimit -n) and vm.max_map_count, not by this program.

#include "broker/config/brokerconfig.h"
#include "broker/managers/topicconfigmanager.h"
#include "storage/messagestore.h"
#include "tests/testlib/daemonprocess.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QLoggingCategory>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>

#include <cstdio>
#include <ctime>

using namespace qrocket;

namespace {

constexpr int kCqFileSize = 6000;
constexpr qint64 kCommitLogFileSize = 64LL * 1024 * 1024;

QByteArray topicName(int i)
{
    return "StartTopic_" + QByteArray::number(i).rightJustified(6, '0');
}

storage::MessageStoreConfig storeConfig(const QString &root)
{
    storage::MessageStoreConfig c;
    c.storePathRootDir = root;
    c.mappedFileSizeCommitLog = kCommitLogFileSize;
    c.mappedFileSizeConsumeQueue = kCqFileSize;
    return c;
}

bool prepare(const QString &root, int topics, int cqTopics, int queues)
{
    QElapsedTimer t;
    t.start();
    {
        storage::MessageStore store(storeConfig(root));
        if (Status st = store.open(); !st) {
            std::fprintf(stderr, "store: %s\n", qPrintable(st.message()));
            return false;
        }
        storage::MessageExtBrokerInner m;
        m.body = QByteArray(64, 'x');
        m.bornTimestamp = 1;
        m.bornHost = protocol::HostAddress::ipv4(0x7F000001, 1);
        m.storeHost = protocol::HostAddress::ipv4(0x7F000001, 2);
        m.waitStoreMsgOk = false;
        for (int i = 0; i < cqTopics; ++i) {
            m.topic = topicName(i);
            for (int q = 0; q < queues; ++q) {
                m.queueId = q;
                if (!store.putMessageAndWait(m).isOk()) {
                    std::fprintf(stderr, "put failed\n");
                    return false;
                }
            }
        }
        // Dispatch is asynchronous: wait until the last queue has its unit.
        QElapsedTimer wait;
        wait.start();
        while (cqTopics > 0 && store.maxOffsetInQueue(topicName(cqTopics - 1), queues - 1) < 1) {
            if (wait.hasExpired(120000)) {
                std::fprintf(stderr, "dispatch did not finish\n");
                return false;
            }
            QThread::msleep(10);
        }
        store.shutdown();
    }
    // topics.json as the broker writes it: {"dataVersion":{...},"topicConfigTable":{...}}.
    QByteArray json = "{\"dataVersion\":{\"counter\":" + QByteArray::number(topics)
        + ",\"timestamp\":1700000000000},\"topicConfigTable\":{";
    for (int i = 0; i < topics; ++i) {
        const QByteArray name = topicName(i);
        if (i)
            json += ',';
        json += '"' + name + "\":{\"order\":false,\"perm\":6,\"readQueueNums\":"
            + QByteArray::number(queues) + ",\"topicFilterType\":\"SINGLE_TAG\",\"topicName\":\""
            + name + "\",\"topicSysFlag\":0,\"writeQueueNums\":" + QByteArray::number(queues) + "}";
    }
    json += "}}";
    QDir().mkpath(root + QStringLiteral("/config"));
    QFile f(broker::TopicConfigManager::filePath(root));
    if (!f.open(QIODevice::WriteOnly) || f.write(json) != json.size())
        return false;
    f.close();
    QFile marker(root + QStringLiteral("/.bench-startup"));
    if (!marker.open(QIODevice::WriteOnly))
        return false;
    marker.write(QByteArray::number(topics) + ' ' + QByteArray::number(cqTopics) + ' '
        + QByteArray::number(queues));
    std::printf("prepared %s in %.1f s: %d topics in topics.json (%.1f MB), %d consume queues\n",
        qPrintable(root), t.elapsed() / 1000.0, topics, json.size() / 1048576.0, cqTopics * queues);
    return true;
}

/// Waits (up to 10 minutes) until the daemon logs that its consume queues are all checked.
bool waitForQueuesChecked(testlib::DaemonProcess &daemon)
{
    QElapsedTimer up;
    up.start();
    auto done = [&] {
        const QByteArray out = daemon.output();
        // Or checked before it listened (recoverConsumeQueuesInBackground=false, older builds).
        return out.contains("consume queues recovered in the background")
            || (out.contains("recovery done in") && !out.contains("checked in the background"));
    };
    while (!done()) {
        if (up.hasExpired(600000) || !daemon.isRunning())
            return false;
        QEventLoop wait; // the daemon's output is read by the event loop
        QTimer::singleShot(20, &wait, &QEventLoop::quit);
        wait.exec();
    }
    return true;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("qrocket-bench-startup"));
    QLoggingCategory::setFilterRules(QStringLiteral("qrocket.*.info=false"));
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Broker start-up with many topics"));
    parser.addHelpOption();
    parser.addOption({QStringLiteral("topics"), QStringLiteral("topics in topics.json"),
        QStringLiteral("n"), QStringLiteral("100000")});
    parser.addOption({QStringLiteral("cq-topics"),
        QStringLiteral("topics whose queues get a message (a consume-queue file each)"),
        QStringLiteral("n"), QStringLiteral("5000")});
    parser.addOption({QStringLiteral("queues"), QStringLiteral("queues per topic"),
        QStringLiteral("n"), QStringLiteral("2")});
    parser.addOption({QStringLiteral("runs"), QStringLiteral("measurements of each kind"),
        QStringLiteral("n"), QStringLiteral("3")});
    parser.addOption({QStringLiteral("no-daemon"), QStringLiteral("measure in process only")});
    parser.addOption({QStringLiteral("crash"), QStringLiteral("measure starts after a crash")});
    parser.addOption({QStringLiteral("dir"), QStringLiteral("store directory to keep and reuse"),
        QStringLiteral("path")});
    parser.process(app);
    const int topics = std::max(1, parser.value(QStringLiteral("topics")).toInt());
    const int queues = std::max(1, parser.value(QStringLiteral("queues")).toInt());
    const int cqTopics = std::clamp(parser.value(QStringLiteral("cq-topics")).toInt(), 0, topics);
    const int runs = std::max(1, parser.value(QStringLiteral("runs")).toInt());
    const bool daemon = !parser.isSet(QStringLiteral("no-daemon"));
    const bool crash = parser.isSet(QStringLiteral("crash"));

    if (qEnvironmentVariableIsEmpty("QROCKET_BIN_DIR"))
        qputenv("QROCKET_BIN_DIR", QCoreApplication::applicationDirPath().toLocal8Bit());
    QTemporaryDir tmp;
    const QString root = parser.isSet(QStringLiteral("dir"))
        ? parser.value(QStringLiteral("dir"))
        : tmp.filePath(QStringLiteral("store"));
    QFile marker(root + QStringLiteral("/.bench-startup"));
    const QByteArray want = QByteArray::number(topics) + ' ' + QByteArray::number(cqTopics) + ' '
        + QByteArray::number(queues);
    if (!(marker.open(QIODevice::ReadOnly) && marker.readAll() == want)) {
        if (QDir(root).exists() && !QDir(root).removeRecursively())
            return 1;
        if (!prepare(root, topics, cqTopics, queues))
            return 1;
    } else {
        std::printf("reusing %s: %d topics, %d consume queues\n", qPrintable(root), topics,
            cqTopics * queues);
    }

    std::printf("%s starts\n", crash ? "crash" : "clean");
    std::printf("%-6s %14s %14s %14s %12s %16s %14s %16s\n", "run", "store open ms",
        "CQs checked ms", "topics.json ms", "of it CPU ms", "daemon listens", "daemon recov.",
        "daemon CQs checked");
    const QRegularExpression recoveryLine(QStringLiteral("recovery done in (\\d+) ms"));
    bool ok = true;
    for (int r = 0; r < runs; ++r) {
        // In process: the store's recovery, then the topic table.
        QElapsedTimer t;
        t.start();
        qint64 openMs = -1;
        qint64 cqMs = -1;
        if (crash) {
            QFile abort(root + QStringLiteral("/abort"));
            if (!abort.open(QIODevice::WriteOnly))
                return 1;
        }
        t.restart();
        {
            storage::MessageStore store(storeConfig(root));
            if (Status st = store.open(); !st) {
                std::fprintf(stderr, "store: %s\n", qPrintable(st.message()));
                return 1;
            }
            openMs = t.elapsed();
            if (!store.waitForQueueRecovery(600000))
                ok = false;
            cqMs = t.elapsed();
            if (store.recoveryReport().consumeQueues != cqTopics * queues) {
                std::fprintf(stderr, "recovered %d consume queues, expected %d\n",
                    store.recoveryReport().consumeQueues, cqTopics * queues);
                ok = false;
            }
            store.shutdown();
        }
        broker::BrokerConfig bc;
        bc.brokerName = QStringLiteral("bench-start");
        t.restart();
        qint64 topicsMs = -1;
        timespec cpuStart {};
        timespec cpuEnd {};
        ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpuStart);
        {
            broker::TopicConfigManager m(bc, broker::TopicConfigManager::filePath(root));
            if (Status st = m.load(); !st)
                return 1;
            topicsMs = t.elapsed();
            ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpuEnd);
            if (!m.contains(topicName(topics - 1)))
                ok = false;
        }

        const long long topicsCpuMs = (cpuEnd.tv_sec - cpuStart.tv_sec) * 1000LL
            + (cpuEnd.tv_nsec - cpuStart.tv_nsec) / 1000000;
        if (!daemon) {
            std::printf("%-6d %14lld %14lld %14lld %12lld %16s %14s %16s\n", r + 1,
                static_cast<long long>(openMs), static_cast<long long>(cqMs),
                static_cast<long long>(topicsMs), topicsCpuMs, "-", "-", "-");
            std::fflush(stdout);
            continue;
        }
        // The daemon: started until it accepts connections.
        const auto config = [&](quint16 p) {
            return "brokerName=bench-start\nbrokerIP1=127.0.0.1\nlistenPort="
                + QByteArray::number(p) + "\nstorePathRootDir=" + root.toUtf8()
                + "\nmappedFileSizeCommitLog=" + QByteArray::number(kCommitLogFileSize)
                + "\nmappedFileSizeConsumeQueue=" + QByteArray::number(kCqFileSize) + "\n";
        };
        quint16 port = 0;
        if (crash) {
            testlib::DaemonProcess first(QStringLiteral("qrocket-broker"));
            if (!testlib::startOnFreePort(
                    first, tmp.filePath(QStringLiteral("broker.conf")), port, config)) {
                std::fprintf(stderr, "broker did not start: %s\n", qPrintable(first.error()));
                return 1;
            }
            // Killed once it runs as a broker that has been up a while does: its consume
            // queues all checked (a broker killed during that check is checked in full at
            // its next start: storage/queuerecovery.cpp).
            waitForQueuesChecked(first);
            first.kill();
        }
        testlib::DaemonProcess broker(QStringLiteral("qrocket-broker"));
        t.restart();
        const bool started = testlib::startOnFreePort(
            broker, tmp.filePath(QStringLiteral("broker.conf")), port, config);
        const qint64 listenMs = t.elapsed();
        if (!started) {
            std::fprintf(stderr, "broker did not start: %s\n", qPrintable(broker.error()));
            return 1;
        }
        // Stopped once its queues are all checked (a crash start stopped before leaves them
        // to be checked first by the next start).
        const bool checked = waitForQueuesChecked(broker);
        const qint64 checkedMs = t.elapsed();
        broker.stop();
        const auto match = recoveryLine.match(QString::fromUtf8(broker.output()));
        std::printf("%-6d %14lld %14lld %14lld %12lld %13lld ms %11s ms %13s ms\n", r + 1,
            static_cast<long long>(openMs), static_cast<long long>(cqMs),
            static_cast<long long>(topicsMs), topicsCpuMs, static_cast<long long>(listenMs),
            match.hasMatch() ? qPrintable(match.captured(1)) : "?",
            checked ? qPrintable(QString::number(checkedMs)) : "?");
        ok = ok && checked;
        std::fflush(stdout);
    }
    return ok ? 0 : 1;
}
