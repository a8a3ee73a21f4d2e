#pragma once

// Value types of the MessageStore API: the put input (RocketMQ's MessageExtBrokerInner), put and
// get outcomes (PutMessageStatus / GetMessageStatus, protocol.md §4.1/§4.2), query results and
// the dispatch request the reput thread hands to consume queues and the index.

#include "clientlib/protocol/messagecodec.h"

#include <QByteArray>
#include <QString>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace qrocket::storage {

class MappedFile;

/// Whether `topic` may name a directory of the store (consumequeue/<topic>/<queueId>): RocketMQ's
/// topic characters ^[%|a-zA-Z0-9_-]+$ and at most 127 of them, so no name can climb out of the
/// store ("..", "/") whoever wrote it: a request, a replicated record, a directory on disk.
bool isStorableTopicName(QByteArrayView topic);
/// Queue ids a consume queue may have (0..65535, RocketMQ's queue count limit).
inline bool isStorableQueueId(int queueId)
{
    return queueId >= 0 && queueId <= 65535;
}

/// One message to append (MessageExtBrokerInner). Byte fields are owned (QByteArray, implicitly
/// shared: the broker can pass frame slices without copying).
struct MessageExtBrokerInner
{
    QByteArray topic;
    std::int32_t queueId = 0;
    std::int32_t flag = 0;
    std::int32_t sysFlag = 0;
    std::int64_t bornTimestamp = 0;
    protocol::HostAddress bornHost;
    protocol::HostAddress storeHost;
    std::int32_t reconsumeTimes = 0;
    std::int64_t preparedTransactionOffset = 0;
    QByteArray body;
    QByteArray properties; // encoded §5.3 string, stored verbatim
    /// Informational; consume-queue tagsCode is derived from the stored record at dispatch (so
    /// that recovery rebuilds the same value): the TAGS hash, or for SCHEDULE_TOPIC_XXXX the
    /// delivery time (MessageStore::setTagsCodeResolver overrides how that one is derived).
    std::int64_t tagsCode = 0;
    /// WAIT property (the broker strips it from `properties`): false completes a SYNC_FLUSH put
    /// without waiting for the disk.
    bool waitStoreMsgOk = true;
};

enum class PutMessageStatus : std::uint8_t {
    PutOk,
    FlushDiskTimeout,
    FlushSlaveTimeout,
    SlaveNotAvailable,
    ServiceNotAvailable,
    CreateMappedFileFailed,
    MessageIllegal,
    PropertiesSizeExceeded,
    OsPageCacheBusy,
    UnknownError,
};
const char *putMessageStatusName(PutMessageStatus s);

struct PutMessageResult
{
    PutMessageStatus status = PutMessageStatus::UnknownError;
    std::int64_t wroteOffset = 0; // commit-log offset of the (first) record
    std::int32_t wroteBytes = 0; // total bytes appended
    std::int64_t queueOffset = 0; // CQ offset of the (first) message
    std::int64_t storeTimestamp = 0;
    std::int32_t msgNum = 0;
    std::vector<std::int64_t> batchOffsets; // each record's commit-log offset (batches only)
    QString remark; // why, for every status but PutOk

    bool isOk() const { return status == PutMessageStatus::PutOk; }
};
using PutCallback = std::function<void(const PutMessageResult &)>;

enum class GetMessageStatus : std::uint8_t {
    Found,
    NoMatchedMessage,
    MessageWasRemoving,
    OffsetFoundNull,
    OffsetOverflowBadly,
    OffsetOverflowOne,
    OffsetTooSmall,
    NoMatchedLogicQueue,
    NoMessageInQueue,
};
const char *getMessageStatusName(GetMessageStatus s);

/// Stored records returned by getMessage / queryMessage: zero-copy views into mapped files, which
/// `holds` keeps mapped. Valid as long as this object lives.
struct GetMessageResult
{
    GetMessageStatus status = GetMessageStatus::NoMessageInQueue;
    std::int64_t nextBeginOffset = 0;
    std::int64_t minOffset = 0;
    std::int64_t maxOffset = 0;
    std::vector<QByteArrayView> messages; // each the exact stored record
    std::vector<std::int64_t> messageQueueOffsets; // CQ offset of each returned message
    std::vector<std::shared_ptr<MappedFile>> holds;
    std::int64_t bufferTotalSize = 0;
    bool suggestPullingFromSlave = false;

    int messageCount() const { return static_cast<int>(messages.size()); }
    /// The records concatenated: a PULL_MESSAGE body (protocol.md §5.6).
    QByteArray concatenated() const;
};

struct QueryMessageResult
{
    std::vector<QByteArrayView> messages;
    std::vector<std::shared_ptr<MappedFile>> holds;
    std::int64_t indexLastUpdateTimestamp = 0;
    std::int64_t indexLastUpdatePhyoffset = 0;
    std::int64_t bufferTotalSize = 0;
    QByteArray concatenated() const;
};

/// A stored record looked up by commit-log offset.
struct SelectedRecord
{
    QByteArrayView bytes;
    std::shared_ptr<MappedFile> hold;
    bool isValid() const { return !bytes.isEmpty(); }
};

/// What the reput thread extracts from one record for the consume queue and the index.
struct DispatchRequest
{
    QByteArrayView topic;
    std::int32_t queueId = 0;
    std::int64_t commitLogOffset = 0;
    std::int32_t msgSize = 0;
    std::int64_t tagsCode = 0;
    std::int64_t storeTimestamp = 0;
    std::int64_t consumeQueueOffset = 0;
    QByteArrayView keys; // KEYS property
    QByteArrayView uniqKey; // UNIQ_KEY property
    std::int32_t sysFlag = 0;
    std::int64_t preparedTransactionOffset = 0;
};

/// A predicate over a stored message's properties ("name\x01value\x02..."): the SQL92 selector
/// of a subscription (broker/filter/). Immutable once built; evaluated from several threads.
class PropertyFilter
{
public:
    virtual ~PropertyFilter() = default;
    virtual bool matches(QByteArrayView properties) const = 0;
};

/// A subscription's filter (protocol.md §4.2): the TAG filter on the consume queue's tagsCode
/// (match all, or tagsCode in a set of Java hashes), and for SQL92 subscriptions a property
/// filter on the commit-log record, as RocketMQ's ExpressionMessageFilter checks both.
struct MessageFilter
{
    bool matchAll = true;
    std::vector<std::int32_t> codes;
    std::shared_ptr<const PropertyFilter> properties; // null: no property filter

    /// "*" / "" -> all; "a || b" -> hashes of a and b.
    static MessageFilter fromTagExpression(QByteArrayView expression);
    static MessageFilter fromProperties(std::shared_ptr<const PropertyFilter> properties);
    bool matchesTagsCode(std::int64_t tagsCode) const;
    bool matchesProperties(QByteArrayView props) const
    {
        return !properties || properties->matches(props);
    }
    /// Both checks at once (a message arriving for a held pull).
    bool matches(std::int64_t tagsCode, QByteArrayView props) const
    {
        return matchesTagsCode(tagsCode) && matchesProperties(props);
    }
    bool acceptsAll() const { return matchAll && !properties; }
};

} // namespace qrocket::storage
