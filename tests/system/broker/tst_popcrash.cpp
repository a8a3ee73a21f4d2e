// POP across kill -9 of a real qrocket-broker (README "POP consumption"): every message that was
// popped and not acked is delivered again after the restart, an acked one never is, also when
// the kill comes right after the acks (before any snapshot) and for acked retry messages.

#include "clientlib/remoting/remotingclient.h"
#include "tests/system/broker/poptestutil.h"
#include "tests/testlib/daemonprocess.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>

#include <set>

using namespace qrocket;
using namespace qrocket::brokertest;
using namespace qrocket::testlib;

namespace {

const QByteArray kBroker = "broker-popcrash";

} // namespace

class tst_PopCrash final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void unackedComeBackAckedNeverAcrossKill9();

private:
    bool start(DaemonProcess &broker);
    RemotingCommand call(RemotingCommand req, int timeoutMs = 15000);
    std::vector<PoppedMessage> popUntil(int count, std::int64_t invisibleMs, int timeoutMs);

    QTemporaryDir m_dir;
    quint16 m_port = 0;
    remoting::RemotingClient m_client;
};

void tst_PopCrash::initTestCase()
{
    QVERIFY(m_dir.isValid());
}

bool tst_PopCrash::start(DaemonProcess &broker)
{
    const QString store = m_dir.filePath(QStringLiteral("store"));
    return startOnFreePort(
        broker, m_dir.filePath(QStringLiteral("broker.conf")), m_port, [&](quint16 p) {
            return "brokerName=" + kBroker
                + "\nbrokerIP1=127.0.0.1\nbrokerIP2=127.0.0.1\nnamesrvAddr=127.0.0.1:1\nlistenPort="
                + QByteArray::number(p) + "\nstorePathRootDir=" + store.toUtf8()
                + "\nmappedFileSizeCommitLog=16777216\nmappedFileSizeConsumeQueue=60000\n";
        });
}

RemotingCommand tst_PopCrash::call(RemotingCommand req, int timeoutMs)
{
    return invoke(m_client, localAddr(m_port), std::move(req), timeoutMs);
}

std::vector<PoppedMessage> tst_PopCrash::popUntil(
    int count, std::int64_t invisibleMs, int timeoutMs)
{
    std::vector<PoppedMessage> out;
    QElapsedTimer t;
    t.start();
    while (static_cast<int>(out.size()) < count && t.elapsed() < timeoutMs) {
        const PopAnswer a
            = popAnswer(call(popRequest("GC", "TC", -1, 32, invisibleMs, 1000), 20000), kBroker);
        out.insert(out.end(), a.messages.begin(), a.messages.end());
    }
    return out;
}

void tst_PopCrash::unackedComeBackAckedNeverAcrossKill9()
{
    constexpr int kCount = 20;
    std::set<QByteArray> acked;
    {
        DaemonProcess broker(QStringLiteral("qrocket-broker"));
        QVERIFY2(start(broker), qPrintable(broker.error()));
        QCOMPARE(
            call(request(17,
                     {{"topic", "TC"}, {"defaultTopic", "TBW102"}, {"readQueueNums", "2"},
                         {"writeQueueNums", "2"}, {"perm", "6"}, {"topicFilterType", "SINGLE_TAG"},
                         {"topicSysFlag", "0"}, {"order", "false"}}))
                .code,
            0);
        for (int i = 0; i < kCount; ++i) {
            const QByteArray body = "c" + QByteArray::number(i);
            QCOMPARE(
                call(sendV2("TC", i % 2, body, props({{"UNIQ_KEY", body.constData()}}))).code, 0);
        }
        const std::vector<PoppedMessage> got = popUntil(kCount, 3000, 10000);
        QCOMPARE(static_cast<int>(got.size()), kCount);
        for (std::size_t i = 0; i < got.size(); i += 2) {
            QCOMPARE(call(ackRequest("GC", "TC", got[i])).code, 0);
            acked.insert(got[i].body);
        }
        broker.kill(); // at once: no snapshot has seen the acks
    }
    std::set<QByteArray> unacked;
    {
        DaemonProcess broker(QStringLiteral("qrocket-broker"));
        QVERIFY2(start(broker), qPrintable(broker.error()));
        const std::vector<PoppedMessage> back = popUntil(kCount / 2, 60000, 20000);
        for (const PoppedMessage &m : back) {
            QVERIFY2(!unacked.count(m.body), m.body.constData());
            unacked.insert(m.body);
        }
        QCOMPARE(static_cast<int>(unacked.size()), kCount / 2);
        for (const QByteArray &b : unacked)
            QVERIFY2(!acked.count(b), b.constData()); // only the unacked ones
        for (const PoppedMessage &m : back)
            QCOMPARE(call(ackRequest("GC", "TC", m)).code, 0);
        // Nothing else comes: not the acked ones, not new copies of the retried ones.
        QVERIFY(popUntil(1, 60000, 4500).empty());
        broker.kill();
    }
    {
        DaemonProcess broker(QStringLiteral("qrocket-broker"));
        QVERIFY2(start(broker), qPrintable(broker.error()));
        QVERIFY(popUntil(1, 60000, 5000).empty());
        QVERIFY(broker.stop() == 0);
    }
}

QTEST_GUILESS_MAIN(tst_PopCrash)
#include "tst_popcrash.moc"
