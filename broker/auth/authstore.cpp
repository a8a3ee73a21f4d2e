#include "broker/auth/authstore.h"

#include "broker/common/logging.h"
#include "broker/config/configfilestore.h"
#include "clientlib/acl/plainimport.h"
#include "clientlib/protocol/json.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace qrocket::broker {

using namespace qrocket::acl;

namespace {

Status refuse(const QString &message)
{
    return Status::invalidArgument(message);
}

QString text(const QByteArray &b)
{
    return QString::fromUtf8(b);
}

} // namespace

AuthStore::AuthStore(QString path)
    : m_path(std::move(path)), m_data(std::make_shared<const AuthData>())
{ }

QString AuthStore::filePath(const QString &storePathRootDir)
{
    return storePathRootDir + QStringLiteral("/config/auth.json");
}

QByteArray AuthStore::encode(const AuthData &data)
{
    protocol::JsonWriter w;
    w.beginObject();
    w.key("version").value(1);
    w.key("users").beginArray();
    for (const auto &[name, u] : data.users) {
        w.beginObject();
        w.key("username").value(u.username);
        w.key("password").value(u.password);
        w.key("userType").value(userTypeName(u.type));
        w.key("userStatus").value(userStatusName(u.status));
        w.key("imported").value(u.imported);
        w.endObject();
    }
    w.endArray();
    w.key("acls").beginArray();
    for (const auto &[subject, acl] : data.acls)
        protocol::writeAclInfo(w, toAclInfo(acl));
    w.endArray();
    w.endObject();
    return w.take();
}

Result<AuthData> AuthStore::decode(QByteArrayView json)
{
    auto parsed = protocol::parseJson(json);
    if (!parsed)
        return parsed.error();
    const protocol::JsonValue &root = *parsed;
    if (!root.isObject() || !root["users"].isArray() || !root["acls"].isArray())
        return Status::corruption(QStringLiteral("not a users and acls document"));
    AuthData data;
    for (const protocol::JsonValue &v : root["users"].items()) {
        auto info = protocol::readUserInfo(v);
        if (!info)
            return info.error();
        AuthUser u;
        u.username = info->username;
        u.password = info->password;
        const auto type = parseUserType(info->userType);
        const auto status = parseUserStatus(info->userStatus);
        if (u.username.isEmpty() || u.password.isEmpty() || !type || !status)
            return Status::corruption(
                QStringLiteral("user '%1' lacks a name, password, type or status")
                    .arg(text(u.username)));
        u.type = *type;
        u.status = *status;
        u.imported = v["imported"].toBool();
        data.users.insert_or_assign(u.username, std::move(u));
    }
    for (const protocol::JsonValue &v : root["acls"].items()) {
        auto info = protocol::readAclInfo(v);
        if (!info)
            return info.error();
        if (!subjectUser(info->subject))
            return Status::corruption(
                QStringLiteral("acl of '%1': not a User subject").arg(text(info->subject)));
        auto policies = toPolicies(*info);
        if (!policies)
            return Status::corruption(QStringLiteral("acl of '%1': %2")
                                          .arg(text(info->subject), policies.error().message()));
        AuthAcl acl {info->subject, std::move(policies).value()};
        data.acls.insert_or_assign(acl.subject, std::move(acl));
    }
    return data;
}

