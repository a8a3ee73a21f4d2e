#pragma once

// Big-endian (Java ByteBuffer) loads and stores over raw bytes. Every multi-byte integer on the
// RocketMQ wire and on disk is big-endian two's complement (protocol.md, conventions).

#include <QtEndian>

#include <cstdint>
#include <cstring>

namespace qrocket {

inline std::int16_t readI16(const char *p)
{
    return qFromBigEndian<std::int16_t>(p);
}
inline std::int32_t readI32(const char *p)
{
    return qFromBigEndian<std::int32_t>(p);
}
inline std::int64_t readI64(const char *p)
{
    return qFromBigEndian<std::int64_t>(p);
}
inline std::uint32_t readU32(const char *p)
{
    return qFromBigEndian<std::uint32_t>(p);
}

inline void writeI16(char *p, std::int16_t v)
{
    qToBigEndian(v, p);
}
inline void writeI32(char *p, std::int32_t v)
{
    qToBigEndian(v, p);
}
inline void writeI64(char *p, std::int64_t v)
{
    qToBigEndian(v, p);
}
inline void writeU32(char *p, std::uint32_t v)
{
    qToBigEndian(v, p);
}

} // namespace qrocket
