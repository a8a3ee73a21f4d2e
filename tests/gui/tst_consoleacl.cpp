// The console against a broker with aclEnable=true (issue 24): a session given an admin
// account's credentials (qrocket-console --aclConfig, mqadmin's tools.yml format) reads the
// broker; one without them, or with a wrong secret, sees the broker's ACL refusal as the broker's
// error. The credentials file reader shared with qrocket-admin is checked here too.

#include "console/common/credentials.h"
#include "console/gui/clustersession.h"
#include "guitestutil.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace qrocket;
using namespace qrocket::console;

namespace {

const QByteArray kRules = R"(accounts:
  - accessKey: consoleadmin
    secretKey: console-secret
    admin: true
  - accessKey: reader01
    secretKey: reader-secret
    defaultTopicPerm: DENY
    defaultGroupPerm: DENY
)";

bool writeFile(const QString &path, const QByteArray &text)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(text) == text.size();
}

} // namespace

class tst_ConsoleAcl : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<EmbeddedCluster> m_cluster;

    QString file(const char *name) const { return m_dir.filePath(QString::fromLatin1(name)); }

    /// The first broker's runtime state as a session with `credentials` sees it, once it has
    /// an answer either way (bounded).
    static std::pair<bool, QString> runtimeSeenWith(
        const QString &namesrv, const Credentials &credentials)
    {
        ClusterSession session(namesrv, credentials);
        session.setPollInterval(100);
        if (!session.start())
            return {false, QStringLiteral("session did not start")};
        const auto answered = [&] {
            return !session.brokers().empty()
                && (session.brokers().front().runtimeOk
                    || !session.brokers().front().runtimeError.isEmpty());
        };
        if (!QTest::qWaitFor(answered, 15000))
            return {false, QStringLiteral("no answer in 15 s")};
        const BrokerInfo &b = session.brokers().front();
        return {b.runtimeOk, b.runtimeError};
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY(writeFile(file("plain_acl.yml"), kRules));
        EmbeddedClusterOptions o;
        o.brokerCount = 1;
        o.configureBroker = [rules = file("plain_acl.yml")](
                                int, broker::BrokerConfig &c, storage::MessageStoreConfig &) {
            c.aclEnable = true;
            c.aclFilePath = rules;
        };
        m_cluster = std::make_unique<EmbeddedCluster>(o);
        const Status st = m_cluster->start();
        QVERIFY2(st.isOk(), qPrintable(st.toString()));
    }

    void cleanupTestCase() { m_cluster.reset(); }

    void readsToolsYaml()
    {
        QVERIFY(
            writeFile(file("tools.yml"), "accessKey: consoleadmin\nsecretKey: console-secret\n"));
        auto ok = readCredentialsFile(file("tools.yml"));
        QVERIFY2(ok.has_value(), qPrintable(ok.status().toString()));
        QCOMPARE(ok->accessKey, QByteArray("consoleadmin"));
        QCOMPARE(ok->secretKey, QByteArray("console-secret"));
        QVERIFY(ok->check().isOk());

        // Errors name the file and never the secret.
        QVERIFY(writeFile(file("bad.yml"), "accessKey: [unclosed\nsecretKey: hidden-secret\n"));
        QVERIFY(writeFile(file("list.yml"), "- accessKey\n- secretKey\n"));
        for (const char *name : {"bad.yml", "list.yml", "missing.yml"}) {
            auto r = readCredentialsFile(file(name));
            QVERIFY2(!r.has_value(), name);
            QVERIFY(r.status().message().contains(file(name)));
            QVERIFY(!r.status().message().contains(QLatin1String("hidden-secret")));
        }
        QVERIFY(writeFile(file("keyonly.yml"), "accessKey: consoleadmin\n"));
        auto keyOnly = readCredentialsFile(file("keyonly.yml"));
        QVERIFY(keyOnly.has_value());
        QVERIFY(!keyOnly->check().isOk());
    }

    void signedSessionReadsTheBroker()
    {
        auto credentials = readCredentialsFile(file("tools.yml"));
        QVERIFY(credentials.has_value());
        const auto [ok, error] = runtimeSeenWith(m_cluster->namesrvAddress(), *credentials);
        QVERIFY2(ok, qPrintable(error));
    }

    void unsignedAndWronglySignedSessionsAreRefused()
    {
        const std::vector<Credentials> refused
            = {Credentials {}, Credentials {"consoleadmin", "not-the-secret"}};
        for (const Credentials &c : refused) {
            const auto [ok, error] = runtimeSeenWith(m_cluster->namesrvAddress(), c);
            QVERIFY(!ok);
            QVERIFY2(error.contains(QLatin1String("AclException")), qPrintable(error));
            QVERIFY(!error.contains(QLatin1String("console-secret")));
        }
    }
};

QTEST_MAIN(tst_ConsoleAcl)
#include "tst_consoleacl.moc"
