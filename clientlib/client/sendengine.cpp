// ProducerImpl's send engine (producerimpl.h): the one attempt loop behind sync, async and
// oneway sends, as RocketMQ's DefaultMQProducerImpl.sendDefaultImpl.
//
// A send is a Send (its state across attempts) driven by four steps: run() (the route), attempt()
// (select -> deadline -> address -> the request on the wire), onResponse() (fault latency,
// retriable?) and finish(). Where the steps after a response run is the only difference between
// the modes: an async send's on the callback pool (the I/O thread hands them over at once), a
// sync send's on the thread that waits for it (awaitSync), so a sync send is an async send plus a
// wait. A oneway send is one attempt that finishes as soon as its request is handed over. An
// async send's first attempt goes out from its caller's thread when nothing in it can block
// (startOnCaller: route cached, master known), else from the pool; its outcome is always handled
// on the pool.

#include "clientlib/client/logging.h"
#include "clientlib/client/producerimpl.h"
#include "clientlib/protocol/responsecode.h"

#include <QVarLengthArray>

#include <thread>

namespace qrocket::client {

using protocol::ResponseCode;
using Clock = std::chrono::steady_clock;

namespace {

int remainingMs(Clock::time_point deadline)
{
    return static_cast<int>(
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count());
}

Status notStarted()
{
    return Status::unavailable(
        QStringLiteral("The producer service state not OK, not started or shut down"));
}

} // namespace

/// Where the thread of a sync (or oneway) send waits: for the response of its request in flight
/// (then it runs the next step itself, see awaitSync) or for its result.
struct ProducerImpl::SyncWait
{
    std::mutex mutex;
    std::condition_variable wake;
    std::optional<Result<RemotingCommand>> response; // guarded by mutex
    std::optional<Result<SendResult>> result; // guarded by mutex
    bool abandoned = false; // guarded by mutex
};

/// One send across its attempts. Its steps never run concurrently (each starts the next).
struct ProducerImpl::Send
{
    PreparedMessage msg;
    std::optional<MessageQueue> fixed;
    Mode mode = Mode::Sync;
    int times = 1; // attempts allowed
    int attempts = 0; // attempts made
    Clock::time_point begin;
    Clock::time_point deadline;
    std::shared_ptr<const TopicPublishInfo> info;
    QByteArray lastBroker;
    QVarLengthArray<QByteArray, 3> brokersSent; // no allocation for up to three attempts
    MessageQueue mq; // the attempt in flight: its queue, broker address and start
    QByteArray addr;
    Clock::time_point sentAt;
    std::optional<Result<SendResult>> last; // the last attempt's outcome
    std::optional<Result<RemotingCommand>> response; // Async: from deliver() to onResponse()
    SendCallback callback; // Async: the caller's
    std::shared_ptr<ProducerImpl> owner; // alive while the send runs
    SyncWait wait; // Sync and Oneway: where the caller waits
};

// -- the three entries ------------------------------------------------------------------------

Result<SendResult> ProducerImpl::sendPrepared(
    const PreparedMessage &msg, const std::optional<MessageQueue> &fixed, int retries)
{
    if (!m_started)
        return notStarted();
    if (m_instance->remoting().isIoThread())
        return Status::internal(
            QStringLiteral("synchronous invocation on the remoting I/O thread would deadlock"));
    const auto send = newSend(msg, fixed, retries, Mode::Sync);
    run(send); // the first steps on this thread, up to the first request
    return awaitSync(send);
}

Status ProducerImpl::sendPreparedOneway(
    const PreparedMessage &msg, const std::optional<MessageQueue> &fixed)
{
    if (!m_started)
        return notStarted();
    const auto send = newSend(msg, fixed, 0, Mode::Oneway);
    run(send); // finishes here: a oneway attempt waits for nothing
    return awaitSync(send).status();
}

void ProducerImpl::sendPreparedAsync(
    PreparedMessage msg, std::optional<MessageQueue> fixed, int retries, SendCallback callback)
{
    if (!m_started) {
        // Not started: fail on a thread of our own (the pool may not exist).
        std::thread([callback = std::move(callback)] { callback(notStarted()); }).detach();
        return;
    }
    const auto send = newSend(std::move(msg), std::move(fixed), retries, Mode::Async);
    send->callback = std::move(callback);
    {
        std::lock_guard lock(m_inflightMutex);
        ++m_inflight;
    }
    // A cached route and a known master: the first attempt goes out from here (handing a request
    // to the remoting client never blocks), saving a thread hand-over per send. Otherwise the
    // first step (route lookup, maybe a blocking name-server call) runs on the pool, so sendAsync
    // never blocks its caller. Either way the outcome is handled on the pool.
    if (startOnCaller(send))
        return;
    if (!m_callbacks->execute([send] { send->owner->run(send); }))
        finish(send, Status::unavailable(QStringLiteral("producer shut down")));
}

bool ProducerImpl::startOnCaller(const std::shared_ptr<Send> &send)
{
    auto info = m_instance->cachedPublishInfo(send->msg.topic);
    if (!info)
        return false;
    const int left = remainingMs(send->deadline);
    if (left <= 0)
        return false; // the pool reports the timeout
    MessageQueue mq = send->fixed
        ? *send->fixed
        : m_faults.select(*info, send->lastBroker, m_options.sendLatencyFaultEnable);
    QByteArray addr = m_instance->masterAddress(mq.brokerName);
    if (addr.isEmpty())
        return false; // the pool refreshes the route (blocking) and selects again
    send->info = std::move(info);
    send->mq = std::move(mq);
    send->addr = std::move(addr);
    send->lastBroker = send->mq.brokerName;
    send->brokersSent.push_back(send->mq.brokerName);
    ++send->attempts;
    dispatch(send, left);
    return true;
}

// -- the steps --------------------------------------------------------------------------------

std::shared_ptr<ProducerImpl::Send> ProducerImpl::newSend(
    PreparedMessage msg, std::optional<MessageQueue> fixed, int retries, Mode mode)
{
    auto send = std::make_shared<Send>();
    send->msg = std::move(msg);
    send->fixed = std::move(fixed);
    send->mode = mode;
    // Oneway and queue-chosen sends are tried once (retryTimesWhenSendFailed is for the rest).
    send->times = send->fixed || mode == Mode::Oneway ? 1 : 1 + retries;
    send->begin = Clock::now();
    send->deadline = send->begin + std::chrono::milliseconds(m_options.sendMsgTimeout);
    send->owner = shared_from_this();
    return send;
}

void ProducerImpl::run(const std::shared_ptr<Send> &send)
{
    auto info = publishInfo(send->msg.topic, false);
    if (!info) {
        finish(send, info.error());
        return;
    }
    send->info = std::move(info).value();
    attempt(send);
}

void ProducerImpl::attempt(const std::shared_ptr<Send> &send)
{
    for (;;) {
        if (send->attempts >= send->times) {
            finishWithLast(send);
            return;
        }
        if (send->attempts > 0) { // a retry: the route as refreshed meanwhile, if it was
            if (auto fresh = publishInfo(send->msg.topic, false))
                send->info = std::move(fresh).value();
        }
        send->mq = send->fixed
            ? *send->fixed
            : m_faults.select(*send->info, send->lastBroker, m_options.sendLatencyFaultEnable);
        const MessageQueue &mq = send->mq;
        send->lastBroker = mq.brokerName;
        send->brokersSent.push_back(mq.brokerName);
        ++send->attempts;
        const int left = remainingMs(send->deadline);
        if (left <= 0) {
            send->last = Status::timeout(QStringLiteral("sendDefaultImpl call timeout (%1 ms)")
                                             .arg(m_options.sendMsgTimeout));
            finishWithLast(send);
            return;
        }
        QByteArray &addr = send->addr;
        addr = m_instance->masterAddress(mq.brokerName);
        if (addr.isEmpty()) {
            (void)m_instance->refreshTopicRoute(send->msg.topic);
            addr = m_instance->masterAddress(mq.brokerName);
        }
        if (addr.isEmpty()) {
            send->last = Status::unavailable(
                QStringLiteral("The broker[%1] not exist").arg(QString::fromUtf8(mq.brokerName)));
            continue;
        }
        dispatch(send, left);
        return;
    }
}

void ProducerImpl::dispatch(const std::shared_ptr<Send> &send, int left)
{
    RemotingCommand request = m_instance->api().sendRequest(
        header(send->msg, send->mq), send->msg.body, send->msg.reply);
    if (send->mode == Mode::Oneway) {
        m_instance->api().invokeOneway(send->addr, std::move(request));
        finish(send, SendResult());
        return;
    }
    send->sentAt = Clock::now();
    m_instance->api().invokeAsync(send->addr, std::move(request), left,
        [send = send](Result<RemotingCommand> response) mutable {
            // The I/O thread: hand the outcome to where the send's steps run, at once.
            ProducerImpl *self = send->owner.get();
            self->deliver(std::move(send), std::move(response));
        });
}

void ProducerImpl::onResponse(const std::shared_ptr<Send> &send, Result<RemotingCommand> response)
{
    const MessageQueue &mq = send->mq;
    const auto latency
        = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - send->sentAt)
              .count();
    auto r = ClientApi::parseSendResponse(std::move(response), mq, send->msg.uniqueIds);
    if (r) {
        m_faults.update(mq.brokerName, latency, false);
        if (r->status == SendStatus::SendOk || !m_options.retryAnotherBrokerWhenNotStoreOK) {
            finish(send, std::move(r));
            return;
        }
        send->last = std::move(r); // not stored OK: another broker (retryAnotherBrokerWhen...)
    } else {
        m_faults.update(mq.brokerName, latency, true);
        qCDebug(lcProducer, "send to %s (%s) failed: %s", mq.brokerName.constData(),
            send->addr.constData(), qPrintable(r.error().message()));
        noteFailure(send->msg.topic);
        const bool again = retriable(r.error());
        send->last = std::move(r);
        if (!again) {
            finishWithLast(send);
            return;
        }
    }
    if (!m_started) { // no new attempt once shut down
        finishWithLast(send);
        return;
    }
    attempt(send);
}

