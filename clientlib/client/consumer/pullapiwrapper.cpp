#include "clientlib/client/consumer/pullapiwrapper.h"

#include "clientlib/client/logging.h"

#include <algorithm>

namespace qrocket::client {

namespace MC = protocol::MessageConst;

PullAPIWrapper::PullAPIWrapper(std::shared_ptr<ClientInstance> instance, QByteArray group)
    : m_instance(std::move(instance)), m_group(std::move(group))
{ }

std::int64_t PullAPIWrapper::pullFromWhichNode(const MessageQueue &mq) const
{
    std::lock_guard lock(m_mutex);
    const auto it = m_pullFromWhichNode.find(mq);
    return it == m_pullFromWhichNode.end() ? 0 : it->second;
}

std::optional<ClientInstance::BrokerAddress> PullAPIWrapper::findBroker(
    const MessageQueue &mq, bool suggested)
{
    const auto lookup = [&] {
        return suggested ? m_instance->brokerAddress(mq.brokerName, pullFromWhichNode(mq), false)
                         : m_instance->brokerAddress(mq.brokerName, 0, true);
    };
    auto broker = lookup();
    if (!broker) {
        (void)m_instance->refreshTopicRoute(mq.topic);
        broker = lookup();
    }
    return broker;
}

void PullAPIWrapper::pullAsync(const ClientInstance::BrokerAddress &broker, const Request &request,
    const protocol::SubscriptionData &sub, std::function<void(Result<PullResult>)> callback)
{
    int sysFlag = protocol::PullSysFlag::Suspend;
    if (request.commitOffset > 0 && !broker.slave)
        sysFlag |= protocol::PullSysFlag::CommitOffset;
    if (request.withExpression)
        sysFlag |= protocol::PullSysFlag::Subscription;
    if (request.litePull)
        sysFlag |= protocol::PullSysFlag::LitePull;
    protocol::PullMessageRequestHeader h;
    h.consumerGroup = m_group;
    h.topic = request.mq.topic;
    h.queueId = request.mq.queueId;
    h.queueOffset = request.offset;
    h.maxMsgNums = request.maxMsgNums;
    h.sysFlag = sysFlag;
    h.commitOffset = request.commitOffset > 0 ? request.commitOffset : 0;
    h.suspendTimeoutMillis = request.brokerSuspendMaxTimeMillis;
    if (request.withExpression)
        h.subscription = sub.subString;
    h.subVersion = sub.subVersion;
    h.expressionType = sub.expressionType;
    h.brokerName = request.mq.brokerName;
    qCDebug(lcConsumer, "pulling %s/%s/%d at %lld from %s", request.mq.topic.constData(),
        request.mq.brokerName.constData(), request.mq.queueId,
        static_cast<long long>(request.offset), broker.address.constData());
    m_instance->api().pullMessageAsync(
        broker.address, request.mq.brokerName, h, request.timeoutMillis, std::move(callback));
}

void PullAPIWrapper::processPullResult(const MessageQueue &mq, PullResult &result,
    const protocol::SubscriptionData &sub, bool stampOffsets)
{
    {
        std::lock_guard lock(m_mutex);
        m_pullFromWhichNode[mq] = result.suggestWhichBrokerId;
    }
    if (result.status != PullStatus::Found)
        return;
    const bool filterTags
        = sub.expressionType == "TAG" && !sub.tagsSet.empty() && !sub.classFilterMode;
    // MIN_OFFSET/MAX_OFFSET as RocketMQ stamps them: the same two texts for the whole batch
    // (shared, not one allocation per message), interned names.
    const QByteArray minName = protocol::MessageProperties::internedName(MC::MinOffset);
    const QByteArray maxName = protocol::MessageProperties::internedName(MC::MaxOffset);
    const QByteArray minText = stampOffsets ? QByteArray::number(result.minOffset) : QByteArray();
    const QByteArray maxText = stampOffsets ? QByteArray::number(result.maxOffset) : QByteArray();
    std::vector<MessageExt> &msgs = result.messages;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < msgs.size(); ++i) {
        MessageExt &m = msgs[i];
        if (filterTags) {
            const QByteArray *tags = m.properties().find(MC::Tags);
            const QByteArray tag = tags ? *tags : QByteArray();
            if (std::find(sub.tagsSet.begin(), sub.tagsSet.end(), tag) == sub.tagsSet.end())
                continue;
        }
        if (stampOffsets) {
            m.setProperty(minName, minText);
            m.setProperty(maxName, maxText);
        }
        if (kept != i)
            msgs[kept] = std::move(m);
        ++kept;
    }
    msgs.erase(msgs.begin() + static_cast<std::ptrdiff_t>(kept), msgs.end());
}

} // namespace qrocket::client
