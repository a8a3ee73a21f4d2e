#pragma once

// The outcome of a send (RocketMQ's SendResult / SendStatus) and of a pull (PullResult).

#include "clientlib/client/message.h"

#include <QByteArray>

#include <cstdint>
#include <functional>
#include <vector>

namespace qrocket::client {

/// A send that returned one of these was stored by the broker; only SendOk also met the flush
/// and replication policy (SYNC_FLUSH, SYNC_MASTER) in time.
enum class SendStatus : std::uint8_t {
    SendOk,
    FlushDiskTimeout,
    FlushSlaveTimeout,
    SlaveNotAvailable
};
const char *sendStatusName(SendStatus status);

struct SendResult
{
    SendStatus status = SendStatus::SendOk;
    /// UNIQ_KEY of the message (comma-joined for a batch), what consumers see as msgId().
    QByteArray msgId;
    /// The broker's offset id(s) (comma-joined for a batch).
    QByteArray offsetMsgId;
    MessageQueue messageQueue;
    std::int64_t queueOffset = 0;
    QByteArray transactionId;
    QByteArray regionId;
    bool traceOn = true;
};

using SendCallback = std::function<void(Result<SendResult>)>;

enum class PullStatus : std::uint8_t { Found, NoNewMsg, NoMatchedMsg, OffsetIllegal };
const char *pullStatusName(PullStatus status);

struct PullResult
{
    PullStatus status = PullStatus::NoNewMsg;
    std::int64_t nextBeginOffset = 0;
    std::int64_t minOffset = 0;
    std::int64_t maxOffset = 0;
    std::int64_t suggestWhichBrokerId = 0;
    /// Found: the messages (already filtered by tag on the client when asked to).
    std::vector<MessageExt> messages;
};

} // namespace qrocket::client
