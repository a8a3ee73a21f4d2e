// Display formatting (see format.h).

#include "console/gui/format.h"

#include "clientlib/protocol/bodies/routebodies.h"

#include <QDateTime>
#include <QLocale>

#include <cmath>

namespace qrocket::console {

QString formatCount(std::int64_t n)
{
    return QLocale().toString(static_cast<qlonglong>(n));
}

QString formatRate(double perSecond)
{
    if (!std::isfinite(perSecond) || perSecond < 0)
        perSecond = 0;
    const int decimals = perSecond < 100 ? 1 : 0;
    return QLocale().toString(perSecond, 'f', decimals) + QStringLiteral(" msgs/s");
}

QString formatRateTick(double perSecond, double step)
{
    if (!std::isfinite(perSecond) || perSecond < 0)
        perSecond = 0;
    const QLocale locale;
    if (step >= 1e6)
        return locale.toString(perSecond / 1e6, 'f', 1) + QStringLiteral(" M msgs/s");
    if (step >= 1e3)
        return locale.toString(perSecond / 1e3, 'f', 1) + QStringLiteral(" k msgs/s");
    const int decimals = step >= 1 ? 0 : (step >= 0.1 ? 1 : 2);
    return locale.toString(perSecond, 'f', decimals) + QStringLiteral(" msgs/s");
}

QString formatBytes(std::int64_t bytes)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = static_cast<double>(bytes < 0 ? 0 : bytes);
    int unit = 0;
    while (v >= 1024 && unit < 5) {
        v /= 1024;
        ++unit;
    }
    if (unit == 0)
        return QLocale().toString(static_cast<qlonglong>(v)) + QStringLiteral(" B");
    const int decimals = unit >= 3 ? 2 : 1;
    return QLocale().toString(v, 'f', decimals) + QLatin1Char(' ') + QLatin1String(units[unit]);
}

QString formatRatio(double ratio)
{
    if (ratio < 0 || !std::isfinite(ratio))
        return QStringLiteral("n/a");
    return QLocale().toString(ratio * 100.0, 'f', 1) + QStringLiteral(" %");
}

QString formatDuration(std::int64_t ms)
{
    if (ms < 0)
        ms = -ms;
    const std::int64_t s = ms / 1000;
    if (s < 60)
        return QStringLiteral("%1 s").arg(s);
    if (s < 3600)
        return QStringLiteral("%1 min %2 s").arg(s / 60).arg(s % 60);
    if (s < 86400)
        return QStringLiteral("%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60);
    return QStringLiteral("%1 d %2 h").arg(s / 86400).arg((s % 86400) / 3600);
}

QString formatAgo(std::int64_t ageMs)
{
    if (ageMs < 0)
        return QStringLiteral("in ") + formatDuration(-ageMs);
    if (ageMs < 1000)
        return QStringLiteral("just now");
    const std::int64_t s = ageMs / 1000;
    if (s < 60)
        return QStringLiteral("%1 s ago").arg(s);
    if (s < 3600)
        return QStringLiteral("%1 min ago").arg(s / 60);
    if (s < 86400)
        return QStringLiteral("%1 h ago").arg(s / 3600);
    return QStringLiteral("%1 d ago").arg(s / 86400);
}

QString formatTimestamp(std::int64_t epochMs)
{
    if (epochMs <= 0)
        return QStringLiteral("-");
    return QDateTime::fromMSecsSinceEpoch(epochMs).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

QString formatPerm(int perm)
{
    QString s;
    s += protocol::Perm::isReadable(perm) ? QLatin1Char('R') : QLatin1Char('-');
    s += protocol::Perm::isWriteable(perm) ? QLatin1Char('W') : QLatin1Char('-');
    if (protocol::Perm::isInherited(perm))
        s += QStringLiteral(" I");
    if (perm & protocol::Perm::Priority)
        s += QStringLiteral(" P");
    return s;
}

QString plainToolTip(const QString &text)
{
    if (text.isEmpty())
        return text;
    return QStringLiteral("<p style='white-space:pre-wrap'>") + text.toHtmlEscaped()
        + QStringLiteral("</p>");
}

} // namespace qrocket::console
