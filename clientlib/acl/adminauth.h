#pragma once

// Whether a user name and secret are those of an ACL admin account, for what is not a remoting
// request (the /metrics endpoint's HTTP basic auth): a plain_acl.yml account with `admin: true`
// (accessKey / secretKey), or an enabled ACL 2.0 Super user (username / password). An ACL 2.0
// user that is an untouched import of an account the file still defines is decided by the file,
// as AclGuard decides requests. Secrets are compared in constant time. Thread-safe.

#include <QByteArrayView>

namespace qrocket::acl {

class AclGuard;

bool isAdminCredential(const AclGuard &guard, QByteArrayView user, QByteArrayView secret);

} // namespace qrocket::acl
