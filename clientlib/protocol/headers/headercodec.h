#pragma once

// Table-driven typed access to a RemotingCommand's extFields (protocol.md §1.2 "custom header").
// Each typed header lists its fields once (Java field name, required or not, member pointer);
// decodeHeader() and encodeHeader() do the rest, with Java's rules:
//   - a required (`!`, Java @CFNotNull) field that is absent is an error naming the field;
//   - ints/longs are parsed like Integer/Long.parseInt (an unparsable value is an error, even for
//     optional fields, as Java's NumberFormatException would be);
//   - booleans are Boolean.parseBoolean: "true" (any case) is true, anything else false;
//   - strings: a null QByteArray means absent and is not written; std::optional members likewise.
// Unknown ext fields (AccessKey, Signature, bname, ...) are ignored.

#include "clientlib/common/result.h"
#include "clientlib/protocol/remotingcommand.h"

#include <QByteArray>

#include <cstdint>
#include <optional>
#include <span>
#include <type_traits>

namespace qrocket::protocol {

inline constexpr bool kRequired = true;
inline constexpr bool kOptional = false;

namespace detail {
Status missingField(const char *header, const char *field);
Status badNumber(const char *header, const char *field, const QByteArray &value, const char *type);

template<typename>
struct MemberTraits;
template<typename C, typename T>
struct MemberTraits<T C::*>
{
    using Class = C;
    using Type = T;
};

/// Parses `raw` into h.*M; false (with `error` set) when it is not a valid number.
template<auto M>
bool parseMember(typename MemberTraits<decltype(M)>::Class &h, const QByteArray &raw,
    const char *header, const char *name, Status &error)
{
    using T = typename MemberTraits<decltype(M)>::Type;
    if constexpr (std::is_same_v<T, QByteArray>) {
        h.*M = raw.isNull() ? QByteArray("", 0) : raw;
    } else if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::optional<bool>>) {
        h.*M = parseJavaBoolean(raw);
    } else {
        constexpr bool is32
            = std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::optional<std::int32_t>>;
        static_assert(is32
                || std::is_same_v<T,
                    std::int64_t> || std::is_same_v<T, std::optional<std::int64_t>>,
            "unsupported header field type");
        const auto v = parseJavaLong(raw);
        if (!v || (is32 && (*v < INT32_MIN || *v > INT32_MAX))) {
            error = badNumber(header, name, raw, is32 ? "an int" : "a long");
            return false;
        }
        if constexpr (is32)
            h.*M = static_cast<std::int32_t>(*v);
        else
            h.*M = *v;
    }
    return true;
}

template<auto M>
void writeMember(
    const typename MemberTraits<decltype(M)>::Class &h, RemotingCommand &cmd, const char *name)
{
    using T = typename MemberTraits<decltype(M)>::Type;
    const T &v = h.*M;
    if constexpr (std::is_same_v<T, QByteArray>) {
        if (!v.isNull())
            cmd.setExt(QByteArray(name), v);
    } else if constexpr (std::is_same_v<T, bool>) {
        cmd.setExtBool(QByteArray(name), v);
    } else if constexpr (std::is_same_v<T, std::optional<bool>>) {
        if (v)
            cmd.setExtBool(QByteArray(name), *v);
    } else if constexpr (std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>) {
        cmd.setExt(QByteArray(name), static_cast<std::int64_t>(v));
    } else {
        if (v)
            cmd.setExt(QByteArray(name), static_cast<std::int64_t>(*v));
    }
}
} // namespace detail

template<typename H>
struct HeaderField
{
    const char *name;
    bool required;
    bool (*parse)(H &, const QByteArray &, const char *, const char *, Status &);
    void (*write)(const H &, RemotingCommand &, const char *);
};

/// One table row: headerField<&Header::member>("javaName", kRequired).
template<auto M>
constexpr HeaderField<typename detail::MemberTraits<decltype(M)>::Class> headerField(
    const char *name, bool required)
{
    return {name, required, &detail::parseMember<M>, &detail::writeMember<M>};
}

template<typename H>
Result<H> decodeHeader(
    const RemotingCommand &cmd, std::span<const HeaderField<H>> fields, const char *headerName)
{
    H h;
    for (const HeaderField<H> &f : fields) {
        const QByteArray *raw = cmd.ext(QByteArrayView(f.name));
        if (!raw) {
            if (f.required)
                return detail::missingField(headerName, f.name);
            continue;
        }
        Status error;
        if (!f.parse(h, *raw, headerName, f.name, error))
            return error;
    }
    return h;
}

template<typename H>
void encodeHeader(const H &h, RemotingCommand &cmd, std::span<const HeaderField<H>> fields)
{
    for (const HeaderField<H> &f : fields)
        f.write(h, cmd, f.name);
}

} // namespace qrocket::protocol

/// Declares `static Result<T> decode(const RemotingCommand &)` and `void encode(RemotingCommand &)
/// const` inside a header struct; QROCKET_HEADER_CODEC_IMPL defines them from a field table.
#define QROCKET_HEADER_CODEC(T)                                                                    \
    static ::qrocket::Result<T> decode(const ::qrocket::protocol::RemotingCommand &cmd);           \
    void encode(::qrocket::protocol::RemotingCommand &cmd) const

#define QROCKET_HEADER_CODEC_IMPL(T, ...)                                                          \
    namespace {                                                                                    \
    const ::qrocket::protocol::HeaderField<T> k##T##Fields[] = {__VA_ARGS__};                      \
    }                                                                                              \
    ::qrocket::Result<T> T::decode(const ::qrocket::protocol::RemotingCommand &cmd)                \
    {                                                                                              \
        return ::qrocket::protocol::decodeHeader<T>(cmd, k##T##Fields, #T);                        \
    }                                                                                              \
    void T::encode(::qrocket::protocol::RemotingCommand &cmd) const                                \
    {                                                                                              \
        ::qrocket::protocol::encodeHeader<T>(*this, cmd, k##T##Fields);                            \
    }
