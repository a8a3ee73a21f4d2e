#include "clientlib/acl/aclguard.h"

#include "clientlib/protocol/aclsignature.h"

#include <QFile>
#include <QHostAddress>

#include <algorithm>
#include <pthread.h>

Q_LOGGING_CATEGORY(lcAcl, "qrocket.acl", QtInfoMsg)

namespace qrocket::acl {

namespace {

/// The channel's peer as a QHostAddress, from the address the server's channel parsed once
/// (remoteHost), not from text per request.
QHostAddress peerAddress(const remoting::Channel &channel)
{
    protocol::HostAddress host;
    if (!channel.remoteHost(host))
        return QHostAddress();
    if (!host.v6)
        return QHostAddress(static_cast<quint32>(host.ip[0]) << 24 | host.ip[1] << 16
            | host.ip[2] << 8 | host.ip[3]);
    Q_IPV6ADDR v6;
    std::copy(host.ip.begin(), host.ip.end(), v6.c);
    return QHostAddress(v6);
}

} // namespace

AclGuard::AclGuard(QString path) : m_path(std::move(path))
{ }

AclGuard::~AclGuard()
{
    stop();
}

QString AclGuard::defaultPath(const QString &aclFilePath, const QString &rocketmqHome)
{
    if (!aclFilePath.isEmpty())
        return aclFilePath;
    const QString home
        = rocketmqHome.isEmpty() ? qEnvironmentVariable("ROCKETMQ_HOME") : rocketmqHome;
    return (home.isEmpty() ? QStringLiteral(".") : home) + QStringLiteral("/conf/plain_acl.yml");
}

Status AclGuard::start()
{
    QFile f(m_path);
    if (!f.open(QIODevice::ReadOnly))
        return Status::ioError(
            QStringLiteral("aclEnable=true but the ACL file %1 cannot be read: %2")
                .arg(m_path, f.errorString()));
    const QByteArray text = f.readAll();
    Result<PlainAclConfig> rules = PlainAclConfig::parse(text, m_path);
    if (!rules)
        return Status::invalidArgument(
            QStringLiteral("aclEnable=true but the ACL file does not parse: %1")
                .arg(rules.error().message()));
    qCInfo(lcAcl).noquote() << "ACL on:" << rules->accounts().size() << "account(s),"
                            << rules->globalWhiteCount() << "global white address pattern(s) from"
                            << m_path;
    m_rules.store(std::make_shared<const PlainAclConfig>(std::move(*rules)));
    {
        std::lock_guard lock(m_reloadMutex);
        m_lastText = text;
    }
    try {
        m_watcher = std::thread([this] {
            std::unique_lock lock(m_stopMutex);
            while (
                !m_stopCv.wait_for(lock, std::chrono::seconds(1), [this] { return m_stopping; })) {
                lock.unlock();
                reloadNow();
                lock.lock();
            }
        });
    } catch (const std::system_error &e) {
        return Status::ioError(QStringLiteral("cannot start the ACL file watcher: %1")
                                   .arg(QString::fromLocal8Bit(e.what())));
    }
    ::pthread_setname_np(m_watcher.native_handle(), "qrocket-acl");
    return {};
}

void AclGuard::stop()
{
    {
        std::lock_guard lock(m_stopMutex);
        m_stopping = true;
    }
    m_stopCv.notify_all();
    if (m_watcher.joinable())
        m_watcher.join();
}

bool AclGuard::reloadNow()
{
    std::lock_guard lock(m_reloadMutex);
    QFile f(m_path);
    if (!f.open(QIODevice::ReadOnly))
        return false; // being replaced (rename) or gone: the rules stay, as after a bad edit
    const QByteArray text = f.readAll();
    if (text == m_lastText)
        return false;
    m_lastText = text;
    Result<PlainAclConfig> rules = PlainAclConfig::parse(text, m_path);
    if (!rules) {
        qCWarning(lcAcl).noquote()
            << "ACL file changed but keeps the last good rules:" << rules.error().message();
        return false;
    }
    qCInfo(lcAcl).noquote() << "ACL reloaded:" << rules->accounts().size() << "account(s),"
                            << rules->globalWhiteCount() << "global white address pattern(s)";
    m_rules.store(std::make_shared<const PlainAclConfig>(std::move(*rules)));
    m_reloads.fetch_add(1, std::memory_order_relaxed);
    return true;
}

std::optional<AclGuard::Refusal> AclGuard::check(
    const remoting::Channel &channel, const protocol::RemotingCommand &request) const
{
    const std::shared_ptr<const PlainAclConfig> rules = m_rules.load();
    if (!rules)
        return Refusal {1, QByteArrayLiteral("ACL rules not loaded")};
    const QHostAddress peer = peerAddress(channel);
    if (const std::shared_ptr<const AuthData> auth = m_auth.load()) {
        const QByteArray *accessKey = request.ext(protocol::kAclAccessKey);
        if (accessKey && !accessKey->isEmpty() && !rules->isGloballyWhite(peer)) {
            const AuthUser *user = auth->user(*accessKey);
            if (user && (!user->imported || !rules->accounts().contains(*accessKey))) {
                std::optional<Refusal> no = checkV2(*auth, *user, peer, request);
                if (no)
                    m_refusals.fetch_add(1, std::memory_order_relaxed);
                return no;
            }
        }
    }
    std::optional<AclRefusal> no = rules->check(peer, request);
    if (!no)
        return std::nullopt;
    m_refusals.fetch_add(1, std::memory_order_relaxed);
    return Refusal {no->code, std::move(no->remark)};
}

std::optional<AclGuard::Refusal> AclGuard::checkV2(const AuthData &data, const AuthUser &user,
    const QHostAddress &peer, const protocol::RemotingCommand &request) const
{
    constexpr int kNoPermission = 16;
    const protocol::ExtFieldOrder order(request);
    if (const QByteArray *key = order.duplicate())
        return Refusal {kNoPermission, "Duplicated request field " + key->left(128)};
    if (user.status == UserStatus::Disable)
        return Refusal {kNoPermission, "User:" + user.username + " is disabled."};
    if (!signatureMatches(order, user.password))
        return Refusal {kNoPermission, QByteArrayLiteral("check signature failed.")};
    if (isAdminCode(request.code) && user.type != UserType::Super) {
        return Refusal {kNoPermission,
            userSubject(user.username) + " has no permission to access "
                + Resource::cluster(m_clusterName).key() + " from " + peer.toString().toUtf8()
                + ", request code=" + QByteArray::number(request.code)
                + " is for super users only."};
    }
    for (const AuthCheck &c : authChecks(request, m_clusterName)) {
        if (std::optional<QByteArray> no = authorize(data, user, c, peer))
            return Refusal {kNoPermission, std::move(*no)};
    }
    return std::nullopt;
}

} // namespace qrocket::acl
