// prepareSendProperties: the send path's one-pass rewrite of a producer's properties must store
// exactly what protocol::replaceProperties(props, {WAIT, CLUSTER}, cluster) stores, and read
// WAIT, TRAN_MSG and DELAY as findProperty (the last value of a name) would.

#include "broker/processors/sendrequestheader.h"
#include "clientlib/protocol/messageproperties.h"

#include <QTest>

#include <limits>
#include <random>

using namespace qrocket;
using broker::prepareSendProperties;
using broker::SendProperties;
namespace mc = protocol::MessageConst;

namespace {

const QByteArray kCluster = QByteArrayLiteral("CLUSTER\x01"
                                              "DefaultCluster");

/// The reference: the scans the send path made before the one-pass version.
SendProperties reference(QByteArray &props)
{
    SendProperties out;
    const QByteArrayView wait = protocol::findProperty(props, mc::WaitStoreMsgOk);
    out.waitStoreMsgOk = wait.isNull() || wait.compare("false", Qt::CaseInsensitive) != 0;
    const QByteArrayView tran = protocol::findProperty(props, mc::TransactionPrepared);
    out.transactionPrepared = !tran.isNull() && tran.compare("true", Qt::CaseInsensitive) == 0;
    const QByteArrayView delay = protocol::findProperty(props, mc::DelayTimeLevel);
    if (!delay.isNull()) {
        out.hasDelay = true;
        bool ok = false;
        const int level = delay.toByteArray().toInt(&ok);
        out.delayLevel = ok ? level : 0;
    }
    props = protocol::replaceProperties(props, {mc::WaitStoreMsgOk, mc::Cluster}, kCluster);
    return out;
}

void compare(const QByteArray &input)
{
    QByteArray expected = input;
    const SendProperties want = reference(expected);
    QByteArray actual = input;
    const SendProperties got = prepareSendProperties(actual, kCluster);
    const QByteArray shown = QByteArray(input).replace('\x01', '=').replace('\x02', '|');
    QVERIFY2(actual == expected,
        qPrintable(QStringLiteral("input %1: got %2, want %3")
                       .arg(QString::fromLatin1(shown),
                           QString::fromLatin1(
                               QByteArray(actual).replace('\x01', '=').replace('\x02', '|')),
                           QString::fromLatin1(
                               QByteArray(expected).replace('\x01', '=').replace('\x02', '|')))));
    QVERIFY2(got.waitStoreMsgOk == want.waitStoreMsgOk, shown.constData());
    QVERIFY2(got.transactionPrepared == want.transactionPrepared, shown.constData());
    QVERIFY2(got.hasDelay == want.hasDelay, shown.constData());
    QVERIFY2(got.delayLevel == want.delayLevel, shown.constData());
}

} // namespace

