// The console against a broker with aclEnable=true (issue 24): a session given an admin
// account's credentials (qrocket-console --aclConfig, mqadmin's tools.yml format) reads the
// broker; one without them, or with a wrong secret, sees the broker's ACL refusal as the broker's
// error. The credentials file reader shared with qrocket-admin is checked here too. The "Users &
// ACL" view, signed by the admin account, creates (through its dialog), lists, updates and
// deletes ACL 2.0 users and policies on the broker; signed by a non-admin account it shows the
// broker's refusal.

#include "console/common/credentials.h"
#include "console/gui/aclview.h"
#include "console/gui/clustersession.h"
#include "console/gui/screenshot.h"
#include "console/gui/style.h"
#include "guitestutil.h"

#include <QApplication>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFile>
#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>
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
        guitest::isolateSettings("tst_consoleacl");
        initConsoleResources();
        applyConsoleStyle(*qApp, true);
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

    void usersAndPoliciesManagedFromTheView()
    {
        ClusterSession session(m_cluster->namesrvAddress(), {"consoleadmin", "console-secret"});
        session.setPollInterval(200);
        QVERIFY(session.start().isOk());
        QTRY_VERIFY_WITH_TIMEOUT(
            !session.brokers().empty() && session.brokers().front().runtimeOk, 15000);
        AclView view(&session);
        view.resize(1200, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QTRY_VERIFY_WITH_TIMEOUT(view.loaded(), 10000);
        QVERIFY2(view.lastError().isEmpty(), qPrintable(view.lastError()));
        const auto userOf = [&](const QByteArray &name) -> const protocol::UserInfo * {
            for (const auto &u : view.users()) {
                if (u.username == name)
                    return &u;
            }
            return nullptr;
        };

        // A super user through the dialog, as an operator creates one.
        QTest::mouseClick(view.newUserButton(), Qt::LeftButton);
        QDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = view.findChild<QDialog *>()) != nullptr && dialog->isVisible());
        auto *ok = dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
        QVERIFY(!ok->isEnabled()); // no name, no password yet
        QTest::keyClicks(
            dialog->findChild<QLineEdit *>(QStringLiteral("username")), QStringLiteral("root"));
        QTest::keyClicks(
            dialog->findChild<QLineEdit *>(QStringLiteral("password")), QStringLiteral("root-pw"));
        dialog->findChild<QComboBox *>(QStringLiteral("userType"))
            ->setCurrentText(QStringLiteral("Super"));
        QVERIFY(ok->isEnabled());
        QTest::mouseClick(ok, Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(view.loaded() && userOf("root"), 10000);
        QCOMPARE(userOf("root")->userType.toLower(), QByteArray("super"));
        QVERIFY(userOf("root")->password.isEmpty()); // never answered

        // A normal user and its policies (an allow and a deny).
        view.createUser({"alice", "alice-pw", "Normal", {}});
        QTRY_VERIFY_WITH_TIMEOUT(view.loaded() && userOf("alice"), 10000);
        protocol::AclInfo acl;
        acl.subject = "User:alice";
        acl.policies.push_back({"Custom",
            {{"Topic:orders", {"Pub", "Sub"}, {}, "Allow"},
                {"Topic:secret", {"All"}, {"10.0.0.0/8"}, "Deny"}}});
        view.createAcl(acl);
        const auto aclRows = [&] {
            QStringList rows;
            QTableWidget *t = view.aclTable();
            for (int r = 0; r < t->rowCount(); ++r) {
                QStringList cells;
                for (int c = 0; c < t->columnCount(); ++c)
                    cells << (t->item(r, c) ? t->item(r, c)->text() : QString());
                rows << cells.join(QLatin1Char('|'));
            }
            return rows;
        };
        QTRY_VERIFY_WITH_TIMEOUT(
            aclRows().contains(QStringLiteral("User:alice|Custom|Topic:orders|Pub, Sub|any|Allow"))
                && aclRows().contains(
                    QStringLiteral("User:alice|Custom|Topic:secret|All|10.0.0.0/8|Deny")),
            10000);
        QVERIFY(writeScreenshot(&view, guitest::screenshotDir() + QStringLiteral("/acl-users.png"))
                    .isOk());

        // Disabled, then its deny entry and the user removed.
        view.updateUser({"alice", {}, {}, "disable"});
        QTRY_VERIFY_WITH_TIMEOUT(
            view.loaded() && userOf("alice") && userOf("alice")->userStatus.toLower() == "disable",
            10000);
        view.deleteAcl("User:alice", "Topic:secret");
        QTRY_VERIFY_WITH_TIMEOUT(view.loaded()
                && !aclRows().join(QLatin1Char('\n')).contains(QStringLiteral("Topic:secret"))
                && aclRows().join(QLatin1Char('\n')).contains(QStringLiteral("Topic:orders")),
            10000);
        view.deleteUser("alice");
        QTRY_VERIFY_WITH_TIMEOUT(view.loaded() && !userOf("alice") && userOf("root"), 10000);
        QVERIFY(!aclRows().join(QLatin1Char('\n')).contains(QStringLiteral("User:alice")));

        // A non-admin account sees the broker's refusal, and changes nothing.
        ClusterSession reader(m_cluster->namesrvAddress(), {"reader01", "reader-secret"});
        reader.setPollInterval(200);
        QVERIFY(reader.start().isOk());
        QTRY_VERIFY_WITH_TIMEOUT(
            !reader.brokers().empty() && reader.brokers().front().registered, 15000);
        AclView readerView(&reader);
        readerView.refresh();
        QTRY_VERIFY_WITH_TIMEOUT(readerView.loaded(), 10000);
        QVERIFY2(!readerView.lastError().isEmpty(), "a non-admin listed the users");
        readerView.deleteUser("root");
        QTRY_VERIFY_WITH_TIMEOUT(
            readerView.lastChange().startsWith(QStringLiteral("delete user root failed")), 10000);
        view.refresh();
        QTRY_VERIFY_WITH_TIMEOUT(view.loaded() && userOf("root"), 10000);
    }
};

QTEST_MAIN(tst_ConsoleAcl)
#include "tst_consoleacl.moc"
