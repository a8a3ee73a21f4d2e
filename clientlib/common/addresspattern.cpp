#include "clientlib/common/addresspattern.h"

#include <QStringList>

#include <algorithm>

namespace qrocket {

namespace {

Status bad(QStringView pattern, const QString &why)
{
    return Status::invalidArgument(
        QStringLiteral("address pattern '%1': %2").arg(pattern.toString(), why));
}

/// A decimal number of 1-3 digits (IPv4) or a hex number of 1-4 digits (IPv6) within `max`.
bool parseUnit(QStringView s, int base, int max, std::uint16_t &out)
{
    const int maxDigits = base == 10 ? 3 : 4;
    if (s.isEmpty() || s.size() > maxDigits)
        return false;
    int v = 0;
    for (QChar qc : s) {
        const char16_t c = qc.unicode();
        int d = -1;
        if (c >= u'0' && c <= u'9')
            d = c - u'0';
        else if (base == 16 && c >= u'a' && c <= u'f')
            d = c - u'a' + 10;
        else if (base == 16 && c >= u'A' && c <= u'F')
            d = c - u'A' + 10;
        if (d < 0)
            return false;
        v = v * base + d;
    }
    if (v > max)
        return false;
    out = static_cast<std::uint16_t>(v);
    return true;
}

/// "a-b" with a <= b.
bool parseRange(QStringView s, int base, int max, std::uint16_t &low, std::uint16_t &high)
{
    const qsizetype dash = s.indexOf(u'-');
    return dash > 0 && parseUnit(s.left(dash), base, max, low)
        && parseUnit(s.mid(dash + 1), base, max, high) && low <= high;
}

/// "{a,b,c}": the elements, each a unit.
bool parseSet(QStringView s, int base, int max, std::vector<std::uint16_t> &out)
{
    if (s.size() < 3 || !s.startsWith(u'{') || !s.endsWith(u'}'))
        return false;
    for (QStringView e : s.mid(1, s.size() - 2).split(u',')) {
        std::uint16_t v = 0;
        if (!parseUnit(e.trimmed(), base, max, v))
            return false;
        out.push_back(v);
    }
    return true;
}

/// The peer as 4 bytes (IPv4, also IPv4-mapped IPv6) or 8 groups; 0 units: not an IP address.
int peerUnits(const QHostAddress &peer, std::array<std::uint16_t, 8> &units)
{
    if (peer.protocol() == QAbstractSocket::IPv4Protocol) {
        const quint32 v4 = peer.toIPv4Address();
        for (int i = 0; i < 4; ++i)
            units[static_cast<size_t>(i)] = static_cast<std::uint16_t>((v4 >> (24 - 8 * i)) & 0xff);
        return 4;
    }
    if (peer.protocol() != QAbstractSocket::IPv6Protocol)
        return 0;
    const Q_IPV6ADDR v6 = peer.toIPv6Address();
    const bool mapped = std::all_of(v6.c, v6.c + 10, [](quint8 b) { return b == 0; })
        && v6.c[10] == 0xff && v6.c[11] == 0xff;
    if (mapped) {
        for (int i = 0; i < 4; ++i)
            units[static_cast<size_t>(i)] = v6.c[12 + i];
        return 4;
    }
    for (int i = 0; i < 8; ++i)
        units[static_cast<size_t>(i)] = static_cast<std::uint16_t>(v6.c[2 * i] << 8 | v6.c[2 * i + 1]);
    return 8;
}

} // namespace

Result<AddressPattern> AddressPattern::parse(QStringView input)
{
    const QStringView text = input.trimmed();
    AddressPattern p;
    p.m_text = text.toString();
    if (text.isEmpty())
        return bad(text, QStringLiteral("empty"));
    if (text == u"*" || text == u"*.*.*.*" || text == u"*:*:*:*:*:*:*:*") {
        p.m_kind = Kind::Everyone;
        return p;
    }
    if (!text.contains(u':')) {
        // IPv4: numbers up to the first variable segment ('*', 'a-b' or a last '{...}'), then
        // only '*'; fewer than four segments when the last one is '*'.
        p.m_kind = Kind::V4;
        const QList<QStringView> parts = text.split(u'.');
        if (parts.size() > 4)
            return bad(text, QStringLiteral("more than four segments"));
        int var = -1;
        for (int i = 0; i < parts.size(); ++i) {
            const QStringView s = parts[i].trimmed();
            if (var < 0) {
                if (s == u"*") {
                    var = i;
                    p.m_low = 0;
                    p.m_high = 255;
                } else if (s.contains(u'-')) {
                    var = i;
                    if (!parseRange(s, 10, 255, p.m_low, p.m_high))
                        return bad(text,
                            QStringLiteral("'%1' is not a range a-b of numbers 0-255 with a <= b")
                                .arg(s.toString()));
                } else if (s.startsWith(u'{')) {
                    var = i;
                    if (i != 3)
                        return bad(text, QStringLiteral("a set {...} must be the fourth segment"));
                    if (!parseSet(s, 10, 255, p.m_set))
                        return bad(text,
                            QStringLiteral("'%1' is not a set {a,b,...} of numbers 0-255")
                                .arg(s.toString()));
                } else if (!parseUnit(s, 10, 255, p.m_units[static_cast<size_t>(i)])) {
                    return bad(
                        text, QStringLiteral("'%1' is not a number 0-255").arg(s.toString()));
                }
            } else if (s != u"*") {
                return bad(text,
                    QStringLiteral("only * may follow a range or a * (found '%1')")
                        .arg(s.toString()));
            }
        }
        if (var == 0)
            return bad(text, QStringLiteral("the first segment must be a number (or use *)"));
        if (parts.size() < 4 && parts.back().trimmed() != u"*")
            return bad(text, QStringLiteral("four segments needed unless the pattern ends in *"));
        p.m_pos = var < 0 ? 4 : var;
        return p;
    }

    // IPv6: a whole address, or one whose last group is '*', 'a-b' or '{...}', or whose last
    // two are 'a-b:*'. The variable groups are read as 0 to parse the rest as an address.
    p.m_kind = Kind::V6;
    const qsizetype lastColon = text.lastIndexOf(u':');
    const QStringView last = text.mid(lastColon + 1);
    QString fixed;
    if (last.startsWith(u'{')) {
        if (!parseSet(last, 16, 0xffff, p.m_set))
            return bad(text,
                QStringLiteral("'%1' is not a set {a,b,...} of hex groups").arg(last.toString()));
        p.m_pos = 7;
        fixed = text.left(lastColon + 1).toString() + u'0';
    } else if (last == u"*") {
        const QStringView head = text.left(lastColon);
        const qsizetype prevColon = head.lastIndexOf(u':');
        const QStringView prev = head.mid(prevColon + 1);
        if (prev.contains(u'-')) {
            if (prevColon < 0 || !parseRange(prev, 16, 0xffff, p.m_low, p.m_high))
                return bad(text,
                    QStringLiteral("'%1' is not a range a-b of hex groups with a <= b")
                        .arg(prev.toString()));
            p.m_pos = 6;
            fixed = head.left(prevColon + 1).toString() + QStringLiteral("0:0");
        } else {
            p.m_pos = 7;
            p.m_low = 0;
            p.m_high = 0xffff;
            fixed = head.toString() + QStringLiteral(":0");
        }
    } else if (last.contains(u'-')) {
        if (!parseRange(last, 16, 0xffff, p.m_low, p.m_high))
            return bad(text,
                QStringLiteral("'%1' is not a range a-b of hex groups with a <= b")
                    .arg(last.toString()));
        p.m_pos = 7;
        fixed = text.left(lastColon + 1).toString() + u'0';
    } else {
        p.m_pos = 8;
        fixed = text.toString();
    }
    if (fixed.contains(u'*') || fixed.contains(u'-') || fixed.contains(u'{'))
        return bad(text,
            QStringLiteral("a *, range or set may only stand in the last group (or 'a-b:*')"));
    const QHostAddress address(fixed);
    if (address.protocol() != QAbstractSocket::IPv6Protocol)
        return bad(text, QStringLiteral("not an IPv6 address or pattern"));
    if (p.m_pos == 8 && peerUnits(address, p.m_units) == 4) {
        p.m_kind = Kind::V4; // ::ffff:a.b.c.d: the IPv4 address
        p.m_pos = 4;
        return p;
    }
    const Q_IPV6ADDR v6 = address.toIPv6Address();
    for (int i = 0; i < 8; ++i)
        p.m_units[static_cast<size_t>(i)]
            = static_cast<std::uint16_t>(v6.c[2 * i] << 8 | v6.c[2 * i + 1]);
    return p;
}

Result<std::vector<AddressPattern>> AddressPattern::parseList(QStringView text)
{
    std::vector<AddressPattern> out;
    qsizetype start = 0;
    int depth = 0;
    for (qsizetype i = 0; i <= text.size(); ++i) {
        const QChar c = i < text.size() ? text[i] : QChar(u',');
        if (c == u'{') {
            ++depth;
        } else if (c == u'}') {
            if (--depth < 0)
                return bad(text, QStringLiteral("'}' without '{'"));
        } else if ((c == u',' && depth == 0) || c == u';') {
            if (depth != 0)
                return bad(text, QStringLiteral("'{' without '}'"));
            const QStringView entry = text.mid(start, i - start).trimmed();
            start = i + 1;
            if (entry.isEmpty())
                continue;
            Result<AddressPattern> p = parse(entry);
            if (!p)
                return p.error();
            out.push_back(std::move(p).value());
        }
    }
    if (depth != 0)
        return bad(text, QStringLiteral("'{' without '}'"));
    return out;
}

bool AddressPattern::matchesAny(
    const std::vector<AddressPattern> &patterns, const QHostAddress &peer)
{
    return std::any_of(
        patterns.begin(), patterns.end(), [&](const AddressPattern &p) { return p.matches(peer); });
}

bool AddressPattern::matches(const QHostAddress &peer) const
{
    if (m_kind == Kind::Everyone)
        return true;
    std::array<std::uint16_t, 8> units {};
    const int n = peerUnits(peer, units);
    if (n != (m_kind == Kind::V4 ? 4 : 8))
        return false;
    for (int i = 0; i < m_pos; ++i)
        if (units[static_cast<size_t>(i)] != m_units[static_cast<size_t>(i)])
            return false;
    if (m_pos == n)
        return true;
    const std::uint16_t v = units[static_cast<size_t>(m_pos)];
    if (!m_set.empty())
        return std::find(m_set.begin(), m_set.end(), v) != m_set.end();
    return v >= m_low && v <= m_high;
}

} // namespace qrocket