class tst_SendProperties final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void cases_data()
    {
        QTest::addColumn<QByteArray>("props");
        QTest::addRow("empty") << QByteArray();
        QTest::addRow("java client") << QByteArray("TAGS\x01TagA\x02KEYS\x01k1\x02WAIT\x01true\x02"
                                                   "UNIQ_KEY\x01"
                                                   "7F0000010001ABCD");
        QTest::addRow("wait false") << QByteArray("WAIT\x01"
                                                  "FALSE");
        QTest::addRow("wait only") << QByteArray("WAIT\x01true");
        QTest::addRow("no wait") << QByteArray("TAGS\x01t");
        QTest::addRow("trailing separator") << QByteArray("TAGS\x01t\x02");
        QTest::addRow("cluster replaced") << QByteArray("CLUSTER\x01other\x02TAGS\x01t");
        QTest::addRow("wait twice, last wins") << QByteArray("WAIT\x01"
                                                             "false\x02TAGS\x01t\x02WAIT\x01true");
        QTest::addRow("empty segment with wait") << QByteArray("TAGS\x01t\x02\x02WAIT\x01true");
        QTest::addRow("empty segment without wait") << QByteArray("TAGS\x01t\x02\x02KEYS\x01k");
        QTest::addRow("invalid segments kept") << QByteArray("abc\x02\x01x\x02y\x01\x02WAIT\x01t");
        QTest::addRow("empty wait value kept") << QByteArray("WAIT\x01\x02TAGS\x01t");
        QTest::addRow("delay") << QByteArray("DELAY\x01"
                                             "3\x02WAIT\x01true");
        QTest::addRow("delay not a number") << QByteArray("DELAY\x01x3");
        QTest::addRow("transaction") << QByteArray("TRAN_MSG\x01TRUE\x02PGROUP\x01g");
        QTest::addRow("five drops") << QByteArray("WAIT\x01"
                                                  "1\x02WAIT\x01"
                                                  "2\x02CLUSTER\x01"
                                                  "3\x02WAIT\x01"
                                                  "4\x02"
                                                  "CLUSTER\x01"
                                                  "5\x02TAGS\x01t");
    }
    void cases()
    {
        QFETCH(QByteArray, props);
        compare(props);
    }

    void headerNumbers_data()
    {
        QTest::addColumn<QByteArray>("text");
        for (const char *t : {"0", "4", "9", "04", "12", "99", "100", "-1", "+3", "-0", "1a", "a",
                 "", " 1", "2147483647", "2147483648", "-2147483648", "-2147483649", "0x1", "1.0"})
            QTest::addRow("%s", t) << QByteArray(t);
    }
    /// SendRequestHeader's int fields read as Long.parseLong, then the int32 range (nullopt
    /// otherwise); a required one that does not parse refuses the header.
    void headerNumbers()
    {
        QFETCH(QByteArray, text);
        const auto parsed = protocol::parseJavaLong(text);
        const bool valid = parsed && *parsed >= std::numeric_limits<std::int32_t>::min()
            && *parsed <= std::numeric_limits<std::int32_t>::max();
        for (const bool v2 : {true, false}) {
            protocol::RemotingCommand request
                = protocol::RemotingCommand::createRequest(v2 ? 310 : 10);
            const auto key = [v2](const char *v1Name, char letter) {
                return v2 ? QByteArray(1, letter) : QByteArray(v1Name);
            };
            request.setExt(key("producerGroup", 'a'), QByteArrayLiteral("G"));
            request.setExt(key("topic", 'b'), QByteArrayLiteral("T"));
            request.setExt(key("defaultTopic", 'c'), QByteArrayLiteral("TBW102"));
            request.setExt(key("defaultTopicQueueNums", 'd'), QByteArrayLiteral("4"));
            request.setExt(key("queueId", 'e'), text);
            request.setExt(key("sysFlag", 'f'), QByteArrayLiteral("0"));
            request.setExt(key("bornTimestamp", 'g'), QByteArrayLiteral("1700000000000"));
            request.setExt(key("flag", 'h'), QByteArrayLiteral("0"));
            request.setExt(key("reconsumeTimes", 'j'), text);
            request.setExt(key("maxReconsumeTimes", 'l'), text);
            QByteArray error;
            const auto h = broker::SendRequestHeader::decode(request, &error);
            QCOMPARE(h.has_value(), valid);
            if (!valid) {
                QVERIFY(!error.isEmpty());
                continue;
            }
            QCOMPARE(h->queueId, static_cast<int>(*parsed));
            QCOMPARE(h->reconsumeTimes, static_cast<int>(*parsed));
            QCOMPARE(h->maxReconsumeTimes.value_or(-12345), static_cast<int>(*parsed));
            QCOMPARE(h->defaultTopicQueueNums, 4);
            QCOMPARE(h->bornTimestamp, std::int64_t(1700000000000));
        }
    }

    /// Random texts over an alphabet of separators and the names that matter.
    void randomTexts()
    {
        const QByteArray pieces[] = {"\x01", "\x02", "WAIT", "CLUSTER", "TRAN_MSG", "DELAY", "true",
            "false", "7", "TAGS", "x", "\x02WAIT\x01true",
            "\x02"
            "CLUSTER\x01"
            "c"};
        std::mt19937 rng(20261130);
        for (int i = 0; i < 20000; ++i) {
            QByteArray text;
            const int n = static_cast<int>(rng() % 12);
            for (int k = 0; k < n; ++k)
                text += pieces[rng() % std::size(pieces)];
            compare(text);
            if (QTest::currentTestFailed())
                return;
        }
    }
};

QTEST_APPLESS_MAIN(tst_SendProperties)
#include "tst_sendproperties.moc"
