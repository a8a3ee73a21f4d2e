// AddressPattern (clientlib/common/addresspattern.h): every pattern form of RocketMQ 4.9's ACL
// addresses (everyone, one address, ranges, * prefixes, sets; IPv4 and IPv6), IPv4-mapped IPv6
// peers against IPv4 patterns, lists separated by ',' and ';', and bad patterns refused with a
// message naming the pattern.

#include "clientlib/common/addresspattern.h"

#include <QTest>

using namespace qrocket;

class tst_AddressPattern final : public QObject
{
    Q_OBJECT

private slots:
    void matches_data();
    void matches();
    void badPatternsAreRefused_data();
    void badPatternsAreRefused();
    void listsSplitOnCommaAndSemicolon();
    void everyoneIsRecognised();
};

void tst_AddressPattern::matches_data()
{
    QTest::addColumn<QString>("pattern");
    QTest::addColumn<QString>("peer");
    QTest::addColumn<bool>("match");
    auto row = [](const char *pattern, const char *peer, bool match) {
        QTest::addRow("%s vs %s", pattern, peer)
            << QString::fromLatin1(pattern) << QString::fromLatin1(peer) << match;
    };
    // Everyone.
    row("*", "10.1.2.3", true);
    row("*", "2001:db8::1", true);
    row("*.*.*.*", "192.168.0.1", true);
    row("*:*:*:*:*:*:*:*", "::1", true);
    // One IPv4 address.
    row("192.168.0.1", "192.168.0.1", true);
    row("192.168.0.1", "192.168.0.2", false);
    row(" 192.168.0.1 ", "192.168.0.1", true);
    row("127.0.0.1", "::ffff:127.0.0.1", true); // dual-stack socket's view of an IPv4 peer
    row("127.0.0.1", "::1", false);
    row("127.0.0.1", "127.0.0.2", false);
    // Ranges of the last segment, and before trailing stars.
    row("192.168.0.1-10", "192.168.0.1", true);
    row("192.168.0.1-10", "192.168.0.10", true);
    row("192.168.0.1-10", "192.168.0.11", false);
    row("192.168.0.1-10", "192.168.0.0", false);
    row("192.168.0.1-10", "192.168.1.5", false);
    row("192.168.0.1-10", "::ffff:192.168.0.5", true);
    row("192.168.1-5.*", "192.168.3.200", true);
    row("192.168.1-5.*", "192.168.6.1", false);
    row("10.0-9.*.*", "10.9.255.255", true);
    row("10.0-9.*.*", "10.10.0.0", false);
    // Prefixes with trailing *.
    row("192.168.1.*", "192.168.1.77", true);
    row("192.168.1.*", "192.168.2.77", false);
    row("192.168.*.*", "192.168.200.1", true);
    row("192.168.*", "192.168.200.1", true);
    row("192.168.*", "192.169.0.1", false);
    row("10.*.*.*", "10.255.0.1", true);
    row("10.*", "11.0.0.1", false);
    row("127.*", "::ffff:127.0.0.2", true);
    row("127.*", "::1", false);
    // Sets of the last segment.
    row("192.168.1.{1,2,3}", "192.168.1.2", true);
    row("192.168.1.{1,2,3}", "192.168.1.4", false);
    row("192.168.1.{1, 2 ,3}", "192.168.1.3", true);
    row("192.168.1.{1,2,3}", "192.168.2.1", false);
    // IPv6: any spelling of one address.
    row("2001:db8::1", "2001:0db8:0000:0000:0000:0000:0000:0001", true);
    row("2001:DB8::1", "2001:db8::1", true);
    row("2001:db8::1", "2001:db8::2", false);
    row("::1", "::1", true);
    row("::1", "127.0.0.1", false);
    row("::ffff:10.0.0.1", "10.0.0.1", true); // a mapped pattern is the IPv4 address
    row("2001:db8::1", "10.0.0.1", false);
    // IPv6 last-group wildcards, ranges and sets.
    row("2001:db8::*", "2001:db8::abcd", true);
    row("2001:db8::*", "2001:db8::1:abcd", false);
    row("1050:0:0:0:5:600:300c:*", "1050::5:600:300c:1", true);
    row("1050:0:0:0:5:600:300c:*", "1050::5:600:300d:1", false);
    row("2001:db8::1-ff", "2001:db8::ff", true);
    row("2001:db8::1-ff", "2001:db8::100", false);
    row("2001:db8::1-ff", "2001:db8::0", false);
    row("2::ac5:78:1-200:*", "2::ac5:78:150:ffff", true);
    row("2::ac5:78:1-200:*", "2::ac5:78:201:0", false);
    row("2001:db8::{1,a,B}", "2001:db8::b", true);
    row("2001:db8::{1,a,B}", "2001:db8::c", false);
    // IPv4 patterns do not match IPv6 peers outside ::ffff:0:0/96 and the other way round.
    row("0.0.0.1", "::1", false);
    row("192.168.0.*", "::192.168.0.1", false);
}