void ProducerImpl::finishWithLast(const std::shared_ptr<Send> &send)
{
    if (send->last && *send->last) {
        finish(send, std::move(*send->last));
        return;
    }
    const Status error
        = send->last ? send->last->error() : Status::unavailable(QStringLiteral("no attempt made"));
    // A sync send that had retries says what it tried (Java's "Send [n] times, still failed");
    // an async one reports the last error as it is, as Java's SendCallback.onException.
    if (send->mode != Mode::Sync || send->times == 1) {
        finish(send, error);
        return;
    }
    QByteArray sent;
    for (const QByteArray &b : send->brokersSent)
        sent += (sent.isEmpty() ? "" : ", ") + b;
    const QString text
        = QStringLiteral(
            "Send [%1] times, still failed, cost [%2]ms, Topic: %3, BrokersSent: [%4]: %5")
              .arg(send->brokersSent.size())
              .arg(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - send->begin)
                       .count())
              .arg(QString::fromUtf8(send->msg.topic), QString::fromUtf8(sent), error.message());
    finish(send,
        error.code() == Status::Code::RemoteError ? Status::remote(error.remoteCode(), text)
                                                  : Status(error.code(), text));
}

void ProducerImpl::finish(const std::shared_ptr<Send> &send, Result<SendResult> result)
{
    if (m_trace && result && send->mode != Mode::Oneway && !send->msg.batch)
        tracePub(*send, *result);
    if (send->mode != Mode::Async) {
        std::lock_guard lock(send->wait.mutex);
        send->wait.result.emplace(std::move(result));
        return;
    }
    // Async: already on the pool (or a helper thread), so the caller's callback runs right here.
    if (SendCallback cb = std::move(send->callback))
        cb(std::move(result));
    std::lock_guard lock(m_inflightMutex);
    --m_inflight;
    m_inflightDone.notify_all();
}

