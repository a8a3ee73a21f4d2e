#include "broker/grpc/grpcservice.h"

#include "broker/common/brokercontext.h"
#include "broker/config/topicconfig.h"
#include "broker/grpc/grpctransaction.h"
#include "broker/managers/subscriptiongroupmanager.h"
#include "broker/managers/topicconfigmanager.h"
#include "broker/timer/timertransform.h"
#include "clientlib/common/hash.h"
#include "clientlib/protocol/bodies/clientbodies.h"
#include "clientlib/protocol/headers/consumerheaders.h"
#include "clientlib/protocol/headers/popheaders.h"
#include "clientlib/protocol/headers/sendheaders.h"
#include "clientlib/protocol/popcodes.h"
#include "clientlib/protocol/requestcode.h"
#include "clientlib/protocol/responsecode.h"
#include "storage/messagestore.h"

#include <QDateTime>

#include <cstdlib>
#include <functional>
#include <memory>
#include <set>

namespace qrocket::broker::v2 {

namespace {

using protocol::RequestCode;

// RocketMQ 5.3 ProxyConfig maxInvisibleTimeMills.
constexpr std::int64_t kMaxChangeInvisibleMs = 12LL * 3600 * 1000;

QByteArray metadata(const grpc::CallbackServerContext *context, const char *key)
{
    const auto &md = context->client_metadata();
    const auto it = md.find(key);
    if (it == md.end())
        return {};
    return QByteArray(it->second.data(), static_cast<qsizetype>(it->second.size()));
}

/// "ipv4:1.2.3.4:5" / "ipv6:[::1]:5" -> "1.2.3.4:5" / "[::1]:5".
QByteArray peerOf(const grpc::CallbackServerContext *context, const GrpcPeers &peers)
{
    QByteArray p = fromStd(peers.resolve(context->peer()));
    for (const char *prefix : {"ipv4:", "ipv6:"})
        if (p.startsWith(prefix))
            return p.mid(qsizetype(std::strlen(prefix)));
    return p;
}

grpc::ServerUnaryReactor *finishNow(grpc::CallbackServerContext *context)
{
    grpc::ServerUnaryReactor *reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
}

template<class Response>
grpc::ServerUnaryReactor *answer(
    grpc::CallbackServerContext *context, Response *response, pb::Code code, std::string message)
{
    setStatus(response->mutable_status(), code, std::move(message));
    return finishNow(context);
}

std::string remarkOf(const RemotingCommand &r)
{
    return r.remark.isEmpty() ? std::string(pb::Code_Name(codeOfRemoting(r.code)))
                              : toStd(r.remark);
}

/// The topic a receipt handle's retry flag names; nullopt for a flag the broker does not know
/// (the requests carry the group's own topic: the broker applies the flag itself).
std::optional<QByteArray> handleTopic(
    const protocol::ExtraInfo &e, const QByteArray &topic, const QByteArray &group)
{
    return protocol::popRealTopic(topic, group, e.retry);
}

/// A send's result entry from its SEND_MESSAGE_V2 answer.
void fillSendEntry(
    pb::SendResultEntry *entry, const RemotingCommand &r, std::string id, bool transactional)
{
    entry->set_message_id(std::move(id));
    if (r.code == 0) {
        setStatus(entry->mutable_status(), pb::OK, "OK");
        if (auto rh = protocol::SendMessageResponseHeader::decode(r)) {
            entry->set_offset(rh->queueOffset);
            if (transactional)
                entry->set_transaction_id(transactionIdOfSend(r));
        }
        if (const QByteArray *recall = r.ext("recallHandle"))
            entry->set_recall_handle(toStd(*recall));
    } else {
        setStatus(entry->mutable_status(), codeOfRemoting(r.code), remarkOf(r));
    }
}

} // namespace

MessagingServiceImpl::MessagingServiceImpl(
    GrpcServerOptions options, const remoting::ProcessorTable &table, BrokerContext &ctx)
    : m_options(std::move(options))
    , m_table(table)
    , m_ctx(ctx)
    , m_auth(ctx.acl, m_options.authMaxClockSkewSeconds, &m_peers)
{ }

Caller MessagingServiceImpl::callerOf(const grpc::CallbackServerContext *context)
{
    Caller c;
    c.clientId = metadata(context, "x-mq-client-id");
    c.peer = peerOf(context, m_peers);
    c.channel = m_registry.channelFor(c.clientId, c.peer);
    if (m_auth.enabled())
        c.credential = m_auth.credentialOf(context);
    return c;
}

void MessagingServiceImpl::invoke(
    const Caller &caller, RemotingCommand request, int timeoutMs, GrpcChannel::Done done)
{
    // aclEnable: signed with the caller's key and put to the guard here, so that a refusal is
    // known as one (UNAUTHORIZED, as the proxy answers); the table's guard passes it again.
    if (m_auth.enabled()) {
        if (std::optional<QByteArray> no
            = m_auth.authorize(*caller.channel, caller.credential, request)) {
            RemotingCommand refused
                = RemotingCommand::createResponse(request, kUnauthorizedCode, std::move(*no));
            done(std::move(refused));
            return;
        }
    }
    GrpcChannel::call(caller.channel, m_table, std::move(request), timeoutMs, std::move(done));
}

bool MessagingServiceImpl::topicExists(const QByteArray &topic) const
{
    return !topic.isEmpty() && m_ctx.topics->find(topic).has_value();
}

bool MessagingServiceImpl::fifoGroup(const QByteArray &group) const
{
    if (group.isEmpty() || !m_ctx.subscriptionGroups)
        return false;
    const auto g = m_ctx.subscriptionGroups->find(group);
    return g && g->consumeMessageOrderly;
}

// --- Heartbeat, NotifyClientTermination ------------------------------------------------------

grpc::ServerUnaryReactor *MessagingServiceImpl::Heartbeat(grpc::CallbackServerContext *context,
    const pb::HeartbeatRequest *request, pb::HeartbeatResponse *response)
{
    const Caller caller = callerOf(context);
    if (caller.clientId.isEmpty())
        return answer(context, response, pb::CLIENT_ID_REQUIRED, "x-mq-client-id is missing");
    const std::optional<pb::Settings> settings = settingsOf(caller.clientId);
    protocol::HeartbeatData hb;
    hb.clientID = caller.clientId;
    switch (request->client_type()) {
    case pb::PRODUCER:
        // As the proxy: one producer record per topic the producer publishes to.
        if (settings && settings->has_publishing())
            for (const pb::Resource &t : settings->publishing().topics())
                hb.producerDataSet.push_back(protocol::ProducerData {fromStd(t.name())});
        break;
    case pb::SIMPLE_CONSUMER:
    case pb::PUSH_CONSUMER: {
        if (!request->has_group() || request->group().name().empty())
            return answer(context, response, pb::ILLEGAL_CONSUMER_GROUP,
                "a consumer's heartbeat needs its group");
        protocol::ConsumerData c;
        c.groupName = fromStd(request->group().name());
        c.consumeType = request->client_type() == pb::SIMPLE_CONSUMER
            ? protocol::ConsumeType::ConsumePassively
            : protocol::ConsumeType::ConsumeActively;
        c.messageModel = protocol::MessageModel::Clustering;
        if (settings && settings->has_subscription()) {
            for (const pb::SubscriptionEntry &e : settings->subscription().subscriptions()) {
                protocol::SubscriptionData s;
                s.topic = fromStd(e.topic().name());
                s.subString = e.expression().expression().empty()
                    ? QByteArrayLiteral("*")
                    : fromStd(e.expression().expression());
                s.expressionType = e.expression().type() == pb::SQL ? QByteArrayLiteral("SQL92")
                                                                    : QByteArrayLiteral("TAG");
                s.subVersion = QDateTime::currentMSecsSinceEpoch();
                if (s.expressionType == "TAG")
                    s.buildTags();
                c.subscriptionDataSet.push_back(std::move(s));
            }
        }
        hb.consumerDataSet.push_back(std::move(c));
        break;
    }
    default:
        return answer(context, response, pb::UNRECOGNIZED_CLIENT_TYPE, "unsupported client type");
    }
    RemotingCommand req = RemotingCommand::createRequest(toInt(RequestCode::HeartBeat));
    req.body = hb.toJson();
    grpc::ServerUnaryReactor *reactor = context->DefaultReactor();
    invoke(
        caller, std::move(req), m_options.requestTimeoutMs, [reactor, response](RemotingCommand r) {
            setStatus(response->mutable_status(), codeOfRemoting(r.code), remarkOf(r));
            reactor->Finish(grpc::Status::OK);
        });
    return reactor;
}

grpc::ServerUnaryReactor *MessagingServiceImpl::NotifyClientTermination(
    grpc::CallbackServerContext *context, const pb::NotifyClientTerminationRequest *request,
    pb::NotifyClientTerminationResponse *response)
{
    const Caller caller = callerOf(context);
    if (caller.clientId.isEmpty())
        return answer(context, response, pb::CLIENT_ID_REQUIRED, "x-mq-client-id is missing");
    const std::optional<pb::Settings> settings = settingsOf(caller.clientId);
    {
        std::lock_guard lock(m_settingsMutex);
        m_settings.erase(caller.clientId);
    }
    // UNREGISTER_CLIENT for each group the client was registered under, then the channel goes.
    std::vector<protocol::UnregisterClientRequestHeader> headers;
    if (request->has_group() && !request->group().name().empty()) {
        protocol::UnregisterClientRequestHeader h;
        h.clientID = caller.clientId;
        h.consumerGroup = fromStd(request->group().name());
        headers.push_back(std::move(h));
    }
    if (settings && settings->has_publishing()) {
        for (const pb::Resource &t : settings->publishing().topics()) {
            protocol::UnregisterClientRequestHeader h;
            h.clientID = caller.clientId;
            h.producerGroup = fromStd(t.name());
            headers.push_back(std::move(h));
        }
    }
    grpc::ServerUnaryReactor *reactor = context->DefaultReactor();
    if (headers.empty()) {
        m_registry.remove(caller.clientId);
        return answer(context, response, pb::OK, "OK");
    }
    struct Pending
    {
        std::mutex mutex;
        std::size_t left = 0;
        int failure = 0;
        QByteArray remark;
    };
    auto pending = std::make_shared<Pending>();
    pending->left = headers.size();
    for (const auto &h : headers) {
        RemotingCommand req = RemotingCommand::createRequest(toInt(RequestCode::UnregisterClient));
        h.encode(req);
        invoke(caller, std::move(req), m_options.requestTimeoutMs,
            [this, pending, reactor, response, clientId = caller.clientId](RemotingCommand r) {
                std::unique_lock lock(pending->mutex);
                if (r.code != 0 && pending->failure == 0) {
                    pending->failure = r.code;
                    pending->remark = r.remark;
                }
                if (--pending->left != 0)
                    return;
                const int failure = pending->failure;
                const QByteArray remark = pending->remark;
                lock.unlock();
                m_registry.remove(clientId);
                RemotingCommand summary;
                summary.code = failure;
                summary.remark = remark;
                setStatus(response->mutable_status(), codeOfRemoting(failure), remarkOf(summary));
                reactor->Finish(grpc::Status::OK);
            });
    }
    return reactor;
}

// --- SendMessage -----------------------------------------------------------------------------

grpc::ServerUnaryReactor *MessagingServiceImpl::SendMessage(grpc::CallbackServerContext *context,
    const pb::SendMessageRequest *request, pb::SendMessageResponse *response)
{
    if (request->messages_size() == 0)
        return answer(context, response, pb::MESSAGE_CORRUPTED, "no message to send");
    const Caller caller = callerOf(context);
    const std::string &topicName = request->messages(0).topic().name();
    std::vector<SendInput> inputs;
    for (const pb::Message &m : request->messages()) {
        if (m.topic().name() != topicName)
            return answer(context, response, pb::MESSAGE_CORRUPTED, "topic in message is not same");
        SendInput in = sendInputOf(m, caller.peer, m_options.maxBodySize);
        if (in.refusal != pb::OK)
            return answer(context, response, in.refusal, in.reason);
        inputs.push_back(std::move(in));
    }
    const std::optional<TopicConfig> config = m_ctx.topics->find(fromStd(topicName));
    if (!config)
        return answer(context, response, pb::TOPIC_NOT_FOUND, "topic not found: " + topicName);
    if (!Perm::isWriteable(config->perm) || config->writeQueueNums <= 0)
        return answer(context, response, pb::FORBIDDEN, "the topic is not writable: " + topicName);
    // The topic's message.type attribute, as RocketMQ 5.3's proxy checks it: by the first
    // message, not for retry and dead-letter topics; none set takes every type.
    if (const std::optional<TopicMessageType> declared = declaredMessageType(config->attributes);
        declared && !messageTypeAccepted(*declared, inputs.front().messageType)
        && !topicName.starts_with("%RETRY%") && !topicName.starts_with("%DLQ%"))
        return answer(context, response, pb::MESSAGE_PROPERTY_CONFLICT_WITH_TYPE,
            "topic " + topicName + " takes " + topicMessageTypeName(*declared)
                + " messages (its message.type), this one is "
                + topicMessageTypeName(inputs.front().messageType));

    for (std::size_t i = 0; i < inputs.size(); ++i)
        response->add_entries();
    grpc::ServerUnaryReactor *reactor = context->DefaultReactor();
    const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
    // SEND_MESSAGE_V2 of one converted message.
    auto requestOf = [&](SendInput &in) {
        // FIFO: one message group, one queue: RocketMQ 5.3's proxy takes
        // Hashing.consistentHash(group.hashCode(), writable queues). The proxy counts the
        // writable queues of every broker; a client sends to the broker it chose from the route,
        // so the choice here is among this broker's own. Otherwise round robin.
        const int writeQueues = config->writeQueueNums;
        const std::uint32_t pick = !in.messageGroup.isEmpty() && inputs.size() == 1
            ? static_cast<std::uint32_t>(
                qrocket::consistentHash(qrocket::javaStringHash(in.messageGroup), writeQueues))
            : m_roundRobin.fetch_add(1, std::memory_order_relaxed);
        protocol::SendMessageRequestHeader h;
        h.producerGroup = in.topic;
        h.topic = in.topic;
        h.defaultTopic = QByteArrayLiteral("TBW102");
        h.defaultTopicQueueNums = 4;
        h.queueId = static_cast<std::int32_t>(pick % static_cast<std::uint32_t>(writeQueues));
        h.sysFlag = in.sysFlag;
        h.bornTimestamp = in.bornTimestamp > 0 ? in.bornTimestamp : now;
        h.properties = std::move(in.properties);
        h.reconsumeTimes = 0;
        RemotingCommand req = RemotingCommand::createRequest(toInt(RequestCode::SendMessageV2));
        h.encodeV2(req);
        req.body = std::move(in.body);
        return req;
    };
    // The usual call, one message: its entry and the call's status are set by the one answer
    // (no shared counter, lock or set of codes).
    if (inputs.size() == 1) {
        SendInput &in = inputs.front();
        invoke(caller, requestOf(in), m_options.requestTimeoutMs,
            [reactor, response, id = toStd(in.messageId),
                transactional = (in.sysFlag & protocol::SysFlag::TransactionPrepared) != 0](
                RemotingCommand r) mutable {
                pb::SendResultEntry *entry = response->mutable_entries(0);
                fillSendEntry(entry, r, std::move(id), transactional);
                *response->mutable_status() = entry->status();
                reactor->Finish(grpc::Status::OK);
            });
        return reactor;
    }
    struct Pending
    {
        std::mutex mutex;
        std::size_t left = 0;
    };
    auto pending = std::make_shared<Pending>();
    pending->left = inputs.size();
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        SendInput &in = inputs[i];
        invoke(caller, requestOf(in), m_options.requestTimeoutMs,
            [pending, reactor, response, i, id = toStd(in.messageId),
                transactional = (in.sysFlag & protocol::SysFlag::TransactionPrepared) != 0](
                RemotingCommand r) mutable {
                pb::SendResultEntry entry;
                fillSendEntry(&entry, r, std::move(id), transactional);
                std::unique_lock lock(pending->mutex);
                *response->mutable_entries(static_cast<int>(i)) = std::move(entry);
                if (--pending->left != 0)
                    return;
                std::set<int> codes;
                for (const pb::SendResultEntry &e : response->entries())
                    codes.insert(e.status().code());
                if (codes.size() > 1) {
                    setStatus(response->mutable_status(), pb::MULTIPLE_RESULTS, "MULTIPLE_RESULTS");
                } else {
                    *response->mutable_status() = response->entries(0).status();
                }
                lock.unlock();
                reactor->Finish(grpc::Status::OK);
            });
    }
    return reactor;
}

