#include "clientlib/protocol/headerdecode.h"

#include "clientlib/common/byteorder.h"
#include "clientlib/protocol/dedupe.h"
#include "clientlib/protocol/interning.h"
#include "clientlib/protocol/jsontext.h"
#include "clientlib/protocol/sharedbytes.h"

#include <cstring>
#include <limits>

namespace qrocket::protocol::detail {

namespace {

using jsontext::skipSpace;
using namespace interning;

/// A plain decimal int32 at text[pos] (optional '-', at most 10 digits) into `value`; returns
/// where it ends, or -1 when there are no digits or it is out of range. What may follow is the
/// caller's rule.
inline qsizetype scanInt32(QByteArrayView text, qsizetype pos, int &value)
{
    const char *p = text.data();
    const qsizetype n = text.size();
    qsizetype i = pos;
    const bool negative = i < n && p[i] == '-';
    if (negative)
        ++i;
    const qsizetype digits = i;
    std::int64_t v = 0;
    while (i < n && p[i] >= '0' && p[i] <= '9' && i - digits < 10) {
        v = v * 10 + (p[i] - '0');
        ++i;
    }
    if (i == digits)
        return -1;
    if (negative)
        v = -v;
    if (v < std::numeric_limits<std::int32_t>::min()
        || v > std::numeric_limits<std::int32_t>::max())
        return -1;
    value = static_cast<int>(v);
    return i;
}

/// `key` equals the literal `name`, compared with word loads (no memcmp call).
template<std::size_t N>
bool sameName(QByteArrayView key, const char (&name)[N])
{
    constexpr std::size_t n = N - 1;
    if (static_cast<std::size_t>(key.size()) != n)
        return false;
    const auto *k = reinterpret_cast<const unsigned char *>(key.data());
    const auto *s = reinterpret_cast<const unsigned char *>(name);
    if constexpr (n >= 8) {
        for (std::size_t i = 0; i + 8 < n; i += 8) {
            if (jsontext::load64(k + i) != jsontext::load64(s + i))
                return false;
        }
        return jsontext::load64(k + n - 8) == jsontext::load64(s + n - 8);
    } else if constexpr (n >= 4) {
        return jsontext::load32(k) == jsontext::load32(s)
            && jsontext::load32(k + n - 4) == jsontext::load32(s + n - 4);
    } else {
        return std::memcmp(k, s, n) == 0;
    }
}

/// Copies `n` bytes (sizeof(Word) <= n <= 2 * sizeof(Word)) as two overlapping word moves.
template<typename Word>
inline void copyHeadAndTail(char *to, const char *from, qsizetype n)
{
    Word head, tail;
    std::memcpy(&head, from, sizeof(Word));
    std::memcpy(&tail, from + n - sizeof(Word), sizeof(Word));
    std::memcpy(to, &head, sizeof(Word));
    std::memcpy(to + n - sizeof(Word), &tail, sizeof(Word));
}

/// Copies `n` bytes with at most two overlapping word moves when n <= 16.
inline void copyBytes(char *to, const char *from, qsizetype n)
{
    if (n > 16) {
        std::memcpy(to, from, static_cast<std::size_t>(n));
    } else if (n >= 8) {
        copyHeadAndTail<std::uint64_t>(to, from, n);
    } else if (n >= 4) {
        copyHeadAndTail<std::uint32_t>(to, from, n);
    } else {
        for (qsizetype i = 0; i < n; ++i)
            to[i] = from[i];
    }
}

/// Drops duplicate keys (keeping the last value) and null values, as a Java map put would;
/// `maybeDuplicates` false skips the pairwise check.
void finishExtFields(
    std::vector<RemotingCommand::ExtField> &fields, bool maybeDuplicates, bool hasNull)
{
    if (maybeDuplicates)
        detail::dedupeKeepLastValue(fields);
    if (hasNull)
        std::erase_if(fields, [](const auto &f) { return f.second.isNull(); });
}

constexpr int kMaxSkipDepth = 32;
/// Largest header whose strings CompactHeaderParser copies into one shared block (see Arena).
constexpr qsizetype kArenaMaxHeader = 4096;

/// Fast path for the compact headers every known client and QRocket itself send: no whitespace,
/// the known top-level keys, integers as plain digits, string ext values. Anything else (or
/// anything odd) answers false and the general JsonHeaderScanner decodes the header instead, so
/// this path never rejects or accepts differently; it only skips work.
class CompactHeaderParser
{
public:
    CompactHeaderParser(QByteArrayView text, RemotingCommand &cmd)
        : m_text(text)
        , m_p(reinterpret_cast<const unsigned char *>(text.data()))
        , m_n(text.size())
        , m_cmd(cmd)
    { }

