#pragma once

// Frame codec for RocketMQ remoting (protocol.md §1.1, §1.2, §1.4): a pure function over bytes.
//
//   +------------+-----------------------+--------------+------------+
//   | i32 length | i32 type<<24 | hdrLen | header bytes | body bytes |
//   +------------+-----------------------+--------------+------------+
//   length = 4 + hdrLen + bodyLen (does not count itself)
//
// decodeFrame() reads one frame from the front of `input` and returns Ok (with the bytes consumed),
// NeedMore (nothing consumed; wait for more bytes) or Invalid (the stream cannot be resynchronised:
// close the connection). The frame limit is checked from the length prefix before anything is
// allocated. JSON headers are parsed by a hand-written scanner, not a JSON tree.

#include "clientlib/protocol/remotingcommand.h"

#include <QString>

namespace qrocket::protocol {

struct FrameLimits
{
    /// Largest frame accepted, including the 4-byte length prefix (RocketMQ: 16 MiB).
    std::int64_t maxFrameBytes = 16 * 1024 * 1024;
};

enum class DecodeStatus : std::uint8_t { Ok, NeedMore, Invalid };

struct DecodeResult
{
    DecodeStatus status = DecodeStatus::NeedMore;
    qsizetype consumed = 0; // bytes of `input` that made up the frame (Ok only)
    QString error; // why the input is Invalid
};

DecodeResult decodeFrame(
    QByteArrayView input, RemotingCommand &out, const FrameLimits &limits = FrameLimits());
/// The frame at `offset` in `buffer`, its body a slice sharing `buffer` instead of a copy: it
/// keeps the buffer's memory alive, and the buffer's owner, writing to it again, detaches (copies)
/// it while a body is still held. For a server's receive buffer, whose requests are mostly
/// consumed before the next read. The slice is not NUL-terminated at its own end.
DecodeResult decodeFrameSharingBody(const QByteArray &buffer, qsizetype offset,
    RemotingCommand &out, const FrameLimits &limits = FrameLimits());

/// Appends the encoded frame to `out`, header in `cmd.serializeType`.
void encodeFrame(const RemotingCommand &cmd, QByteArray &out);
QByteArray encodeFrame(const RemotingCommand &cmd);
/// encodeFrame() without the body: the length prefix and header of the frame, to be followed on
/// the wire by `cmd.body` itself (sent from the caller's buffer instead of a copy).
void encodeFrameHead(const RemotingCommand &cmd, QByteArray &out);

/// The SEND_OK answer to one stored message, appended to `out` byte for byte as encodeFrame()
/// encodes the send processor's RemotingCommand for it (JSON header: code 0; extFields msgId,
/// queueId, queueOffset, MSG_REGION, TRACE_ON; flag RESPONSE; language JAVA; the request's
/// `opaque`; version kQRocketVersion; no remark, no body), without building that command: the
/// broker writes one per send.
void appendSendOkFrame(QByteArray &out, int opaque, QByteArrayView msgId, int queueId,
    std::int64_t queueOffset, QByteArrayView region, bool traceOn);

/// Header only (no length prefix), as it would appear on the wire; used by tests and benchmarks.
QByteArray encodeJsonHeader(const RemotingCommand &cmd);
QByteArray encodeBinaryHeader(const RemotingCommand &cmd);

} // namespace qrocket::protocol