// --- AckMessage, ChangeInvisibleDuration -----------------------------------------------------

grpc::ServerUnaryReactor *MessagingServiceImpl::AckMessage(grpc::CallbackServerContext *context,
    const pb::AckMessageRequest *request, pb::AckMessageResponse *response)
{
    const QByteArray group = fromStd(request->group().name());
    const QByteArray topic = fromStd(request->topic().name());
    if (group.isEmpty())
        return answer(context, response, pb::ILLEGAL_CONSUMER_GROUP, "group name cannot be empty");
    if (request->entries_size() == 0)
        return answer(context, response, pb::BAD_REQUEST, "no receipt handle to acknowledge");
    if (!topicExists(topic))
        return answer(context, response, pb::TOPIC_NOT_FOUND, "topic not found: " + toStd(topic));
    const Caller caller = callerOf(context);
    struct Pending
    {
        std::mutex mutex;
        std::size_t left = 0;
    };
    auto pending = std::make_shared<Pending>();
    pending->left = static_cast<std::size_t>(request->entries_size());
    grpc::ServerUnaryReactor *reactor = context->DefaultReactor();
    for (int i = 0; i < request->entries_size(); ++i) {
        response->add_entries();
    }
    auto finishOne = [pending, reactor, response](int i, pb::AckMessageResultEntry entry) {
        std::unique_lock lock(pending->mutex);
        *response->mutable_entries(i) = std::move(entry);
        if (--pending->left != 0)
            return;
        std::set<int> codes;
        for (const pb::AckMessageResultEntry &e : response->entries())
            codes.insert(e.status().code());
        if (codes.size() > 1)
            setStatus(response->mutable_status(), pb::MULTIPLE_RESULTS, "MULTIPLE_RESULTS");
        else
            *response->mutable_status() = response->entries(0).status();
        lock.unlock();
        reactor->Finish(grpc::Status::OK);
    };
    for (int i = 0; i < request->entries_size(); ++i) {
        const pb::AckMessageEntry &e = request->entries(i);
        pb::AckMessageResultEntry entry;
        entry.set_message_id(e.message_id());
        entry.set_receipt_handle(e.receipt_handle());
        const QByteArray handle = fromStd(e.receipt_handle());
        const std::optional<protocol::ExtraInfo> info = protocol::ExtraInfo::parse(handle);
        const std::optional<QByteArray> realTopic
            = info ? handleTopic(*info, topic, group) : std::nullopt;
        if (!info || info->queueOffset < 0 || !realTopic) {
            setStatus(
                entry.mutable_status(), pb::INVALID_RECEIPT_HANDLE, "receipt handle is malformed");
            finishOne(i, std::move(entry));
            continue;
        }
        protocol::AckMessageRequestHeader h;
        h.consumerGroup = group;
        h.topic = topic; // the broker finds the retry topic from the handle's flag
        h.queueId = info->queueId;
        h.extraInfo = handle;
        h.offset = info->queueOffset;
        RemotingCommand req = RemotingCommand::createRequest(protocol::popcode::AckMessage);
        h.encode(req);
        invoke(caller, std::move(req), m_options.requestTimeoutMs,
            [finishOne, i, entry](RemotingCommand r) mutable {
                setStatus(entry.mutable_status(), codeOfRemoting(r.code),
                    r.code == 0 ? std::string("OK") : remarkOf(r));
                finishOne(i, std::move(entry));
            });
    }
    return reactor;
}

