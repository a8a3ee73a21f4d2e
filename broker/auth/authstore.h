#pragma once

// AuthStore: the broker's one store of ACL 2.0 users and ACLs (clientlib/acl/authmodel.h), in
// ${storePathRootDir}/config/auth.json:
//
//   {"version":1,
//    "users":[{"username":"alice","password":"...","userType":"Normal","userStatus":"enable",
//              "imported":false}],
//    "acls":[<AclInfo>]}                                  (protocol/bodies/authbodies.h)
//
// The file holds passwords (they are what signatures are checked with): it is written 0600 and
// never logged. Every change is persisted before it takes effect (ConfigFileStore: .tmp, fsync,
// .bak, rename), so the rules in force are always the rules on disk; a change that cannot be
// written is refused (IoError) and nothing changes.
//
// load(): a missing file is a fresh start. A file that does not decode falls back to its .bak
// (the copy before the last change) with a warning naming the file and the error; the bad file
// is kept as auth.json.corrupt for the operator, and the daemon runs on the .bak's rules. When
// both are unusable the broker refuses to start (Corruption naming both): starting with no rules
// would silently drop every user and Deny entry. This is how topics.json is handled.
//
// The operations carry RocketMQ 5.3's semantics and messages (AuthenticationMetadataManager,
// AuthorizationMetadataManager): an InvalidArgument Status is RocketMQ's Authentication- or
// AuthorizationException (the processor answers 16 NO_PERMISSION with its message).
//
// Thread-safety: every method may be called from any thread; changes are serialised. After load()
// and after each change the publisher gets the new immutable snapshot (the AclGuard decides with
// it), called with the store's lock held.

#include "clientlib/acl/authmodel.h"
#include "clientlib/acl/plainacl.h"
#include "clientlib/common/status.h"

#include <QString>

#include <functional>
#include <memory>
#include <mutex>

namespace qrocket::broker {

class AuthStore
{
public:
    using Publisher = std::function<void(std::shared_ptr<const acl::AuthData>)>;

    explicit AuthStore(QString path);
    static QString filePath(const QString &storePathRootDir);
    const QString &path() const { return m_path; }

    Status load();
    /// Adds the accounts of plain_acl.yml that are not users yet (acl/plainimport.h) and
    /// persists when it added any.
    Status importPlain(const acl::PlainAclConfig &config);
    void setPublisher(Publisher publisher);
    std::shared_ptr<const acl::AuthData> data() const;

    Status createUser(const protocol::UserInfo &info);
    Status updateUser(const protocol::UserInfo &info);
    /// Removes the user and its ACL; OK when there is no such user.
    Status deleteUser(const QByteArray &username);
    /// AUTH_CREATE_ACL and AUTH_UPDATE_ACL (the same in RocketMQ 5.3): the policies merge into
    /// the subject's ACL. `subject` is the header's; the body's wins when it has one.
    Status putAcl(const QByteArray &subject, const protocol::AclInfo &info);
    /// The whole ACL when `resource` is empty, else that entry of the policy (Custom when
    /// `policyType` is empty).
    Status deleteAcl(
        const QByteArray &subject, const QByteArray &policyType, const QByteArray &resource);

    /// A slave copying its master's store (SlaveSynchronize): `json` (the master's auth.json,
    /// extensioncode::kGetAuthMetadata) replaces everything, persisted first. True when it
    /// differed from this store; a body that does not decode changes nothing.
    Result<bool> replaceFrom(QByteArrayView json);
    /// Encodes / decodes the file.
    static QByteArray encode(const acl::AuthData &data);
    static Result<acl::AuthData> decode(QByteArrayView json);

private:
    /// Persists `next`, then publishes it. Holds m_mutex.
    Status commit(acl::AuthData next);

    const QString m_path;
    mutable std::mutex m_mutex;
    std::shared_ptr<const acl::AuthData> m_data; // guarded by m_mutex
    Publisher m_publisher; // guarded by m_mutex
};

} // namespace qrocket::broker
