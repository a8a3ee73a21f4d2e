#pragma once

// Hashes RocketMQ peers agree on (protocol.md §5.9).

#include <QByteArrayView>

#include <cstdint>

namespace qrocket {

/// Standard CRC-32 (IEEE, zlib) of the bytes. Uses PCLMULQDQ folding when the CPU has it
/// (checked once at start-up), zlib otherwise; both give the same value.
std::uint32_t crc32(QByteArrayView data);
/// Continues a CRC-32: crc32Update(crc32(a), b) == crc32(a + b); crc32Update(0, x) == crc32(x).
std::uint32_t crc32Update(std::uint32_t crc, QByteArrayView data);
/// The zlib computation only (tests compare the accelerated path against it).
std::uint32_t crc32Portable(std::uint32_t crc, QByteArrayView data);
/// True when crc32() runs the carry-less-multiplication path on this CPU.
bool crc32IsAccelerated();
/// RocketMQ's BODYCRC / bodyCrc32: CRC-32 masked with 0x7FFFFFFF.
inline std::int32_t crc32Masked(QByteArrayView data)
{
    return static_cast<std::int32_t>(crc32(data) & 0x7FFFFFFFu);
}

/// Java String.hashCode() of the string whose UTF-8 bytes are given: h = 31*h + c over UTF-16
/// code units with int32 wrap-around. Used for tag codes (tagsCode, codeSet) and index keys.
std::int32_t javaStringHash(QByteArrayView utf8);

/// Guava's Hashing.consistentHash(long input, int buckets): the bucket in [0, buckets) that
/// `input` falls in, moving as few inputs as possible when `buckets` grows (jump consistent
/// hashing driven by the 64-bit linear congruential generator state = 2862933555777941757 *
/// state + 1). RocketMQ 5's proxy picks a FIFO message group's queue with it, over
/// String.hashCode() of the group. `buckets` <= 0 gives 0.
int consistentHash(std::int64_t input, int buckets);

} // namespace qrocket