Status AuthStore::load()
{
    std::lock_guard lock(m_mutex);
    AuthData loaded;
    const Result<QByteArray> mainText = ConfigFileStore::readFile(m_path);
    const bool mainFailed
        = mainText && !mainText->trimmed().isEmpty() && !decode(*mainText).has_value();
    const Status st = ConfigFileStore::load(m_path, [&](const QByteArray &json) -> Status {
        auto data = decode(json);
        if (!data)
            return data.error();
        loaded = std::move(data).value();
        return {};
    });
    if (!st && st.code() != Status::Code::NotFound)
        return Status::corruption(
            QStringLiteral("the ACL 2.0 users and ACLs cannot be loaded: %1").arg(st.message()));
    if (st && mainFailed) {
        // Running on the .bak: keep the bad file for the operator (the next change would
        // otherwise copy it over the good backup).
        const QString aside = m_path + QStringLiteral(".corrupt");
        QFile::remove(aside);
        QFile::rename(m_path, aside);
        qCWarning(lcBroker).noquote() << "ACL 2.0:" << m_path << "does not decode; running on"
                                      << ConfigFileStore::backupPath(m_path)
                                      << "(the last good copy); the bad file is kept as" << aside;
    }
    qCInfo(lcBroker).noquote() << "ACL 2.0:" << loaded.users.size() << "user(s),"
                               << loaded.acls.size() << "acl(s) from" << m_path;
    m_data = std::make_shared<const AuthData>(std::move(loaded));
    if (m_publisher)
        m_publisher(m_data);
    return {};
}

void AuthStore::setPublisher(Publisher publisher)
{
    std::lock_guard lock(m_mutex);
    m_publisher = std::move(publisher);
    if (m_publisher)
        m_publisher(m_data);
}

std::shared_ptr<const AuthData> AuthStore::data() const
{
    std::lock_guard lock(m_mutex);
    return m_data;
}

