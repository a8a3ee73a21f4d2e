#include "broker/schedule/scheduletransform.h"

#include "clientlib/common/hash.h"
#include "clientlib/protocol/messageproperties.h"
#include "clientlib/protocol/systemtopics.h"

#include <algorithm>

namespace qrocket::broker::schedule {

using protocol::MessageProperties;
namespace MessageConst = protocol::MessageConst;

int delayLevelOf(QByteArrayView properties)
{
    const QByteArrayView delay = protocol::findProperty(properties, MessageConst::DelayTimeLevel);
    if (delay.isEmpty())
        return 0;
    bool ok = false;
    const int level = delay.toInt(&ok);
    return ok && level > 0 ? level : 0;
}

std::int64_t levelDelayMillis(const DelayLevels &levels, int level)
{
    if (levels.empty())
        return 0;
    const int clamped = std::clamp(level, 1, static_cast<int>(levels.size()));
    return levels[static_cast<std::size_t>(clamped - 1)];
}

int applyDelayLevel(storage::MessageExtBrokerInner &msg, const DelayLevels &levels)
{
    const std::int32_t tx = msg.sysFlag & protocol::SysFlag::TransactionMask;
    if (tx != protocol::SysFlag::TransactionNot && tx != protocol::SysFlag::TransactionCommit)
        return 0;
    int level = delayLevelOf(msg.properties);
    if (level <= 0 || levels.empty())
        return 0;
    MessageProperties props = MessageProperties::parse(msg.properties);
    const int maxLevel = static_cast<int>(levels.size());
    if (level > maxLevel) {
        level = maxLevel;
        props.set(MessageConst::DelayTimeLevel.toByteArray(), QByteArray::number(level));
    }
    props.set(MessageConst::RealTopic.toByteArray(), msg.topic);
    props.set(MessageConst::RealQueueId.toByteArray(), QByteArray::number(msg.queueId));
    msg.properties = props.encode();
    msg.topic = QByteArray(protocol::topics::kSchedule);
    msg.queueId = queueIdOfLevel(level);
    return level;
}

std::int64_t tagsCodeOf(const protocol::MessageRecordView &record, const DelayLevels &levels)
{
    if (record.topic == protocol::topics::kSchedule) {
        const int level = delayLevelOf(record.properties);
        if (level > 0 && !levels.empty())
            return record.storeTimestamp + levelDelayMillis(levels, level);
    }
    const QByteArrayView tags = protocol::findProperty(record.properties, MessageConst::Tags);
    return tags.isEmpty() ? 0 : javaStringHash(tags);
}

std::int64_t correctDeliverTimestamp(
    std::int64_t now, std::int64_t deliverTimestamp, std::int64_t levelDelay)
{
    return deliverTimestamp > now + levelDelay ? now : deliverTimestamp;
}

Result<storage::MessageExtBrokerInner> restoreParked(const protocol::MessageRecordView &record,
    MessageProperties props, const protocol::HostAddress &storeHost, QStringView kind)
{
    const QByteArray realTopic = props.value(MessageConst::RealTopic);
    bool ok = false;
    const int realQueueId = props.value(MessageConst::RealQueueId).toInt(&ok);
    if (realTopic.isEmpty() || !ok || realQueueId < 0)
        return Status::invalidArgument(
            QStringLiteral("%1 record without REAL_TOPIC/REAL_QID").arg(kind));
    props.remove(MessageConst::RealTopic);
    props.remove(MessageConst::RealQueueId);
    props.set(MessageConst::WaitStoreMsgOk.toByteArray(), QByteArrayLiteral("false"));

    storage::MessageExtBrokerInner m;
    m.topic = realTopic;
    m.queueId = realQueueId;
    m.flag = record.flag;
    m.sysFlag = record.sysFlag;
    m.bornTimestamp = record.bornTimestamp;
    m.bornHost = record.bornHost;
    m.storeHost = storeHost;
    m.reconsumeTimes = record.reconsumeTimes;
    m.preparedTransactionOffset = record.preparedTransactionOffset;
    m.body = record.body.toByteArray();
    m.properties = props.encode();
    const QByteArrayView tags = protocol::findProperty(m.properties, MessageConst::Tags);
    m.tagsCode = tags.isEmpty() ? 0 : javaStringHash(tags);
    m.waitStoreMsgOk = false;
    return m;
}

Result<storage::MessageExtBrokerInner> messageTimeUp(
    const protocol::MessageRecordView &record, const protocol::HostAddress &storeHost)
{
    MessageProperties props = MessageProperties::parse(record.properties);
    props.remove(MessageConst::DelayTimeLevel);
    return restoreParked(record, std::move(props), storeHost, u"scheduled");
}

} // namespace qrocket::broker::schedule
