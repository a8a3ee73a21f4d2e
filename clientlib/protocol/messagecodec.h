#pragma once

// Stored-message codec (protocol.md §5): the record layout shared by the commit log, PULL bodies,
// QUERY/VIEW bodies and the HA stream. Decoding returns views into the source bytes (valid while
// those bytes live, e.g. while an mmap'd file is mapped); encoding writes into caller-owned memory
// so the commit log can encode straight into its mapped file under its append lock.
//
// Layout (IPv4 hosts; +12 bytes per IPv6 host, sysFlag 0x10 born / 0x20 store):
//   0 i32 TOTALSIZE   4 i32 MAGIC   8 i32 BODYCRC   12 i32 QUEUEID   16 i32 FLAG
//  20 i64 QUEUEOFFSET 28 i64 PHYSICALOFFSET 36 i32 SYSFLAG 40 i64 BORNTIMESTAMP 48 BORNHOST(8|20)
//     i64 STORETIMESTAMP, STOREHOST(8|20), i32 RECONSUMETIMES, i64 PREPARED_TX_OFFSET,
//     i32 BODYLEN + BODY, i8 TOPICLEN + TOPIC, i16 PROPLEN + PROPERTIES

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

#include <array>
#include <cstdint>

namespace qrocket::protocol {

inline constexpr std::int32_t kMessageMagic = static_cast<std::int32_t>(0xDAA320A7u);
inline constexpr std::int32_t kBlankMagic = static_cast<std::int32_t>(0xCBD43194u);
inline constexpr int kBlankRecordSize = 8; // i32 size + i32 magic (§5.5)
inline constexpr int kMaxTopicLength = 127;
inline constexpr int kMaxPropertiesLength = 32767;

/// MessageSysFlag (§5.2)
namespace SysFlag {
inline constexpr std::int32_t Compressed = 0x1;
inline constexpr std::int32_t MultiTags = 0x2;
inline constexpr std::int32_t TransactionMask = 0xC;
inline constexpr std::int32_t TransactionNot = 0x0;
inline constexpr std::int32_t TransactionPrepared = 0x4;
inline constexpr std::int32_t TransactionCommit = 0x8;
inline constexpr std::int32_t TransactionRollback = 0xC;
inline constexpr std::int32_t BornHostV6 = 0x10;
inline constexpr std::int32_t StoreHostV6 = 0x20;
inline constexpr std::int32_t CompressionTypeMask = 0x700;
} // namespace SysFlag

/// An IPv4 or IPv6 address plus port as stored in a record (4 or 16 address bytes).
struct HostAddress
{
    std::array<std::uint8_t, 16> ip {}; // IPv4 uses ip[0..3]
    bool v6 = false;
    std::int32_t port = 0;

    int addressLength() const { return v6 ? 16 : 4; }
    /// "a.b.c.d:port" or "[v6]:port"
    QByteArray toString() const;
    /// Parses "a.b.c.d:port", "[v6]:port" and "::ffff:a.b.c.d" (reported as IPv4).
    static bool parse(QByteArrayView text, HostAddress &out);
    static HostAddress ipv4(std::uint32_t addressHostOrder, std::int32_t port);
    friend bool operator==(const HostAddress &, const HostAddress &) = default;
};

/// Everything a writer needs to lay out one record, except what is assigned under the commit-log
/// lock (queue offset, physical offset, store timestamp). Views must outlive the encode call.
struct MessageRecordInput
{
    QByteArrayView topic;
    std::int32_t queueId = 0;
    std::int32_t flag = 0;
    std::int32_t sysFlag = 0; // host v6 bits are derived from the hosts when encoding
    std::int64_t bornTimestamp = 0;
    HostAddress bornHost;
    HostAddress storeHost;
    std::int32_t reconsumeTimes = 0;
    std::int64_t preparedTransactionOffset = 0;
    QByteArrayView body;
    QByteArrayView properties;
    std::int32_t bodyCrc = 0; // crc32Masked(body), computed outside the lock
};

/// Size of the encoded record (91 + body + topic + properties, +12 per IPv6 host).
std::int32_t recordSize(const MessageRecordInput &in);
/// Writes exactly recordSize(in) bytes to `dst`.
void encodeRecord(const MessageRecordInput &in, std::int64_t queueOffset,
    std::int64_t physicalOffset, std::int64_t storeTimestamp, char *dst);
/// Convenience: the encoded record as a QByteArray.
QByteArray encodeRecord(const MessageRecordInput &in, std::int64_t queueOffset,
    std::int64_t physicalOffset, std::int64_t storeTimestamp);

/// A decoded record whose byte fields view the source buffer.
struct MessageRecordView
{
    std::int32_t totalSize = 0;
    std::int32_t magic = 0;
    std::int32_t bodyCrc = 0;
    std::int32_t queueId = 0;
    std::int32_t flag = 0;
    std::int64_t queueOffset = 0;
    std::int64_t physicalOffset = 0;
    std::int32_t sysFlag = 0;
    std::int64_t bornTimestamp = 0;
    HostAddress bornHost;
    std::int64_t storeTimestamp = 0;
    HostAddress storeHost;
    std::int32_t reconsumeTimes = 0;
    std::int64_t preparedTransactionOffset = 0;
    QByteArrayView body;
    QByteArrayView topic;
    QByteArrayView properties;
};

enum class RecordStatus : std::uint8_t {
    Ok, // a whole, valid message record
    Blank, // the end-of-file BLANK record: continue in the next file
    Truncated, // the bytes end inside the record (or before a size field)
    Invalid, // bad magic, inconsistent sizes, or (when asked) a CRC mismatch
};

struct RecordDecodeResult
{
    RecordStatus status = RecordStatus::Invalid;
    std::int32_t size = 0; // TOTALSIZE for Ok and Blank
    QString error; // for Invalid/Truncated: what was wrong
};

/// Decodes the record at the start of `bytes`. Never reads outside `bytes`.
RecordDecodeResult decodeRecord(QByteArrayView bytes, MessageRecordView &out, bool checkCrc);

/// The input that encodes `v` again: encodeRecord(recordInputOf(v), v.queueOffset,
/// v.physicalOffset, v.storeTimestamp) gives back the record's bytes. Views into `v`'s buffer.
inline MessageRecordInput recordInputOf(const MessageRecordView &v)
{
    MessageRecordInput in;
    in.topic = v.topic;
    in.queueId = v.queueId;
    in.flag = v.flag;
    in.sysFlag = v.sysFlag;
    in.bornTimestamp = v.bornTimestamp;
    in.bornHost = v.bornHost;
    in.storeHost = v.storeHost;
    in.reconsumeTimes = v.reconsumeTimes;
    in.preparedTransactionOffset = v.preparedTransactionOffset;
    in.body = v.body;
    in.properties = v.properties;
    in.bodyCrc = v.bodyCrc;
    return in;
}

} // namespace qrocket::protocol
