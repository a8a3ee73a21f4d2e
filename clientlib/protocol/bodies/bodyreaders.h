#pragma once

// The small readers the admin and runtime bodies share (adminbodies.cpp, runtimebodies.cpp):
// typed members of a tolerant JSON tree, with the body's name in every error. Internal to
// clientlib/protocol/bodies.

#include "clientlib/protocol/bodies/adminbodies.h"

#include <QString>

#include <cstddef>
#include <cstdint>
#include <map>
#include <type_traits>
#include <vector>

namespace qrocket::protocol::bodyjson {

/// An object member that must be an object (or absent: then null).
inline Result<const JsonValue *> objectField(
    const JsonValue &o, const char *what, const char *field)
{
    const JsonValue *v = o.find(field);
    if (!v || v->isNull())
        return static_cast<const JsonValue *>(nullptr);
    if (!v->isObject())
        return wrongType(what, field, "an object");
    return v;
}

inline Result<const JsonValue *> arrayField(const JsonValue &o, const char *what, const char *field)
{
    const JsonValue *v = o.find(field);
    if (!v || v->isNull())
        return static_cast<const JsonValue *>(nullptr);
    if (!v->isArray())
        return wrongType(what, field, "an array");
    return v;
}

/// `[{...}, ...]` (absent or null: nothing), each object appended to `out` as `read(object)`
/// gives it: a T, or a Result<T> whose error ends the reading.
template<typename T, typename Read>
Status readObjectArray(
    const JsonValue &o, const char *what, const char *field, std::vector<T> &out, Read read)
{
    auto list = arrayField(o, what, field);
    if (!list)
        return list.error();
    if (!*list)
        return {};
    for (const JsonValue &item : (*list)->items()) {
        if (!item.isObject())
            return wrongType(what, field, "an array of objects");
        if constexpr (std::is_same_v<std::invoke_result_t<Read, const JsonValue &>, T>) {
            out.push_back(read(item));
        } else {
            auto v = read(item);
            if (!v)
                return v.error();
            out.push_back(std::move(v).value());
        }
    }
    return {};
}

/// `{MQ: value}` read with `read(value) -> Result<T>`.
template<typename T, typename Read>
Status readQueueMap(const JsonValue &o, const char *what, const char *field,
    std::map<MessageQueue, T> &out, Read read)
{
    auto table = objectField(o, what, field);
    if (!table)
        return table.error();
    if (!*table)
        return {};
    for (const auto &[key, value] : (*table)->members()) {
        auto mq = messageQueueKey(key, what);
        if (!mq)
            return mq.error();
        Result<T> v = read(value);
        if (!v)
            return v.error();
        out[std::move(mq).value()] = std::move(v).value();
    }
    return {};
}

inline Status notObject(const char *what, const char *field)
{
    return wrongType(what, field, "an object");
}

template<typename E, std::size_t N>
bool readEnum(const JsonValue &v, const char *(*nameOf)(E), E &out)
{
    if (v.isNull())
        return true;
    const QByteArray text = v.toString().trimmed();
    for (std::size_t i = 0; i < N; ++i) {
        const E e = static_cast<E>(i);
        if (text == nameOf(e) || text == QByteArray::number(static_cast<int>(i))) {
            out = e;
            return true;
        }
    }
    return false;
}

inline Status badEnum(const char *what, const char *field, const JsonValue &v)
{
    return Status::invalidArgument(
        QStringLiteral("%1: unknown %2 '%3'")
            .arg(QLatin1String(what), QLatin1String(field), QString::fromUtf8(v.toString())));
}

inline std::int64_t longOf(const JsonValue &o, QByteArrayView key, std::int64_t fallback = 0)
{
    return o[key].toInteger(fallback);
}

inline int intOf(const JsonValue &o, QByteArrayView key, int fallback = 0)
{
    return static_cast<int>(o[key].toInteger(fallback));
}

inline Result<std::vector<QByteArray>> stringArray(
    const JsonValue &o, const char *what, const char *field)
{
    return bodyjson::stringList(o[field], what, field);
}

} // namespace qrocket::protocol::bodyjson