    bool run()
    {
        if (!take('{'))
            return false;
        if (take('}'))
            return m_pos == m_n;
        for (;;) {
            QByteArrayView key;
            if (!rawString(key) || !take(':') || !member(key))
                return false;
            if (take(','))
                continue;
            return take('}') && m_pos == m_n;
        }
    }

private:
    bool take(char c)
    {
        if (m_pos < m_n && m_p[m_pos] == static_cast<unsigned char>(c)) {
            ++m_pos;
            return true;
        }
        return false;
    }

    /// A string without escapes at m_pos.
    bool rawString(QByteArrayView &out)
    {
        if (m_pos >= m_n || m_p[m_pos] != '"')
            return false;
        return jsontext::scanRawString(m_text, m_pos, out);
    }

    bool integer(int &out)
    {
        int v = 0;
        const qsizetype end = scanInt32(m_text, m_pos, v);
        if (end < 0 || (end < m_n && m_p[end] != ',' && m_p[end] != '}'))
            return false;
        out = v;
        m_pos = end;
        return true;
    }

    bool member(QByteArrayView key)
    {
        QByteArrayView text;
        switch (key.size()) {
        case 4:
            if (sameName(key, "code"))
                return integer(m_cmd.code);
            if (sameName(key, "flag"))
                return integer(m_cmd.flag);
            return false;
        case 6:
            if (sameName(key, "opaque"))
                return integer(m_cmd.opaque);
            if (sameName(key, "remark")) {
                if (!rawString(text))
                    return false;
                m_cmd.remark = text.isEmpty() ? staticBytes("", 0) : text.toByteArray();
                return true;
            }
            return false;
        case 7:
            return sameName(key, "version") && integer(m_cmd.version);
        case 8:
            if (!sameName(key, "language") || !rawString(text))
                return false;
            m_cmd.language = parseLanguage(text).value_or(LanguageCode::Other);
            return true;
        case 9:
            return sameName(key, "extFields") && extFields();
        case 23:
            return sameName(key, "serializeTypeCurrentRPC") && rawString(text);
        default:
            return false;
        }
    }

    /// The ext strings that are not interned are copied into one SharedBytes block the size of
    /// the header: one allocation per header instead of one per string. They all fit: a
    /// string's JSON text is at least its decoded size plus two quotes. Only headers of up to
    /// kArenaMaxHeader bytes use it, so that a string kept long after its request (a topic name
    /// in a table) holds little memory alive.
    class Arena
    {
    public:
        explicit Arena(qsizetype headerBytes)
            : m_enabled(headerBytes <= kArenaMaxHeader), m_bytes(headerBytes)
        { }

        /// Where to write a string of up to `n` bytes, or nullptr when it does not fit.
        char *room(qsizetype n) { return m_enabled ? m_bytes.room(n) : nullptr; }
        qsizetype roomLeft() const { return m_bytes.roomLeft(); }
        /// The `n` bytes just written at room() as a QByteArray sharing the block.
        QByteArray commit(qsizetype n) { return m_bytes.commit(n); }
        /// `text` as a QByteArray: interned, in the block, or (when it does not fit) its own copy.
        Q_ALWAYS_INLINE QByteArray copy(QByteArrayView text)
        {
            if (text.size() <= kMaxStaticValue) {
                QByteArray known = staticValue(text);
                if (!known.isNull())
                    return known;
            }
            char *at = room(text.size());
            if (!at)
                return text.toByteArray();
            copyBytes(at, text.data(), text.size());
            return commit(text.size());
        }

