#pragma once

// Timer messages (RocketMQ 5's RIP-43): the pure parts shared by the send paths, the store's
// tagsCode derivation, the timer store's delivery and the recall processor. No state, no threads;
// thread-safe.
//
// Send-path rules (RocketMQ 5.3's HookUtils, with #10872 fixed):
// - A message carrying DELAY > 0 is a delay-level message: its TIMER_* properties are dropped.
// - A message in rmq_sys_wheel_timer, or carrying TIMER_OUT_MS (a delivered timer message sent
//   again: retry, DLQ), is never timed again.
// - Otherwise TIMER_DELAY_SEC (relative s), else TIMER_DELAY_MS (relative ms), else
//   TIMER_DELIVER_MS (absolute ms) gives the due time. A value that is not a decimal integer, or
//   whose due time overflows int64, is refused (MESSAGE_ILLEGAL) and never delivered at once.
// - Due time <= now: stored at once, unchanged (a time in the past). Due time later than
//   now + timerMaxDelaySec: refused (MESSAGE_ILLEGAL, RocketMQ's remark).
// - Otherwise the message is parked in rmq_sys_wheel_timer queue 0 with TIMER_OUT_MS = the due
//   time rounded UP to timerPrecisionMs (RocketMQ rounds down; QRocket never delivers early),
//   REAL_TOPIC and REAL_QID.
// - A recall marker (TIMER_DEL_UNIQKEY) is parked the same way and never delivered.

#include "clientlib/common/result.h"
#include "clientlib/protocol/messagecodec.h"
#include "storage/core/storeconfig.h"
#include "storage/core/storetypes.h"

#include <QByteArray>
#include <QByteArrayView>

#include <cstdint>
#include <cstring>
#include <optional>

