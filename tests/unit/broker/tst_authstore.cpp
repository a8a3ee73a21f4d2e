// The broker's ACL 2.0 store (broker/auth/authstore.h): RocketMQ 5.3's user and ACL operations
// with its messages, atomic persistence (a private file, reloaded as written), a corrupt file
// (the .bak's rules are kept, the bad file set aside, the broker refused only when both are
// bad), and the import of plain_acl.yml without overwriting users.

#include "broker/auth/authstore.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace qrocket;
using namespace qrocket::broker;
using namespace qrocket::acl;

namespace {

protocol::AclInfo aclInfo(const char *subject, const char *resource, const char *decision)
{
    protocol::AclInfo a;
    a.subject = subject;
    a.policies.push_back({{}, {{resource, {"Pub", "Sub"}, {}, decision}}});
    return a;
}

bool write(const QString &path, const QByteArray &text)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(text) == text.size();
}

} // namespace

class tst_AuthStore final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init() { QVERIFY(m_dir.isValid()); }

    void usersWithRocketMqMessages()
    {
        AuthStore store(AuthStore::filePath(m_dir.filePath(QStringLiteral("users"))));
        QVERIFY(store.load());
        QVERIFY(store.createUser({"alice", "alice-secret", "Normal", {}}));
        QCOMPARE(store.createUser({"alice", "x-secret", {}, {}}).message(),
            QStringLiteral("The user is existed"));
        QCOMPARE(store.createUser({"bob", {}, {}, {}}).message(),
            QStringLiteral("password can not be blank"));
        QCOMPARE(store.createUser({"bob", "bob-secret", "Root", {}}).message(),
            QStringLiteral("The userType Root is illegal."));
        QCOMPARE(store.updateUser({"nobody", "p", {}, {}}).message(),
            QStringLiteral("The user is not exist"));
        QVERIFY(store.updateUser({"alice", {}, {}, "disable"}));
        const auto data = store.data();
        QCOMPARE(data->user("alice")->status, UserStatus::Disable);
        QCOMPARE(data->user("alice")->password, QByteArray("alice-secret")); // kept when blank
        QVERIFY(store.deleteUser("nobody")); // RocketMQ: success
    }

    void aclsMergeAndDelete()
    {
        AuthStore store(AuthStore::filePath(m_dir.filePath(QStringLiteral("acls"))));
        QVERIFY(store.load());
        QCOMPARE(store.putAcl("User:ghost", aclInfo("", "Topic:t", "Allow")).message(),
            QStringLiteral("The subject of User:ghost is not exist."));
        QVERIFY(store.createUser({"alice", "alice-secret", {}, {}}));
        QVERIFY(store.putAcl("User:alice", aclInfo("", "Topic:a*", "Allow")));
        QVERIFY(store.putAcl("User:alice", aclInfo("User:alice", "Topic:b", "Deny")));
        const AuthAcl *acl = store.data()->acl("User:alice");
        QVERIFY(acl);
        QCOMPARE(acl->policies.size(), std::size_t(1));
        QCOMPARE(acl->policies[0].entries.size(), std::size_t(2));
        QCOMPARE(store.deleteAcl("User:alice", "Strange", {}).message(),
            QStringLiteral("The policyType Strange is illegal."));
        QVERIFY(store.deleteAcl("User:alice", {}, "Topic:a*"));
        QCOMPARE(store.data()->acl("User:alice")->policies[0].entries.size(), std::size_t(1));
        QVERIFY(store.deleteAcl("User:alice", {}, "Topic:b")); // the last entry: the ACL goes
        QVERIFY(!store.data()->acl("User:alice"));
        QCOMPARE(store.deleteAcl("User:alice", {}, {}).message(),
            QStringLiteral("The acl is not exist."));
        // Deleting a user deletes its ACL.
        QVERIFY(store.putAcl("User:alice", aclInfo("", "Topic:c", "Allow")));
        QVERIFY(store.deleteUser("alice"));
        QVERIFY(!store.data()->acl("User:alice"));
    }

    void persistedAtomicallyAndReloaded()
    {
        const QString path = AuthStore::filePath(m_dir.filePath(QStringLiteral("persist")));
        std::shared_ptr<const AuthData> published;
        {
            AuthStore store(path);
            QVERIFY(store.load());
            store.setPublisher([&](std::shared_ptr<const AuthData> d) { published = d; });
            QVERIFY(store.createUser({"alice", "alice-secret", "Super", {}}));
            QVERIFY(store.putAcl("User:alice", aclInfo("", "Group:g*", "Deny")));
            QCOMPARE(published, store.data()); // the guard sees every change
        }
        QVERIFY(!QFile::exists(path + QStringLiteral(".tmp")));
        // Only the broker's user may read a file of passwords.
        QCOMPARE(QFile::permissions(path) & (QFileDevice::ReadGroup | QFileDevice::ReadOther),
            QFileDevice::Permissions());
        AuthStore again(path);
        QVERIFY(again.load());
        QCOMPARE(again.data()->user("alice")->type, UserType::Super);
        QCOMPARE(again.data()->acl("User:alice")->policies[0].entries[0].resource.key(),
            QByteArray("Group:g*"));
        QCOMPARE(AuthStore::encode(*again.data()), AuthStore::encode(*published));
    }

    void corruptFileKeepsTheLastGoodRules()
    {
        const QString path = AuthStore::filePath(m_dir.filePath(QStringLiteral("corrupt")));
        {
            AuthStore store(path);
            QVERIFY(store.load());
            QVERIFY(store.createUser({"alice", "alice-secret", {}, {}}));
            QVERIFY(store.createUser({"bob", "bob-secret", {}, {}})); // .bak now has alice
        }
        QVERIFY(write(path, "{\"users\":[{\"username\":"));
        AuthStore store(path);
        QVERIFY(store.load());
        QVERIFY(store.data()->user("alice")); // the .bak's rules
        QVERIFY(QFile::exists(path + QStringLiteral(".corrupt"))); // kept for the operator
        // The next change is written from the good rules, the backup stays usable.
        QVERIFY(store.createUser({"carol", "carol-secret", {}, {}}));
        AuthStore reread(path);
        QVERIFY(reread.load());
        QVERIFY(reread.data()->user("carol"));
        QVERIFY(reread.data()->user("alice"));
        // Both unusable: a clear error, and the broker does not start.
        QVERIFY(write(path, "garbage"));
        QVERIFY(write(path + QStringLiteral(".bak"), "{\"users\":3}"));
        AuthStore broken(path);
        const Status st = broken.load();
        QVERIFY(!st);
        QVERIFY2(st.message().contains(QStringLiteral("ACL 2.0")), qPrintable(st.message()));
    }

    void importKeepsDefinedUsers()
    {
        auto plain = PlainAclConfig::parse(R"(accounts:
  - accessKey: alice01
    secretKey: from-the-file
    admin: true
  - accessKey: newuser
    secretKey: newuser-secret
)");
        QVERIFY(plain);
        const QString path = AuthStore::filePath(m_dir.filePath(QStringLiteral("import")));
        AuthStore store(path);
        QVERIFY(store.load());
        QVERIFY(store.createUser({"alice01", "defined-before", {}, {}}));
        QVERIFY(store.importPlain(*plain));
        QCOMPARE(store.data()->user("alice01")->password, QByteArray("defined-before"));
        QCOMPARE(store.data()->user("alice01")->type, UserType::Normal);
        QVERIFY(store.data()->user("newuser")->imported);
        AuthStore reread(path);
        QVERIFY(reread.load());
        QVERIFY(reread.data()->user("newuser")->imported);
        // A change through ACL 2.0 makes the user ACL 2.0's.
        QVERIFY(reread.updateUser({"newuser", "changed-secret", {}, {}}));
        QVERIFY(!reread.data()->user("newuser")->imported);
    }

private:
    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(tst_AuthStore)
#include "tst_authstore.moc"
