#include "clientlib/protocol/headers/headercodec.h"

#include <limits>

namespace qrocket::protocol::detail {

Status missingField(const char *header, const char *field)
{
    return Status::invalidArgument(QStringLiteral("%1: missing required field '%2'")
                                       .arg(QLatin1String(header), QLatin1String(field)));
}

Status badNumber(const char *header, const char *field, const QByteArray &value, const char *type)
{
    return Status::invalidArgument(QStringLiteral("%1: field '%2' is not %3: '%4'")
                                       .arg(QLatin1String(header), QLatin1String(field),
                                           QLatin1String(type), QString::fromUtf8(value.left(64))));
}

std::optional<std::int64_t> parseLong(QByteArrayView text)
{
    qsizetype i = 0;
    bool negative = false;
    if (!text.isEmpty() && (text[0] == '-' || text[0] == '+')) {
        negative = text[0] == '-';
        ++i;
    }
    if (i >= text.size())
        return std::nullopt;
    constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
    std::int64_t value = 0;
    for (; i < text.size(); ++i) {
        const char c = text[i];
        if (c < '0' || c > '9')
            return std::nullopt;
        const int digit = c - '0';
        if (value < (kMin + digit) / 10)
            return std::nullopt;
        value = value * 10 - digit;
    }
    if (!negative) {
        if (value == kMin)
            return std::nullopt;
        value = -value;
    }
    return value;
}

bool parseJavaBool(QByteArrayView text)
{
    return text.compare(QByteArrayView("true"), Qt::CaseInsensitive) == 0;
}

} // namespace qrocket::protocol::detail
