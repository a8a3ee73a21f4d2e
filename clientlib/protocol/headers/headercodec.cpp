#include "clientlib/protocol/headers/headercodec.h"

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

} // namespace qrocket::protocol::detail
