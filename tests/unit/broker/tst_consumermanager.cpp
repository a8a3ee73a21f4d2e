// ConsumerManager and ProducerManager with fake channels: register / notify-needed / unregister /
// channel close / expiry, consumer id lists, subscriptions.

#include "broker/managers/consumermanager.h"
#include "broker/managers/producermanager.h"
#include "tests/unit/broker/brokertestutil.h"

#include <QTest>

using namespace qrocket;
using namespace qrocket::broker;
using namespace qrocket::testing;

namespace {

SubscriptionData sub(const char *topic, std::int64_t version, const char *expr = "*")
{
    SubscriptionData s;
    s.topic = topic;
    s.subString = expr;
    s.subVersion = version;
    s.buildTags();
    return s;
}

ConsumerData consumer(const char *group, std::vector<SubscriptionData> subs)
{
    ConsumerData c;
    c.groupName = group;
    c.subscriptionDataSet = std::move(subs);
    return c;
}

ClientChannelInfo info(const std::shared_ptr<FakeChannel> &ch, const char *clientId)
{
    ClientChannelInfo i;
    i.channel = ch;
    i.clientId = clientId;
    i.language = protocol::LanguageCode::Cpp;
    i.version = 333;
    return i;
}

} // namespace

class tst_ConsumerManager final : public QObject
{
    Q_OBJECT

private slots:
    void registerReportsChanges()
    {
        std::int64_t now = 1000;
        ConsumerManager m(120000, [&] { return now; });
        auto ch1 = std::make_shared<FakeChannel>();
        auto ch2 = std::make_shared<FakeChannel>();

        auto r
            = m.registerConsumer(consumer("G", {sub("T", 1), sub("%RETRY%G", 1)}), info(ch1, "c1"));
        QVERIFY(r.newChannel);
        QVERIFY(r.subscriptionChanged);
        QVERIFY(r.changed());

        // Same heartbeat again: nothing to notify.
        r = m.registerConsumer(consumer("G", {sub("T", 1), sub("%RETRY%G", 1)}), info(ch1, "c1"));
        QVERIFY(!r.changed());

        // A second member joins.
        r = m.registerConsumer(consumer("G", {sub("T", 1), sub("%RETRY%G", 1)}), info(ch2, "c2"));
        QVERIFY(r.newChannel);
        QVERIFY(!r.subscriptionChanged);
        QCOMPARE(m.consumerIds("G"), (QList<QByteArray> {"c1", "c2"}));
        QCOMPARE(m.channels("G").size(), std::size_t(2));

        // A newer subVersion replaces the expression but is not a membership change.
        r = m.registerConsumer(
            consumer("G", {sub("T", 2, "TagA"), sub("%RETRY%G", 1)}), info(ch1, "c1"));
        QVERIFY(!r.changed());
        QCOMPARE(m.findSubscription("G", "T")->subString, QByteArray("TagA"));
        // An older one does not.
        r = m.registerConsumer(
            consumer("G", {sub("T", 1, "TagB"), sub("%RETRY%G", 1)}), info(ch1, "c1"));
        QCOMPARE(m.findSubscription("G", "T")->subString, QByteArray("TagA"));

        // A topic added or dropped is a change.
        r = m.registerConsumer(
            consumer("G", {sub("T", 2), sub("%RETRY%G", 1), sub("U", 1)}), info(ch1, "c1"));
        QVERIFY(r.subscriptionChanged);
        r = m.registerConsumer(consumer("G", {sub("T", 2), sub("%RETRY%G", 1)}), info(ch1, "c1"));
        QVERIFY(r.subscriptionChanged);
        QVERIFY(!m.findSubscription("G", "U"));

        const auto gi = m.groupInfo("G");
        QVERIFY(gi);
        QCOMPARE(gi->channels.size(), std::size_t(2));
        QCOMPARE(gi->channels[0].clientId, QByteArray("c1"));
        QCOMPARE(gi->channels[0].language, protocol::LanguageCode::Cpp);
        QCOMPARE(gi->channels[0].version, 333);
        QCOMPARE(gi->subscriptions.size(), std::size_t(2));
        QCOMPARE(gi->messageModel, MessageModel::Clustering);
        QCOMPARE(m.groupsSubscribing("T"), QList<QByteArray> {"G"});
        QCOMPARE(m.groupsSubscribing("U"), QList<QByteArray>());
        QCOMPARE(m.findChannel("G", "c2"), remoting::ChannelPtr(ch2));
        QVERIFY(!m.findChannel("G", "c9"));
        QVERIFY(!m.groupInfo("nope"));
        QVERIFY(m.consumerIds("nope").isEmpty());
    }

    void unregisterByClientId()
    {
        ConsumerManager m;
        auto ch1 = std::make_shared<FakeChannel>();
        auto ch2 = std::make_shared<FakeChannel>();
        m.registerConsumer(consumer("G", {sub("T", 1)}), info(ch1, "c1"));
        m.registerConsumer(consumer("G", {sub("T", 1)}), info(ch2, "c2"));
        auto r = m.unregisterConsumer("G", "c1");
        QVERIFY(r);
        QVERIFY(!r->groupRemoved);
        QCOMPARE(m.consumerIds("G"), QList<QByteArray> {"c2"});
        QVERIFY(!m.unregisterConsumer("G", "c1"));
        QVERIFY(!m.unregisterConsumer("Other", "c2"));
        r = m.unregisterConsumer("G", "c2");
        QVERIFY(r && r->groupRemoved);
        QVERIFY(m.groups().isEmpty());
    }