void ProducerImpl::tracePub(const Send &send, const SendResult &result)
{
    if (!result.traceOn || m_trace->isTraceTopic(send.msg.topic))
        return;
    const auto cost
        = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - send.begin).count();
    protocol::trace::TraceRecord r;
    r.type = protocol::trace::TraceType::Pub;
    r.timestamp = currentTimeMillis() - cost;
    r.regionId = result.regionId;
    r.groupName = m_options.group;
    r.costTime = static_cast<int>(cost);
    r.success = result.status == SendStatus::SendOk;
    r.topic = send.msg.topic;
    r.msgId = result.msgId;
    r.offsetMsgId = result.offsetMsgId;
    r.tags = send.msg.tags;
    r.keys = send.msg.keys;
    r.storeHost = send.addr;
    r.bodyLength = send.msg.bodyLength;
    r.msgType = send.msg.traceType;
    (void)m_trace->append(std::move(r));
}

void ProducerImpl::deliver(std::shared_ptr<Send> send, Result<RemotingCommand> response)
{
    if (send->mode != Mode::Async) {
        SyncWait &w = send->wait;
        {
            std::lock_guard lock(w.mutex);
            if (w.abandoned)
                return;
            w.response.emplace(std::move(response));
        }
        w.wake.notify_one();
        return;
    }
    // The response travels in the send (its steps never overlap), so the task is one pointer:
    // handing it over (and keeping it for the fallback) copies no command.
    send->response.emplace(std::move(response));
    auto step = [send] {
        Result<RemotingCommand> r = std::move(*send->response);
        send->response.reset();
        send->owner->onResponse(send, std::move(r));
    };
    if (!m_callbacks->execute(step))
        std::thread(std::move(step)).detach(); // the pool is closed: never the I/O thread
}

