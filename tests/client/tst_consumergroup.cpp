// tst_ConsumerGroup: one consumer group across real processes. A name server and two brokers run
// as daemons; each group member is this test binary re-run as a child process (a PushConsumer
// that prints what it consumed). While the test process produces, a fourth member joins and then
// one member is SIGKILLed: after each change every queue of the topic is owned by exactly one
// live member (asked through the Admin API's GET_CONSUMER_RUNNING_INFO, as mqadmin
// consumerStatus does), and in the end every message whose send returned OK was consumed at
// least once; duplicates (from the killed member's uncommitted offsets) are counted and reported.

#include "clientlib/client/admin/admin.h"
#include "clientlib/common/signalwatcher.h"
#include "clienttestutil.h"
#include "tests/testlib/daemonprocess.h"

#include <QProcess>
#include <QTemporaryDir>

#include <csignal>
#include <cstdio>
#include <map>
#include <set>

using namespace qrocket;
using namespace qrocket::client;
using qrocket::testlib::DaemonProcess;

namespace {

constexpr const char *kTopic = "GroupTopic";
constexpr const char *kGroup = "tst_group_members";
constexpr int kQueuesPerBroker = 4;

/// The child: a group member until SIGTERM. Prints "CLIENT <clientId>" once started, then
/// "ID <body>" per message consumed.
int runMember()
{
    int argc = 1;
    char name[] = "member";
    char *argv[] = {name, nullptr};
    QCoreApplication app(argc, argv);
    PushConsumerOptions o;
    o.group = kGroup;
    o.client.namesrvAddr = qgetenv("TST_GROUP_NAMESRV");
    o.client.clientIP = "127.0.0.1";
    o.client.instanceName = qgetenv("TST_GROUP_INSTANCE");
    o.client.pollNameServerInterval = 1000;
    o.client.heartbeatBrokerInterval = 1000;
    o.client.persistConsumerOffsetInterval = 500;
    o.consumeFromWhere = ConsumeFromWhere::ConsumeFromFirstOffset;
    o.consumeThreadMin = o.consumeThreadMax = 4;
    PushConsumer consumer(o);
    std::mutex out;
    consumer.registerMessageListener(
        [&](const std::vector<MessageExt> &msgs, ConsumeConcurrentlyContext &) {
            std::lock_guard lock(out);
            for (const MessageExt &m : msgs)
                std::fprintf(stdout, "ID %s\n", m.body().constData());
            std::fflush(stdout);
            return ConsumeConcurrentlyStatus::ConsumeSuccess;
        });
    if (Status s = consumer.subscribe(kTopic); !s) {
        std::fprintf(stderr, "subscribe: %s\n", qPrintable(s.toString()));
        return 1;
    }
    if (Status s = consumer.start(); !s) {
        std::fprintf(stderr, "start: %s\n", qPrintable(s.toString()));
        return 1;
    }
    {
        std::lock_guard lock(out);
        std::fprintf(stdout, "CLIENT %s\n", consumer.clientId().constData());
        std::fflush(stdout);
    }
    SignalWatcher signalWatcher({SIGTERM, SIGINT});
    QObject::connect(&signalWatcher, &SignalWatcher::received, &app, &QCoreApplication::quit);
    app.exec();
    consumer.shutdown();
    return 0;
}

/// A member process as the parent sees it.
struct Member
{
    std::unique_ptr<QProcess> process;
    QByteArray clientId;
    QByteArray pending; // a partial line
    std::multiset<QByteArray> consumed;
};

} // namespace

