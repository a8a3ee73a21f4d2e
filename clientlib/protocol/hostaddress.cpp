// HostAddress text forms (protocol.md §5.1 hosts, §6.1 msgIds). Hand-written so the protocol
// module needs no socket headers.

#include "clientlib/common/hex.h"
#include "clientlib/protocol/messagecodec.h"

#include <algorithm>

namespace qrocket::protocol {

namespace {

bool parseDecimal(QByteArrayView text, std::int64_t max, std::int64_t &out)
{
    if (text.isEmpty() || text.size() > 10)
        return false;
    std::int64_t v = 0;
    for (char c : text) {
        if (c < '0' || c > '9')
            return false;
        v = v * 10 + (c - '0');
    }
    if (v > max)
        return false;
    out = v;
    return true;
}

bool parseIpv4(QByteArrayView text, std::uint8_t *dst)
{
    int part = 0;
    qsizetype start = 0;
    for (qsizetype i = 0; i <= text.size(); ++i) {
        if (i == text.size() || text[i] == '.') {
            std::int64_t v = 0;
            if (part > 3 || i - start > 3 || !parseDecimal(text.sliced(start, i - start), 255, v))
                return false;
            dst[part++] = static_cast<std::uint8_t>(v);
            start = i + 1;
        }
    }
    return part == 4;
}

// RFC 4291 text form: hex groups, at most one "::", optionally a trailing dotted IPv4.
bool parseIpv6(QByteArrayView text, std::array<std::uint8_t, 16> &dst)
{
    std::array<std::uint16_t, 8> head {};
    std::array<std::uint16_t, 8> tail {};
    int nHead = 0;
    int nTail = 0;
    bool gap = false;
    qsizetype i = 0;
    if (text.startsWith("::")) {
        gap = true;
        i = 2;
    } else if (text.startsWith(":")) {
        return false;
    }
    while (i < text.size()) {
        auto &groups = gap ? tail : head;
        int &n = gap ? nTail : nHead;
        if (nHead + nTail >= 8)
            return false;
        // Trailing dotted IPv4 takes two groups.
        qsizetype end = i;
        while (end < text.size() && text[end] != ':')
            ++end;
        const QByteArrayView token = text.sliced(i, end - i);
        if (token.contains('.')) {
            std::uint8_t v4[4];
            if (end != text.size() || nHead + nTail > 6 || !parseIpv4(token, v4))
                return false;
            groups[static_cast<std::size_t>(n++)]
                = static_cast<std::uint16_t>((v4[0] << 8) | v4[1]);
            groups[static_cast<std::size_t>(n++)]
                = static_cast<std::uint16_t>((v4[2] << 8) | v4[3]);
            i = end;
            break;
        }
        if (token.isEmpty() || token.size() > 4)
            return false;
        int v = 0;
        for (char c : token) {
            const int h = hexDigitValue(c);
            if (h < 0)
                return false;
            v = (v << 4) | h;
        }
        groups[static_cast<std::size_t>(n++)] = static_cast<std::uint16_t>(v);
        i = end;
        if (i == text.size())
            break;
        // At a ':'.
        if (i + 1 < text.size() && text[i + 1] == ':') {
            if (gap)
                return false;
            gap = true;
            i += 2;
        } else {
            ++i;
            if (i == text.size())
                return false; // trailing single ':'
        }
    }
    if (gap ? nHead + nTail > 7 : nHead != 8)
        return false;
    std::array<std::uint16_t, 8> all {};
    for (int k = 0; k < nHead; ++k)
        all[static_cast<std::size_t>(k)] = head[static_cast<std::size_t>(k)];
    for (int k = 0; k < nTail; ++k)
        all[static_cast<std::size_t>(8 - nTail + k)] = tail[static_cast<std::size_t>(k)];
    for (std::size_t k = 0; k < 8; ++k) {
        dst[2 * k] = static_cast<std::uint8_t>(all[k] >> 8);
        dst[2 * k + 1] = static_cast<std::uint8_t>(all[k] & 0xFF);
    }
    return true;
}

bool isV4Mapped(const std::array<std::uint8_t, 16> &ip)
{
    for (int k = 0; k < 10; ++k) {
        if (ip[static_cast<std::size_t>(k)] != 0)
            return false;
    }
    return ip[10] == 0xFF && ip[11] == 0xFF;
}

} // namespace

QByteArray HostAddress::toString() const
{
    QByteArray out;
    if (!v6) {
        out = QByteArray::number(ip[0]) + '.' + QByteArray::number(ip[1]) + '.'
            + QByteArray::number(ip[2]) + '.' + QByteArray::number(ip[3]);
    } else {
        // RFC 5952: lowercase, longest run (>= 2) of zero groups as "::".
        std::array<int, 8> g {};
        for (std::size_t k = 0; k < 8; ++k)
            g[k] = (ip[2 * k] << 8) | ip[2 * k + 1];
        int bestStart = -1;
        int bestLen = 0;
        for (int k = 0; k < 8;) {
            if (g[static_cast<std::size_t>(k)] != 0) {
                ++k;
                continue;
            }
            int e = k;
            while (e < 8 && g[static_cast<std::size_t>(e)] == 0)
                ++e;
            if (e - k > bestLen && e - k >= 2) {
                bestStart = k;
                bestLen = e - k;
            }
            k = e;
        }
        out.append('[');
        for (int k = 0; k < 8; ++k) {
            if (k == bestStart) {
                out.append("::");
                k += bestLen - 1;
                continue;
            }
            if (k > 0 && k != bestStart + bestLen)
                out.append(':');
            out.append(QByteArray::number(g[static_cast<std::size_t>(k)], 16));
        }
        out.append(']');
    }
    out.append(':');
    out.append(QByteArray::number(port));
    return out;
}

bool HostAddress::parse(QByteArrayView text, HostAddress &out)
{
    HostAddress result;
    QByteArrayView address = text;
    std::int64_t port = 0;
    if (text.startsWith('[')) {
        const qsizetype close = text.indexOf(']');
        if (close < 0)
            return false;
        address = text.sliced(1, close - 1);
        const QByteArrayView rest = text.sliced(close + 1);
        if (!rest.isEmpty()) {
            if (!rest.startsWith(':') || !parseDecimal(rest.sliced(1), 65535, port))
                return false;
        }
        if (!parseIpv6(address, result.ip))
            return false;
        result.v6 = true;
    } else if (text.count(':') > 1) {
        if (!parseIpv6(text, result.ip))
            return false;
        result.v6 = true;
    } else {
        const qsizetype colon = text.indexOf(':');
        if (colon >= 0) {
            address = text.first(colon);
            if (!parseDecimal(text.sliced(colon + 1), 65535, port))
                return false;
        }
        if (!parseIpv4(address, result.ip.data()))
            return false;
    }
    if (result.v6 && isV4Mapped(result.ip)) {
        std::array<std::uint8_t, 16> v4 {};
        std::copy_n(result.ip.begin() + 12, 4, v4.begin());
        result.ip = v4;
        result.v6 = false;
    }
    result.port = static_cast<std::int32_t>(port);
    out = result;
    return true;
}

HostAddress HostAddress::ipv4(std::uint32_t addressHostOrder, std::int32_t port)
{
    HostAddress h;
    h.ip[0] = static_cast<std::uint8_t>(addressHostOrder >> 24);
    h.ip[1] = static_cast<std::uint8_t>(addressHostOrder >> 16);
    h.ip[2] = static_cast<std::uint8_t>(addressHostOrder >> 8);
    h.ip[3] = static_cast<std::uint8_t>(addressHostOrder);
    h.port = port;
    return h;
}

} // namespace qrocket::protocol
