#include "clientlib/acl/adminauth.h"

#include "clientlib/acl/aclguard.h"

#include <algorithm>

namespace qrocket::acl {

namespace {

bool sameSecret(QByteArrayView a, QByteArrayView b)
{
    unsigned char diff = a.size() == b.size() ? 0 : 1;
    const qsizetype n = std::min(a.size(), b.size());
    for (qsizetype i = 0; i < n; ++i)
        diff |= static_cast<unsigned char>(a[i] ^ b[i]);
    return diff == 0 && !a.isEmpty();
}

} // namespace

bool isAdminCredential(const AclGuard &guard, QByteArrayView user, QByteArrayView secret)
{
    const QByteArray name = user.toByteArray();
    const std::shared_ptr<const PlainAclConfig> rules = guard.rules();
    const AclAccount *account = nullptr;
    if (rules) {
        const auto it = rules->accounts().find(name);
        if (it != rules->accounts().end())
            account = &it->second;
    }
    if (const std::shared_ptr<const AuthData> data = guard.authData()) {
        if (const AuthUser *u = data->user(name); u && !(u->imported && account))
            return u->type == UserType::Super && u->status == UserStatus::Enable
                && sameSecret(secret, u->password);
    }
    return account && account->admin && sameSecret(secret, account->secretKey);
}

} // namespace qrocket::acl
