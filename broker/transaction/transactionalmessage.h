#pragma once

// Transactional messages (protocol.md §4.6, §8.5), as RocketMQ 4.9's broker keeps them: the
// message shapes of TransactionalMessageBridge and EndTransactionProcessor.
//
// - A half message (SEND with TRAN_MSG=true) is stored in RMQ_SYS_TRANS_HALF_TOPIC queue 0 with
//   REAL_TOPIC/REAL_QID saved and the transaction bits of its sysFlag reset to NOT, so no consume
//   queue of the real topic ever lists it (toHalfMessage()).
// - Its outcome is an "op" record in RMQ_SYS_TRANS_OP_HALF_TOPIC (same queue id as the half
//   queue, tag "d", body = the half message's queue offset in decimal): opMessage().
// - A commit re-stores the half message under its real topic/queue with the COMMIT type and
//   preparedTransactionOffset = the half record's commit-log offset (committedMessage()). As in
//   RocketMQ the stored properties are the half message's properties string unchanged (RocketMQ
//   clears REAL_TOPIC, REAL_QID and TRAN_MSG from the property map only after it has serialised
//   the string the commit log writes), so consumers see those properties too.
//
// Everything here is a pure function of its inputs; thread-safe.

#include "clientlib/common/result.h"
#include "clientlib/protocol/messagecodec.h"
#include "clientlib/protocol/messageproperties.h"
#include "storage/core/storetypes.h"

#include <QByteArray>
#include <QByteArrayView>

#include <cstdint>
#include <optional>

namespace qrocket::broker::transaction {

inline constexpr QByteArrayView kHalfTopic = "RMQ_SYS_TRANS_HALF_TOPIC";
inline constexpr QByteArrayView kOpHalfTopic = "RMQ_SYS_TRANS_OP_HALF_TOPIC";
inline constexpr QByteArrayView kCheckMaxTimeTopic = "TRANS_CHECK_MAX_TIME_TOPIC";
/// The consumer group whose offsets on the half and op queues record the check progress
/// (MixAll.CID_SYS_RMQ_TRANS).
inline constexpr QByteArrayView kConsumerGroup = "CID_RMQ_SYS_TRANS";
/// Tag of an op record that resolves a half message (TransactionalMessageUtil.REMOVETAG).
inline constexpr QByteArrayView kRemoveTag = "d";

/// True when the properties carry TRAN_MSG=true (Java's Boolean.parseBoolean: case-insensitive).
bool isHalfMessageSend(QByteArrayView properties);

/// parseHalfMessageInner: REAL_TOPIC = topic, REAL_QID = queueId added, transaction bits reset to
/// NOT, topic RMQ_SYS_TRANS_HALF_TOPIC, queue 0.
void toHalfMessage(storage::MessageExtBrokerInner &msg);

/// A stored half message, decoded and owning its bytes (RocketMQ's MessageExt of the half queue).
struct HalfMessage
{
    storage::MessageExtBrokerInner inner; // topic, queue, flags, hosts, body, properties string
    protocol::MessageProperties properties; // parsed from inner.properties
    std::int64_t queueOffset = 0;
    std::int64_t commitLogOffset = 0;
    std::int64_t storeTimestamp = 0;
    std::int32_t bodyCrc = 0;

    /// Decodes the record at the start of `record`; nullopt when it is not a whole record.
    static std::optional<HalfMessage> decode(QByteArrayView record);
    /// The offset msgId of the record (store host + commit-log offset).
    QByteArray offsetMsgId() const;
};

/// EndTransactionProcessor.endMessageTransaction + the commit settings: the message to store in
/// the real topic. An error when REAL_TOPIC or REAL_QID is missing or not a number.
Result<storage::MessageExtBrokerInner> committedMessage(const HalfMessage &half);

/// The op record resolving the half message at `halfQueueOffset` of half queue `halfQueueId`
/// (makeOpMessageInner: sysFlag 0, born and store host = this broker, WAIT=false, a fresh
/// UNIQ_KEY is not needed: RocketMQ adds it to the property map after serialising it).
storage::MessageExtBrokerInner opMessage(int halfQueueId, std::int64_t halfQueueOffset,
    const protocol::HostAddress &storeHost, std::int64_t nowMs);

/// renewHalfMessageInner: the half message re-appended to its half queue with `properties`
/// (the check bookkeeping updated by the caller). Flag and reconsume times are kept (RocketMQ
/// drops the flag here; keeping it loses nothing a client relies on).
storage::MessageExtBrokerInner renewedHalfMessage(const HalfMessage &half);

/// The CHECK_TRANSACTION_STATE body: the half message encoded as a stored record with its real
/// topic and queue, at `queueOffset`/`commitLogOffset` (those of the renewed half record).
QByteArray checkStateBody(const HalfMessage &half);

} // namespace qrocket::broker::transaction