Status AuthStore::commit(AuthData next)
{
    const QByteArray json = encode(next);
    {
        // The file holds passwords: the temporary file is made private before a byte is
        // written (writing keeps an existing file's mode), so no copy is ever readable by others.
        QDir().mkpath(QFileInfo(m_path).absolutePath());
        QFile tmp(ConfigFileStore::tempPath(m_path));
        if (tmp.open(QIODevice::WriteOnly | QIODevice::Truncate))
            tmp.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    }
    if (Status st = ConfigFileStore::write(m_path, json); !st) {
        qCWarning(lcBroker).noquote()
            << "ACL 2.0: the change is refused, it cannot be written:" << st.message();
        return Status::ioError(st.message());
    }
    QFile::setPermissions(m_path, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    QFile::setPermissions(
        ConfigFileStore::backupPath(m_path), QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    m_data = std::make_shared<const AuthData>(std::move(next));
    if (m_publisher)
        m_publisher(m_data);
    return {};
}

Result<bool> AuthStore::replaceFrom(QByteArrayView json)
{
    auto next = decode(json);
    if (!next)
        return next.error();
    std::lock_guard lock(m_mutex);
    if (encode(*m_data) == encode(*next))
        return false;
    if (Status st = commit(std::move(next).value()); !st)
        return st;
    return true;
}

Status AuthStore::importPlain(const PlainAclConfig &config)
{
    std::lock_guard lock(m_mutex);
    AuthData next = *m_data;
    const std::vector<QByteArray> added = importPlainAccounts(config, next);
    if (added.empty())
        return {};
    QStringList names;
    for (const QByteArray &n : added)
        names << text(n);
    qCInfo(lcBroker).noquote() << "ACL 2.0: imported plain_acl.yml account(s)"
                               << names.join(QStringLiteral(", "));
    return commit(std::move(next));
}

Status AuthStore::createUser(const protocol::UserInfo &info)
{
    if (info.username.trimmed().isEmpty())
        return refuse(QStringLiteral("username can not be blank"));
    if (info.password.trimmed().isEmpty())
        return refuse(QStringLiteral("password can not be blank"));
    AuthUser user;
    user.username = info.username;
    user.password = info.password;
    if (!info.userType.isEmpty()) {
        const auto type = parseUserType(info.userType);
        if (!type)
            return refuse(QStringLiteral("The userType %1 is illegal.").arg(text(info.userType)));
        user.type = *type;
    }
    if (!info.userStatus.isEmpty()) {
        const auto status = parseUserStatus(info.userStatus);
        if (!status)
            return refuse(
                QStringLiteral("The userStatus %1 is illegal.").arg(text(info.userStatus)));
        user.status = *status;
    }
    std::lock_guard lock(m_mutex);
    if (m_data->users.contains(user.username))
        return refuse(QStringLiteral("The user is existed"));
    AuthData next = *m_data;
    next.users.emplace(user.username, std::move(user));
    return commit(std::move(next));
}

Status AuthStore::updateUser(const protocol::UserInfo &info)
{
    if (info.username.trimmed().isEmpty())
        return refuse(QStringLiteral("username can not be blank"));
    std::optional<UserType> type;
    std::optional<UserStatus> status;
    if (!info.userType.isEmpty() && !(type = parseUserType(info.userType)))
        return refuse(QStringLiteral("The userType %1 is illegal.").arg(text(info.userType)));
    if (!info.userStatus.isEmpty() && !(status = parseUserStatus(info.userStatus)))
        return refuse(QStringLiteral("The userStatus %1 is illegal.").arg(text(info.userStatus)));
    std::lock_guard lock(m_mutex);
    AuthData next = *m_data;
    auto it = next.users.find(info.username);
    if (it == next.users.end())
        return refuse(QStringLiteral("The user is not exist"));
    AuthUser &u = it->second;
    if (!info.password.trimmed().isEmpty())
        u.password = info.password;
    if (type)
        u.type = *type;
    if (status)
        u.status = *status;
    u.imported = false; // managed through ACL 2.0 from now on
    return commit(std::move(next));
}

Status AuthStore::deleteUser(const QByteArray &username)
{
    if (username.trimmed().isEmpty())
        return refuse(QStringLiteral("username can not be blank"));
    std::lock_guard lock(m_mutex);
    if (!m_data->users.contains(username))
        return {};
    AuthData next = *m_data;
    next.users.erase(username);
    next.acls.erase(userSubject(username));
    return commit(std::move(next));
}

Status AuthStore::putAcl(const QByteArray &subject, const protocol::AclInfo &info)
{
    const QByteArray key = info.subject.isEmpty() ? subject : info.subject;
    const std::optional<QByteArray> username = subjectUser(key);
    if (!username)
        return refuse(QStringLiteral("The subject type is null."));
    auto policies = toPolicies(info);
    if (!policies)
        return policies.error();
    std::lock_guard lock(m_mutex);
    AuthData next = *m_data;
    auto user = next.users.find(*username);
    if (user == next.users.end())
        return refuse(
            QStringLiteral("The subject of %1 is not exist.").arg(text(userSubject(*username))));
    user->second.imported = false;
    AuthAcl &acl = next.acls[userSubject(*username)];
    acl.subject = userSubject(*username);
    acl.merge(*policies);
    return commit(std::move(next));
}

Status AuthStore::deleteAcl(
    const QByteArray &subject, const QByteArray &policyType, const QByteArray &resource)
{
    const std::optional<QByteArray> username = subjectUser(subject);
    if (!username)
        return refuse(QStringLiteral("The subject is null."));
    PolicyType type = PolicyType::Custom;
    if (!policyType.isEmpty()) {
        const auto t = parsePolicyType(policyType);
        if (!t)
            return refuse(QStringLiteral("The policyType %1 is illegal.").arg(text(policyType)));
        type = *t;
    }
    std::optional<Resource> r;
    if (!resource.trimmed().isEmpty() && !(r = Resource::parse(resource)))
        return refuse(QStringLiteral("The resource %1 is illegal.").arg(text(resource)));
    std::lock_guard lock(m_mutex);
    AuthData next = *m_data;
    auto user = next.users.find(*username);
    if (user == next.users.end())
        return refuse(QStringLiteral("The subject is not exist."));
    const QByteArray key = userSubject(*username);
    auto acl = next.acls.find(key);
    if (acl == next.acls.end())
        return refuse(QStringLiteral("The acl is not exist."));
    user->second.imported = false;
    if (r)
        acl->second.removeEntry(type, *r);
    if (!r || acl->second.policies.empty())
        next.acls.erase(acl);
    return commit(std::move(next));
}

} // namespace qrocket::broker
