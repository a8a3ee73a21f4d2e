#pragma once

// Message properties string (protocol.md §5.3): `name \x01 value \x02 name \x01 value ...`, UTF-8,
// no trailing separator when we write (ali-ons writes one). The parser is RocketMQ 4.9's tolerant
// one: segments shorter than 3 bytes or without a name/value separator strictly inside are
// dropped; a duplicate name keeps the last value. The well-known names are those of §5.4.

#include "clientlib/common/result.h"

#include <QByteArray>
#include <QByteArrayView>

#include <initializer_list>
#include <utility>
#include <vector>

namespace qrocket::protocol {

inline constexpr char kNameValueSeparator = '\x01';
inline constexpr char kPropertySeparator = '\x02';

/// MessageConst property names (protocol.md §5.4).
namespace MessageConst {
inline constexpr QByteArrayView Keys = "KEYS";
inline constexpr QByteArrayView Tags = "TAGS";
inline constexpr QByteArrayView WaitStoreMsgOk = "WAIT";
inline constexpr QByteArrayView DelayTimeLevel = "DELAY";
inline constexpr QByteArrayView RetryTopic = "RETRY_TOPIC";
inline constexpr QByteArrayView RealTopic = "REAL_TOPIC";
inline constexpr QByteArrayView RealQueueId = "REAL_QID";
inline constexpr QByteArrayView TransactionPrepared = "TRAN_MSG";
inline constexpr QByteArrayView ProducerGroup = "PGROUP";
inline constexpr QByteArrayView MinOffset = "MIN_OFFSET";
inline constexpr QByteArrayView MaxOffset = "MAX_OFFSET";
inline constexpr QByteArrayView BuyerId = "BUYER_ID";
inline constexpr QByteArrayView OriginMessageId = "ORIGIN_MESSAGE_ID";
inline constexpr QByteArrayView TransferFlag = "TRANSFER_FLAG";
inline constexpr QByteArrayView CorrectionFlag = "CORRECTION_FLAG";
inline constexpr QByteArrayView Mq2Flag = "MQ2_FLAG";
inline constexpr QByteArrayView ReconsumeTime = "RECONSUME_TIME";
inline constexpr QByteArrayView MsgRegion = "MSG_REGION";
inline constexpr QByteArrayView TraceSwitch = "TRACE_ON";
inline constexpr QByteArrayView UniqClientMessageIdKeyIdx = "UNIQ_KEY";
inline constexpr QByteArrayView MaxReconsumeTimes = "MAX_RECONSUME_TIMES";
inline constexpr QByteArrayView ConsumeStartTimestamp = "CONSUME_START_TIME";
inline constexpr QByteArrayView TransactionPreparedQueueOffset = "TRAN_PREPARED_QUEUE_OFFSET";
inline constexpr QByteArrayView TransactionCheckTimes = "TRANSACTION_CHECK_TIMES";
inline constexpr QByteArrayView CheckImmunityTimeInSeconds = "CHECK_IMMUNITY_TIME_IN_SECONDS";
inline constexpr QByteArrayView InstanceId = "INSTANCE_ID";
inline constexpr QByteArrayView CorrelationId = "CORRELATION_ID";
inline constexpr QByteArrayView ReplyToClient = "REPLY_TO_CLIENT";
inline constexpr QByteArrayView Ttl = "TTL";
inline constexpr QByteArrayView ArriveTime = "ARRIVE_TIME";
inline constexpr QByteArrayView PushReplyTime = "PUSH_REPLY_TIME";
inline constexpr QByteArrayView Cluster = "CLUSTER";
inline constexpr QByteArrayView MessageType = "MSG_TYPE";
inline constexpr QByteArrayView InnerMultiDispatch = "INNER_MULTI_DISPATCH";
inline constexpr QByteArrayView InnerMultiQueueOffset = "INNER_MULTI_QUEUE_OFFSET";
inline constexpr QByteArrayView TransactionId = "__transactionId__";
inline constexpr QByteArrayView StartDeliverTime = "__STARTDELIVERTIME";
inline constexpr QByteArrayView KeySeparator = " ";
} // namespace MessageConst

/// An ordered name -> value list (small; linear lookups).
class MessageProperties
{
public:
    using Entry = std::pair<QByteArray, QByteArray>;

    MessageProperties() = default;
    /// The tolerant parser of §5.3; never fails.
    static MessageProperties parse(QByteArrayView text);
    /// `name` as a QByteArray: for the well-known names of MessageConst one that points at
    /// their static text (no allocation, no reference count to bump when copied), otherwise a
    /// copy. parse() names its entries this way; hot paths that set a well-known property use it
    /// instead of MessageConst::X.toByteArray().
    static QByteArray internedName(QByteArrayView name);

    /// `name\x01value` joined by `\x02`, no trailing separator. Entries with a null value, an
    /// empty name or value, or containing a separator byte are skipped (they would not survive a
    /// round trip).
    QByteArray encode() const;
    /// encode(), or InvalidArgument when longer than 32767 bytes (the record's i16 length).
    Result<QByteArray> encodeChecked() const;
    /// encodeChecked() of these properties with `name` = `value` appended, as set() of a name
    /// not present followed by encodeChecked() gives, without copying them (one allocation).
    /// `name` must not be present.
    Result<QByteArray> encodeCheckedAppending(QByteArrayView name, QByteArrayView value) const;

    const QByteArray *find(QByteArrayView name) const;
    QByteArray value(QByteArrayView name, const QByteArray &fallback = {}) const;
    bool contains(QByteArrayView name) const { return find(name) != nullptr; }
    /// Sets (replacing in place) or appends.
    void set(QByteArray name, QByteArray value);
    bool remove(QByteArrayView name);

    const std::vector<Entry> &entries() const { return m_entries; }
    bool isEmpty() const { return m_entries.empty(); }
    std::size_t size() const { return m_entries.size(); }

    friend bool operator==(const MessageProperties &, const MessageProperties &) = default;

private:
    std::vector<Entry> m_entries;
};

/// Allocation-free lookup in an encoded properties string with the parser's rules (last one
/// wins); a null view when absent. For hot paths (TAGS, KEYS, UNIQ_KEY, DELAY per message).
QByteArrayView findProperty(QByteArrayView text, QByteArrayView name);

/// Encoded `text` with `name` removed (all occurrences); unchanged text when absent.
QByteArray removeProperty(QByteArrayView text, QByteArrayView name);

/// `base` followed by `extra`, separated by one `\x02` when both are non-empty and `base` does
/// not already end with it (how the broker merges batch-header properties, §5.7).
QByteArray appendProperties(QByteArrayView base, QByteArrayView extra);

/// removeProperty() for each of `names`, then appendProperties(.., extra): the same bytes, in one
/// pass and one allocation (the broker's send path: drop WAIT and CLUSTER, add CLUSTER).
QByteArray replaceProperties(
    QByteArrayView text, std::initializer_list<QByteArrayView> names, QByteArrayView extra);

} // namespace qrocket::protocol
