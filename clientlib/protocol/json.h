#pragma once

// JSON for RocketMQ bodies and config files (protocol.md §3.9, §7.6).
//
// JsonValue/parseJson: a tolerant reader that accepts standard JSON plus what fastjson (Java
// brokers, name servers, old config files) writes: unquoted integer object keys
// (`{0:"127.0.0.1:10911"}`), objects as keys
// (`{{"brokerName":"b","queueId":0,"topic":"T"}:{...}}`), single-quoted strings, and trailing
// commas. Used for bodies, never for frame headers.
//
// JsonWriter: a streaming writer producing compact standard JSON; `keyValue(JsonValue)` or
// `rawKey()` emit the fastjson MessageQueue-keyed maps where §3.9 says so.

#include "clientlib/common/result.h"

#include <QByteArray>
#include <QByteArrayView>

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace qrocket::protocol {

class JsonValue
{
public:
    enum class Type : std::uint8_t { Null, Bool, Integer, Double, String, Array, Object };
    using Member = std::pair<JsonValue, JsonValue>; // key may be a String, Integer or Object

    JsonValue() = default;
    static JsonValue fromBool(bool v);
    static JsonValue fromInteger(std::int64_t v);
    static JsonValue fromDouble(double v);
    static JsonValue fromString(QByteArray v);
    static JsonValue array();
    static JsonValue object();

    Type type() const { return m_type; }
    bool isNull() const { return m_type == Type::Null; }
    bool isObject() const { return m_type == Type::Object; }
    bool isArray() const { return m_type == Type::Array; }
    bool isString() const { return m_type == Type::String; }
    bool isNumber() const { return m_type == Type::Integer || m_type == Type::Double; }

    /// Lenient scalar access: numbers from numeric strings, strings from numbers ("12"),
    /// booleans from "true"/"false" strings; `fallback` when not convertible.
    std::int64_t toInteger(std::int64_t fallback = 0) const;
    double toDouble(double fallback = 0) const;
    bool toBool(bool fallback = false) const;
    /// String value, or the canonical text of a scalar (integers without ".0").
    QByteArray toString() const;

    // Arrays
    const std::vector<JsonValue> &items() const;
    void append(JsonValue v);
    // Objects (members keep their order)
    const std::vector<Member> &members() const;
    /// The member whose key (string or integer key, compared as text) equals `key`, or nullptr.
    const JsonValue *find(QByteArrayView key) const;
    /// find() or a shared Null value.
    const JsonValue &operator[](QByteArrayView key) const;
    /// Sets the member with an equal string/integer key, or appends (object keys always append).
    void insert(JsonValue key, JsonValue value);
    void insert(QByteArray key, JsonValue value)
    {
        insert(fromString(std::move(key)), std::move(value));
    }
    /// Appends without looking for an equal key (the parser; find() returns the last match).
    void appendMember(JsonValue key, JsonValue value);

private:
    Type m_type = Type::Null;
    bool m_bool = false;
    std::int64_t m_int = 0;
    double m_double = 0;
    QByteArray m_string;
    std::shared_ptr<std::vector<JsonValue>> m_items;
    std::shared_ptr<std::vector<Member>> m_members;
};

/// Parses one JSON (or fastjson) value; trailing whitespace allowed, anything else is an error
/// naming the byte offset. Nesting deeper than `maxDepth` is rejected.
Result<JsonValue> parseJson(QByteArrayView text, int maxDepth = 64);

/// Compact standard JSON writer. Strings are escaped (control chars as \uXXXX); non-ASCII UTF-8
/// is written raw. Call sequence is the caller's responsibility (checked in debug builds).
class JsonWriter
{
public:
    JsonWriter &beginObject();
    JsonWriter &endObject();
    JsonWriter &beginArray();
    JsonWriter &endArray();
    JsonWriter &key(QByteArrayView k);
    /// A non-string key written verbatim (fastjson's MessageQueue-object keys, integer keys).
    JsonWriter &rawKey(QByteArrayView k);
    JsonWriter &value(QByteArrayView s);
    JsonWriter &value(const char *s) { return value(QByteArrayView(s)); }
    JsonWriter &value(std::int64_t v);
    JsonWriter &value(int v) { return value(static_cast<std::int64_t>(v)); }
    JsonWriter &value(double v);
    JsonWriter &value(bool v);
    JsonWriter &null();
    JsonWriter &value(const JsonValue &v);
    /// Pre-encoded JSON inserted as a value.
    JsonWriter &raw(QByteArrayView json);

    const QByteArray &data() const { return m_out; }
    QByteArray take() { return std::move(m_out); }

private:
    void separator();
    QByteArray m_out;
    std::vector<bool> m_first; // per open container: no element written yet
    bool m_afterKey = false;
};

/// Serialises a JsonValue compactly (object keys that are objects are written fastjson-style).
QByteArray toJson(const JsonValue &v);

} // namespace qrocket::protocol
