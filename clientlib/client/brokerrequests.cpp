// The requests brokers send to a client (protocol.md §4.10), as RocketMQ's
// ClientRemotingProcessor: NOTIFY_CONSUMER_IDS_CHANGED, CHECK_TRANSACTION_STATE,
// RESET_CONSUMER_CLIENT_OFFSET, GET_CONSUMER_STATUS_FROM_CLIENT, GET_CONSUMER_RUNNING_INFO,
// CONSUME_MESSAGE_DIRECTLY and PUSH_REPLY_MESSAGE_TO_CLIENT (with the replies it waits for).
// They run on the instance's callback pool, never on the I/O thread.

#include "clientlib/client/clientinstanceprivate.h"
#include "clientlib/client/logging.h"
#include "clientlib/protocol/headers/adminheaders.h"
#include "clientlib/protocol/json.h"
#include "clientlib/protocol/requestcode.h"
#include "clientlib/protocol/responsecode.h"

namespace qrocket::client {

using protocol::RequestCode;
using protocol::ResponseCode;
using protocol::toInt;

namespace {

/// A remoting::Executor over a WorkerPool (broker->client requests leave the I/O thread).
class PoolExecutor final : public remoting::Executor
{
public:
    explicit PoolExecutor(std::weak_ptr<WorkerPool> pool) : m_pool(std::move(pool)) { }
    bool tryExecute(std::function<void()> task) override
    {
        const auto pool = m_pool.lock();
        return pool && pool->execute(std::move(task));
    }

private:
    std::weak_ptr<WorkerPool> m_pool;
};

class FunctionProcessor final : public remoting::RequestProcessor
{
public:
    using Fn
        = std::function<void(const remoting::ChannelPtr &, RemotingCommand, remoting::Responder)>;
    explicit FunctionProcessor(Fn fn) : m_fn(std::move(fn)) { }
    void processRequest(const remoting::ChannelPtr &channel, RemotingCommand request,
        remoting::Responder respond) override
    {
        m_fn(channel, std::move(request), std::move(respond));
    }

private:
    Fn m_fn;
};

RemotingCommand reply(const RemotingCommand &request, int code, QByteArray remark = {})
{
    return RemotingCommand::createResponse(request, code, std::move(remark));
}

} // namespace

void ClientInstance::registerBrokerProcessors()
{
    auto executor = std::make_shared<PoolExecutor>(m_callbackPool);
    // Each processor holds the instance only while it runs (a weak pointer otherwise), so a
    // request that arrives during the destruction finds nothing to call.
    std::weak_ptr<ClientInstance> weak = weak_from_this();
    auto add = [&](RequestCode code, FunctionProcessor::Fn fn) {
        auto guarded = [weak, fn = std::move(fn)](const remoting::ChannelPtr &channel,
                           RemotingCommand request, remoting::Responder respond) {
            if (auto self = weak.lock())
                fn(channel, std::move(request), std::move(respond));
        };
        m_remoting->registerProcessor(
            toInt(code), std::make_shared<FunctionProcessor>(std::move(guarded)), executor);
    };

    add(RequestCode::NotifyConsumerIdsChanged,
        [this](const remoting::ChannelPtr &, RemotingCommand request, remoting::Responder respond) {
            qCInfo(lcClient, "broker says the consumers of %s changed: rebalancing",
                request.extString("consumerGroup").toByteArray().constData());
            rebalanceImmediately();
            if (!request.isOneway())
                respond(reply(request, toInt(ResponseCode::Success)));
        });

    add(RequestCode::CheckTransactionState,
        [this](const remoting::ChannelPtr &channel, RemotingCommand request, remoting::Responder) {
            auto header = protocol::CheckTransactionStateRequestHeader::decode(request);
            auto msgs = MessageExt::decodeAll(request.body, QByteArray());
            if (!header || !msgs || msgs->size() != 1) {
                qCWarning(lcClient, "CHECK_TRANSACTION_STATE from %s: bad request",
                    channel->remoteAddress().constData());
                return;
            }
            MessageExt msg = std::move(msgs->front());
            const QByteArray group = msg.property(protocol::MessageConst::ProducerGroup);
            std::shared_ptr<ProducerInner> producer;
            {
                std::lock_guard lock(d->mutex);
                const auto it = d->producers.find(group);
                if (it != d->producers.end())
                    producer = it->second.lock();
            }
            if (!producer) {
                qCWarning(lcClient, "CHECK_TRANSACTION_STATE for group %s: no such producer here",
                    group.constData());
                return;
            }
            producer->checkTransactionState(channel->remoteAddress(), std::move(msg), *header);
        });

    add(RequestCode::ResetConsumerClientOffset,
        [this](const remoting::ChannelPtr &, RemotingCommand request, remoting::Responder respond) {
            auto header = protocol::ResetOffsetRequestHeader::decode(request);
            std::map<MessageQueue, std::int64_t> offsets;
            if (header) {
                auto body = protocol::parseJson(request.body);
                if (body) {
                    for (const auto &[key, value] : (*body)["offsetTable"].members()) {
                        auto mq = protocol::MessageQueue::fromJsonValue(key);
                        if (mq)
                            offsets[*mq] = value.toInteger();
                    }
                }
                if (auto c = consumer(header->group))
                    c->resetOffset(header->topic, offsets);
            }
            if (!request.isOneway())
                respond(reply(request,
                    header ? toInt(ResponseCode::Success) : toInt(ResponseCode::SystemError)));
        });

    add(RequestCode::GetConsumerStatusFromClient,
        [this](const remoting::ChannelPtr &, RemotingCommand request, remoting::Responder respond) {
            auto header = protocol::GetConsumerStatusRequestHeader::decode(request);
            if (!header) {
                respond(reply(
                    request, toInt(ResponseCode::SystemError), header.error().message().toUtf8()));
                return;
            }
            protocol::JsonWriter w;
            w.beginObject().key("consumerTable").beginObject().endObject();
            w.key("messageQueueTable").beginObject();
            if (auto c = consumer(header->group)) {
                for (const auto &[mq, offset] : c->consumerOffsets(header->topic))
                    w.rawKey(mq.toJson()).value(offset);
            }
            w.endObject().endObject();
            RemotingCommand r = reply(request, toInt(ResponseCode::Success));
            r.body = w.take();
            respond(std::move(r));
        });

    add(RequestCode::GetConsumerRunningInfo,
        [this](const remoting::ChannelPtr &, RemotingCommand request, remoting::Responder respond) {
            auto header = protocol::GetConsumerRunningInfoRequestHeader::decode(request);
            auto c = header ? consumer(header->consumerGroup) : nullptr;
            if (!c) {
                respond(reply(request, toInt(ResponseCode::SystemError),
                    "The Consumer Group <" + (header ? header->consumerGroup : QByteArray())
                        + "> not exist in this consumer"));
                return;
            }
            RemotingCommand r = reply(request, toInt(ResponseCode::Success));
            // jstackEnable (mqadmin consumerStatus -s): the process's threads, as a Java client
            // answers with its thread dump.
            r.body = c->runningInfoJson(header->jstackEnable ? threadDump() : QByteArray());
            respond(std::move(r));
        });

    add(RequestCode::ConsumeMessageDirectly,
        [this](const remoting::ChannelPtr &, RemotingCommand request, remoting::Responder respond) {
            auto header = protocol::ConsumeMessageDirectlyResultRequestHeader::decode(request);
            auto msgs
                = MessageExt::decodeAll(request.body, header ? header->brokerName : QByteArray());
            auto c = header ? consumer(header->consumerGroup) : nullptr;
            if (!c || !msgs || msgs->size() != 1) {
                respond(reply(request, toInt(ResponseCode::SystemError),
                    c ? QByteArray("bad message body")
                      : "The Consumer Group <" + (header ? header->consumerGroup : QByteArray())
                            + "> not exist in this consumer"));
                return;
            }
            RemotingCommand r = reply(request, toInt(ResponseCode::Success));
            r.body = c->consumeMessageDirectly(msgs->front(), header->brokerName);
            respond(std::move(r));
        });

    add(RequestCode::PushReplyMessageToClient,
        [this](const remoting::ChannelPtr &, RemotingCommand request, remoting::Responder respond) {
            protocol::MessageRecordView view;
            view.topic = request.extString("topic");
            view.queueId = request.extInt("queueId").value_or(0);
            view.flag = request.extInt("flag").value_or(0);
            view.sysFlag = request.extInt("sysFlag").value_or(0);
            view.bornTimestamp = request.extLong("bornTimestamp").value_or(0);
            view.storeTimestamp = request.extLong("storeTimestamp").value_or(0);
            view.reconsumeTimes = request.extInt("reconsumeTimes").value_or(0);
            view.properties = request.extString("properties");
            view.body = request.body;
            auto msg = MessageExt::fromRecord(view, QByteArray());
            QByteArray correlation;
            if (msg)
                correlation = msg->property(protocol::MessageConst::CorrelationId);
            Private::PendingReply pending;
            {
                std::lock_guard lock(d->mutex);
                const auto it = d->replies.find(correlation);
                if (it != d->replies.end()) {
                    pending = std::move(it->second);
                    d->replies.erase(it);
                }
            }
            if (pending.callback) {
                m_scheduler->cancel(pending.timer);
                pending.callback(std::move(msg));
            } else {
                qCDebug(lcClient, "reply %s: nobody waits for it (timed out?)",
                    correlation.constData());
            }
            if (!request.isOneway())
                respond(reply(request, toInt(ResponseCode::Success)));
        });
}

// -- request/reply --------------------------------------------------------------------------

void ClientInstance::expectReply(
    const QByteArray &correlationId, int timeoutMs, ReplyCallback callback)
{
    std::weak_ptr<ClientInstance> weak = weak_from_this();
    std::unique_lock lock(d->mutex);
    if (m_shutDown.load()) { // shutdown() fails what it finds in d->replies under this mutex
        lock.unlock();
        callback(Status::unavailable(QStringLiteral("client shut down")));
        return;
    }
    Private::PendingReply &p = d->replies[correlationId];
    p.callback = std::move(callback);
    p.timer = m_scheduler->schedule(
        std::chrono::milliseconds(timeoutMs), [weak, correlationId, timeoutMs] {
            auto self = weak.lock();
            if (!self)
                return;
            ReplyCallback cb;
            {
                std::lock_guard l(self->d->mutex);
                const auto it = self->d->replies.find(correlationId);
                if (it == self->d->replies.end())
                    return;
                cb = std::move(it->second.callback);
                self->d->replies.erase(it);
            }
            cb(Status::timeout(QStringLiteral("no reply to request %1 within %2 ms")
                                   .arg(QString::fromUtf8(correlationId))
                                   .arg(timeoutMs)));
        });
}

void ClientInstance::cancelReply(const QByteArray &correlationId)
{
    Private::PendingReply p;
    {
        std::lock_guard lock(d->mutex);
        const auto it = d->replies.find(correlationId);
        if (it == d->replies.end())
            return;
        p = std::move(it->second);
        d->replies.erase(it);
    }
    m_scheduler->cancel(p.timer);
}

} // namespace qrocket::client
