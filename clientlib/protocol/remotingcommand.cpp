#include "clientlib/protocol/remotingcommand.h"

#include <array>
#include <cstring>
#include <limits>

namespace qrocket::protocol {

namespace {

constexpr std::array<const char *, 13> kLanguageNames = {
    "JAVA",
    "CPP",
    "DOTNET",
    "PYTHON",
    "DELPHI",
    "ERLANG",
    "RUBY",
    "OTHER",
    "HTTP",
    "GO",
    "PHP",
    "OMS",
    "RUST",
};

bool sameBytes(QByteArrayView a, QByteArrayView b)
{
    return a.size() == b.size()
        && (a.isEmpty()
            || std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.size())) == 0);
}

} // namespace

std::optional<std::int64_t> parseJavaLong(QByteArrayView text)
{
    qsizetype i = 0;
    bool negative = false;
    if (!text.isEmpty() && (text[0] == '-' || text[0] == '+')) {
        negative = text[0] == '-';
        ++i;
    }
    if (i >= text.size())
        return std::nullopt;
    if (text.size() - i <= 18) {
        // Up to 18 digits cannot overflow an int64 (every header number on the send path: a
        // timestamp has 13), so skip the per-digit range check of the general loop below.
        std::int64_t value = 0;
        for (; i < text.size(); ++i) {
            const unsigned digit = static_cast<unsigned char>(text[i]) - unsigned('0');
            if (digit > 9)
                return std::nullopt;
            value = value * 10 + digit;
        }
        return negative ? -value : value;
    }
    // Accumulate negatively so that INT64_MIN parses.
    std::int64_t value = 0;
    constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
    for (; i < text.size(); ++i) {
        const char c = text[i];
        if (c < '0' || c > '9')
            return std::nullopt;
        const int digit = c - '0';
        if (value < (kMin + digit) / 10)
            return std::nullopt;
        value = value * 10 - digit;
    }
    if (!negative) {
        if (value == kMin)
            return std::nullopt;
        value = -value;
    }
    return value;
}

bool parseJavaBoolean(QByteArrayView text)
{
    return text.compare(QByteArrayView("true"), Qt::CaseInsensitive) == 0;
}

const char *languageName(LanguageCode code)
{
    const auto index = static_cast<std::size_t>(code);
    return index < kLanguageNames.size() ? kLanguageNames[index] : "OTHER";
}

std::optional<LanguageCode> parseLanguage(QByteArrayView text)
{
    if (text.size() == 4 && std::memcmp(text.data(), "JAVA", 4) == 0)
        return LanguageCode::Java;
    for (std::size_t i = 0; i < kLanguageNames.size(); ++i) {
        if (sameBytes(text, QByteArrayView(kLanguageNames[i])))
            return static_cast<LanguageCode>(i);
    }
    const auto ordinal = parseJavaLong(text);
    if (ordinal && *ordinal >= 0 && *ordinal < static_cast<std::int64_t>(kLanguageNames.size()))
        return static_cast<LanguageCode>(*ordinal);
    return std::nullopt;
}

RemotingCommand RemotingCommand::createRequest(int code)
{
    RemotingCommand cmd;
    cmd.code = code;
    return cmd;
}

RemotingCommand RemotingCommand::createResponse(
    const RemotingCommand &request, int code, QByteArray remark)
{
    RemotingCommand cmd;
    cmd.code = code;
    cmd.opaque = request.opaque;
    cmd.serializeType = request.serializeType;
    cmd.remark = std::move(remark);
    cmd.markResponse();
    return cmd;
}

const QByteArray *RemotingCommand::ext(QByteArrayView key) const
{
    for (const auto &field : extFields) {
        if (sameBytes(field.first, key))
            return &field.second;
    }
    return nullptr;
}

QByteArrayView RemotingCommand::extString(QByteArrayView key) const
{
    const QByteArray *value = ext(key);
    return value ? QByteArrayView(*value) : QByteArrayView();
}

std::optional<std::int32_t> RemotingCommand::extInt(QByteArrayView key) const
{
    const auto v = extLong(key);
    if (!v || *v < std::numeric_limits<std::int32_t>::min()
        || *v > std::numeric_limits<std::int32_t>::max())
        return std::nullopt;
    return static_cast<std::int32_t>(*v);
}

std::optional<std::int64_t> RemotingCommand::extLong(QByteArrayView key) const
{
    const QByteArray *value = ext(key);
    if (!value)
        return std::nullopt;
    return parseJavaLong(*value);
}

std::optional<bool> RemotingCommand::extBool(QByteArrayView key) const
{
    const QByteArray *value = ext(key);
    if (!value)
        return std::nullopt;
    return parseJavaBoolean(*value);
}

void RemotingCommand::setExt(QByteArray key, QByteArray value)
{
    for (auto &field : extFields) {
        if (sameBytes(field.first, key)) {
            field.second = std::move(value);
            return;
        }
    }
    extFields.emplace_back(std::move(key), std::move(value));
}

void RemotingCommand::setExt(QByteArray key, std::int64_t value)
{
    setExt(std::move(key), QByteArray::number(static_cast<qlonglong>(value)));
}

void RemotingCommand::setExtBool(QByteArray key, bool value)
{
    setExt(std::move(key), value ? QByteArrayLiteral("true") : QByteArrayLiteral("false"));
}

bool RemotingCommand::removeExt(QByteArrayView key)
{
    for (auto it = extFields.begin(); it != extFields.end(); ++it) {
        if (sameBytes(it->first, key)) {
            extFields.erase(it);
            return true;
        }
    }
    return false;
}

} // namespace qrocket::protocol