namespace qrocket::broker::timer {

inline constexpr QByteArrayView kTimerTopic = "rmq_sys_wheel_timer";

namespace prop {
inline constexpr QByteArrayView DelaySec = "TIMER_DELAY_SEC";
inline constexpr QByteArrayView DelayMs = "TIMER_DELAY_MS";
inline constexpr QByteArrayView DeliverMs = "TIMER_DELIVER_MS";
inline constexpr QByteArrayView OutMs = "TIMER_OUT_MS";
inline constexpr QByteArrayView EnqueueMs = "TIMER_ENQUEUE_MS";
inline constexpr QByteArrayView DequeueMs = "TIMER_DEQUEUE_MS";
inline constexpr QByteArrayView DelUniqKey = "TIMER_DEL_UNIQKEY";
} // namespace prop

/// RocketMQ's codes used only here (ResponseCode.ILLEGAL_OPERATION; RequestCode's timer codes).
inline constexpr int kIllegalOperation = 604;
inline constexpr int kGetTimerCheckPoint = 60;
inline constexpr int kGetTimerMetrics = 61;
inline constexpr int kRecallMessage = 370;

struct TimerRules
{
    std::int64_t precisionMs = 1000;
    std::int64_t maxDelayMs = 3LL * 24 * 3600 * 1000;
    bool enabled = true; // timerWheelEnable
};

/// The rules of a store config (timerWheelEnable, normalized timerPrecisionMs, timerMaxDelaySec).
TimerRules rulesOf(const storage::MessageStoreConfig &config);

enum class TimerOutcome : std::uint8_t {
    NotTimer, // no timer property (or a delay level / an already timed message): unchanged
    AtOnce, // due time in the past: store unchanged
    Parked, // moved to rmq_sys_wheel_timer
    Illegal, // refused: MESSAGE_ILLEGAL with illegalRemark()
    Disabled, // timerWheelEnable=false: refused with disabledRemark()
};

/// The due time of encoded `properties` by the rules above (nullopt: no timer property; Illegal
/// is reported as dueMs = nullopt with `illegal` set).
struct DueTime
{
    bool present = false;
    bool illegal = false;
    std::int64_t dueMs = 0;
};
DueTime dueTimeOf(QByteArrayView properties, std::int64_t now);

/// Cheap pre-check for the send path: could `properties` name a timer property at all?
/// memmem (SIMD in glibc), not QByteArrayView::contains: Qt's search set-up cost ~900
/// instructions on every send (callgrind, 1 KiB sends).
inline bool mayCarryTimer(QByteArrayView properties)
{
    constexpr char kNeedle[] = "TIMER_";
    return !properties.isEmpty()
        && ::memmem(properties.data(), static_cast<std::size_t>(properties.size()), kNeedle,
               sizeof kNeedle - 1)
        != nullptr;
}

/// `t` rounded up to a multiple of `precisionMs` (t > 0).
std::int64_t slotTimeOf(std::int64_t t, std::int64_t precisionMs);

/// Applies the rules to `msg` (any send path). For Parked, `msg` is in rmq_sys_wheel_timer and
/// `*slotMs` (when given) is its TIMER_OUT_MS.
TimerOutcome applyTimer(storage::MessageExtBrokerInner &msg, std::int64_t now,
    const TimerRules &rules, std::int64_t *slotMs = nullptr);

/// A send refused by the timer rules: the response code and remark.
struct Refusal
{
    int code = 0;
    QByteArray remark;
};
/// Every send path (single, batch item, send-back, transactional commit): applyTimer() with
/// `config`'s rules; the refusal for Illegal (MESSAGE_ILLEGAL) and Disabled (SYSTEM_ERROR).
std::optional<Refusal> applyOnSend(const storage::MessageStoreConfig &config,
    storage::MessageExtBrokerInner &msg, std::int64_t now, std::int64_t *slot = nullptr);

/// RocketMQ's WHEEL_TIMER_MSG_ILLEGAL remark.
QByteArray illegalRemark(const TimerRules &rules);
/// RocketMQ's WHEEL_TIMER_NOT_ENABLE remark.
QByteArray disabledRemark(const TimerRules &rules);

/// The store's tagsCode of a rmq_sys_wheel_timer record: its TIMER_OUT_MS; negated for a recall
/// marker; 0 when absent.
std::int64_t timerTagsCode(const protocol::MessageRecordView &record);

/// "<topic>+<uniqKey>" (RocketMQ's delete key).
QByteArray deleteKey(QByteArrayView realTopic, QByteArrayView uniqKey);

/// The message written to the real topic when a parked record is due: REAL_TOPIC/REAL_QID
/// removed, TIMER_ENQUEUE_MS = the parked record's store time, TIMER_DEQUEUE_MS = `dequeueMs`,
/// everything else kept (body, flag, sysflag, born time/host, reconsume times, UNIQ_KEY, KEYS,
/// TAGS, other properties; TIMER_OUT_MS stays so that a resend is not timed again).
Result<storage::MessageExtBrokerInner> timerMessageTimeUp(const protocol::MessageRecordView &record,
    const protocol::HostAddress &storeHost, std::int64_t dequeueMs);

/// True when `delivered` (a record in the commit log) is the delivery of parked `source`: same
/// real topic and queue, born time, body, UNIQ_KEY and TIMER_ENQUEUE_MS (crash recovery).
bool isDeliveryOf(
    const protocol::MessageRecordView &delivered, const protocol::MessageRecordView &source);

/// A 64-bit digest of the fields isDeliveryOf() compares, equal for a delivery and its parked
/// source (a promoted broker's inheritance scan, TimerMessageStore): of `delivered` when it is a
/// timer delivery (TIMER_DEQUEUE_MS present, not in rmq_sys_wheel_timer), else nullopt.
std::optional<std::uint64_t> deliveryDigest(const protocol::MessageRecordView &delivered);
/// The same digest of parked record `source` (what its delivery's deliveryDigest() would be).
std::uint64_t parkedDigest(const protocol::MessageRecordView &source);

/// A timer-log entry's mark of the record it was made from (body CRC and store time, never 0),
/// read from the record's fixed fields: a record written later at the same commit-log offset
/// (the log cut back by recovery and written again) has another (apache/rocketmq#10668). 0
/// when `record` is too short to hold them.
std::uint32_t recordMark(QByteArrayView record);

/// RocketMQ 5.3's recall handle (RecallMessageHandle.HandleV1): base64url("v1 <topic>
/// <brokerName> <timestamp> <uniqKey>").
QByteArray encodeRecallHandle(QByteArrayView topic, QByteArrayView brokerName,
    std::int64_t timestampMs, QByteArrayView uniqKey);
struct RecallHandle
{
    QByteArray topic;
    QByteArray brokerName;
    QByteArray timestamp; // as written; parsed by the processor
    QByteArray uniqKey;
};
/// nullopt when `handle` is not a v1 handle (RocketMQ's "recall handle is invalid").
std::optional<RecallHandle> decodeRecallHandle(QByteArrayView handle);

} // namespace qrocket::broker::timer
