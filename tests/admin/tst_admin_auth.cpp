// qrocket-admin's ACL 2.0 commands (createUser ... listAcl, RocketMQ 5's mqadmin names and
// letters) as a real process, signed with a plain_acl.yml admin's credentials, against an
// EmbeddedCluster whose broker has aclEnable=true: each change and read, passwords masked in
// every output, a normal user refused, and usage errors.

#include "broker/config/brokerconfig.h"
#include "clientlib/embedded/embeddedcluster.h"
#include "tests/admin/admintestutil.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace qrocket;
using namespace qrocket::admintest;

class TestAdminAuth : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(adminPath()), qPrintable(adminPath()));
        QVERIFY(m_dir.isValid());
        m_rules = m_dir.filePath(QStringLiteral("plain_acl.yml"));
        QVERIFY(write(m_rules,
            "accounts:\n  - accessKey: admin001\n    secretKey: admin-secret\n    admin: true\n"));
        m_tools = m_dir.filePath(QStringLiteral("tools.yml"));
        QVERIFY(write(m_tools, "accessKey: admin001\nsecretKey: admin-secret\n"));
        m_aliceTools = m_dir.filePath(QStringLiteral("alice.yml"));
        QVERIFY(write(m_aliceTools, "accessKey: alice\nsecretKey: alice-secret\n"));
        EmbeddedClusterOptions o;
        o.configureBroker
            = [rules = m_rules](int, broker::BrokerConfig &c, storage::MessageStoreConfig &) {
                  c.aclEnable = true;
                  c.aclFilePath = rules;
              };
        m_cluster = std::make_unique<EmbeddedCluster>(o);
        const Status s = m_cluster->start();
        QVERIFY2(s.isOk(), qPrintable(s.toString()));
        m_ns = m_cluster->namesrvAddress();
        m_addr = m_cluster->brokerAddress(0);
    }

    void cleanupTestCase() { m_cluster.reset(); }

    void usersLifecycle()
    {
        Run r = as(
            m_tools, {"createUser", "-c", "DefaultCluster", "-u", "alice", "-p", "alice-secret"});
        QVERIFY2(r.exitCode == 0, r.describe().constData());
        QCOMPARE(r.out, QStringLiteral("create user to %1 success.\n").arg(m_addr));
        QVERIFY2(r.err.contains(QLatin1String("password on the command line")),
            r.describe().constData());
        r = as(m_tools, {"listUser", "-b", qPrintable(m_addr)});
        QVERIFY2(r.exitCode == 0, r.describe().constData());
        const QString alice = lineStartingWith(r, QStringLiteral("alice"));
        QCOMPARE(fields(alice),
            (QStringList {QStringLiteral("alice"), QStringLiteral("******"),
                QStringLiteral("Normal"), QStringLiteral("enable")}));
        QVERIFY(!lineStartingWith(r, QStringLiteral("admin001")).isEmpty()); // imported
        QVERIFY(!r.out.contains(QLatin1String("secret")));
        r = as(m_tools, {"updateUser", "-b", qPrintable(m_addr), "-u", "alice", "-s", "disable"});
        QVERIFY2(r.exitCode == 0, r.describe().constData());
        r = as(m_tools, {"getUser", "-c", "DefaultCluster", "-u", "alice", "--json"});
        QVERIFY2(r.exitCode == 0, r.describe().constData());
        QVERIFY2(r.out.contains(QLatin1String("\"disable\"")), r.describe().constData());
        QVERIFY(!r.out.contains(QLatin1String("alice-secret")));
        QVERIFY2(
            as(m_tools, {"updateUser", "-b", qPrintable(m_addr), "-u", "alice", "-s", "enable"})
                    .exitCode
                == 0,
            "enable");
    }

    void aclsLifecycle()
    {
        Run r = as(m_tools,
            {"createAcl", "-b", qPrintable(m_addr), "-s", "User:alice", "-r",
                "Topic:orders*, Group:g1", "-a", "Pub,Sub", "-d", "Allow"});
        QVERIFY2(r.exitCode == 0, r.describe().constData());
        r = as(m_tools, {"getAcl", "-b", qPrintable(m_addr), "-s", "User:alice"});
        QVERIFY2(r.exitCode == 0, r.describe().constData());
        QVERIFY2(r.lines().size() == 3, r.describe().constData()); // heading + 2 entries
        QCOMPARE(fields(r.lines()[1]),
            (QStringList {QStringLiteral("User:alice"), QStringLiteral("Custom"),
                QStringLiteral("Topic:orders*"), QStringLiteral("[Pub,"), QStringLiteral("Sub]"),
                QStringLiteral("[]"), QStringLiteral("Allow")}));
        r = as(m_tools, {"listAcl", "-c", "DefaultCluster", "-s", "alice", "-r", "Group"});
        QVERIFY2(r.exitCode == 0, r.describe().constData());
        QVERIFY2(r.lines().size() == 2 && r.lines()[1].contains(QLatin1String("Group:g1")),
            r.describe().constData());
        r = as(
            m_tools, {"deleteAcl", "-b", qPrintable(m_addr), "-s", "User:alice", "-r", "Group:g1"});
        QVERIFY2(r.exitCode == 0, r.describe().constData());
        QCOMPARE(r.out, QStringLiteral("delete acl to %1 success.\n").arg(m_addr));
        r = as(m_tools, {"getAcl", "-b", qPrintable(m_addr), "-s", "User:alice"});
        QVERIFY2(r.lines().size() == 2, r.describe().constData());
        // A bad entry gets RocketMQ's answer.
        r = as(m_tools,
            {"updateAcl", "-b", qPrintable(m_addr), "-s", "User:alice", "-r", "Topic:x", "-a",
                "Pub", "-d", "Maybe"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QLatin1String("NO_PERMISSION(16): The decision is null or "
                                              "illegal.")),
            r.describe().constData());
    }

    void normalUserIsRefused()
    {
        const Run r = as(m_aliceTools,
            {"createUser", "-b", qPrintable(m_addr), "-u", "mallory", "-p", "mallory-secret", "-t",
                "Super"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QLatin1String("NO_PERMISSION(16)")), r.describe().constData());
        QVERIFY2(
            r.err.contains(QLatin1String("is for super users only")), r.describe().constData());
    }

    void deleteUserAndUsageErrors()
    {
        Run r = as(m_tools, {"deleteUser", "-c", "DefaultCluster", "-u", "alice"});
        QVERIFY2(r.exitCode == 0, r.describe().constData());
        r = as(m_tools, {"getUser", "-b", qPrintable(m_addr), "-u", "alice"});
        QCOMPARE(r.exitCode, 1);
        r = as(m_tools, {"createUser", "-u", "bob", "-p", "bob-secret"}); // no -b / -c
        QCOMPARE(r.exitCode, 2);
        r = as(m_tools, {"createAcl", "-b", qPrintable(m_addr), "-s", "User:bob"}); // no -r -a -d
        QCOMPARE(r.exitCode, 2);
    }

private:
    static bool write(const QString &path, const QByteArray &text)
    {
        QFile f(path);
        return f.open(QIODevice::WriteOnly) && f.write(text) == text.size();
    }
    Run as(const QString &tools, std::initializer_list<const char *> args)
    {
        return runAt(m_ns, argv(args) << QStringLiteral("--aclConfig") << tools);
    }

    QTemporaryDir m_dir;
    QString m_rules;
    QString m_tools;
    QString m_aliceTools;
    std::unique_ptr<EmbeddedCluster> m_cluster;
    QString m_ns;
    QString m_addr;
};

QTEST_GUILESS_MAIN(TestAdminAuth)
#include "tst_admin_auth.moc"