void tst_AddressPattern::matches()
{
    QFETCH(QString, pattern);
    QFETCH(QString, peer);
    QFETCH(bool, match);
    const Result<AddressPattern> p = AddressPattern::parse(pattern);
    QVERIFY2(p, qPrintable(p.status().message()));
    const QHostAddress address(peer);
    QVERIFY(!address.isNull());
    QCOMPARE(p->matches(address), match);
    QCOMPARE(p->text(), pattern.trimmed());
}

void tst_AddressPattern::badPatternsAreRefused_data()
{
    QTest::addColumn<QString>("pattern");
    QTest::addColumn<QString>("mentions");
    auto row = [](const char *pattern, const char *mentions) {
        QTest::addRow("%s", pattern)
            << QString::fromLatin1(pattern) << QString::fromLatin1(mentions);
    };
    row("", "empty");
    row("localhost", "not a number");
    row("192.168.0", "four segments");
    row("192.168.0.1.5", "more than four");
    row("192.168.0.256", "not a number 0-255");
    row("192.168.0.-1", "range");
    row("192.168.0.10-1", "range");
    row("192.168.0.1-300", "range");
    row("192.168.0.1-", "range");
    row("192.168.*.1", "only *");
    row("192.168.1-5.7", "only *");
    row("*.168.0.1", "only *");
    row("192.168.{1,2}.1", "fourth segment");
    row("192.168.1.{1,x}", "set");
    row("192.168.1.{}", "set");
    row("192.168.1.1-5", ""); // valid: the control row (mentions empty: must parse)
    row("0x7f.0.0.1", "not a number");
    row("2001:db8::g", "IPv6");
    row("2001:db8::*:1", "last group");
    row("2001:db8:*::1", "last group");
    row("2001:db8::ff-1", "range");
    row("2001:db8::1-10000", "range");
    row("2001:db8::{1,zz}", "set");
    row("1:2:3:4:5:6:7:8:9", "IPv6");
    row("*:*", "last group");
}

void tst_AddressPattern::badPatternsAreRefused()
{
    QFETCH(QString, pattern);
    QFETCH(QString, mentions);
    const Result<AddressPattern> p = AddressPattern::parse(pattern);
    if (mentions.isEmpty()) {
        QVERIFY2(p, qPrintable(p.status().message()));
        return;
    }
    QVERIFY2(!p, qPrintable(pattern));
    QCOMPARE(p.error().code(), Status::Code::InvalidArgument);
    const QString message = p.error().message();
    QVERIFY2(message.contains(QLatin1Char('\'') + pattern.trimmed() + QLatin1Char('\'')),
        qPrintable(message));
    QVERIFY2(message.contains(mentions), qPrintable(message));
}

void tst_AddressPattern::listsSplitOnCommaAndSemicolon()
{
    auto list = AddressPattern::parseList(
        u"127.0.0.1, 10.0.0.1-5;192.168.1.{7,8} ; ;2001:db8::*,,192.168.2.*");
    QVERIFY2(list, qPrintable(list.status().message()));
    QCOMPARE(list->size(), size_t(5));
    QCOMPARE(list->at(2).text(), QStringLiteral("192.168.1.{7,8}"));
    for (const char *yes :
        {"127.0.0.1", "10.0.0.3", "192.168.1.8", "2001:db8::9", "192.168.2.1", "::ffff:10.0.0.5"})
        QVERIFY2(AddressPattern::matchesAny(*list, QHostAddress(QLatin1String(yes))), yes);
    for (const char *no : {"127.0.0.2", "10.0.0.6", "192.168.1.9", "2001:db9::1", "::1"})
        QVERIFY2(!AddressPattern::matchesAny(*list, QHostAddress(QLatin1String(no))), no);
    QVERIFY(!AddressPattern::matchesAny(*list, QHostAddress()));

    auto empty = AddressPattern::parseList(u" ;, ");
    QVERIFY(empty);
    QVERIFY(empty->empty());

    // One bad entry fails the list, naming it.
    auto bad = AddressPattern::parseList(u"127.0.0.1;10.0.0.300");
    QVERIFY(!bad);
    QVERIFY2(bad.error().message().contains(QLatin1String("'10.0.0.300'")),
        qPrintable(bad.error().message()));
    for (const char16_t *unbalanced : {u"192.168.1.{1,2", u"192.168.1.1}", u"192.168.1.{1;2}"})
        QVERIFY2(
            !AddressPattern::parseList(unbalanced), qPrintable(QString::fromUtf16(unbalanced)));
}

void tst_AddressPattern::everyoneIsRecognised()
{
    for (const char16_t *text : {u"*", u" *.*.*.* ", u"*:*:*:*:*:*:*:*"}) {
        auto p = AddressPattern::parse(text);
        QVERIFY(p);
        QVERIFY(p->matchesEveryone());
    }
    auto one = AddressPattern::parse(u"10.*");
    QVERIFY(one);
    QVERIFY(!one->matchesEveryone());
}

QTEST_APPLESS_MAIN(tst_AddressPattern)
#include "tst_addresspattern.moc"