grpc::ServerUnaryReactor *MessagingServiceImpl::ChangeInvisibleDuration(
    grpc::CallbackServerContext *context, const pb::ChangeInvisibleDurationRequest *request,
    pb::ChangeInvisibleDurationResponse *response)
{
    const QByteArray group = fromStd(request->group().name());
    const QByteArray topic = fromStd(request->topic().name());
    if (group.isEmpty())
        return answer(context, response, pb::ILLEGAL_CONSUMER_GROUP, "group name cannot be empty");
    if (!topicExists(topic))
        return answer(context, response, pb::TOPIC_NOT_FOUND, "topic not found: " + toStd(topic));
    // As RocketMQ 5.3's proxy: 0 is valid (the SDKs nack with their backoff's delay, 0 when
    // they cannot read the group's CUSTOMIZED policy: rocketmq-client-nodejs 1.0.8), at most
    // 12 hours (its maxInvisibleTimeMills).
    const std::int64_t invisibleMs = millisOf(request->invisible_duration());
    if (invisibleMs < 0)
        return answer(context, response, pb::ILLEGAL_INVISIBLE_TIME,
            "the invisible time is too small, min is 0");
    if (invisibleMs > kMaxChangeInvisibleMs)
        return answer(context, response, pb::ILLEGAL_INVISIBLE_TIME,
            "the invisible time is too large, max is " + std::to_string(kMaxChangeInvisibleMs));
    const QByteArray handle = fromStd(request->receipt_handle());
    const std::optional<protocol::ExtraInfo> info = protocol::ExtraInfo::parse(handle);
    const std::optional<QByteArray> realTopic
        = info ? handleTopic(*info, topic, group) : std::nullopt;
    if (!info || info->queueOffset < 0 || !realTopic)
        return answer(context, response, pb::INVALID_RECEIPT_HANDLE, "receipt handle is malformed");
    protocol::ChangeInvisibleTimeRequestHeader h;
    h.consumerGroup = group;
    h.topic = topic; // the broker finds the retry topic from the handle's flag
    h.queueId = info->queueId;
    h.extraInfo = handle;
    h.offset = info->queueOffset;
    h.invisibleTime = invisibleMs;
    RemotingCommand req
        = RemotingCommand::createRequest(protocol::popcode::ChangeMessageInvisibleTime);
    h.encode(req);
    grpc::ServerUnaryReactor *reactor = context->DefaultReactor();
    invoke(callerOf(context), std::move(req), m_options.requestTimeoutMs,
        [reactor, response, old = *info](RemotingCommand r) {
            if (r.code == 0) {
                if (auto a = protocol::ChangeInvisibleTimeResponseHeader::decode(r)) {
                    // The new handle, as RocketMQ's clients and proxy build it.
                    protocol::ExtraInfo e = old;
                    e.ckQueueOffset = e.queueOffset;
                    e.popTime = a->popTime;
                    e.invisibleTime = a->invisibleTime;
                    e.reviveQid = a->reviveQid;
                    response->set_receipt_handle(toStd(e.toString()));
                    setStatus(response->mutable_status(), pb::OK, "OK");
                } else {
                    setStatus(response->mutable_status(), pb::INTERNAL_SERVER_ERROR,
                        "the broker's answer has no new handle");
                }
            } else {
                setStatus(response->mutable_status(), codeOfRemoting(r.code), remarkOf(r));
            }
            reactor->Finish(grpc::Status::OK);
        });
    return reactor;
}

