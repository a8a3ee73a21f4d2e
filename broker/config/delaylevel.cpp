#include "broker/config/delaylevel.h"

#include <QStringList>

#include <limits>

namespace qrocket::broker {

namespace {

std::int64_t unitMillis(QChar unit)
{
    switch (unit.unicode()) {
    case u's':
        return 1000;
    case u'm':
        return 60 * 1000;
    case u'h':
        return 60 * 60 * 1000;
    case u'd':
        return 24 * 60 * 60 * 1000;
    default:
        return 0;
    }
}

} // namespace

Result<std::vector<std::int64_t>> parseMessageDelayLevel(QAnyStringView text)
{
    std::vector<std::int64_t> levels;
    const QString all = text.toString();
    const auto tokens = QStringView(all).split(u' ', Qt::SkipEmptyParts);
    for (QStringView raw : tokens) {
        const QStringView token = raw.trimmed();
        if (token.isEmpty())
            continue;
        auto bad = [&](const char *why) {
            return Status::invalidArgument(QStringLiteral("messageDelayLevel: '%1' %2")
                                               .arg(token.toString(), QLatin1String(why)));
        };
        const std::int64_t unit = unitMillis(token.back());
        if (unit == 0)
            return bad("has no unit s, m, h or d");
        bool ok = false;
        const qlonglong n = token.chopped(1).toLongLong(&ok);
        if (!ok || n < 0)
            return bad("is not a non-negative number");
        if (n > std::numeric_limits<std::int64_t>::max() / unit)
            return bad("is too large");
        levels.push_back(n * unit);
    }
    if (levels.empty())
        return Status::invalidArgument(QStringLiteral("messageDelayLevel: no delay levels"));
    return levels;
}

} // namespace qrocket::broker