class tst_ConsumerGroup : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    DaemonProcess m_namesrv {QStringLiteral("qrocket-namesrv")};
    std::vector<std::unique_ptr<DaemonProcess>> m_brokers;
    QByteArray m_nsAddr;
    std::vector<std::unique_ptr<Member>> m_members;
    std::unique_ptr<Admin> m_admin;

    void drain(Member &m)
    {
        m.pending += m.process->readAllStandardOutput();
        qsizetype nl;
        while ((nl = m.pending.indexOf('\n')) >= 0) {
            const QByteArray line = m.pending.left(nl);
            m.pending.remove(0, nl + 1);
            if (line.startsWith("ID "))
                m.consumed.insert(line.mid(3));
            else if (line.startsWith("CLIENT "))
                m.clientId = line.mid(7);
        }
    }

    Member *startMember(int index)
    {
        auto m = std::make_unique<Member>();
        m->process = std::make_unique<QProcess>();
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("TST_GROUP_MEMBER"), QStringLiteral("1"));
        env.insert(QStringLiteral("TST_GROUP_NAMESRV"), QString::fromUtf8(m_nsAddr));
        env.insert(QStringLiteral("TST_GROUP_INSTANCE"), QStringLiteral("member-%1").arg(index));
        env.insert(QStringLiteral("QT_LOGGING_RULES"), QStringLiteral("qrocket.*.info=false"));
        m->process->setProcessEnvironment(env);
        m->process->setProcessChannelMode(QProcess::SeparateChannels);
        testlib::dieWithTheTest(*m->process);
        m->process->start(QCoreApplication::applicationFilePath(), {});
        Member *raw = m.get();
        connect(raw->process.get(), &QProcess::readyReadStandardOutput, this,
            [this, raw] { drain(*raw); });
        m_members.push_back(std::move(m));
        if (!raw->process->waitForStarted(10000))
            return nullptr;
        if (!clienttest::waitFor([raw] { return !raw->clientId.isEmpty(); }, 15000)) {
            qWarning("member %d did not start: %s", index,
                raw->process->readAllStandardError().constData());
            return nullptr;
        }
        return raw;
    }

    std::vector<Member *> liveMembers()
    {
        std::vector<Member *> live;
        for (auto &m : m_members) {
            if (m->process->state() == QProcess::Running)
                live.push_back(m.get());
        }
        return live;
    }

    /// Every queue of the topic owned by exactly one live member (per its running info).
    bool assignmentIsExclusive(QByteArray *why)
    {
        std::map<MessageQueue, int> owners;
        const std::vector<Member *> live = liveMembers();
        const int expected = int(m_brokers.size()) * kQueuesPerBroker;
        int fewest = expected;
        for (Member *m : live) {
            auto info = m_admin->consumerRunningInfo(kGroup, m->clientId, false, 3000);
            if (!info) {
                *why = m->clientId + ": " + info.error().toString().toUtf8();
                return false;
            }
            int mine = 0;
            for (const auto &[queue, pq] : info->mqTable) {
                if (queue.topic == kTopic) {
                    ++owners[queue];
                    ++mine;
                }
            }
            fewest = std::min(fewest, mine);
        }
        int exclusive = 0;
        for (const auto &[queue, n] : owners)
            exclusive += n == 1 ? 1 : 0;
        *why = QByteArray::number(int(owners.size())) + " queues owned, "
            + QByteArray::number(exclusive) + " by exactly one member (expected "
            + QByteArray::number(expected) + "), the fewest per member "
            + QByteArray::number(fewest);
        // AllocateMessageQueueAveragely: every member gets its share, none is left out.
        return int(owners.size()) == expected && exclusive == expected
            && fewest >= expected / int(live.size());
    }

    bool waitForExclusiveAssignment(int timeoutMs)
    {
        QByteArray why;
        const bool ok = clienttest::waitFor([&] { return assignmentIsExclusive(&why); }, timeoutMs);
        qInfo("assignment with %d members: %s", int(liveMembers().size()), why.constData());
        return ok;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        const quint16 nsPort = testlib::startNamesrv(m_namesrv, m_dir.path());
        QVERIFY2(nsPort != 0, qPrintable(m_namesrv.error()));
        m_nsAddr = "127.0.0.1:" + QByteArray::number(nsPort);
        for (int i = 0; i < 2; ++i) {
            m_brokers.push_back(std::make_unique<DaemonProcess>(QStringLiteral("qrocket-broker")));
            quint16 port = 0;
            const QString store = m_dir.filePath(QStringLiteral("broker-%1").arg(i));
            const QByteArray name = "group-broker-" + QByteArray::number(i);
            QVERIFY2(testlib::startOnFreePort(*m_brokers.back(),
                         m_dir.filePath(QStringLiteral("b%1.conf").arg(i)), port,
                         [&](quint16 p) {
                             return "brokerName=" + name + "\nbrokerIP1=127.0.0.1\nnamesrvAddr="
                                 + m_nsAddr + "\nlistenPort=" + QByteArray::number(p)
                                 + "\nstorePathRootDir=" + store.toUtf8()
                                 + "\nmappedFileSizeCommitLog=16777216\n"
                                   "mappedFileSizeConsumeQueue=60000\n";
                         }),
                qPrintable(m_brokers.back()->error()));
        }
        AdminOptions ao;
        ao.client.namesrvAddr = m_nsAddr;
        ao.client.clientIP = "127.0.0.1";
        ao.client.instanceName = "group-admin";
        m_admin = std::make_unique<Admin>(ao);
        QVERIFY_OK(m_admin->start());
        QVERIFY(clienttest::waitFor(
            [&] {
                auto info = m_admin->clusterInfo(2000);
                return info && info->brokerAddrTable.size() == 2;
            },
            15000));
        auto created = m_admin->createOrUpdateTopicInCluster(
            "DefaultCluster", protocol::TopicConfig(kTopic, kQueuesPerBroker));
        QVERIFY_OK(created);
        QVERIFY(clienttest::waitFor(
            [&] {
                auto route = m_admin->topicRoute(kTopic, 2000);
                return route && route->queueDatas.size() == 2;
            },
            15000));
    }

    void cleanupTestCase()
    {
        for (auto &m : m_members) {
            if (m->process->state() == QProcess::Running) {
                m->process->terminate();
                if (!m->process->waitForFinished(10000))
                    m->process->kill();
            }
        }
        m_members.clear();
        m_admin.reset();
        for (auto &b : m_brokers)
            b->stop();
        m_namesrv.stop();
    }

    void membersShareTheQueuesAndLoseNothing()
    {
        for (int i = 0; i < 3; ++i)
            QVERIFY2(startMember(i), "a member did not start");
        QVERIFY(waitForExclusiveAssignment(30000));

        ProducerOptions po;
        po.group = "tst_group_producer";
        po.client.namesrvAddr = m_nsAddr;
        po.client.clientIP = "127.0.0.1";
        po.client.instanceName = "group-producer";
        Producer producer(po);
        QVERIFY_OK(producer.start());
        std::set<QByteArray> sent;
        int failed = 0;
        auto produce = [&](int n) {
            for (int i = 0; i < n; ++i) {
                const QByteArray body = "m" + QByteArray::number(int(sent.size()) + failed);
                auto r = producer.sendSync(Message(kTopic, body));
                if (r && r->status == SendStatus::SendOk)
                    sent.insert(body);
                else
                    ++failed;
                if (i % 100 == 0)
                    QCoreApplication::processEvents(); // keep reading the members' output
            }
        };
        produce(1000);

        // A fourth member joins: the group rebalances to four owners.
        QVERIFY2(startMember(3), "the fourth member did not start");
        QVERIFY(waitForExclusiveAssignment(30000));
        produce(1000);

        // One member dies without a goodbye (no unregister, offsets not committed since its last
        // persist): the broker drops its channel and the other three take its queues.
        Member *victim = m_members[1].get();
        victim->process->kill();
        QVERIFY(victim->process->waitForFinished(10000));
        QVERIFY(waitForExclusiveAssignment(30000));
        produce(1000);

        // Everything acknowledged is consumed at least once by someone.
        auto consumedAll = [&] {
            std::set<QByteArray> seen;
            for (auto &m : m_members)
                seen.insert(m->consumed.begin(), m->consumed.end());
            return std::includes(seen.begin(), seen.end(), sent.begin(), sent.end());
        };
        QVERIFY2(clienttest::waitFor(consumedAll, 45000), "messages were lost");
        std::size_t deliveries = 0;
        for (auto &m : m_members)
            deliveries += m->consumed.size();
        qInfo("%d messages acknowledged (%d sends failed), %d deliveries, %d duplicates over 4 "
              "members (one SIGKILLed)",
            int(sent.size()), failed, int(deliveries), int(deliveries - sent.size()));
        QCOMPARE(failed, 0);
        producer.shutdown();

        // mqadmin consumerStatus -s asks for the thread dump: a member lists its threads.
        Member *member = liveMembers().front();
        auto withStack = m_admin->consumerRunningInfo(kGroup, member->clientId, true, 5000);
        QVERIFY_OK(withStack);
        QVERIFY2(
            withStack->jstack.contains("\"qrocket-consume") && withStack->jstack.contains(" tid="),
            withStack->jstack.left(2000).constData());
        auto without = m_admin->consumerRunningInfo(kGroup, member->clientId, false, 5000);
        QVERIFY_OK(without);
        QVERIFY(without->jstack.isEmpty());
    }
};

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsSet("TST_GROUP_MEMBER"))
        return runMember();
    QCoreApplication app(argc, argv);
    tst_ConsumerGroup test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_consumergroup.moc"
