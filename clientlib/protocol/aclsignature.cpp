#include "clientlib/protocol/aclsignature.h"

#include "clientlib/protocol/hmacsha1.h"

#include <algorithm>

namespace qrocket::protocol {

ExtFieldOrder::ExtFieldOrder(const RemotingCommand &request) : m_request(request)
{
    const auto &fields = request.extFields;
    const std::size_t n = fields.size();
    if (n <= kInline) {
        m_order = std::span<std::uint32_t>(m_inline.data(), n);
    } else {
        m_heap.resize(n);
        m_order = std::span<std::uint32_t>(m_heap);
    }
    for (std::size_t i = 0; i < n; ++i)
        m_order[i] = static_cast<std::uint32_t>(i);
    const auto byKey
        = [&](std::uint32_t a, std::uint32_t b) { return fields[a].first < fields[b].first; };
    if (n <= kInline) {
        // A request has ~10-20 fields: insertion sort (stable) beats a merge sort's buffer.
        for (std::size_t i = 1; i < n; ++i) {
            const std::uint32_t v = m_order[i];
            std::size_t j = i;
            for (; j > 0 && byKey(v, m_order[j - 1]); --j)
                m_order[j] = m_order[j - 1];
            m_order[j] = v;
        }
    } else {
        std::stable_sort(m_order.begin(), m_order.end(), byKey);
    }
}

const QByteArray *ExtFieldOrder::duplicate() const
{
    const auto &fields = m_request.extFields;
    for (std::size_t i = 1; i < m_order.size(); ++i) {
        if (fields[m_order[i]].first == fields[m_order[i - 1]].first)
            return &fields[m_order[i]].first;
    }
    return nullptr;
}

QByteArray aclSignature(QByteArrayView secretKey, const ExtFieldOrder &order, QByteArrayView skip)
{
    const RemotingCommand &request = order.request();
    const std::span<const std::uint32_t> idx = order.indexes();
    HmacSha1 mac(secretKey);
    for (std::size_t i = 0; i < idx.size(); ++i) {
        const auto &[key, value] = request.extFields[idx[i]];
        if (i + 1 < idx.size() && request.extFields[idx[i + 1]].first == key)
            continue; // a duplicate: the last one counts
        if (key == kAclSignature || (!skip.isEmpty() && key == skip))
            continue;
        mac.addData(value);
    }
    if (!request.body.isEmpty())
        mac.addData(request.body);
    const HmacSha1::Digest digest = mac.result();
    return QByteArray::fromRawData(
        reinterpret_cast<const char *>(digest.data()), static_cast<qsizetype>(digest.size()))
        .toBase64();
}

QByteArray aclSignature(
    QByteArrayView secretKey, const RemotingCommand &request, QByteArrayView skip)
{
    return aclSignature(secretKey, ExtFieldOrder(request), skip);
}

void aclSign(RemotingCommand &request, const QByteArray &accessKey, const QByteArray &secretKey,
    const QByteArray &securityToken)
{
    request.setExt(QByteArrayLiteral("AccessKey"), accessKey);
    if (!securityToken.isEmpty())
        request.setExt(QByteArrayLiteral("SecurityToken"), securityToken);
    request.removeExt(kAclSignature);
    request.setExt(QByteArrayLiteral("Signature"), aclSignature(secretKey, request));
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
