// prepareSendProperties: the send path's one-pass rewrite of a producer's properties must store
// exactly what protocol::replaceProperties(props, {WAIT, CLUSTER}, cluster) stores, and read
// WAIT, TRAN_MSG and DELAY as findProperty (the last value of a name) would.

#include "broker/processors/sendproperties.h"
#include "clientlib/protocol/messageproperties.h"

#include <QTest>

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