    private:
        bool m_enabled;
        SharedBytes m_bytes;
    };

    /// An escaped string at m_pos, decoded into the arena when it fits.
    bool escapedString(QByteArray &value)
    {
        if (char *at = m_arena.room(0)) {
            const qsizetype n = jsontext::scanStringInto(m_text, m_pos, at, m_arena.roomLeft());
            if (n < 0)
                return false;
            value = m_arena.commit(n);
            return true;
        }
        if (!jsontext::scanString(m_text, m_pos, value))
            return false;
        if (value.isNull())
            value = QByteArray("", 0);
        return true;
    }

    bool extFields()
    {
        if (!take('{'))
            return false;
        m_cmd.extFields.clear();
        if (take('}'))
            return true;
        m_cmd.extFields.reserve(16);
        std::uint64_t seen = 0;
        bool maybeDuplicates = false;
        for (;;) {
            QByteArrayView keyText;
            if (!rawString(keyText) || !take(':') || m_pos >= m_n || m_p[m_pos] != '"')
                return false;
            QByteArray value;
            QByteArrayView raw;
            if (jsontext::scanRawString(m_text, m_pos, raw))
                value = m_arena.copy(raw);
            else if (!escapedString(value))
                return false;
            QByteArray key;
            std::uint64_t bit = 0;
            if (keyText.size() == 1 && keyText[0] >= 'a' && keyText[0] <= 'z') {
                const int letter = keyText[0] - 'a';
                key = staticBytes(kLetterKeys + 2 * letter, 1);
                bit = std::uint64_t(1) << (keyText[0] & 63);
            } else {
                key = keyTable().find(keyText);
                if (key.isNull())
                    key = m_arena.copy(keyText);
                bit = keyBit(keyText);
            }
            maybeDuplicates = maybeDuplicates || (seen & bit) != 0;
            seen |= bit;
            m_cmd.extFields.emplace_back(std::move(key), std::move(value));
            if (take(','))
                continue;
            if (!take('}'))
                return false;
            finishExtFields(m_cmd.extFields, maybeDuplicates, false);
            return true;
        }
    }

    QByteArrayView m_text;
    const unsigned char *m_p;
    qsizetype m_n;
    qsizetype m_pos = 0;
    RemotingCommand &m_cmd;
    Arena m_arena {m_n};
};

/// Hand-written scanner for the one flat JSON object of a type-0 header (§1.2, §1.7).
class JsonHeaderScanner
{
public:
    JsonHeaderScanner(QByteArrayView text, RemotingCommand &cmd) : m_text(text), m_cmd(cmd) { }

    /// Empty on success, else the reason.
    QString run()
    {
        skipSpace(m_text, m_pos);
        if (m_pos >= m_text.size() || m_text[m_pos] != '{')
            return QStringLiteral("JSON header is not an object");
        ++m_pos;
        skipSpace(m_text, m_pos);
        if (!consume('}')) {
            for (;;) {
                if (!parseMember())
                    return m_error;
                skipSpace(m_text, m_pos);
                if (consume(','))
                    continue;
                if (consume('}'))
                    break;
                return fail("expected ',' or '}'");
            }
        }
        skipSpace(m_text, m_pos); // cpp ends its header with "\n"
        if (m_pos != m_text.size())
            return fail("trailing bytes after the JSON header object");
        return {};
    }

private:
    bool consume(char c)
    {
        if (m_pos < m_text.size() && m_text[m_pos] == c) {
            ++m_pos;
            return true;
        }
        return false;
    }

    QString fail(const char *what)
    {
        m_error = QStringLiteral("invalid JSON header at byte %1: %2")
                      .arg(m_pos)
                      .arg(QLatin1String(what));
        return m_error;
    }
    bool failed(const char *what)
    {
        fail(what);
        return false;
    }

    /// A quoted string: a view into the input when it has no escapes, else unescaped into
    /// `storage`.
    bool scanText(QByteArrayView &out, QByteArray &storage)
    {
        if (jsontext::scanRawString(m_text, m_pos, out))
            return true;
        if (!jsontext::scanString(m_text, m_pos, storage))
            return failed("bad string");
        out = storage;
        return true;
    }