    void channelClosedRemovesAtOnce()
    {
        ConsumerManager m;
        auto ch1 = std::make_shared<FakeChannel>();
        auto ch2 = std::make_shared<FakeChannel>();
        m.registerConsumer(consumer("G1", {sub("T", 1)}), info(ch1, "c1"));
        m.registerConsumer(consumer("G2", {sub("T", 1)}), info(ch1, "c1"));
        m.registerConsumer(consumer("G1", {sub("T", 1)}), info(ch2, "c2"));
        const auto removed = m.channelClosed(remoting::ChannelPtr(ch1));
        QCOMPARE(removed.size(), std::size_t(2));
        QCOMPARE(removed[0].group, QByteArray("G1"));
        QVERIFY(!removed[0].groupRemoved); // c2 remains: notify it
        QCOMPARE(removed[1].group, QByteArray("G2"));
        QVERIFY(removed[1].groupRemoved);
        QCOMPARE(m.consumerIds("G1"), QList<QByteArray> {"c2"});
        QCOMPARE(m.groups(), QList<QByteArray> {"G1"});
        QVERIFY(m.channelClosed(remoting::ChannelPtr(ch1)).empty());
        QCOMPARE(ch1->closeCount, 0);
    }

    void expiresSilentChannels()
    {
        std::int64_t now = 0;
        ConsumerManager m(120000, [&] { return now; });
        auto quiet = std::make_shared<FakeChannel>();
        auto busy = std::make_shared<FakeChannel>();
        m.registerConsumer(consumer("G", {sub("T", 1)}), info(quiet, "quiet"));
        m.registerConsumer(consumer("G", {sub("T", 1)}), info(busy, "busy"));
        now = 100000;
        m.registerConsumer(consumer("G", {sub("T", 1)}), info(busy, "busy"));
        now = 120000;
        QVERIFY(m.scanExpired().empty()); // exactly 120 s is not yet expired
        now = 120001;
        const auto removed = m.scanExpired();
        QCOMPARE(removed.size(), std::size_t(1));
        QCOMPARE(removed[0].clientId, QByteArray("quiet"));
        QVERIFY(!removed[0].groupRemoved);
        QCOMPARE(quiet->closeCount, 1);
        QCOMPARE(busy->closeCount, 0);
        now = 300000;
        const auto all = m.scanExpired();
        QCOMPARE(all.size(), std::size_t(1));
        QVERIFY(all[0].groupRemoved);
        QVERIFY(m.groups().isEmpty());
    }

    void ignoresInvalidRegistrations()
    {
        ConsumerManager m;
        QVERIFY(!m.registerConsumer(consumer("G", {}), ClientChannelInfo {}).changed());
        QVERIFY(!m.registerConsumer(consumer("", {}), info(std::make_shared<FakeChannel>(), "c"))
                     .changed());
        QVERIFY(m.groups().isEmpty());
    }

    void producers()
    {
        std::int64_t now = 0;
        ProducerManager m(120000, [&] { return now; });
        auto ch1 = std::make_shared<FakeChannel>();
        auto ch2 = std::make_shared<FakeChannel>();
        QVERIFY(m.registerProducer("P", info(ch1, "p1")));
        QVERIFY(!m.registerProducer("P", info(ch1, "p1")));
        QVERIFY(m.registerProducer("P", info(ch2, "p2")));
        QVERIFY(m.registerProducer("CLIENT_INNER_PRODUCER", info(ch1, "p1")));
        QCOMPARE(m.connections("P").size(), std::size_t(2));
        QCOMPARE(m.connections("P")[0].clientId, QByteArray("p1"));
        QCOMPARE(m.findChannel("p2"), remoting::ChannelPtr(ch2));

        // availableChannel rotates over active channels only.
        QSet<std::uint64_t> seen;
        for (int i = 0; i < 4; ++i)
            seen.insert(m.availableChannel("P")->id());
        QCOMPARE(seen.size(), 2);
        ch1->close();
        for (int i = 0; i < 3; ++i)
            QCOMPARE(m.availableChannel("P")->id(), ch2->id());
        QVERIFY(!m.availableChannel("nope"));

        QVERIFY(m.unregisterProducer("P", "p2"));
        QVERIFY(!m.unregisterProducer("P", "p2"));
        QCOMPARE(m.channelClosed(ch1->id()), (QList<QByteArray> {"CLIENT_INNER_PRODUCER", "P"}));
        QVERIFY(m.groups().isEmpty());

        m.registerProducer("P", info(ch2, "p2"));
        now = 120001;
        QCOMPARE(m.scanExpired(), 1);
        QCOMPARE(ch2->closeCount, 1);
        QVERIFY(m.groups().isEmpty());
    }
};

QTEST_APPLESS_MAIN(tst_ConsumerManager)
#include "tst_consumermanager.moc"
