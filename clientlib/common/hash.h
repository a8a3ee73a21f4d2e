#pragma once

// Hashes RocketMQ peers agree on (protocol.md §5.9).

#include <QByteArrayView>

#include <cstdint>

namespace qrocket {

/// Standard CRC-32 (IEEE, zlib) of the bytes.
std::uint32_t crc32(QByteArrayView data);
/// RocketMQ's BODYCRC / bodyCrc32: CRC-32 masked with 0x7FFFFFFF.
inline std::int32_t crc32Masked(QByteArrayView data)
{
    return static_cast<std::int32_t>(crc32(data) & 0x7FFFFFFFu);
}

/// Java String.hashCode() of the string whose UTF-8 bytes are given: h = 31*h + c over UTF-16
/// code units with int32 wrap-around. Used for tag codes (tagsCode, codeSet) and index keys.
std::int32_t javaStringHash(QByteArrayView utf8);

} // namespace qrocket
