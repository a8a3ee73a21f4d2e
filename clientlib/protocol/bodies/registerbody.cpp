// RegisterBrokerBody (REGISTER_BROKER's body): its JSON, read topic by topic when it has the
// plain form (a 100,000-topic table is 16 MB of JSON, and one tree of it was ~150 MB in the name
// server), and RocketMQ's compressed form (compressedRegister).

#include "clientlib/common/byteorder.h"
#include "clientlib/protocol/bodies/routebodies.h"
#include "clientlib/protocol/compression.h"
#include "clientlib/protocol/jsontext.h"

#include <functional>
#include <optional>

namespace qrocket::protocol {

namespace {

void appendI32(QByteArray &out, std::int32_t v)
{
    char b[4];
    writeI32(b, v);
    out.append(b, 4);
}

} // namespace

// --- RegisterBrokerBody -----------------------------------------------------------------------

QByteArray RegisterBrokerBody::toJson() const
{
    JsonWriter w;
    w.beginObject().key("filterServerList").beginArray();
    for (const QByteArray &s : filterServerList)
        w.value(QByteArrayView(s));
    w.endArray().key("topicConfigSerializeWrapper");
    topicConfigSerializeWrapper.write(w);
    w.endObject();
    return w.take();
}

namespace {

/// Moves `pos` past one JSON value of the tolerant reader's forms starting at text[pos] (after
/// spaces): a string, or everything up to the matching bracket, or a scalar up to the next `,`
/// `}` or `]`. Does not validate what it skips (its slice is parsed afterwards); false when the
/// value does not end.
bool skipValue(QByteArrayView text, qsizetype &pos)
{
    int depth = 0;
    QByteArray unescaped;
    while (pos < text.size()) {
        const char c = text[pos];
        if (c == '"' || c == '\'') {
            QByteArrayView raw;
            if (!jsontext::scanRawString(text, pos, raw)
                && !jsontext::scanString(text, pos, unescaped))
                return false;
        } else if (c == '{' || c == '[') {
            ++depth;
            ++pos;
        } else if (c == '}' || c == ']') {
            if (depth == 0)
                return true;
            ++pos;
            if (--depth == 0)
                return true;
        } else if (c == ',' && depth == 0) {
            return true;
        } else {
            ++pos;
        }
    }
    return depth == 0;
}

/// Walks the members of the object at text[pos] (after spaces): `member(key, valueStart,
/// valueEnd)` for each, keys being quoted strings. False (the caller falls back to the whole
/// document's tree) on anything else: another kind of key, a missing `:`, an unended value,
/// or `member` returning false.
bool forEachMember(QByteArrayView text, qsizetype &pos,
    const std::function<bool(const QByteArray &, qsizetype, qsizetype)> &member)
{
    jsontext::skipSpace(text, pos);
    if (pos >= text.size() || text[pos] != '{')
        return false;
    ++pos;
    QByteArray key;
    while (true) {
        jsontext::skipSpace(text, pos);
        if (pos >= text.size())
            return false;
        if (text[pos] == '}') {
            ++pos;
            return true;
        }
        if ((text[pos] != '"' && text[pos] != '\'') || !jsontext::scanString(text, pos, key))
            return false;
        jsontext::skipSpace(text, pos);
        if (pos >= text.size() || text[pos] != ':')
            return false;
        ++pos;
        jsontext::skipSpace(text, pos);
        const qsizetype start = pos;
        if (!skipValue(text, pos) || pos == start || !member(key, start, pos))
            return false;
        jsontext::skipSpace(text, pos);
        if (pos < text.size() && text[pos] == ',')
            ++pos;
        else if (pos >= text.size() || text[pos] != '}')
            return false;
    }
}

/// RegisterBrokerBody::fromJson without the whole document's JsonValue tree: a broker's full
/// registration of 100,000 topics is ~16 MB of JSON whose tree took ~150 MB of the name
/// server's heap at once (two brokers registering together: past 300 MB, and glibc kept it).
/// Here each topic's object is parsed on its own and dropped once converted. Returns nullopt
/// whenever the text is anything but the plain form (a duplicate member, an unquoted key, a
/// value that does not parse or convert): the caller then takes the tree's path, which gives
/// the same answer for a good body and the same error for a bad one.
std::optional<RegisterBrokerBody> registerBodyTopicByTopic(QByteArrayView text)
{
    RegisterBrokerBody out;
    qsizetype filtersStart = -1, filtersEnd = -1;
    bool wrapperSeen = false;
    qsizetype pos = 0;
    const bool ok = forEachMember(text, pos, [&](const QByteArray &key, qsizetype s, qsizetype e) {
        if (key == "filterServerList") {
            if (filtersStart >= 0)
                return false;
            filtersStart = s;
            filtersEnd = e;
            return true;
        }
        if (key != "topicConfigSerializeWrapper")
            return parseJson(text.sliced(s, e - s)).has_value(); // ignored, as by the tree
        if (wrapperSeen)
            return false;
        wrapperSeen = true;
        TopicConfigSerializeWrapper &wrapper = out.topicConfigSerializeWrapper;
        bool dataVersionSeen = false;
        bool tableSeen = false;
        qsizetype p = s;
        const bool wrapperOk
            = forEachMember(text, p, [&](const QByteArray &member, qsizetype ms, qsizetype me) {
                  if (member == "dataVersion") {
                      if (dataVersionSeen)
                          return false;
                      dataVersionSeen = true;
                      auto v = parseJson(text.sliced(ms, me - ms));
                      if (!v || v->isNull())
                          return v.has_value();
                      auto d = DataVersion::fromJsonValue(*v);
                      if (!d)
                          return false;
                      wrapper.dataVersion = *d;
                      return true;
                  }
                  if (member != "topicConfigTable")
                      return parseJson(text.sliced(ms, me - ms)).has_value();
                  if (tableSeen)
                      return false;
                  tableSeen = true;
                  qsizetype tp = ms;
                  return forEachMember(text, tp,
                             [&](const QByteArray &topic, qsizetype ts, qsizetype te) {
                                 auto v = parseJson(text.sliced(ts, te - ts));
                                 if (!v)
                                     return false;
                                 auto t = TopicConfig::fromJsonValue(*v, topic);
                                 if (!t)
                                     return false;
                                 wrapper.topicConfigTable[topic] = std::move(t).value();
                                 return true;
                             })
                      && tp == me;
              });
        return wrapperOk && p == e;
    });
    jsontext::skipSpace(text, pos);
    if (!ok || pos != text.size())
        return std::nullopt;
    if (filtersStart >= 0) {
        auto list = parseJson(text.sliced(filtersStart, filtersEnd - filtersStart));
        if (!list)
            return std::nullopt;
        auto filters = bodyjson::stringList(*list, "RegisterBrokerBody", "filterServerList");
        if (!filters)
            return std::nullopt;
        out.filterServerList = std::move(filters).value();
    }
    return out;
}

} // namespace

Result<RegisterBrokerBody> RegisterBrokerBody::fromJson(QByteArrayView json)
{
    constexpr const char *kWhat = "RegisterBrokerBody";
    if (auto fast = registerBodyTopicByTopic(json))
        return std::move(*fast);
    auto v = bodyjson::parseObject(json, kWhat);
    if (!v.has_value())
        return v.error();
    RegisterBrokerBody out;
    auto filters = bodyjson::stringList((*v)["filterServerList"], kWhat, "filterServerList");
    if (!filters.has_value())
        return filters.error();
    out.filterServerList = std::move(filters).value();
    const JsonValue &wrapper = (*v)["topicConfigSerializeWrapper"];
    if (!wrapper.isNull()) {
        auto w = TopicConfigSerializeWrapper::fromJsonValue(wrapper);
        if (!w.has_value())
            return w.error();
        out.topicConfigSerializeWrapper = std::move(w).value();
    }
    return out;
}

Result<QByteArray> RegisterBrokerBody::encodeCompressed() const
{
    QByteArray plain;
    const QByteArray dv = topicConfigSerializeWrapper.dataVersion.toJson();
    appendI32(plain, static_cast<std::int32_t>(dv.size()));
    plain.append(dv);
    appendI32(
        plain, static_cast<std::int32_t>(topicConfigSerializeWrapper.topicConfigTable.size()));
    for (const auto &[name, config] : topicConfigSerializeWrapper.topicConfigTable) {
        const QByteArray text = config.encodeText();
        appendI32(plain, static_cast<std::int32_t>(text.size()));
        plain.append(text);
    }
    JsonWriter w;
    w.beginArray();
    for (const QByteArray &s : filterServerList)
        w.value(QByteArrayView(s));
    w.endArray();
    appendI32(plain, static_cast<std::int32_t>(w.data().size()));
    plain.append(w.data());
    return zlibCompress(plain, 9);
}

Result<RegisterBrokerBody> RegisterBrokerBody::decodeCompressed(
    QByteArrayView body, qsizetype maxInflated)
{
    auto inflated = zlibDecompress(body, maxInflated);
    if (!inflated.has_value())
        return Status::invalidArgument(
            QStringLiteral("compressed RegisterBrokerBody: %1").arg(inflated.error().message()));
    const QByteArray &plain = *inflated;
    qsizetype pos = 0;
    const auto truncated = [] {
        return Status::invalidArgument(QStringLiteral("compressed RegisterBrokerBody: truncated"));
    };
    const auto readChunk = [&](QByteArrayView &chunk) {
        if (plain.size() - pos < 4)
            return false;
        const std::int32_t len = readI32(plain.constData() + pos);
        pos += 4;
        if (len < 0 || len > plain.size() - pos)
            return false;
        chunk = QByteArrayView(plain).sliced(pos, len);
        pos += len;
        return true;
    };
    RegisterBrokerBody out;
    QByteArrayView chunk;
    if (!readChunk(chunk))
        return truncated();
    auto dv = DataVersion::fromJson(chunk);
    if (!dv.has_value())
        return dv.error();
    out.topicConfigSerializeWrapper.dataVersion = *dv;
    if (plain.size() - pos < 4)
        return truncated();
    const std::int32_t count = readI32(plain.constData() + pos);
    pos += 4;
    if (count < 0)
        return truncated();
    for (std::int32_t i = 0; i < count; ++i) {
        if (!readChunk(chunk))
            return truncated();
        auto t = TopicConfig::decodeText(chunk);
        if (!t.has_value())
            return t.error();
        out.topicConfigSerializeWrapper.topicConfigTable[t->topicName] = std::move(t).value();
    }
    if (!readChunk(chunk))
        return truncated();
    auto list = parseJson(chunk);
    if (!list.has_value())
        return list.error();
    auto filters = bodyjson::stringList(*list, "RegisterBrokerBody", "filterServerList");
    if (!filters.has_value())
        return filters.error();
    out.filterServerList = std::move(filters).value();
    return out;
}

Result<RegisterBrokerBody> RegisterBrokerBody::decode(QByteArrayView body, bool compressed)
{
    return compressed ? decodeCompressed(body) : fromJson(body);
}

} // namespace qrocket::protocol