Result<SendResult> ProducerImpl::awaitSync(const std::shared_ptr<Send> &send)
{
    // The bound only guards against a bug: every request completes (the remoting sweep times it
    // out) and every step ends in a result or a request.
    const auto bound = send->deadline + std::chrono::seconds(5);
    SyncWait &w = send->wait;
    for (;;) {
        std::optional<Result<RemotingCommand>> response;
        {
            std::unique_lock lock(w.mutex);
            if (!w.wake.wait_until(lock, bound, [&] { return w.result || w.response; })) {
                w.abandoned = true;
                return Status::timeout(QStringLiteral("send: no completion in time"));
            }
            if (w.result)
                return std::move(*w.result);
            response.swap(w.response);
        }
        onResponse(send, std::move(*response)); // the next step, on this thread
    }
}

// -- helpers ----------------------------------------------------------------------------------

protocol::SendMessageRequestHeader ProducerImpl::header(
    const PreparedMessage &msg, const MessageQueue &queue) const
{
    protocol::SendMessageRequestHeader h;
    h.producerGroup = m_options.group;
    h.topic = msg.topic;
    h.defaultTopic = m_options.createTopicKey;
    h.defaultTopicQueueNums = m_options.defaultTopicQueueNums;
    h.queueId = queue.queueId;
    h.sysFlag = msg.sysFlag;
    h.bornTimestamp = currentTimeMillis();
    h.flag = msg.flag;
    h.properties = msg.properties;
    h.reconsumeTimes = msg.reconsumeTimes.value_or(0);
    h.unitMode = false;
    h.maxReconsumeTimes = msg.maxReconsumeTimes;
    h.batch = msg.batch;
    h.brokerName = queue.brokerName;
    return h;
}

bool ProducerImpl::retriable(const Status &error)
{
    switch (error.code()) {
    case Status::Code::Timeout:
    case Status::Code::Unavailable:
    case Status::Code::IoError:
        return true;
    case Status::Code::RemoteError:
        switch (static_cast<ResponseCode>(error.remoteCode())) {
        case ResponseCode::TopicNotExist:
        case ResponseCode::ServiceNotAvailable:
        case ResponseCode::SystemError:
        case ResponseCode::NoPermission:
        case ResponseCode::NoBuyerId:
        case ResponseCode::NotInCurrentUnit:
            return true;
        default:
            return false;
        }
    default:
        return false;
    }
}

void ProducerImpl::noteFailure(const QByteArray &topic)
{
    std::weak_ptr<ClientInstance> weak = m_instance;
    m_instance->scheduler().post([weak, topic] {
        if (auto instance = weak.lock())
            (void)instance->refreshTopicRoute(topic);
    });
}

} // namespace qrocket::client
