#include "broker/grpc/grpcauth.h"

#include "broker/grpc/grpcpeers.h"
#include "clientlib/acl/aclguard.h"
#include "clientlib/common/hex.h"
#include "clientlib/protocol/aclsignature.h"
#include "clientlib/protocol/hmacsha1.h"

#include <QDateTime>
#include <QHostAddress>

#include <chrono>
#include <cstdlib>
#include <grpcpp/server_context.h>

namespace qrocket::broker::v2 {

namespace {

QByteArray metadataOf(const grpc::CallbackServerContext *context, const char *key)
{
    const auto &md = context->client_metadata();
    const auto it = md.find(key);
    if (it == md.end())
        return {};
    return QByteArray(it->second.data(), static_cast<qsizetype>(it->second.size()));
}

/// gRPC's "ipv4:1.2.3.4:5" / "ipv6:[::1]:5" as an address (null when it is neither).
QHostAddress peerHost(const grpc::CallbackServerContext *context, const GrpcPeers *peers)
{
    const std::string p = peers ? peers->resolve(context->peer()) : context->peer();
    std::string_view v(p);
    if (v.starts_with("ipv4:"))
        v.remove_prefix(5);
    else if (v.starts_with("ipv6:"))
        v.remove_prefix(5);
    else
        return QHostAddress();
    const std::size_t colon = v.rfind(':');
    if (colon != std::string_view::npos)
        v = v.substr(0, colon);
    if (v.size() >= 2 && v.front() == '[' && v.back() == ']')
        v = v.substr(1, v.size() - 2);
    QHostAddress host(QString::fromLatin1(v.data(), qsizetype(v.size())));
    bool mapped = false;
    const quint32 v4 = host.toIPv4Address(&mapped);
    return mapped ? QHostAddress(v4) : host;
}

/// Whether `hex` is HMAC-SHA1(secret, content) in hex, compared in constant time.
bool signatureMatches(QByteArrayView hex, QByteArrayView secret, QByteArrayView content)
{
    protocol::HmacSha1 mac(secret);
    mac.addData(content);
    const protocol::HmacSha1::Digest expected = mac.result();
    if (hex.size() != qsizetype(expected.size() * 2))
        return false;
    std::array<char, 20> given {};
    for (std::size_t i = 0; i < given.size(); ++i) {
        const int hi = hexDigitValue(hex[qsizetype(2 * i)]);
        const int lo = hexDigitValue(hex[qsizetype(2 * i + 1)]);
        if (hi < 0 || lo < 0)
            return false;
        given[i] = static_cast<char>(hi << 4 | lo);
    }
    return protocol::constantTimeEquals(QByteArrayView(given.data(), qsizetype(given.size())),
        QByteArrayView(
            reinterpret_cast<const char *>(expected.data()), qsizetype(expected.size())));
}

/// The value of `count` decimal digits at `at`, or -1.
int digitsAt(QByteArrayView text, qsizetype at, int count)
{
    int value = 0;
    for (qsizetype i = at; i < at + count; ++i) {
        const unsigned digit = static_cast<unsigned char>(text[i]) - unsigned('0');
        if (digit > 9)
            return -1;
        value = value * 10 + int(digit);
    }
    return value;
}

} // namespace

std::optional<std::int64_t> parseSignedDateTime(QByteArrayView value)
{
    // yyyyMMdd'T'HHmmss'Z'
    if (value.size() != 16 || value[8] != 'T' || value[15] != 'Z')
        return std::nullopt;
    const int year = digitsAt(value, 0, 4);
    const int month = digitsAt(value, 4, 2);
    const int day = digitsAt(value, 6, 2);
    const int hour = digitsAt(value, 9, 2);
    const int minute = digitsAt(value, 11, 2);
    const int second = digitsAt(value, 13, 2);
    if (year < 0 || month < 0 || day < 0 || hour < 0 || hour > 23 || minute < 0 || minute > 59
        || second < 0 || second > 59)
        return std::nullopt;
    const std::chrono::year_month_day date {std::chrono::year(year),
        std::chrono::month(unsigned(month)), std::chrono::day(unsigned(day))};
    if (!date.ok())
        return std::nullopt;
    const std::int64_t days = std::chrono::sys_days(date).time_since_epoch().count();
    return days * 86400 + hour * 3600 + minute * 60 + second;
}

std::optional<std::string> checkSignedDateTime(
    QByteArrayView value, std::int64_t nowSecs, int maxSkewSeconds)
{
    if (maxSkewSeconds <= 0)
        return std::nullopt; // as before the check: any value the signature covers
    const std::optional<std::int64_t> at = parseSignedDateTime(value);
    if (!at)
        return std::string("datetime is not yyyyMMdd'T'HHmmss'Z' (UTC).");
    const std::int64_t skew = *at - nowSecs;
    if (skew >= -std::int64_t(maxSkewSeconds) && skew <= maxSkewSeconds)
        return std::nullopt;
    // The value is 16 checked characters here: safe to repeat.
    return "datetime " + value.toByteArray().toStdString() + " is " + std::to_string(std::abs(skew))
        + " s " + (skew < 0 ? "behind" : "ahead of")
        + " the broker's clock (grpcAuthMaxClockSkewSeconds=" + std::to_string(maxSkewSeconds)
        + "): refused as a possible replay; check the client's clock.";
}

std::optional<AuthorizationHeader> parseAuthorization(QByteArrayView value)
{
    // "<algorithm> k=v, k=v, ...": the proxy splits at the first space, then at commas, each
    // pair at its first '='; every pair must have one. The algorithm is not checked (nor there).
    const qsizetype space = value.indexOf(' ');
    if (space <= 0)
        return std::nullopt;
    AuthorizationHeader out;
    bool credential = false;
    QByteArrayView rest = value.sliced(space + 1);
    while (true) {
        const qsizetype comma = rest.indexOf(',');
        const QByteArrayView pair = (comma < 0 ? rest : rest.first(comma)).trimmed();
        const qsizetype eq = pair.indexOf('=');
        if (eq < 0)
            return std::nullopt;
        const QByteArrayView key = pair.first(eq);
        const QByteArrayView val = pair.sliced(eq + 1);
        if (key == "Credential") {
            const qsizetype slash = val.indexOf('/');
            out.accessKey = (slash < 0 ? val : val.first(slash)).toByteArray();
            credential = true;
        } else if (key == "Signature") {
            out.signatureHex = val.toByteArray();
        }
        if (comma < 0)
            break;
        rest = rest.sliced(comma + 1);
    }
    if (!credential)
        return std::nullopt;
    return out;
}

std::optional<QByteArray> GrpcAuth::secretOf(const acl::PlainAclConfig &rules,
    const QByteArray &accessKey, std::string *reason, const acl::AclAccount **plainAccount) const
{
    *plainAccount = nullptr;
    // The guard's precedence (aclguard.h): an ACL 2.0 user, unless it is an untouched import of
    // an account the file still defines.
    const acl::AclAccount *account = nullptr;
    if (const auto it = rules.accounts().find(accessKey); it != rules.accounts().end())
        account = &it->second;
    if (const std::shared_ptr<const acl::AuthData> data = m_guard->authData()) {
        const acl::AuthUser *user = data->user(accessKey);
        if (user && (!user->imported || !account)) {
            if (user->status == acl::UserStatus::Disable) {
                *reason = "User:" + accessKey.toStdString() + " is disabled.";
                return std::nullopt;
            }
            return user->password;
        }
    }
    if (!account)
        return std::nullopt;
    *plainAccount = account;
    return account->secretKey;
}

std::optional<std::string> GrpcAuth::authenticate(const grpc::CallbackServerContext *context) const
{
    if (!m_guard)
        return std::nullopt;
    const std::shared_ptr<const acl::PlainAclConfig> rules = m_guard->rules();
    if (!rules)
        return std::string("ACL rules not loaded");
    const QHostAddress peer = peerHost(context, m_peers);
    const QByteArray value = metadataOf(context, "authorization");
    if (value.isEmpty()) {
        if (rules->isGloballyWhite(peer))
            return std::nullopt;
        return std::string("username cannot be null.");
    }
    const QByteArray dateTime = metadataOf(context, "x-mq-date-time");
    if (dateTime.isEmpty())
        return std::string("datetime is null.");
    const std::optional<AuthorizationHeader> header = parseAuthorization(value);
    if (!header)
        return std::string("authentication header is incorrect.");
    if (header->accessKey.isEmpty())
        return std::string("username cannot be null.");
    if (rules->isGloballyWhite(peer))
        return std::nullopt;
    std::string reason;
    const acl::AclAccount *account = nullptr;
    const std::optional<QByteArray> secret = secretOf(*rules, header->accessKey, &reason, &account);
    if (!secret) {
        if (reason.empty())
            reason = "User:" + header->accessKey.left(128).toStdString() + " is not found.";
        return reason;
    }
    // A plain_acl.yml account's whiteRemoteAddress lets its peers in unsigned (remoting's rule).
    if (account && AddressPattern::matchesAny(account->whiteRemoteAddress, peer))
        return std::nullopt;
    if (std::optional<std::string> stale
        = checkSignedDateTime(dateTime, QDateTime::currentSecsSinceEpoch(), m_maxClockSkewSeconds))
        return stale;
    if (!signatureMatches(header->signatureHex, *secret, dateTime))
        return std::string("check signature failed.");
    return std::nullopt;
}

GrpcCredential GrpcAuth::credentialOf(const grpc::CallbackServerContext *context) const
{
    GrpcCredential out;
    if (!m_guard)
        return out;
    const std::optional<AuthorizationHeader> header
        = parseAuthorization(metadataOf(context, "authorization"));
    if (!header || header->accessKey.isEmpty())
        return out;
    const std::shared_ptr<const acl::PlainAclConfig> rules = m_guard->rules();
    if (!rules)
        return out;
    std::string reason;
    const acl::AclAccount *account = nullptr;
    if (std::optional<QByteArray> secret = secretOf(*rules, header->accessKey, &reason, &account)) {
        out.accessKey = header->accessKey;
        out.secretKey = std::move(*secret);
    }
    return out;
}

std::optional<QByteArray> GrpcAuth::authorize(const remoting::Channel &channel,
    const GrpcCredential &who, protocol::RemotingCommand &request) const
{
    if (!m_guard)
        return std::nullopt;
    if (!who.accessKey.isEmpty())
        protocol::aclSign(request, who.accessKey, who.secretKey);
    if (std::optional<remoting::RequestGuard::Refusal> no = m_guard->check(channel, request))
        return std::move(no->remark);
    return std::nullopt;
}

} // namespace qrocket::broker::v2
