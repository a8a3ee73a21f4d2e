#pragma once

// Message ids (protocol.md §6).
//
// Offset msgId (§6.1), what the broker answers in SendMessageResponseHeader.msgId:
//   hex( storeHost address (4 | 16 bytes) || i32 port || i64 commit-log offset )
// = 32 (IPv4) or 56 (IPv6) uppercase hex digits.
//
// Client unique id, UNIQ_KEY (§6.2, Java MessageClientIDSetter):
//   ip (4 | 16) || i16 pid || 4 opaque bytes || i32 ms since the start of the current month
//   (local time) || i16 counter, as uppercase hex.

#include "clientlib/common/result.h"
#include "clientlib/protocol/messagecodec.h"

#include <QByteArray>
#include <QByteArrayView>

#include <cstdint>
#include <mutex>

namespace qrocket::protocol {

struct OffsetMessageId
{
    HostAddress storeHost;
    std::int64_t commitLogOffset = 0;
};

QByteArray encodeOffsetMessageId(const HostAddress &storeHost, std::int64_t commitLogOffset);
/// Bytes encodeOffsetMessageId() writes at most (an IPv6 store host).
inline constexpr qsizetype kOffsetMessageIdMaxSize = 56;
/// Writes what encodeOffsetMessageId() returns at `out` (room for kOffsetMessageIdMaxSize
/// bytes); returns its end.
char *writeOffsetMessageId(char *out, const HostAddress &storeHost, std::int64_t commitLogOffset);
/// Accepts 32 or 56 hex digits (either case); InvalidArgument otherwise.
Result<OffsetMessageId> decodeOffsetMessageId(QByteArrayView id);

/// Uppercase hex of raw bytes (RocketMQ's UtilAll.bytes2string).
QByteArray toUpperHex(QByteArrayView bytes);

/// Generates UNIQ_KEY values. Thread-safe.
class UniqueIdGenerator
{
public:
    /// `address` is the client's IP (IPv4 or IPv6; port ignored); pass nullptr for 4 random
    /// bytes. `pid` is the process id; the 4 opaque bytes are random per generator.
    explicit UniqueIdGenerator(const HostAddress *address = nullptr, std::int64_t pid = -1);

    QByteArray next();
    /// Length of the fixed prefix in hex digits (20 for IPv4, 44 for IPv6).
    qsizetype prefixLength() const { return m_prefix.size(); }

    /// The creation time encoded in an id produced in the current month (ms since epoch), or -1
    /// when `id` is not a well-formed unique id.
    static std::int64_t timestampOf(QByteArrayView id, std::int64_t monthStartMs);

private:
    void rollMonth(std::int64_t nowMs);

    QByteArray m_prefix; // hex of ip || pid || opaque
    std::mutex m_mutex;
    std::int64_t m_monthStartMs = 0;
    std::int64_t m_nextMonthStartMs = 0;
    std::uint16_t m_counter = 0;
};

/// Epoch ms of 00:00 local time on the 1st of the month containing `nowMs`, and of the next one.
void monthBounds(std::int64_t nowMs, std::int64_t &start, std::int64_t &next);

} // namespace qrocket::protocol
