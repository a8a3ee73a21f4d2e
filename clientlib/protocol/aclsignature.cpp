#include "clientlib/protocol/aclsignature.h"

#include <QCryptographicHash>
#include <QMessageAuthenticationCode>

#include <algorithm>
#include <vector>

namespace qrocket::protocol {

QByteArray aclSignature(
    QByteArrayView secretKey, const RemotingCommand &request, QByteArrayView skip)
{
    // Indices sorted by key; for equal keys the later one last, so that it wins below.
    std::vector<std::size_t> order(request.extFields.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return request.extFields[a].first < request.extFields[b].first;
    });
    QMessageAuthenticationCode mac(QCryptographicHash::Sha1, secretKey.toByteArray());
    for (std::size_t i = 0; i < order.size(); ++i) {
        const auto &[key, value] = request.extFields[order[i]];
        if (i + 1 < order.size() && request.extFields[order[i + 1]].first == key)
            continue; // a duplicate: the last one counts
        if (key == kAclSignature || (!skip.isEmpty() && key == skip))
            continue;
        mac.addData(value);
    }
    if (!request.body.isEmpty())
        mac.addData(request.body);
    return mac.result().toBase64();
}

void aclSign(RemotingCommand &request, const QByteArray &accessKey, const QByteArray &secretKey,
    const QByteArray &securityToken)
{
    request.setExt(kAclAccessKey.toByteArray(), accessKey);
    if (!securityToken.isEmpty())
        request.setExt(kAclSecurityToken.toByteArray(), securityToken);
    request.removeExt(kAclSignature);
    request.setExt(kAclSignature.toByteArray(), aclSignature(secretKey, request));
}

bool constantTimeEquals(QByteArrayView a, QByteArrayView b)
{
    if (a.size() != b.size())
        return false;
    unsigned char diff = 0;
    for (qsizetype i = 0; i < a.size(); ++i)
        diff |= static_cast<unsigned char>(a[i] ^ b[i]);
    return diff == 0;
}

} // namespace qrocket::protocol