// --- dead-letter forwarding and recall ----------------------------------------------------------

grpc::ServerUnaryReactor *MessagingServiceImpl::ForwardMessageToDeadLetterQueue(
    grpc::CallbackServerContext *context, const pb::ForwardMessageToDeadLetterQueueRequest *request,
    pb::ForwardMessageToDeadLetterQueueResponse *response)
{
    // As RocketMQ 5.3's proxy: CONSUMER_SEND_MSG_BACK with delay level -1 (straight to the
    // group's %DLQ%), then the message is acknowledged.
    const QByteArray group = fromStd(request->group().name());
    const QByteArray topic = fromStd(request->topic().name());
    if (group.isEmpty())
        return answer(context, response, pb::ILLEGAL_CONSUMER_GROUP, "group name cannot be empty");
    if (!topicExists(topic))
        return answer(context, response, pb::TOPIC_NOT_FOUND, "topic not found: " + toStd(topic));
    const QByteArray handle = fromStd(request->receipt_handle());
    const std::optional<protocol::ExtraInfo> info = protocol::ExtraInfo::parse(handle);
    const std::optional<QByteArray> realTopic
        = info ? handleTopic(*info, topic, group) : std::nullopt;
    if (!info || info->queueOffset < 0 || !realTopic)
        return answer(context, response, pb::INVALID_RECEIPT_HANDLE, "receipt handle is malformed");
    const std::int64_t commitLogOffset
        = m_ctx.store->commitLogOffsetAt(*realTopic, info->queueId, info->queueOffset);
    if (commitLogOffset < 0)
        return answer(context, response, pb::INVALID_RECEIPT_HANDLE,
            "the receipt handle's message is not in the store");
    protocol::ConsumerSendMsgBackRequestHeader back;
    back.offset = commitLogOffset;
    back.group = group;
    back.delayLevel = -1;
    back.originMsgId = fromStd(request->message_id());
    back.originTopic = *realTopic;
    back.maxReconsumeTimes = 0;
    RemotingCommand req = RemotingCommand::createRequest(toInt(RequestCode::ConsumerSendMsgBack));
    back.encode(req);
    protocol::AckMessageRequestHeader ack;
    ack.consumerGroup = group;
    ack.topic = topic;
    ack.queueId = info->queueId;
    ack.extraInfo = handle;
    ack.offset = info->queueOffset;
    RemotingCommand ackReq = RemotingCommand::createRequest(protocol::popcode::AckMessage);
    ack.encode(ackReq);
    const Caller caller = callerOf(context);
    grpc::ServerUnaryReactor *reactor = context->DefaultReactor();
    invoke(caller, std::move(req), m_options.requestTimeoutMs,
        [this, caller, reactor, response, ackReq = std::move(ackReq)](RemotingCommand r) mutable {
            if (r.code != 0) {
                setStatus(response->mutable_status(), codeOfRemoting(r.code), remarkOf(r));
                reactor->Finish(grpc::Status::OK);
                return;
            }
            // Stored in the DLQ: the answer is OK whatever the ack says (an unacked message
            // comes back once more, as with the proxy).
            invoke(caller, std::move(ackReq), m_options.requestTimeoutMs,
                [reactor, response](RemotingCommand) {
                    setStatus(response->mutable_status(), pb::OK, "OK");
                    reactor->Finish(grpc::Status::OK);
                });
        });
    return reactor;
}

