#include "broker/processors/consumermanageprocessor.h"

#include "broker/common/brokercodes.h"
#include "broker/common/brokercontext.h"
#include "broker/managers/consumeroffsetmanager.h"
#include "storage/messagestore.h"

#include <unistd.h>

namespace qrocket::broker {

using protocol::RemotingCommand;

namespace {

RemotingCommand withOffset(const RemotingCommand &request, const char *key, std::int64_t value)
{
    RemotingCommand response = makeReply(request, toInt(ResponseCode::Success));
    response.setExt(key, value);
    return response;
}

} // namespace

void ConsumerManageProcessor::processRequest(
    const remoting::ChannelPtr &, RemotingCommand request, remoting::Responder respond)
{
    // The responder of a oneway request (Java's UPDATE_CONSUMER_OFFSET) sends nothing.
    respond(process(request));
}

RemotingCommand ConsumerManageProcessor::process(const RemotingCommand &request)
{
    const bool needsGroup = request.code == toInt(RequestCode::QueryConsumerOffset)
        || request.code == toInt(RequestCode::UpdateConsumerOffset);
    QByteArray missing = needsGroup
        ? missingExtField(request, {"consumerGroup", "topic", "queueId"})
        : missingExtField(request, {"topic", "queueId"});
    if (missing.isEmpty() && request.code == toInt(RequestCode::UpdateConsumerOffset))
        missing = missingExtField(request, {"commitOffset"});
    if (missing.isEmpty() && request.code == toInt(RequestCode::SearchOffsetByTimestamp))
        missing = missingExtField(request, {"timestamp"});
    if (!missing.isEmpty())
        return makeReply(request, toInt(ResponseCode::SystemError), missing);

    const QByteArrayView topic = request.extString("topic");
    const auto queueId = request.extInt("queueId");
    if (!queueId)
        return makeReply(request, toInt(ResponseCode::SystemError), "queueId is not a number");
    storage::MessageStore &store = *m_ctx.store;
    switch (request.code) {
    case toInt(RequestCode::QueryConsumerOffset):
        return queryConsumerOffset(request);
    case toInt(RequestCode::UpdateConsumerOffset):
        m_ctx.consumerOffsets->commit(request.extString("consumerGroup"), topic, *queueId,
            request.extLong("commitOffset").value_or(-1));
        return makeReply(request, toInt(ResponseCode::Success));
    case toInt(RequestCode::GetMaxOffset):
        return withOffset(request, "offset", store.maxOffsetInQueue(topic, *queueId));
    case toInt(RequestCode::GetMinOffset):
        return withOffset(request, "offset", store.minOffsetInQueue(topic, *queueId));
    case toInt(RequestCode::SearchOffsetByTimestamp):
        return withOffset(request, "offset",
            store.offsetInQueueByTime(topic, *queueId, request.extLong("timestamp").value_or(0)));
    case toInt(RequestCode::GetEarliestMsgStoreTime):
        return withOffset(request, "timestamp", store.earliestMessageTime(topic, *queueId));
    default:
        return makeReply(
            request, 3, " request type " + QByteArray::number(request.code) + " not supported");
    }
}

RemotingCommand ConsumerManageProcessor::queryConsumerOffset(const RemotingCommand &request)
{
    const QByteArrayView group = request.extString("consumerGroup");
    const QByteArrayView topic = request.extString("topic");
    const int queueId = request.extInt("queueId").value_or(0);
    const std::int64_t offset = m_ctx.consumerOffsets->query(group, topic, queueId);
    if (offset >= 0)
        return withOffset(request, "offset", offset);
    // No committed offset (protocol.md §4.4, pitfall 13), as RocketMQ 4.9: a queue that still
    // starts at index 0 (or does not exist yet) is consumed from 0 unless its first message has
    // already left the page-cache window; otherwise the client's ConsumeFromWhere decides.
    const std::int64_t minOffset = m_ctx.store->minOffsetInQueue(topic, queueId);
    if (minOffset <= 0 && !firstMessageInDisk(topic, queueId))
        return withOffset(request, "offset", 0);
    return makeReply(request, toInt(ResponseCode::QueryNotFound),
        "Not found, V3_0_6_SNAPSHOT maybe this group consumer boot first");
}

bool ConsumerManageProcessor::firstMessageInDisk(QByteArrayView topic, int queueId) const
{
    // RocketMQ's checkInDiskByConsumeOffset(topic, queueId, 0): the unit at queue offset 0 names
    // a commit-log offset further from the end of the log than accessMessageInMemoryMaxRatio % of
    // physical memory. No consume queue or no unit 0: not on disk.
    const storage::ConsumeQueue *cq = m_ctx.store->findConsumeQueue(topic, queueId);
    storage::ConsumeQueue::Unit unit;
    if (!cq || !cq->unit(0, unit))
        return false;
    static const std::int64_t physicalMemory
        = static_cast<std::int64_t>(::sysconf(_SC_PHYS_PAGES)) * ::sysconf(_SC_PAGESIZE);
    const std::int64_t memoryWindow
        = physicalMemory * m_ctx.store->config().accessMessageInMemoryMaxRatio / 100;
    return m_ctx.store->commitLogMaxOffset() - unit.commitLogOffset > memoryWindow;
}

} // namespace qrocket::broker
