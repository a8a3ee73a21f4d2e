#include "broker/transaction/transactionalmessage.h"

#include "clientlib/common/hash.h"
#include "clientlib/protocol/messageid.h"

namespace qrocket::broker::transaction {

namespace mc = protocol::MessageConst;
using protocol::MessageProperties;
using storage::MessageExtBrokerInner;

namespace {

std::int64_t tagsCodeOf(const QByteArray &properties)
{
    const QByteArrayView tags = protocol::findProperty(properties, mc::Tags);
    return tags.isEmpty() ? 0 : javaStringHash(tags);
}

} // namespace

bool isHalfMessageSend(QByteArrayView properties)
{
    const QByteArrayView tran = protocol::findProperty(properties, mc::TransactionPrepared);
    return !tran.isNull() && tran.compare("true", Qt::CaseInsensitive) == 0;
}

void toHalfMessage(MessageExtBrokerInner &msg)
{
    MessageProperties props = MessageProperties::parse(msg.properties);
    props.set(mc::RealTopic.toByteArray(), msg.topic);
    props.set(mc::RealQueueId.toByteArray(), QByteArray::number(msg.queueId));
    msg.properties = props.encode();
    msg.sysFlag
        = (msg.sysFlag & ~protocol::SysFlag::TransactionMask) | protocol::SysFlag::TransactionNot;
    msg.topic = kHalfTopic.toByteArray();
    msg.queueId = 0;
    msg.tagsCode = tagsCodeOf(msg.properties);
}

std::optional<HalfMessage> HalfMessage::decode(QByteArrayView record)
{
    protocol::MessageRecordView rec;
    if (protocol::decodeRecord(record, rec, false).status != protocol::RecordStatus::Ok)
        return std::nullopt;
    HalfMessage h;
    MessageExtBrokerInner &m = h.inner;
    m.topic = rec.topic.toByteArray();
    m.queueId = rec.queueId;
    m.flag = rec.flag;
    m.sysFlag = rec.sysFlag;
    m.bornTimestamp = rec.bornTimestamp;
    m.bornHost = rec.bornHost;
    m.storeHost = rec.storeHost;
    m.reconsumeTimes = rec.reconsumeTimes;
    m.preparedTransactionOffset = rec.preparedTransactionOffset;
    m.body = rec.body.toByteArray();
    m.properties = rec.properties.toByteArray();
    m.tagsCode = tagsCodeOf(m.properties);
    h.properties = MessageProperties::parse(rec.properties);
    h.queueOffset = rec.queueOffset;
    h.commitLogOffset = rec.physicalOffset;
    h.storeTimestamp = rec.storeTimestamp;
    h.bodyCrc = rec.bodyCrc;
    return h;
}

QByteArray HalfMessage::offsetMsgId() const
{
    return protocol::encodeOffsetMessageId(inner.storeHost, commitLogOffset);
}

Result<MessageExtBrokerInner> committedMessage(const HalfMessage &half)
{
    const QByteArray realTopic = half.properties.value(mc::RealTopic);
    bool ok = false;
    const int realQueueId = half.properties.value(mc::RealQueueId).toInt(&ok);
    if (realTopic.isEmpty() || !ok)
        return Status::invalidArgument(
            QStringLiteral("prepared message without REAL_TOPIC/REAL_QID"));
    MessageExtBrokerInner m;
    m.topic = realTopic;
    m.queueId = realQueueId;
    m.body = half.inner.body;
    m.flag = half.inner.flag;
    m.bornTimestamp = half.inner.bornTimestamp;
    m.bornHost = half.inner.bornHost;
    m.storeHost = half.inner.storeHost;
    m.reconsumeTimes = half.inner.reconsumeTimes;
    m.waitStoreMsgOk = false;
    m.sysFlag = (half.inner.sysFlag & ~protocol::SysFlag::TransactionMask)
        | protocol::SysFlag::TransactionCommit;
    m.preparedTransactionOffset = half.commitLogOffset;
    // The string the commit log writes is the half message's (see the header).
    m.properties = half.inner.properties;
    m.tagsCode = half.inner.tagsCode;
    return m;
}

MessageExtBrokerInner opMessage(int halfQueueId, std::int64_t halfQueueOffset,
    const protocol::HostAddress &storeHost, std::int64_t nowMs)
{
    MessageProperties props;
    props.set(mc::Tags.toByteArray(), kRemoveTag.toByteArray());
    props.set(mc::WaitStoreMsgOk.toByteArray(), QByteArrayLiteral("true"));
    MessageExtBrokerInner m;
    m.topic = kOpHalfTopic.toByteArray();
    m.queueId = halfQueueId;
    m.body = QByteArray::number(halfQueueOffset);
    m.sysFlag = 0;
    m.properties = props.encode();
    m.tagsCode = javaStringHash(kRemoveTag);
    m.bornTimestamp = nowMs;
    m.bornHost = storeHost;
    m.storeHost = storeHost;
    m.waitStoreMsgOk = false;
    return m;
}

MessageExtBrokerInner renewedHalfMessage(const HalfMessage &half)
{
    MessageExtBrokerInner m = half.inner;
    m.properties = half.properties.encode();
    m.tagsCode = tagsCodeOf(m.properties);
    m.preparedTransactionOffset = 0;
    m.waitStoreMsgOk = false;
    return m;
}

QByteArray checkStateBody(const HalfMessage &half)
{
    const QByteArray realTopic = half.properties.value(mc::RealTopic);
    const QByteArray props = half.properties.encode();
    protocol::MessageRecordInput in;
    in.topic = realTopic;
    in.queueId = half.properties.value(mc::RealQueueId).toInt();
    in.flag = half.inner.flag;
    in.sysFlag = half.inner.sysFlag;
    in.bornTimestamp = half.inner.bornTimestamp;
    in.bornHost = half.inner.bornHost;
    in.storeHost = half.inner.storeHost;
    in.reconsumeTimes = half.inner.reconsumeTimes;
    in.preparedTransactionOffset = half.inner.preparedTransactionOffset;
    in.body = half.inner.body;
    in.properties = props;
    in.bodyCrc = half.bodyCrc;
    return protocol::encodeRecord(in, half.queueOffset, half.commitLogOffset, half.storeTimestamp);
}

} // namespace qrocket::broker::transaction