grpc::ServerUnaryReactor *MessagingServiceImpl::RecallMessage(grpc::CallbackServerContext *context,
    const pb::RecallMessageRequest *request, pb::RecallMessageResponse *response)
{
    const QByteArray topic = fromStd(request->topic().name());
    if (topic.isEmpty())
        return answer(context, response, pb::ILLEGAL_TOPIC, "topic name cannot be empty");
    if (request->recall_handle().empty())
        return answer(context, response, pb::BAD_REQUEST, "the recall handle is empty");
    RemotingCommand req = RemotingCommand::createRequest(timer::kRecallMessage);
    req.extFields.emplace_back(QByteArrayLiteral("topic"), topic);
    req.extFields.emplace_back(
        QByteArrayLiteral("recallHandle"), fromStd(request->recall_handle()));
    grpc::ServerUnaryReactor *reactor = context->DefaultReactor();
    invoke(callerOf(context), std::move(req), m_options.requestTimeoutMs,
        [reactor, response](RemotingCommand r) {
            if (r.code == 0) {
                setStatus(response->mutable_status(), pb::OK, "OK");
                if (const QByteArray *id = r.ext("msgId"))
                    response->set_message_id(toStd(*id));
            } else {
                setStatus(response->mutable_status(), codeOfRemoting(r.code), remarkOf(r));
            }
            reactor->Finish(grpc::Status::OK);
        });
    return reactor;
}

