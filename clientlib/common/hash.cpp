#include "clientlib/common/hash.h"

#include <QString>

#include <zlib.h>

namespace qrocket {

std::uint32_t crc32(QByteArrayView data)
{
    uLong crc = ::crc32(0L, Z_NULL, 0);
    const auto *p = reinterpret_cast<const Bytef *>(data.data());
    qsizetype left = data.size();
    while (left > 0) {
        const auto chunk = static_cast<uInt>(std::min<qsizetype>(left, 1 << 30));
        crc = ::crc32(crc, p, chunk);
        p += chunk;
        left -= chunk;
    }
    return static_cast<std::uint32_t>(crc);
}

std::int32_t javaStringHash(QByteArrayView utf8)
{
    // Unsigned arithmetic gives Java's int32 wrap-around without signed-overflow UB.
    std::uint32_t h = 0;
    bool ascii = true;
    for (char c : utf8) {
        if (static_cast<unsigned char>(c) >= 0x80) {
            ascii = false;
            break;
        }
        h = 31u * h + static_cast<unsigned char>(c);
    }
    if (!ascii) {
        h = 0;
        const QString s = QString::fromUtf8(utf8);
        for (const QChar ch : s)
            h = 31u * h + ch.unicode();
    }
    return static_cast<std::int32_t>(h);
}

} // namespace qrocket
