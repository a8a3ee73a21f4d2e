#pragma once

// The POP invisible-time state and its durable form (docs: README "POP consumption").
//
// A CheckPoint is what one pop handed out of one queue of one group: the messages' queue offsets
// and, for each, whether it is still in flight, acked or revived. Its identity is RocketMQ's:
// (group, real topic, queueId, startOffset, popTime), which the receipt handle carries.
//
// Every change is first written as a message to the revive log topic
// rmq_sys_REVIVE_LOG_<cluster> (queue 0) through the commit log (so it survives kill -9 and
// replicates to slaves), and only then applied in memory and answered. The body is one text
// record, fields separated by single spaces (group and topic names contain no spaces):
//   CK <group> <topic> <queueId> <startOffset> <popTime> <invisibleTime> <attempt> <order>
//      <nextBeginOffset> <o1,o2,...> [<fromStartOffset> <fromPopTime>]
//   AK <group> <topic> <queueId> <startOffset> <popTime> <o1,o2,...>
//   RV <group> <topic> <queueId> <startOffset> <popTime> <o1,o2,...>
// CK: a pop (or a change of invisible time / an orderly redelivery, which moves the listed
// offsets out of the checkpoint named by the optional "from" pair in the same record, so a move
// is atomic). AK: acked. RV: revived (written after the retry or DLQ copy was stored).

#include <QByteArray>
#include <QByteArrayView>

#include <cstdint>
#include <optional>
#include <vector>

namespace qrocket::broker::pop {

/// Per-offset state of a checkpoint.
enum class OffsetState : std::uint8_t {
    InFlight, // handed out, not settled
    Pending, // orderly: its invisible time ended; the queue's next pop hands it out again
    Acking, // an ack's record is being written
    Reviving, // a retry/DLQ copy or a move to a newer checkpoint is being written
    Acked, // acked (or moved to a newer checkpoint): never delivered again from this one
    Revived, // its invisible time ended and its retry (or DLQ) copy is stored
};

struct CheckPointKey
{
    std::int64_t startOffset = 0;
    std::int64_t popTime = 0;
    friend auto operator<=>(const CheckPointKey &, const CheckPointKey &) = default;
};

struct CheckPoint
{
    QByteArray group;
    QByteArray topic; // the real topic: the topic or its POP retry topic
    std::int32_t queueId = 0;
    std::int64_t startOffset = 0;
    std::int64_t popTime = 0;
    std::int64_t invisibleTime = 0;
    std::int32_t attempt = 0; // orderly: how many times these messages were delivered before
    bool order = false;
    std::int64_t nextBeginOffset = -1; // the pop's next offset in the queue (-1: a move)
    std::vector<std::int64_t> offsets;
    std::vector<OffsetState> states; // parallel to offsets
    std::optional<CheckPointKey> movedFrom;
    std::int64_t logOffset = -1; // the record's offset in the revive log queue

    CheckPointKey key() const { return {startOffset, popTime}; }
    std::int64_t deadline() const { return popTime + invisibleTime; }
    /// Index of `offset` in offsets, or -1.
    int indexOf(std::int64_t offset) const;
    bool settled() const; // nothing in flight
    int inFlight() const;
};

/// A parsed revive-log record.
struct LogRecord
{
    enum class Type : std::uint8_t { CheckPoint, Ack, Revive };
    Type type = Type::CheckPoint;
    CheckPoint ck; // CK: everything; AK/RV: group, topic, queueId, startOffset, popTime, offsets
};

QByteArray encodeCheckPoint(const CheckPoint &ck);
QByteArray encodeSettle(
    LogRecord::Type type, const CheckPoint &ck, const std::vector<std::int64_t> &offsets);
/// nullopt for a body that is no valid record (logged and skipped by the replay).
std::optional<LogRecord> parseLogRecord(QByteArrayView body);

} // namespace qrocket::broker::pop
