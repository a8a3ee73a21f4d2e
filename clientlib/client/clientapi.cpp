#include "clientlib/client/clientapi.h"

#include "clientlib/protocol/headers/namesrvheaders.h"
#include "clientlib/protocol/popcodes.h"
#include "clientlib/protocol/requestcode.h"
#include "clientlib/protocol/responsecode.h"

namespace qrocket::client {

using protocol::RequestCode;
using protocol::ResponseCode;
using protocol::toInt;

ClientApi::ClientApi(remoting::RemotingClient &remoting, protocol::LanguageCode language)
    : m_remoting(remoting), m_language(language)
{ }

RemotingCommand ClientApi::request(int code) const
{
    RemotingCommand cmd = RemotingCommand::createRequest(code);
    cmd.language = m_language;
    return cmd;
}

Status ClientApi::responseStatus(const RemotingCommand &response)
{
    if (response.code == toInt(ResponseCode::Success))
        return Status();
    QString text = QString::fromLatin1(protocol::responseCodeLabel(response.code));
    if (!response.remark.isEmpty())
        text += QStringLiteral(": ") + QString::fromUtf8(response.remark);
    return Status::remote(response.code, text);
}

Result<RemotingCommand> ClientApi::expectSuccess(
    Result<RemotingCommand> response, std::initializer_list<int> alsoOk)
{
    if (!response)
        return response;
    const int code = response->code;
    if (code == toInt(ResponseCode::Success))
        return response;
    for (int ok : alsoOk) {
        if (code == ok)
            return response;
    }
    return responseStatus(*response);
}

Result<RemotingCommand> ClientApi::invokeSync(
    const QByteArray &addr, RemotingCommand cmd, int timeoutMs)
{
    return m_remoting.invokeSync(addr, std::move(cmd), timeoutMs);
}

void ClientApi::invokeAsync(
    const QByteArray &addr, RemotingCommand cmd, int timeoutMs, remoting::InvokeCallback callback)
{
    m_remoting.invokeAsync(addr, std::move(cmd), timeoutMs, std::move(callback));
}

void ClientApi::invokeOneway(const QByteArray &addr, RemotingCommand cmd)
{
    m_remoting.invokeOneway(addr, std::move(cmd));
}

Result<RemotingCommand> ClientApi::invokeNameServerSync(RemotingCommand cmd, int timeoutMs)
{
    if (m_remoting.nameServerAddresses().isEmpty())
        return Status::invalidArgument(
            QStringLiteral("no name server address (set namesrvAddr or NAMESRV_ADDR)"));
    return m_remoting.invokeNameServerSync(std::move(cmd), timeoutMs);
}

Result<protocol::TopicRouteData> ClientApi::getTopicRoute(const QByteArray &topic, int timeoutMs)
{
    protocol::GetRouteInfoRequestHeader header;
    header.topic = topic;
    auto r = expectSuccess(
        invokeNameServerSync(request(toInt(RequestCode::GetRouteInfoByTopic), header), timeoutMs));
    if (!r)
        return r.error();
    return protocol::TopicRouteData::fromJson(r->body);
}

Result<protocol::ClusterInfo> ClientApi::getBrokerClusterInfo(int timeoutMs)
{
    auto r = expectSuccess(
        invokeNameServerSync(request(toInt(RequestCode::GetBrokerClusterInfo)), timeoutMs));
    if (!r)
        return r.error();
    return protocol::ClusterInfo::fromJson(r->body);
}

RemotingCommand ClientApi::sendRequest(
    const protocol::SendMessageRequestHeader &header, QByteArray body, bool reply) const
{
    const int code = reply ? toInt(RequestCode::SendReplyMessageV2)
        : header.batch     ? toInt(RequestCode::SendBatchMessage)
                           : toInt(RequestCode::SendMessageV2);
    RemotingCommand cmd = request(code);
    header.encodeV2(cmd);
    cmd.body = std::move(body);
    return cmd;
}

Result<SendResult> ClientApi::parseSendResponse(
    Result<RemotingCommand> response, const MessageQueue &queue, const QByteArray &uniqueIds)
{
    if (!response)
        return response.error();
    SendResult result;
    switch (static_cast<ResponseCode>(response->code)) {
    case ResponseCode::Success:
        result.status = SendStatus::SendOk;
        break;
    case ResponseCode::FlushDiskTimeout:
        result.status = SendStatus::FlushDiskTimeout;
        break;
    case ResponseCode::FlushSlaveTimeout:
        result.status = SendStatus::FlushSlaveTimeout;
        break;
    case ResponseCode::SlaveNotAvailable:
        result.status = SendStatus::SlaveNotAvailable;
        break;
    default:
        return responseStatus(*response);
    }
    auto header = protocol::SendMessageResponseHeader::decode(*response);
    if (!header)
        return Status::corruption(
            QStringLiteral("bad SEND_MESSAGE response: %1").arg(header.error().message()));
    result.msgId = uniqueIds;
    result.offsetMsgId = header->msgId;
    result.messageQueue = queue;
    result.messageQueue.queueId = header->queueId;
    result.queueOffset = header->queueOffset;
    result.transactionId = header->transactionId;
    result.regionId = header->msgRegion.isEmpty() ? QByteArray("DefaultRegion") : header->msgRegion;
    result.traceOn = header->traceOn != "false";
    return result;
}

void ClientApi::pullMessageAsync(const QByteArray &addr, const QByteArray &brokerName,
    const protocol::PullMessageRequestHeader &header, int timeoutMs,
    std::function<void(Result<PullResult>)> callback)
{
    invokeAsync(addr, request(toInt(RequestCode::PullMessage), header), timeoutMs,
        [brokerName, callback = std::move(callback)](
            Result<RemotingCommand> r) { callback(parsePullResponse(std::move(r), brokerName)); });
}

Result<PullResult> ClientApi::parsePullResponse(
    Result<RemotingCommand> response, const QByteArray &brokerName)
{
    if (!response)
        return response.error();
    PullResult result;
    switch (static_cast<ResponseCode>(response->code)) {
    case ResponseCode::Success:
        result.status = PullStatus::Found;
        break;
    case ResponseCode::PullNotFound:
        result.status = PullStatus::NoNewMsg;
        break;
    case ResponseCode::PullRetryImmediately:
        result.status = PullStatus::NoMatchedMsg;
        break;
    case ResponseCode::PullOffsetMoved:
        result.status = PullStatus::OffsetIllegal;
        break;
    default:
        return responseStatus(*response);
    }
    auto header = protocol::PullMessageResponseHeader::decode(*response);
    if (!header)
        return Status::corruption(
            QStringLiteral("bad PULL_MESSAGE response: %1").arg(header.error().message()));
    result.nextBeginOffset = header->nextBeginOffset;
    result.minOffset = header->minOffset;
    result.maxOffset = header->maxOffset;
    result.suggestWhichBrokerId = header->suggestWhichBrokerId;
    if (result.status == PullStatus::Found) {
        auto messages = MessageExt::decodeAll(response->body, brokerName);
        if (!messages)
            return messages.error();
        result.messages = std::move(messages).value();
    }
    return result;
}

Result<std::int64_t> ClientApi::queryConsumerOffset(const QByteArray &addr,
    const protocol::QueryConsumerOffsetRequestHeader &header, int timeoutMs,
    const QByteArray &brokerName)
{
    RemotingCommand cmd = request(toInt(RequestCode::QueryConsumerOffset), header);
    setBrokerName(cmd, brokerName);
    auto r = invokeSync(addr, std::move(cmd), timeoutMs);
    if (!r)
        return r.error();
    if (r->code == toInt(ResponseCode::QueryNotFound))
        return std::int64_t(-1);
    if (r->code != toInt(ResponseCode::Success))
        return responseStatus(*r);
    auto h = protocol::QueryConsumerOffsetResponseHeader::decode(*r);
    if (!h)
        return h.error();
    return h->offset;
}

Status ClientApi::updateConsumerOffset(const QByteArray &addr,
    const protocol::UpdateConsumerOffsetRequestHeader &header, int timeoutMs,
    const QByteArray &brokerName)
{
    RemotingCommand cmd = request(toInt(RequestCode::UpdateConsumerOffset), header);
    setBrokerName(cmd, brokerName);
    return expectSuccess(invokeSync(addr, std::move(cmd), timeoutMs)).status();
}

void ClientApi::updateConsumerOffsetOneway(const QByteArray &addr,
    const protocol::UpdateConsumerOffsetRequestHeader &header, const QByteArray &brokerName)
{
    RemotingCommand cmd = request(toInt(RequestCode::UpdateConsumerOffset), header);
    setBrokerName(cmd, brokerName);
    invokeOneway(addr, std::move(cmd));
}

void ClientApi::setBrokerName(RemotingCommand &cmd, const QByteArray &brokerName)
{
    // RocketMQ 4.9.x clients name the target broker in every queue-level request ("bname");
    // brokers ignore it, but QRocket's frames carry what Java's carry.
    if (!brokerName.isEmpty())
        cmd.setExt(QByteArrayLiteral("bname"), brokerName);
}

Result<std::vector<QByteArray>> ClientApi::getConsumerIdList(
    const QByteArray &addr, const QByteArray &group, int timeoutMs)
{
    protocol::GetConsumerListByGroupRequestHeader header;
    header.consumerGroup = group;
    auto r = expectSuccess(
        invokeSync(addr, request(toInt(RequestCode::GetConsumerListByGroup), header), timeoutMs));
    if (!r)
        return r.error();
    auto list = protocol::ConsumerIdList::fromJson(r->body);
    if (!list)
        return list.error();
    return std::move(list->consumerIdList);
}

namespace {
template<typename RequestHeader, typename ResponseHeader, auto Field>
Result<std::int64_t> offsetCall(
    ClientApi &api, const QByteArray &addr, int code, const RequestHeader &header, int timeoutMs)
{
    auto r = ClientApi::expectSuccess(api.invokeSync(addr, api.request(code, header), timeoutMs));
    if (!r)
        return r.error();
    auto h = ResponseHeader::decode(*r);
    if (!h)
        return h.error();
    return static_cast<std::int64_t>((*h).*Field);
}
} // namespace

Result<std::int64_t> ClientApi::getMaxOffset(
    const QByteArray &addr, const QByteArray &topic, int queueId, int timeoutMs)
{
    protocol::GetMaxOffsetRequestHeader h;
    h.topic = topic;
    h.queueId = queueId;
    return offsetCall<protocol::GetMaxOffsetRequestHeader, protocol::GetMaxOffsetResponseHeader,
        &protocol::GetMaxOffsetResponseHeader::offset>(
        *this, addr, toInt(RequestCode::GetMaxOffset), h, timeoutMs);
}

Result<std::int64_t> ClientApi::getMinOffset(
    const QByteArray &addr, const QByteArray &topic, int queueId, int timeoutMs)
{
    protocol::GetMinOffsetRequestHeader h;
    h.topic = topic;
    h.queueId = queueId;
    return offsetCall<protocol::GetMinOffsetRequestHeader, protocol::GetMinOffsetResponseHeader,
        &protocol::GetMinOffsetResponseHeader::offset>(
        *this, addr, toInt(RequestCode::GetMinOffset), h, timeoutMs);
}

Result<std::int64_t> ClientApi::searchOffset(const QByteArray &addr, const QByteArray &topic,
    int queueId, std::int64_t timestamp, int timeoutMs)
{
    protocol::SearchOffsetRequestHeader h;
    h.topic = topic;
    h.queueId = queueId;
    h.timestamp = timestamp;
    return offsetCall<protocol::SearchOffsetRequestHeader, protocol::SearchOffsetResponseHeader,
        &protocol::SearchOffsetResponseHeader::offset>(
        *this, addr, toInt(RequestCode::SearchOffsetByTimestamp), h, timeoutMs);
}

Result<std::int64_t> ClientApi::earliestMsgStoreTime(
    const QByteArray &addr, const QByteArray &topic, int queueId, int timeoutMs)
{
    protocol::GetEarliestMsgStoretimeRequestHeader h;
    h.topic = topic;
    h.queueId = queueId;
    return offsetCall<protocol::GetEarliestMsgStoretimeRequestHeader,
        protocol::GetEarliestMsgStoretimeResponseHeader,
        &protocol::GetEarliestMsgStoretimeResponseHeader::timestamp>(
        *this, addr, toInt(RequestCode::GetEarliestMsgStoreTime), h, timeoutMs);
}

Status ClientApi::consumerSendMessageBack(const QByteArray &addr, const MessageExt &msg,
    const QByteArray &group, int delayLevel, int maxReconsumeTimes, int timeoutMs)
{
    protocol::ConsumerSendMsgBackRequestHeader h;
    h.offset = msg.commitLogOffset();
    h.group = group;
    h.delayLevel = delayLevel;
    h.originMsgId = msg.msgId();
    h.originTopic = msg.topic();
    h.maxReconsumeTimes = maxReconsumeTimes;
    RemotingCommand cmd = request(toInt(RequestCode::ConsumerSendMsgBack), h);
    setBrokerName(cmd, msg.brokerName());
    return expectSuccess(invokeSync(addr, std::move(cmd), timeoutMs)).status();
}

Result<std::set<MessageQueue>> ClientApi::lockBatchMQ(
    const QByteArray &addr, const protocol::LockBatchRequestBody &body, int timeoutMs)
{
    RemotingCommand cmd = request(toInt(RequestCode::LockBatchMq));
    cmd.body = body.toJson();
    auto r = expectSuccess(invokeSync(addr, std::move(cmd), timeoutMs));
    if (!r)
        return r.error();
    auto locked = protocol::LockBatchResponseBody::fromJson(r->body);
    if (!locked)
        return locked.error();
    return std::set<MessageQueue>(locked->lockOKMQSet.begin(), locked->lockOKMQSet.end());
}

void ClientApi::unlockBatchMQ(
    const QByteArray &addr, const protocol::LockBatchRequestBody &body, int timeoutMs, bool oneway)
{
    RemotingCommand cmd = request(toInt(RequestCode::UnlockBatchMq));
    cmd.body = body.toJson();
    if (oneway)
        invokeOneway(addr, std::move(cmd));
    else
        (void)invokeSync(addr, std::move(cmd), timeoutMs);
}

Result<std::vector<protocol::MessageQueueAssignment>> ClientApi::queryAssignment(
    const QByteArray &addr, const protocol::QueryAssignmentRequestBody &body, int timeoutMs)
{
    RemotingCommand cmd = request(protocol::popcode::QueryAssignment);
    cmd.body = body.toJson();
    auto r = expectSuccess(invokeSync(addr, std::move(cmd), timeoutMs));
    if (!r)
        return r.error();
    if (r->body.isEmpty())
        return std::vector<protocol::MessageQueueAssignment>();
    auto answer = protocol::QueryAssignmentResponseBody::fromJson(r->body);
    if (!answer)
        return answer.error();
    return std::move(answer->messageQueueAssignments);
}

Status ClientApi::sendHeartbeat(
    const QByteArray &addr, const protocol::HeartbeatData &data, int timeoutMs)
{
    RemotingCommand cmd = request(toInt(RequestCode::HeartBeat));
    cmd.body = data.toJson();
    return expectSuccess(invokeSync(addr, std::move(cmd), timeoutMs)).status();
}

Status ClientApi::unregisterClient(const QByteArray &addr, const QByteArray &clientId,
    const QByteArray &producerGroup, const QByteArray &consumerGroup, int timeoutMs)
{
    protocol::UnregisterClientRequestHeader h;
    h.clientID = clientId;
    h.producerGroup = producerGroup;
    h.consumerGroup = consumerGroup;
    return expectSuccess(
        invokeSync(addr, request(toInt(RequestCode::UnregisterClient), h), timeoutMs))
        .status();
}

Status ClientApi::checkClientInBroker(const QByteArray &addr, const QByteArray &group,
    const QByteArray &clientId, const protocol::SubscriptionData &subscription, int timeoutMs)
{
    protocol::CheckClientRequestBody body;
    body.clientId = clientId;
    body.group = group;
    body.subscriptionData = subscription;
    RemotingCommand cmd = request(toInt(RequestCode::CheckClientConfig));
    cmd.body = body.toJson();
    return expectSuccess(invokeSync(addr, std::move(cmd), timeoutMs)).status();
}

void ClientApi::endTransactionOneway(const QByteArray &addr,
    const protocol::EndTransactionRequestHeader &header, const QByteArray &remark)
{
    RemotingCommand cmd = request(toInt(RequestCode::EndTransaction), header);
    if (!remark.isEmpty())
        cmd.remark = remark;
    invokeOneway(addr, std::move(cmd));
}

const char *sendStatusName(SendStatus status)
{
    switch (status) {
    case SendStatus::SendOk:
        return "SEND_OK";
    case SendStatus::FlushDiskTimeout:
        return "FLUSH_DISK_TIMEOUT";
    case SendStatus::FlushSlaveTimeout:
        return "FLUSH_SLAVE_TIMEOUT";
    case SendStatus::SlaveNotAvailable:
        return "SLAVE_NOT_AVAILABLE";
    }
    return "UNKNOWN";
}

const char *pullStatusName(PullStatus status)
{
    switch (status) {
    case PullStatus::Found:
        return "FOUND";
    case PullStatus::NoNewMsg:
        return "NO_NEW_MSG";
    case PullStatus::NoMatchedMsg:
        return "NO_MATCHED_MSG";
    case PullStatus::OffsetIllegal:
        return "OFFSET_ILLEGAL";
    }
    return "UNKNOWN";
}

} // namespace qrocket::client