// --- offsets: the consumer manage requests ----------------------------------------------------

grpc::ServerUnaryReactor *MessagingServiceImpl::offsetCall(grpc::CallbackServerContext *context,
    pb::Status *status, OffsetQuery q, std::function<void(std::int64_t)> setOffset)
{
    const std::optional<TopicConfig> config = m_ctx.topics->find(q.topic);
    if (!config) {
        setStatus(status, pb::TOPIC_NOT_FOUND, "topic not found: " + toStd(q.topic));
        return finishNow(context);
    }
    if (q.needsGroup && q.group.isEmpty()) {
        setStatus(status, pb::ILLEGAL_CONSUMER_GROUP, "group name cannot be empty");
        return finishNow(context);
    }
    if (q.queueId < 0 || q.queueId >= std::max(config->readQueueNums, config->writeQueueNums)) {
        setStatus(status, pb::BAD_REQUEST,
            "queue " + std::to_string(q.queueId) + " of " + toStd(q.topic) + " does not exist");
        return finishNow(context);
    }
    RemotingCommand req = RemotingCommand::createRequest(q.code);
    req.setExt(QByteArrayLiteral("topic"), q.topic);
    req.setExt(QByteArrayLiteral("queueId"), std::int64_t {q.queueId});
    if (q.needsGroup)
        req.setExt(QByteArrayLiteral("consumerGroup"), q.group);
    for (const auto &[key, value] : q.extra)
        req.setExt(key, value);
    grpc::ServerUnaryReactor *reactor = context->DefaultReactor();
    invoke(callerOf(context), std::move(req), m_options.requestTimeoutMs,
        [reactor, status, setOffset = std::move(setOffset)](RemotingCommand r) {
            if (r.code == toInt(protocol::ResponseCode::QueryNotFound)) {
                setStatus(status, pb::OFFSET_NOT_FOUND, "the group has no offset in this queue");
            } else if (r.code != 0) {
                setStatus(status, codeOfRemoting(r.code), remarkOf(r));
            } else {
                if (setOffset)
                    setOffset(r.extLong("offset").value_or(-1));
                setStatus(status, pb::OK, "OK");
            }
            reactor->Finish(grpc::Status::OK);
        });
    return reactor;
}

