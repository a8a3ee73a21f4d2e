#pragma once

// AclGuard: a daemon's access control on every request (aclEnable=true on the broker or the name
// server), over the accounts of plain_acl.yml (PlainAclConfig), set on a RemotingServer's
// processor table. The file is where RocketMQ looks for it, ${rocketmqHome}/conf/plain_acl.yml,
// unless `aclFilePath` says otherwise.
//
// start() loads the file: a missing or bad file is an error, and the daemon does not start (an
// ACL that silently allows everything is worse than none). While running, the file is read every
// second; a changed file that parses replaces the rules at once (requests already being checked
// finish with the old ones), one that does not keeps the last good rules and says why in the log,
// once per change. No secret is ever logged.
//
// ACL 2.0 (the broker only, setAuthData()): RocketMQ 5's users and ACLs (authmodel.h). A request
// whose AccessKey names an ACL 2.0 user is decided by ACL 2.0 - unless that user is an untouched
// import of an account plain_acl.yml still defines: the file stays the truth for its accounts
// (reloaded live, with whiteRemoteAddress). In ACL 2.0 the AccessKey is the username and the
// secret the password; the signature is the same. globalWhiteRemoteAddresses still lets a peer
// through unchecked. Refusals answer 16 NO_PERMISSION with RocketMQ 5's remark ("User:bob is
// disabled.", "check signature failed.", "User:bob has no permission to access Topic:t from
// 10.0.0.1, no matched policies."). Stricter than RocketMQ 5: every admin code (isAdminCode(),
// the AUTH_* requests 3001-3010 among them) is for Super users only.
//
// check() is thread-safe (the rules are immutable snapshots behind atomic shared_ptrs).

#include "clientlib/acl/authmodel.h"
#include "clientlib/acl/plainacl.h"
#include "clientlib/remoting/requestprocessor.h"

#include <QLoggingCategory>
#include <QString>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

Q_DECLARE_LOGGING_CATEGORY(lcAcl)

namespace qrocket::acl {

class AclGuard final : public remoting::RequestGuard
{
public:
    explicit AclGuard(QString path);
    ~AclGuard() override;

    /// Loads the file and starts watching it.
    Status start();
    void stop();

    std::optional<Refusal> check(
        const remoting::Channel &channel, const protocol::RemotingCommand &request) const override;

    const QString &path() const { return m_path; }
    std::shared_ptr<const PlainAclConfig> rules() const { return m_rules.load(); }
    std::uint64_t refusals() const { return m_refusals.load(std::memory_order_relaxed); }
    std::uint64_t reloads() const { return m_reloads.load(std::memory_order_relaxed); }
    /// Reads the file now (the watcher does it every second); true when new rules took effect.
    bool reloadNow();

    /// ACL 2.0: the users and ACLs to decide with (the broker's AuthStore publishes each change).
    void setAuthData(std::shared_ptr<const AuthData> data) { m_auth.store(std::move(data)); }
    std::shared_ptr<const AuthData> authData() const { return m_auth.load(); }
    /// The cluster of Cluster:<name> resources (brokerClusterName); set before serving.
    void setClusterName(QByteArray name) { m_clusterName = std::move(name); }

    /// Where plain_acl.yml is for this config: `aclFilePath`, else
    /// ${rocketmqHome}/conf/plain_acl.yml (rocketmqHome: the setting, else $ROCKETMQ_HOME).
    static QString defaultPath(const QString &aclFilePath, const QString &rocketmqHome);

private:
    const QString m_path;
    std::optional<Refusal> checkV2(const AuthData &data, const AuthUser &user,
        const QHostAddress &peer, const protocol::RemotingCommand &request) const;

    std::atomic<std::shared_ptr<const PlainAclConfig>> m_rules;
    std::atomic<std::shared_ptr<const AuthData>> m_auth;
    QByteArray m_clusterName;
    QByteArray m_lastText; // guarded by m_reloadMutex
    std::mutex m_reloadMutex; // one reload at a time (the watcher, reloadNow())
    std::mutex m_stopMutex;
    std::condition_variable m_stopCv;
    bool m_stopping = false; // guarded by m_stopMutex
    std::thread m_watcher;
    mutable std::atomic<std::uint64_t> m_refusals {0};
    std::atomic<std::uint64_t> m_reloads {0};
};

} // namespace qrocket::acl
