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
    std::vector<MessageExt> kept;
    kept.reserve(result.messages.size());
    for (MessageExt &m : result.messages) {
        if (filterTags
            && std::find(sub.tagsSet.begin(), sub.tagsSet.end(), m.tags()) == sub.tagsSet.end())
            continue;
        if (stampOffsets) {
            m.setProperty(MC::MinOffset.toByteArray(), QByteArray::number(result.minOffset));
            m.setProperty(MC::MaxOffset.toByteArray(), QByteArray::number(result.maxOffset));
        }
        kept.push_back(std::move(m));
    }
    result.messages = std::move(kept);
}

} // namespace qrocket::client