grpc::ServerUnaryReactor *MessagingServiceImpl::UpdateOffset(grpc::CallbackServerContext *context,
    const pb::UpdateOffsetRequest *request, pb::UpdateOffsetResponse *response)
{
    if (request->offset() < 0)
        return answer(context, response, pb::ILLEGAL_OFFSET, "the offset cannot be negative");
    OffsetQuery q {toInt(RequestCode::UpdateConsumerOffset),
        fromStd(request->message_queue().topic().name()), request->message_queue().id(),
        fromStd(request->group().name()), true,
        {{QByteArrayLiteral("commitOffset"), QByteArray::number(request->offset())}}};
    return offsetCall(context, response->mutable_status(), std::move(q), nullptr);
}

grpc::ServerUnaryReactor *MessagingServiceImpl::GetOffset(grpc::CallbackServerContext *context,
    const pb::GetOffsetRequest *request, pb::GetOffsetResponse *response)
{
    OffsetQuery q {toInt(RequestCode::QueryConsumerOffset),
        fromStd(request->message_queue().topic().name()), request->message_queue().id(),
        fromStd(request->group().name()), true, {}};
    return offsetCall(context, response->mutable_status(), std::move(q),
        [response](std::int64_t offset) { response->set_offset(offset); });
}

grpc::ServerUnaryReactor *MessagingServiceImpl::QueryOffset(grpc::CallbackServerContext *context,
    const pb::QueryOffsetRequest *request, pb::QueryOffsetResponse *response)
{
    OffsetQuery q {0, fromStd(request->message_queue().topic().name()),
        request->message_queue().id(), {}, false, {}};
    switch (request->query_offset_policy()) {
    case pb::BEGINNING:
        q.code = toInt(RequestCode::GetMinOffset);
        break;
    case pb::END:
        q.code = toInt(RequestCode::GetMaxOffset);
        break;
    case pb::TIMESTAMP:
        if (!request->has_timestamp())
            return answer(
                context, response, pb::BAD_REQUEST, "a TIMESTAMP query needs a timestamp");
        q.code = toInt(RequestCode::SearchOffsetByTimestamp);
        q.extra.emplace_back(
            QByteArrayLiteral("timestamp"), QByteArray::number(millisOf(request->timestamp())));
        break;
    default:
        return answer(context, response, pb::BAD_REQUEST, "unknown query offset policy");
    }
    return offsetCall(context, response->mutable_status(), std::move(q),
        [response](std::int64_t offset) { response->set_offset(offset); });
}

} // namespace qrocket::broker::v2
