#pragma once

// AddressPattern: one entry of a peer-address allow list, written as RocketMQ 4.9's ACL writes
// whiteRemoteAddress and globalWhiteRemoteAddresses (plain_acl.yml, RemoteAddressStrategyFactory):
//
//   *   *.*.*.*   *:*:*:*:*:*:*:*      everyone
//   192.168.0.1   2001:db8::1          one address (IPv6 in any spelling, compared as bits)
//   192.168.0.1-10                     a range of the last IPv4 segment
//   192.168.1.*   192.168.*.*          a number in the leading segments, anything after them; a
//   192.168.1-5.*                      range may stand before the stars
//   192.168.1.{1,2,3}                  a set of last segments
//   2001:db8::*   2001:db8::1-ff       the same for the last IPv6 group (hex), also a range in the
//   2001:db8::1-ff:*  2001:db8::{1,2}  second-last group followed by *, and a set in the last
//
// Differences to 4.9.7, on purpose: QRocket also takes a shorter IPv4 prefix ending in *
// ("192.168.*" = "192.168.*.*", which 4.9.7 refuses), and refuses what 4.9.7 accepts but then
// ignores (a segment other than * after a range or a *). An IPv6 wildcard or range always stands
// for the last group (or, as "a-b:*", the last two); "::" may shorten the groups before it.
//
// IPv4 patterns match IPv4 peers, including IPv4-mapped IPv6 ones (::ffff:a.b.c.d, how a
// dual-stack socket shows an IPv4 peer); IPv6 patterns match the other IPv6 peers. A plain
// IPv4-mapped IPv6 pattern is taken as the IPv4 address.
//
// parseList() reads several patterns separated by ',' or ';' (commas inside {} belong to the
// set); parse() and parseList() refuse anything else with an InvalidArgument naming the pattern
// and what is wrong. A value type, immutable once parsed: share it between threads freely.

#include "clientlib/common/result.h"

#include <QHostAddress>
#include <QString>
#include <QStringView>

#include <array>
#include <cstdint>
#include <vector>

namespace qrocket {

class AddressPattern
{
public:
    /// One pattern (surrounding spaces ignored).
    static Result<AddressPattern> parse(QStringView text);
    /// Patterns separated by ',' or ';'; empty entries are skipped (an empty text: no pattern).
    static Result<std::vector<AddressPattern>> parseList(QStringView text);
    /// True when any of `patterns` matches `peer`.
    static bool matchesAny(const std::vector<AddressPattern> &patterns, const QHostAddress &peer);

    bool matches(const QHostAddress &peer) const;
    /// True for "*" and its spellings: every peer matches.
    bool matchesEveryone() const { return m_kind == Kind::Everyone; }
    /// The pattern as written (trimmed).
    const QString &text() const { return m_text; }

private:
    enum class Kind : std::uint8_t { Everyone, V4, V6 };
    AddressPattern() = default;

    QString m_text;
    Kind m_kind = Kind::Everyone;
    // An address (4 bytes, or 8 groups of 16 bits) matches when its first m_pos units equal
    // m_units, unit m_pos lies in [m_low, m_high] or in m_set (when not empty), and the units
    // after m_pos are anything. m_pos == the unit count: the whole address must be equal.
    std::array<std::uint16_t, 8> m_units {};
    int m_pos = 0;
    std::uint16_t m_low = 0;
    std::uint16_t m_high = 0;
    std::vector<std::uint16_t> m_set;
};

} // namespace qrocket