    bool scanKey(QByteArrayView &key, QByteArray &storage)
    {
        skipSpace(m_text, m_pos);
        if (m_pos >= m_text.size() || m_text[m_pos] != '"')
            return failed("expected a quoted key");
        if (!scanText(key, storage))
            return false;
        skipSpace(m_text, m_pos);
        if (!consume(':'))
            return failed("expected ':'");
        skipSpace(m_text, m_pos);
        return true;
    }

    /// A plain decimal int (the common case) without the general number scanner.
    bool fastInt(int &out)
    {
        int v = 0;
        const qsizetype end = scanInt32(m_text, m_pos, v);
        if (end < 0)
            return false; // empty or out of range: the general path decides
        if (end < m_text.size()) {
            const char c = m_text[end];
            if ((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E')
                return false; // long, or not an integer: the general path decides
        }
        out = v;
        m_pos = end;
        return true;
    }

    bool parseInt(int &out, const char *field)
    {
        if (fastInt(out))
            return true;
        QByteArrayView literal;
        bool isInteger = false;
        std::optional<std::int64_t> v;
        if (m_pos < m_text.size() && m_text[m_pos] == '"') {
            // Tolerate a quoted number.
            QByteArray storage;
            QByteArrayView s;
            if (!scanText(s, storage))
                return false;
            v = jsontext::parseInteger(s);
        } else if (jsontext::scanNumber(m_text, m_pos, literal, isInteger)) {
            v = isInteger ? jsontext::parseInteger(literal)
                          : jsontext::parseInteger(jsontext::canonicalNumber(literal, false));
        } else {
            return failed(field);
        }
        if (!v || *v < std::numeric_limits<std::int32_t>::min()
            || *v > std::numeric_limits<std::int32_t>::max())
            return failed(field);
        out = static_cast<int>(*v);
        return true;
    }

    static bool is(QByteArrayView key, const char *name, std::size_t n)
    {
        return static_cast<std::size_t>(key.size()) == n && std::memcmp(key.data(), name, n) == 0;
    }

    bool parseMember()
    {
        QByteArrayView key;
        QByteArray storage;
        if (!scanKey(key, storage))
            return false;
        switch (key.size()) {
        case 4:
            if (is(key, "code", 4))
                return parseInt(m_cmd.code, "code is not an int32");
            if (is(key, "flag", 4))
                return parseInt(m_cmd.flag, "flag is not an int32");
            break;
        case 6:
            if (is(key, "opaque", 6))
                return parseInt(m_cmd.opaque, "opaque is not an int32");
            if (is(key, "remark", 6))
                return parseRemark();
            break;
        case 7:
            if (is(key, "version", 7))
                return parseInt(m_cmd.version, "version is not an int32");
            break;
        case 8:
            if (is(key, "language", 8))
                return parseLanguageValue();
            break;
        case 9:
            if (is(key, "extFields", 9))
                return parseExtFields();
            break;
        default:
            break;
        }
        return skipValue(0);
    }

    bool parseLanguageValue()
    {
        QByteArrayView text;
        QByteArray storage;
        if (m_pos < m_text.size() && m_text[m_pos] == '"') {
            if (!scanText(text, storage))
                return false;
        } else {
            QByteArrayView literal;
            bool isInteger = false;
            if (!jsontext::scanNumber(m_text, m_pos, literal, isInteger) || !isInteger)
                return failed("language is neither a name nor an ordinal");
            text = literal;
        }
        // Unknown languages are recorded as OTHER rather than rejected.
        m_cmd.language = parseLanguage(text).value_or(LanguageCode::Other);
        return true;
    }

    bool parseRemark()
    {
        if (m_pos < m_text.size() && m_text[m_pos] == '"') {
            QByteArrayView raw;
            if (jsontext::scanRawString(m_text, m_pos, raw)) {
                m_cmd.remark = raw.isEmpty() ? staticBytes("", 0) : raw.toByteArray();
                return true;
            }
            if (!jsontext::scanString(m_text, m_pos, m_cmd.remark))
                return failed("bad string");
            if (m_cmd.remark.isNull())
                m_cmd.remark = QByteArray("", 0); // present but empty
            return true;
        }
        if (keyword("null")) {
            m_cmd.remark = QByteArray();
            return true;
        }
        return failed("remark is not a string");
    }

    /// Already in canonical form: an int64 with no '+', no leading zero and not "-0".
    static bool isCanonicalInteger(QByteArrayView n, bool isInteger)
    {
        if (!isInteger || n.isEmpty() || n.size() > 18 || n[0] == '+')
            return false;
        const qsizetype digits = n[0] == '-' ? 1 : 0;
        if (digits >= n.size() || (n[digits] == '0' && (n.size() - digits > 1 || digits == 1)))
            return false;
        return true;
    }

    bool keyword(const char *word)
    {
        const QByteArrayView w(word);
        if (m_text.sliced(m_pos).startsWith(w)) {
            m_pos += w.size();
            return true;
        }
        return false;
    }

    /// A scalar ext value as its canonical string; `present` false for null.
    bool parseExtValue(QByteArray &out, bool &present)
    {
        present = true;
        if (m_pos >= m_text.size())
            return failed("unexpected end");
        const char c = m_text[m_pos];
        if (c == '"') {
            QByteArrayView raw;
            if (jsontext::scanRawString(m_text, m_pos, raw)) {
                out = internValue(raw);
                return true;
            }
            if (!jsontext::scanString(m_text, m_pos, out))
                return failed("bad string");
            if (out.isNull())
                out = QByteArray("", 0);
            return true;
        }
        if (keyword("true")) {
            out = staticBytes("true", 4);
            return true;
        }
        if (keyword("false")) {
            out = staticBytes("false", 5);
            return true;
        }
        if (keyword("null")) {
            present = false;
            return true;
        }
        QByteArrayView number;
        bool isInteger = false;
        if (jsontext::scanNumber(m_text, m_pos, number, isInteger)) {
            out = isCanonicalInteger(number, isInteger)
                ? internValue(number)
                : jsontext::canonicalNumber(number, isInteger);
            return true;
        }
        if (c == '{' || c == '[')
            return failed("extFields value is not a scalar");
        return failed("bad extFields value");
    }

    bool parseExtFields()
    {
        if (keyword("null"))
            return true;
        if (!consume('{'))
            return failed("extFields is not an object");
        m_cmd.extFields.clear();
        skipSpace(m_text, m_pos);
        if (consume('}'))
            return true;
        m_cmd.extFields.reserve(16);
        std::uint64_t seen = 0;
        bool maybeDuplicates = false;
        bool hasNull = false;
        for (;;) {
            QByteArrayView keyText;
            QByteArray storage;
            if (!scanKey(keyText, storage))
                return false;
            QByteArray key = internKey(keyText);
            QByteArray value;
            bool present = false;
            if (!parseExtValue(value, present))
                return false;
            const std::uint64_t bit = keyBit(key);
            maybeDuplicates = maybeDuplicates || (seen & bit) != 0;
            seen |= bit;
            hasNull = hasNull || !present;
            // null (Java: absent) is kept as a null value until duplicates are resolved.
            m_cmd.extFields.emplace_back(std::move(key), present ? std::move(value) : QByteArray());
            skipSpace(m_text, m_pos);
            if (consume(','))
                continue;
            if (consume('}')) {
                finishExtFields(m_cmd.extFields, maybeDuplicates, hasNull);
                return true;
            }
            return failed("expected ',' or '}' in extFields");
        }
    }

    /// Skips any JSON value of an unknown key.
    bool skipValue(int depth)
    {
        if (depth > kMaxSkipDepth)
            return failed("nesting too deep");
        skipSpace(m_text, m_pos);
        if (m_pos >= m_text.size())
            return failed("unexpected end");
        const char c = m_text[m_pos];
        if (c == '"') {
            QByteArrayView ignored;
            QByteArray storage;
            return scanText(ignored, storage);
        }
        if (c == '{' || c == '[') {
            const char close = c == '{' ? '}' : ']';
            ++m_pos;
            skipSpace(m_text, m_pos);
            if (consume(close))
                return true;
            for (;;) {
                if (c == '{') {
                    QByteArrayView ignored;
                    QByteArray storage;
                    if (!scanKey(ignored, storage))
                        return false;
                }
                if (!skipValue(depth + 1))
                    return false;
                skipSpace(m_text, m_pos);
                if (consume(','))
                    continue;
                if (consume(close))
                    return true;
                return failed("expected ',' or a closing bracket");
            }
        }
        if (keyword("true") || keyword("false") || keyword("null"))
            return true;
        QByteArrayView number;
        bool isInteger = false;
        if (jsontext::scanNumber(m_text, m_pos, number, isInteger))
            return true;
        return failed("unexpected character");
    }

    QByteArrayView m_text;
    RemotingCommand &m_cmd;
    qsizetype m_pos = 0;
    QString m_error;
};

} // namespace

QString decodeJsonHeader(QByteArrayView header, RemotingCommand &cmd)
{
    cmd.serializeType = SerializeType::Json;
    if (CompactHeaderParser(header, cmd).run())
        return {};
    cmd = RemotingCommand(); // start over on the general path (serializeType Json)
    return JsonHeaderScanner(header, cmd).run();
}

QString decodeBinaryHeader(QByteArrayView h, RemotingCommand &cmd)
{
    cmd.serializeType = SerializeType::RocketMQ;
    if (h.size() < kBinaryMinHeader)
        return QStringLiteral("binary header truncated: %1 bytes, need at least %2")
            .arg(h.size())
            .arg(kBinaryMinHeader);
    const char *p = h.data();
    cmd.code = readI16(p);
    const auto lang = static_cast<std::uint8_t>(p[2]);
    cmd.language = lang <= static_cast<std::uint8_t>(LanguageCode::Rust)
        ? static_cast<LanguageCode>(lang)
        : LanguageCode::Other;
    cmd.version = readI16(p + 3);
    cmd.opaque = readI32(p + 5);
    cmd.flag = readI32(p + 9);
    const std::int32_t remarkLen = readI32(p + 13);
    qsizetype pos = kBinaryRemarkOffset;
    if (remarkLen < 0 || remarkLen > h.size() - pos)
        return QStringLiteral("binary header remark length %1 beyond the header").arg(remarkLen);
    if (remarkLen > 0)
        cmd.remark = QByteArray(p + pos, remarkLen);
    pos += remarkLen;
    if (h.size() - pos < 4)
        return QStringLiteral("binary header truncated before the extFields length");
    const std::int32_t extLen = readI32(p + pos);
    pos += 4;
    if (extLen < 0 || extLen > h.size() - pos)
        return QStringLiteral("binary header extFields length %1 beyond the header").arg(extLen);
    const qsizetype end = pos + extLen;
    std::uint64_t seen = 0;
    bool maybeDuplicates = false;
    // A key (i16 length) or value (i32 length) at p[pos], within the map; advances pos past it.
    const auto field = [&](int width, const char *what, QByteArrayView &out) -> QString {
        if (end - pos < width)
            return QStringLiteral("binary header extFields: truncated %1 length")
                .arg(QLatin1String(what));
        const std::int32_t len = width == 2 ? readI16(p + pos) : readI32(p + pos);
        pos += width;
        if (len < 0 || len > end - pos)
            return QStringLiteral("binary header extFields: %1 length %2 beyond the map")
                .arg(QLatin1String(what))
                .arg(len);
        out = QByteArrayView(p + pos, len);
        pos += len;
        return {};
    };
    while (pos < end) {
        QByteArrayView keyText;
        QByteArrayView valueText;
        if (QString why = field(2, "key", keyText); !why.isEmpty())
            return why;
        if (QString why = field(4, "value", valueText); !why.isEmpty())
            return why;
        QByteArray key = internKey(keyText);
        const std::uint64_t bit = keyBit(key);
        maybeDuplicates = maybeDuplicates || (seen & bit) != 0;
        seen |= bit;
        cmd.extFields.emplace_back(std::move(key), internValue(valueText));
    }
    finishExtFields(cmd.extFields, maybeDuplicates, false);
    return {};
}

} // namespace qrocket::protocol::detail
