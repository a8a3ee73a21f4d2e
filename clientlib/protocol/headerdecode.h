#pragma once

// Header decoding for the frame codec (protocol.md §1.2, §1.4, §1.7), internal to the protocol
// module: decodeFrame() hands each frame's header bytes here. JSON headers are parsed by a
// hand-written scanner, not a JSON tree: a fast path for the compact headers every known client
// sends, and a general scanner for anything else.

#include "clientlib/protocol/remotingcommand.h"

#include <QString>

namespace qrocket::protocol::detail {

inline constexpr qsizetype kBinaryRemarkOffset
    = 17; // code, language, version, opaque, flag, remarkLen
inline constexpr qsizetype kBinaryMinHeader = 21; // ... plus the extFields length (§1.4)

/// A type-0 (JSON) header into `cmd` (serializeType Json); empty on success, else why the header
/// is invalid.
QString decodeJsonHeader(QByteArrayView header, RemotingCommand &cmd);
/// A type-1 (RocketMQ binary) header into `cmd` (serializeType RocketMQ); empty on success, else
/// why it is invalid.
QString decodeBinaryHeader(QByteArrayView header, RemotingCommand &cmd);

} // namespace qrocket::protocol::detail
