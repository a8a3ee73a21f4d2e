#pragma once

// Display formatting shared by every console view: counts with thousands separators, rates in
// msgs/s, sizes in binary units, ages ("3 min ago") and durations. One place, so that every
// table and chart writes the same figure the same way.

#include <QString>

#include <cstdint>

namespace qrocket::console {

/// "12,345" (the current locale's group separator).
QString formatCount(std::int64_t n);
/// "1,234.5 msgs/s" (one decimal below 100, none above).
QString formatRate(double perSecond);
/// A chart tick of a rate, scaled by the axis step: "750 msgs/s", "1,500 msgs/s" (steps below
/// 1,000), "19.0 k msgs/s", "1.5 M msgs/s".
QString formatRateTick(double perSecond, double step);
/// "512 B", "3.2 KiB", "16.0 MiB", "1.50 GiB".
QString formatBytes(std::int64_t bytes);
/// "42.3 %" of a 0..1 ratio; "n/a" when negative.
QString formatRatio(double ratio);
/// "4 s", "2 min 5 s", "3 h 12 min", "2 d 4 h".
QString formatDuration(std::int64_t ms);
/// "just now", "4 s ago", "3 min ago"; "in 3 min" for a negative age.
QString formatAgo(std::int64_t ageMs);
/// "2026-12-01 23:45:12" (local time) of an epoch-ms timestamp; "-" for 0.
QString formatTimestamp(std::int64_t epochMs);
/// RocketMQ's permission bits as "RW", "R-", "-W", "--" (and " I" / " P" suffixes).
QString formatPerm(int perm);
/// A tooltip that shows `text` as it is: Qt renders a tooltip as HTML when it looks like HTML,
/// and errors, addresses and names come from the cluster (any peer can put markup there).
QString plainToolTip(const QString &text);

} // namespace qrocket::console
