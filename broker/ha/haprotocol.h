#pragma once

// RocketMQ 4.9's HA stream (protocol.md §8.8): raw TCP on haListenPort, no remoting framing.
//
//   slave -> master   i64 slaveMaxPhyOffset                       (8 bytes, big-endian)
//   master -> slave   i64 startPhyOffset, i32 bodySize, bodySize raw commit-log bytes
//                     (bodySize 0: a heartbeat)
//
// The master reads whole 8-byte units and uses the latest; the slave checks startPhyOffset ==
// its own commit-log end before appending. Pure functions over bytes: no sockets here.

#include "clientlib/common/byteorder.h"

#include <cstdint>

namespace qrocket::broker::ha {

constexpr int kReportSize = 8;
constexpr int kHeaderSize = 12;
/// The slave's read buffer (RocketMQ's HAClient READ_MAX_BUFFER_SIZE): a transfer larger than
/// this minus the header is a protocol error.
constexpr int kSlaveReadBufferSize = 4 * 1024 * 1024;

struct TransferHeader
{
    std::int64_t startPhyOffset = 0;
    std::int32_t bodySize = 0;
};

inline void encodeReport(char (&out)[kReportSize], std::int64_t maxPhyOffset)
{
    writeI64(out, maxPhyOffset);
}

inline void encodeHeader(char (&out)[kHeaderSize], std::int64_t startPhyOffset, std::int32_t size)
{
    writeI64(out, startPhyOffset);
    writeI32(out + 8, size);
}

inline TransferHeader decodeHeader(const char *p)
{
    return {readI64(p), readI32(p + 8)};
}

/// The latest whole report in `bytes` (the master keeps only that one), or -1 when there is
/// none yet; `consumed` is how many bytes the whole reports took.
inline std::int64_t latestReport(const char *bytes, std::int64_t size, std::int64_t &consumed)
{
    const std::int64_t units = size / kReportSize;
    consumed = units * kReportSize;
    return units > 0 ? readI64(bytes + consumed - kReportSize) : -1;
}

} // namespace qrocket::broker::ha
