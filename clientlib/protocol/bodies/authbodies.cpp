#include "clientlib/protocol/bodies/authbodies.h"

#include "clientlib/protocol/json.h"

#include <QString>

namespace qrocket::protocol {

namespace {

Status bad(const char *what, const char *why)
{
    return Status::invalidArgument(
        QStringLiteral("%1: %2").arg(QLatin1String(what), QLatin1String(why)));
}

/// A string member (numbers and booleans as their text); empty when absent or null.
Result<QByteArray> text(const JsonValue &o, const char *what, const char *field)
{
    const JsonValue *v = o.find(field);
    if (!v || v->isNull())
        return QByteArray();
    if (v->isArray() || v->isObject())
        return Status::invalidArgument(QStringLiteral("%1: %2 must be a string")
                                           .arg(QLatin1String(what), QLatin1String(field)));
    return v->toString();
}

Result<std::vector<QByteArray>> texts(const JsonValue &o, const char *what, const char *field)
{
    std::vector<QByteArray> out;
    const JsonValue *v = o.find(field);
    if (!v || v->isNull())
        return out;
    if (!v->isArray())
        return Status::invalidArgument(QStringLiteral("%1: %2 must be an array")
                                           .arg(QLatin1String(what), QLatin1String(field)));
    for (const JsonValue &item : v->items()) {
        if (item.isArray() || item.isObject() || item.isNull())
            return Status::invalidArgument(QStringLiteral("%1: %2 must hold strings")
                                               .arg(QLatin1String(what), QLatin1String(field)));
        out.push_back(item.toString());
    }
    return out;
}

void optional(JsonWriter &w, const char *key, const QByteArray &value)
{
    if (!value.isEmpty())
        w.key(key).value(value);
}

void strings(JsonWriter &w, const char *key, const std::vector<QByteArray> &values)
{
    w.key(key).beginArray();
    for (const QByteArray &v : values)
        w.value(v);
    w.endArray();
}

Result<PolicyEntryInfo> readEntry(const JsonValue &v)
{
    if (!v.isObject())
        return bad("AclInfo", "a policy entry must be an object");
    PolicyEntryInfo e;
    auto resource = text(v, "AclInfo", "resource");
    auto actions = texts(v, "AclInfo", "actions");
    auto ips = texts(v, "AclInfo", "sourceIps");
    auto decision = text(v, "AclInfo", "decision");
    for (const Status &s : {resource.status(), actions.status(), ips.status(), decision.status()})
        if (!s)
            return s;
    e.resource = std::move(resource).value();
    e.actions = std::move(actions).value();
    e.sourceIps = std::move(ips).value();
    e.decision = std::move(decision).value();
    return e;
}

template<typename T, typename Read>
Result<std::vector<T>> readList(QByteArrayView json, const char *what, Read read)
{
    std::vector<T> out;
    if (json.trimmed().isEmpty())
        return out;
    auto parsed = parseJson(json);
    if (!parsed)
        return parsed.error();
    if (parsed->isNull())
        return out;
    if (!parsed->isArray())
        return bad(what, "the list must be a JSON array");
    for (const JsonValue &item : parsed->items()) {
        Result<T> one = read(item);
        if (!one)
            return one.error();
        out.push_back(std::move(one).value());
    }
    return out;
}

} // namespace

void writeUserInfo(JsonWriter &w, const UserInfo &u)
{
    w.beginObject();
    optional(w, "username", u.username);
    optional(w, "password", u.password);
    optional(w, "userType", u.userType);
    optional(w, "userStatus", u.userStatus);
    w.endObject();
}

Result<UserInfo> readUserInfo(const JsonValue &v)
{
    if (!v.isObject())
        return bad("UserInfo", "not a JSON object");
    UserInfo u;
    for (auto [field, out] : {std::pair {"username", &u.username}, {"password", &u.password},
             {"userType", &u.userType}, {"userStatus", &u.userStatus}}) {
        auto value = text(v, "UserInfo", field);
        if (!value)
            return value.error();
        *out = std::move(value).value();
    }
    return u;
}

void writeAclInfo(JsonWriter &w, const AclInfo &a)
{
    w.beginObject();
    w.key("subject").value(a.subject);
    w.key("policies").beginArray();
    for (const PolicyInfo &p : a.policies) {
        w.beginObject();
        optional(w, "policyType", p.policyType);
        w.key("entries").beginArray();
        for (const PolicyEntryInfo &e : p.entries) {
            w.beginObject();
            w.key("resource").value(e.resource);
            strings(w, "actions", e.actions);
            if (!e.sourceIps.empty())
                strings(w, "sourceIps", e.sourceIps);
            w.key("decision").value(e.decision);
            w.endObject();
        }
        w.endArray();
        w.endObject();
    }
    w.endArray();
    w.endObject();
}

Result<AclInfo> readAclInfo(const JsonValue &v)
{
    if (!v.isObject())
        return bad("AclInfo", "not a JSON object");
    AclInfo a;
    auto subject = text(v, "AclInfo", "subject");
    if (!subject)
        return subject.error();
    a.subject = std::move(subject).value();
    const JsonValue *policies = v.find("policies");
    if (!policies || policies->isNull())
        return a;
    if (!policies->isArray())
        return bad("AclInfo", "policies must be an array");
    for (const JsonValue &p : policies->items()) {
        if (!p.isObject())
            return bad("AclInfo", "a policy must be an object");
        PolicyInfo policy;
        auto type = text(p, "AclInfo", "policyType");
        if (!type)
            return type.error();
        policy.policyType = std::move(type).value();
        if (const JsonValue *entries = p.find("entries"); entries && !entries->isNull()) {
            if (!entries->isArray())
                return bad("AclInfo", "entries must be an array");
            for (const JsonValue &e : entries->items()) {
                auto entry = readEntry(e);
                if (!entry)
                    return entry.error();
                policy.entries.push_back(std::move(entry).value());
            }
        }
        a.policies.push_back(std::move(policy));
    }
    return a;
}

QByteArray UserInfo::toJson() const
{
    JsonWriter w;
    writeUserInfo(w, *this);
    return w.take();
}

Result<UserInfo> UserInfo::fromJson(QByteArrayView json)
{
    auto parsed = parseJson(json);
    if (!parsed)
        return parsed.error();
    return readUserInfo(*parsed);
}

QByteArray UserInfo::listToJson(const std::vector<UserInfo> &users)
{
    JsonWriter w;
    w.beginArray();
    for (const UserInfo &u : users)
        writeUserInfo(w, u);
    w.endArray();
    return w.take();
}

Result<std::vector<UserInfo>> UserInfo::listFromJson(QByteArrayView json)
{
    return readList<UserInfo>(json, "UserInfo", readUserInfo);
}

QByteArray AclInfo::toJson() const
{
    JsonWriter w;
    writeAclInfo(w, *this);
    return w.take();
}

Result<AclInfo> AclInfo::fromJson(QByteArrayView json)
{
    auto parsed = parseJson(json);
    if (!parsed)
        return parsed.error();
    return readAclInfo(*parsed);
}

QByteArray AclInfo::listToJson(const std::vector<AclInfo> &acls)
{
    JsonWriter w;
    w.beginArray();
    for (const AclInfo &a : acls)
        writeAclInfo(w, a);
    w.endArray();
    return w.take();
}

Result<std::vector<AclInfo>> AclInfo::listFromJson(QByteArrayView json)
{
    return readList<AclInfo>(json, "AclInfo", readAclInfo);
}

} // namespace qrocket::protocol
