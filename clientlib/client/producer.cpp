#include "clientlib/client/producer.h"

#include "clientlib/client/logging.h"
#include "clientlib/client/producerimpl.h"
#include "clientlib/common/hash.h"
#include "clientlib/common/tsanannotations.h"
#include "clientlib/protocol/compression.h"
#include "clientlib/protocol/messagebatch.h"
#include "clientlib/protocol/messageid.h"
#include "clientlib/protocol/responsecode.h"

#include <QCoreApplication>
#include <QMetaObject>
#include <QRandomGenerator>
#include <QUuid>

#include <chrono>
#include <future>
#include <thread>

namespace qrocket::client {

namespace MC = protocol::MessageConst;
using protocol::ResponseCode;
using protocol::toInt;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kZlibCompressionType = 0x3 << 8; // CompressionType.ZLIB's sysFlag bits (4.9.7)

protocol::UniqueIdGenerator &uniqueIds(const QByteArray &clientIp)
{
    static protocol::UniqueIdGenerator generator = [&] {
        protocol::HostAddress host;
        const bool ok = protocol::HostAddress::parse(clientIp + ":0", host);
        return protocol::UniqueIdGenerator(
            ok ? &host : nullptr, QCoreApplication::applicationPid());
    }();
    return generator;
}

bool legalTopicChar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '%'
        || c == '|' || c == '_' || c == '-';
}

bool isNotAllowedSendTopic(const QByteArray &topic)
{
    static const char *const kSystem[]
        = {"SCHEDULE_TOPIC_XXXX", "RMQ_SYS_TRANS_HALF_TOPIC", "RMQ_SYS_TRANS_OP_HALF_TOPIC",
            "TRANS_CHECK_MAX_TIME_TOPIC", "SELF_TEST_TOPIC", "OFFSET_MOVED_EVENT"};
    for (const char *t : kSystem) {
        if (topic == t)
            return true;
    }
    return false;
}

int remainingMs(Clock::time_point deadline)
{
    return static_cast<int>(
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count());
}

} // namespace

Status checkTopic(const QByteArray &topic)
{
    if (topic.trimmed().isEmpty())
        return Status::invalidArgument(QStringLiteral("The specified topic is blank"));
    if (topic.size() > protocol::kMaxTopicLength)
        return Status::invalidArgument(
            QStringLiteral("The specified topic is longer than topic max length 127"));
    for (char c : topic) {
        if (!legalTopicChar(c))
            return Status::invalidArgument(
                QStringLiteral("The specified topic[%1] contains illegal characters, allowing only "
                               "^[%|a-zA-Z0-9_-]+$")
                    .arg(QString::fromUtf8(topic)));
    }
    return Status();
}

// -- ProducerImpl -----------------------------------------------------------------------------

ProducerImpl::ProducerImpl(ProducerOptions options) : m_options(std::move(options))
{ }

ProducerImpl::~ProducerImpl()
{
    shutdown();
}

QByteArray ProducerImpl::clientId() const
{
    return m_instance ? m_instance->clientId() : m_options.client.buildClientId();
}

Status ProducerImpl::start()
{
    if (m_started.load())
        return Status();
    if (m_options.group.isEmpty())
        return Status::invalidArgument(QStringLiteral("producerGroup is empty"));
    if (m_options.sendMsgTimeout <= 0 || m_options.maxMessageSize <= 0
        || m_options.retryTimesWhenSendFailed < 0 || m_options.retryTimesWhenSendAsyncFailed < 0)
        return Status::invalidArgument(QStringLiteral(
            "sendMsgTimeout and maxMessageSize must be positive, the retry counts not negative"));
    if (m_options.client.resolvedNamesrvAddr().isEmpty())
        return Status::invalidArgument(
            QStringLiteral("no name server address: set namesrvAddr or NAMESRV_ADDR"));
    m_lease = ClientInstance::acquire(m_options.client);
    m_instance = m_lease.instance();
    if (Status s = m_instance->registerProducer(m_options.group, weak_from_this()); !s) {
        m_instance.reset();
        m_lease.reset();
        return s;
    }
    m_callbacks = std::make_shared<WorkerPool>("qrocket-send", m_options.callbackThreads);
    m_checks = std::make_shared<WorkerPool>("qrocket-txcheck", 1);
    m_registered = true;
    m_started = true;
    (void)m_instance->sendHeartbeatToAllBrokers(false);
    qCInfo(lcProducer, "producer %s started (client %s)", m_options.group.constData(),
        m_instance->clientId().constData());
    return Status();
}

void ProducerImpl::startInner(std::shared_ptr<ClientInstance> instance)
{
    m_instance = std::move(instance);
    m_callbacks = std::make_shared<WorkerPool>("qrocket-resend", 1);
    m_checks = std::make_shared<WorkerPool>("qrocket-txcheck", 1);
    m_started = true;
}

void ProducerImpl::shutdown()
{
    if (!m_started.exchange(false))
        return;
    {
        // In-flight async sends complete first (their callbacks may run and even send: those
        // fail at once now). A callback that shuts us down counts itself: do not wait for it.
        const bool onCallbackThread = m_callbacks && m_callbacks->isCurrentThread();
        std::unique_lock lock(m_inflightMutex);
        m_inflightDone.wait_for(lock, std::chrono::milliseconds(m_options.sendMsgTimeout + 1000),
            [&] { return m_inflight <= (onCallbackThread ? 1 : 0); });
    }
    if (m_registered)
        m_instance->unregisterProducer(m_options.group);
    m_callbacks->shutdown();
    m_checks->shutdown();
    m_lease.reset(); // the last user's shutdown stops the client instance here
    qCInfo(lcProducer, "producer %s shut down", m_options.group.constData());
}

Status ProducerImpl::validate(const Message &msg) const
{
    if (Status s = checkTopic(msg.topic()); !s)
        return s;
    if (msg.topic() == m_options.createTopicKey)
        return Status::invalidArgument(
            QStringLiteral("The topic[%1] is conflict with AUTO_CREATE_TOPIC_KEY_TOPIC.")
                .arg(QString::fromUtf8(msg.topic())));
    if (isNotAllowedSendTopic(msg.topic()))
        return Status::invalidArgument(QStringLiteral("Sending message to topic[%1] is forbidden.")
                                           .arg(QString::fromUtf8(msg.topic())));
    if (msg.body().isEmpty())
        return Status::invalidArgument(QStringLiteral("the message body length is zero"));
    if (msg.body().size() > m_options.maxMessageSize)
        return Status::invalidArgument(
            QStringLiteral("the message body size over max value, MAX: %1 (this one: %2 bytes)")
                .arg(m_options.maxMessageSize)
                .arg(msg.body().size()));
    return Status();
}

Result<PreparedMessage> ProducerImpl::prepare(const Message &msg) const
{
    if (Status s = validate(msg); !s)
        return s;
    PreparedMessage p;
    p.topic = msg.topic();
    p.flag = msg.flag();
    protocol::MessageProperties props = msg.properties();
    if (!props.contains(MC::UniqClientMessageIdKeyIdx))
        props.set(MC::UniqClientMessageIdKeyIdx.toByteArray(),
            uniqueIds(m_options.client.resolvedClientIP()).next());
    p.uniqueIds = props.value(MC::UniqClientMessageIdKeyIdx);
    if (p.topic.startsWith("%RETRY%")) {
        if (const QByteArray *v = props.find(MC::ReconsumeTime)) {
            p.reconsumeTimes = v->toInt();
            props.remove(MC::ReconsumeTime);
        }
        if (const QByteArray *v = props.find(MC::MaxReconsumeTimes)) {
            p.maxReconsumeTimes = v->toInt();
            props.remove(MC::MaxReconsumeTimes);
        }
    }
    if (props.value(MC::TransactionPrepared) == "true")
        p.sysFlag |= protocol::SysFlag::TransactionPrepared;
    p.reply = props.value(MC::MessageType) == "reply";
    auto encoded = props.encodeChecked();
    if (!encoded)
        return encoded.error();
    p.properties = std::move(encoded).value();
    p.body = msg.body();
    if (m_options.compressMsgBodyOverHowmuch > 0
        && p.body.size() >= m_options.compressMsgBodyOverHowmuch) {
        auto compressed = protocol::zlibCompress(p.body, m_options.compressLevel);
        if (compressed) {
            p.body = std::move(compressed).value();
            p.sysFlag |= protocol::SysFlag::Compressed | kZlibCompressionType;
        }
    }
    return p;
}

Result<PreparedMessage> ProducerImpl::prepareBatch(
    const std::vector<Message> &messages, std::size_t begin, std::size_t end) const
{
    PreparedMessage p;
    p.batch = true;
    p.count = static_cast<int>(end - begin);
    const Message &first = messages[begin];
    p.topic = first.topic();
    std::vector<QByteArray> props;
    std::vector<protocol::BatchItemView> items;
    props.reserve(end - begin);
    for (std::size_t i = begin; i < end; ++i) {
        protocol::MessageProperties mp = messages[i].properties();
        if (!mp.contains(MC::UniqClientMessageIdKeyIdx))
            mp.set(MC::UniqClientMessageIdKeyIdx.toByteArray(),
                uniqueIds(m_options.client.resolvedClientIP()).next());
        if (!p.uniqueIds.isEmpty())
            p.uniqueIds += ',';
        p.uniqueIds += mp.value(MC::UniqClientMessageIdKeyIdx);
        auto encoded = mp.encodeChecked();
        if (!encoded)
            return encoded.error();
        props.push_back(std::move(encoded).value());
    }
    for (std::size_t i = begin; i < end; ++i)
        items.push_back({messages[i].flag(), messages[i].body(), props[i - begin]});
    p.body = protocol::encodeBatch(items);
    protocol::MessageProperties batchProps;
    if (!first.waitStoreMsgOK())
        batchProps.set(MC::WaitStoreMsgOk.toByteArray(), "false");
    p.properties = batchProps.encode();
    return p;
}

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

Result<std::shared_ptr<const TopicPublishInfo>> ProducerImpl::publishInfo(
    const QByteArray &topic, bool refresh)
{
    return m_instance->publishInfo(topic, refresh, m_options.defaultTopicQueueNums);
}

Result<SendResult> ProducerImpl::sendPrepared(
    const PreparedMessage &msg, const std::optional<MessageQueue> &fixed, int retries)
{
    if (!m_started)
        return Status::unavailable(
            QStringLiteral("The producer service state not OK, not started or shut down"));
    const auto begin = Clock::now();
    const auto deadline = begin + std::chrono::milliseconds(m_options.sendMsgTimeout);
    auto info = publishInfo(msg.topic, false);
    if (!info)
        return info.error();
    const int times = fixed ? 1 : 1 + retries;
    QByteArray lastBroker;
    QList<QByteArray> brokersSent;
    std::optional<Result<SendResult>> last;
    for (int attempt = 0; attempt < times; ++attempt) {
        if (attempt > 0) {
            auto fresh = publishInfo(msg.topic, false);
            if (fresh)
                info = std::move(fresh);
        }
        const MessageQueue mq = fixed
            ? *fixed
            : m_faults.select(**info, lastBroker, m_options.sendLatencyFaultEnable);
        lastBroker = mq.brokerName;
        brokersSent.push_back(mq.brokerName);
        const int left = remainingMs(deadline);
        if (left <= 0) {
            last = Status::timeout(QStringLiteral("sendDefaultImpl call timeout (%1 ms)")
                                       .arg(m_options.sendMsgTimeout));
            break;
        }
        QByteArray addr = m_instance->masterAddress(mq.brokerName);
        if (addr.isEmpty()) {
            (void)m_instance->refreshTopicRoute(msg.topic);
            addr = m_instance->masterAddress(mq.brokerName);
        }
        if (addr.isEmpty()) {
            last = Status::unavailable(
                QStringLiteral("The broker[%1] not exist").arg(QString::fromUtf8(mq.brokerName)));
            continue;
        }
        const auto t0 = Clock::now();
        auto r = ClientApi::parseSendResponse(
            m_instance->api().invokeSync(
                addr, m_instance->api().sendRequest(header(msg, mq), msg.body, msg.reply), left),
            mq, msg.uniqueIds);
        const auto latency
            = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
        if (r) {
            m_faults.update(mq.brokerName, latency, false);
            if (r->status == SendStatus::SendOk || !m_options.retryAnotherBrokerWhenNotStoreOK)
                return r;
            last = std::move(r);
            continue;
        }
        m_faults.update(mq.brokerName, latency, true);
        qCDebug(lcProducer, "send to %s (%s) failed: %s", mq.brokerName.constData(),
            addr.constData(), qPrintable(r.error().message()));
        noteFailure(msg.topic);
        const bool again = retriable(r.error());
        last = std::move(r);
        if (!again)
            break;
    }
    if (last && *last)
        return std::move(*last);
    const Status error
        = last ? last->error() : Status::unavailable(QStringLiteral("no attempt made"));
    if (times == 1)
        return error;
    QByteArray sent;
    for (const QByteArray &b : brokersSent)
        sent += (sent.isEmpty() ? "" : ", ") + b;
    const QString text
        = QStringLiteral(
            "Send [%1] times, still failed, cost [%2]ms, Topic: %3, BrokersSent: [%4]: %5")
              .arg(brokersSent.size())
              .arg(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - begin)
                       .count())
              .arg(QString::fromUtf8(msg.topic), QString::fromUtf8(sent), error.message());
    return error.code() == Status::Code::RemoteError ? Status::remote(error.remoteCode(), text)
                                                     : Status(error.code(), text);
}

Status ProducerImpl::sendPreparedOneway(
    const PreparedMessage &msg, const std::optional<MessageQueue> &fixed)
{
    if (!m_started)
        return Status::unavailable(
            QStringLiteral("The producer service state not OK, not started or shut down"));
    auto info = publishInfo(msg.topic, false);
    if (!info)
        return info.error();
    const MessageQueue mq
        = fixed ? *fixed : m_faults.select(**info, QByteArray(), m_options.sendLatencyFaultEnable);
    const QByteArray addr = m_instance->masterAddress(mq.brokerName);
    if (addr.isEmpty())
        return Status::unavailable(
            QStringLiteral("The broker[%1] not exist").arg(QString::fromUtf8(mq.brokerName)));
    m_instance->api().invokeOneway(
        addr, m_instance->api().sendRequest(header(msg, mq), msg.body, msg.reply));
    return Status();
}

// -- async sends ------------------------------------------------------------------------------

struct ProducerImpl::AsyncSend
{
    PreparedMessage msg;
    std::optional<MessageQueue> fixed;
    int attemptsLeft = 1;
    Clock::time_point begin;
    Clock::time_point deadline;
    QByteArray lastBroker;
    Status lastError;
    SendCallback callback;
};

void ProducerImpl::complete(SendCallback callback, Result<SendResult> result)
{
    if (!callback)
        return;
    auto task = [callback = std::move(callback), result = std::move(result)]() mutable {
        callback(std::move(result));
    };
    if (m_callbacks && m_callbacks->execute(task))
        return;
    // The pool is closed (shutdown timed out on a stuck callback): a thread of its own, never
    // the I/O thread.
    std::thread(std::move(task)).detach();
}

void ProducerImpl::sendPreparedAsync(
    PreparedMessage msg, std::optional<MessageQueue> fixed, int retries, SendCallback callback)
{
    if (!m_started) {
        // Not started: fail on a thread of our own (the pool may not exist).
        std::thread([callback = std::move(callback)] {
            callback(Status::unavailable(
                QStringLiteral("The producer service state not OK, not started or shut down")));
        }).detach();
        return;
    }
    auto send = std::make_shared<AsyncSend>();
    send->msg = std::move(msg);
    send->fixed = std::move(fixed);
    send->attemptsLeft = send->fixed ? 1 : 1 + retries;
    send->begin = Clock::now();
    send->deadline = send->begin + std::chrono::milliseconds(m_options.sendMsgTimeout);
    send->callback = std::move(callback);
    {
        std::lock_guard lock(m_inflightMutex);
        ++m_inflight;
    }
    // The first step (route lookup, maybe a blocking name-server call) runs on the pool, so
    // sendAsync never blocks its caller.
    auto self = shared_from_this();
    if (!m_callbacks->execute([self, send] { self->asyncStep(send); }))
        asyncDone(send, Status::unavailable(QStringLiteral("producer shut down")));
}

void ProducerImpl::asyncStep(const std::shared_ptr<AsyncSend> &send)
{
    auto info = publishInfo(send->msg.topic, false);
    if (!info) {
        asyncDone(send, info.error());
        return;
    }
    const MessageQueue mq = send->fixed
        ? *send->fixed
        : m_faults.select(**info, send->lastBroker, m_options.sendLatencyFaultEnable);
    send->lastBroker = mq.brokerName;
    --send->attemptsLeft;
    const int left = remainingMs(send->deadline);
    if (left <= 0) {
        asyncDone(send,
            send->lastError.isOk() ? Status::timeout(QStringLiteral("sendDefaultImpl call timeout"))
                                   : send->lastError);
        return;
    }
    QByteArray addr = m_instance->masterAddress(mq.brokerName);
    if (addr.isEmpty()) {
        (void)m_instance->refreshTopicRoute(send->msg.topic);
        addr = m_instance->masterAddress(mq.brokerName);
    }
    if (addr.isEmpty()) {
        asyncDone(send,
            Status::unavailable(
                QStringLiteral("The broker[%1] not exist").arg(QString::fromUtf8(mq.brokerName))));
        return;
    }
    const auto t0 = Clock::now();
    auto self = shared_from_this();
    m_instance->api().invokeAsync(addr,
        m_instance->api().sendRequest(header(send->msg, mq), send->msg.body, send->msg.reply), left,
        [self, send, mq, t0](Result<RemotingCommand> response) {
            // I/O thread: hand the outcome to the pool at once.
            auto handle = [self, send, mq, t0, response = std::move(response)]() mutable {
                const auto latency
                    = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0)
                          .count();
                auto r = ClientApi::parseSendResponse(std::move(response), mq, send->msg.uniqueIds);
                if (r) {
                    self->m_faults.update(mq.brokerName, latency, false);
                    if (r->status != SendStatus::SendOk
                        && self->m_options.retryAnotherBrokerWhenNotStoreOK
                        && send->attemptsLeft > 0 && self->m_started) {
                        self->asyncStep(send);
                        return;
                    }
                    self->asyncDone(send, std::move(r));
                    return;
                }
                self->m_faults.update(mq.brokerName, latency, true);
                self->noteFailure(send->msg.topic);
                send->lastError = r.error();
                if (retriable(r.error()) && send->attemptsLeft > 0 && self->m_started) {
                    self->asyncStep(send);
                    return;
                }
                self->asyncDone(send, std::move(r));
            };
            if (!self->m_callbacks->execute(handle))
                std::thread(std::move(handle)).detach();
        });
}

void ProducerImpl::asyncDone(const std::shared_ptr<AsyncSend> &send, Result<SendResult> result)
{
    SendCallback cb = std::move(send->callback);
    if (cb) {
        // Already on the pool (or a helper thread): run the user's callback right here.
        cb(std::move(result));
    }
    std::lock_guard lock(m_inflightMutex);
    --m_inflight;
    m_inflightDone.notify_all();
}

// -- transactions ---------------------------------------------------------------------------

void ProducerImpl::endTransaction(const SendResult &result, LocalTransactionState state,
    const QByteArray &uniqueKey, const QByteArray &transactionId)
{
    auto offsetId = protocol::decodeOffsetMessageId(result.offsetMsgId);
    const QByteArray addr = m_instance->masterAddress(result.messageQueue.brokerName);
    if (!offsetId || addr.isEmpty()) {
        qCWarning(lcProducer,
            "END_TRANSACTION for %s: cannot reach broker %s (the broker will check back)",
            uniqueKey.constData(), result.messageQueue.brokerName.constData());
        return;
    }
    protocol::EndTransactionRequestHeader h;
    h.producerGroup = m_options.group;
    h.tranStateTableOffset = result.queueOffset;
    h.commitLogOffset = offsetId->commitLogOffset;
    h.commitOrRollback = state == LocalTransactionState::CommitMessage
        ? protocol::SysFlag::TransactionCommit
        : state == LocalTransactionState::RollbackMessage ? protocol::SysFlag::TransactionRollback
                                                          : protocol::SysFlag::TransactionNot;
    h.fromTransactionCheck = false;
    h.msgId = uniqueKey;
    h.transactionId = transactionId;
    m_instance->api().endTransactionOneway(addr, h, QByteArray());
}

void ProducerImpl::checkTransactionState(const QByteArray &brokerAddr, MessageExt halfMessage,
    const protocol::CheckTransactionStateRequestHeader &header)
{
    if (!m_listener || !m_checks)
        return;
    auto self = shared_from_this();
    m_checks->execute([self, brokerAddr, msg = std::move(halfMessage), header] {
        LocalTransactionState state = LocalTransactionState::Unknown;
        QByteArray remark;
        try {
            state = self->m_listener->checkLocalTransaction(msg);
        } catch (const std::exception &e) {
            remark = QByteArray("checkLocalTransaction threw: ") + e.what();
        }
        protocol::EndTransactionRequestHeader h;
        h.producerGroup = self->m_options.group;
        h.tranStateTableOffset = header.tranStateTableOffset;
        h.commitLogOffset = header.commitLogOffset;
        h.commitOrRollback = state == LocalTransactionState::CommitMessage
            ? protocol::SysFlag::TransactionCommit
            : state == LocalTransactionState::RollbackMessage
            ? protocol::SysFlag::TransactionRollback
            : protocol::SysFlag::TransactionNot;
        h.fromTransactionCheck = true;
        const QByteArray uniq = msg.property(MC::UniqClientMessageIdKeyIdx);
        h.msgId = uniq.isEmpty() ? header.msgId : uniq;
        h.transactionId = header.transactionId;
        self->m_instance->api().endTransactionOneway(brokerAddr, h, remark);
        qCDebug(lcProducer, "transaction %s checked: %s", h.msgId.constData(),
            localTransactionStateName(state));
    });
}

// -- Producer ---------------------------------------------------------------------------------

Producer::Producer(ProducerOptions options)
    : m_impl(std::make_shared<ProducerImpl>(std::move(options)))
{ }

Producer::~Producer()
{
    m_impl->shutdown();
}

Status Producer::start()
{
    return m_impl->start();
}

void Producer::shutdown()
{
    m_impl->shutdown();
}

bool Producer::isStarted() const
{
    return m_impl->isStarted();
}

const ProducerOptions &Producer::options() const
{
    return m_impl->options();
}

QByteArray Producer::clientId() const
{
    return m_impl->clientId();
}

Result<SendResult> Producer::sendSync(Message msg)
{
    auto p = m_impl->prepare(msg);
    if (!p)
        return p.error();
    return m_impl->sendPrepared(*p, std::nullopt, m_impl->options().retryTimesWhenSendFailed);
}

Result<SendResult> Producer::sendSync(Message msg, const MessageQueue &queue)
{
    if (queue.topic != msg.topic())
        return Status::invalidArgument(QStringLiteral("message's topic not equal mq's topic"));
    auto p = m_impl->prepare(msg);
    if (!p)
        return p.error();
    return m_impl->sendPrepared(*p, queue, 0);
}

Result<SendResult> Producer::sendSync(Message msg, const MessageQueueSelector &selector)
{
    auto p = m_impl->prepare(msg);
    if (!p)
        return p.error();
    if (!m_impl->isStarted())
        return Status::unavailable(
            QStringLiteral("The producer service state not OK, not started or shut down"));
    auto info = m_impl->publishInfo(msg.topic(), false);
    if (!info)
        return info.error();
    const MessageQueue mq = selector((*info)->queues, msg);
    if (mq.topic.isEmpty())
        return Status::invalidArgument(QStringLiteral("select message queue return null."));
    return m_impl->sendPrepared(*p, mq, 0);
}

void Producer::sendAsync(Message msg, SendCallback callback)
{
    auto p = m_impl->prepare(msg);
    if (!p) {
        std::thread([callback = std::move(callback), e = p.error()] { callback(e); }).detach();
        return;
    }
    m_impl->sendPreparedAsync(std::move(p).value(), std::nullopt,
        m_impl->options().retryTimesWhenSendAsyncFailed, std::move(callback));
}

void Producer::sendAsync(Message msg, const MessageQueue &queue, SendCallback callback)
{
    auto p = m_impl->prepare(msg);
    if (!p) {
        std::thread([callback = std::move(callback), e = p.error()] { callback(e); }).detach();
        return;
    }
    m_impl->sendPreparedAsync(std::move(p).value(), queue, 0, std::move(callback));
}

void Producer::sendAsync(Message msg, QObject *context, SendCallback callback)
{
    QPointer<QObject> guard(context);
    sendAsync(std::move(msg), [guard, callback = std::move(callback)](Result<SendResult> r) {
        if (!guard)
            return;
        invokeOn(
            guard.data(), [callback, r = std::move(r)]() mutable { callback(std::move(r)); },
            Qt::QueuedConnection);
    });
}

Status Producer::sendOneway(Message msg)
{
    auto p = m_impl->prepare(msg);
    if (!p)
        return p.error();
    return m_impl->sendPreparedOneway(*p, std::nullopt);
}

Result<std::vector<SendResult>> Producer::sendBatch(std::vector<Message> messages)
{
    if (messages.empty())
        return Status::invalidArgument(QStringLiteral("the batch is empty"));
    const Message &first = messages.front();
    for (const Message &m : messages) {
        if (Status s = m_impl->validate(m); !s)
            return s;
        if (m.topic() != first.topic())
            return Status::invalidArgument(
                QStringLiteral("The topic of the messages in one batch should be the same"));
        if (m.delayTimeLevel() > 0)
            return Status::invalidArgument(
                QStringLiteral("TimeDelayLevel is not supported for batching"));
        if (m.topic().startsWith("%RETRY%"))
            return Status::invalidArgument(
                QStringLiteral("Retry Group is not supported for batching"));
        if (m.waitStoreMsgOK() != first.waitStoreMsgOK())
            return Status::invalidArgument(
                QStringLiteral("The waitStoreMsgOK of the messages in one batch should the same"));
    }
    // Split by encoded size (22 bytes of framing per message, protocol.md §5.7).
    std::vector<SendResult> results;
    std::size_t begin = 0;
    while (begin < messages.size()) {
        qint64 size = 0;
        std::size_t end = begin;
        while (end < messages.size()) {
            const qint64 one = protocol::kBatchItemOverhead + messages[end].body().size()
                + messages[end].properties().encode().size() + 64; // + UNIQ_KEY
            if (end > begin && size + one > m_impl->options().maxMessageSize)
                break;
            size += one;
            ++end;
        }
        auto p = m_impl->prepareBatch(messages, begin, end);
        if (!p)
            return p.error();
        auto r = m_impl->sendPrepared(*p, std::nullopt, m_impl->options().retryTimesWhenSendFailed);
        if (!r) {
            if (results.empty())
                return r.error();
            return Status(r.error().code(),
                QStringLiteral("batch request %1 failed after %2 were sent (%3 messages): %4")
                    .arg(results.size() + 1)
                    .arg(results.size())
                    .arg(begin)
                    .arg(r.error().message()));
        }
        results.push_back(std::move(r).value());
        begin = end;
    }
    return results;
}

Result<MessageExt> Producer::request(Message msg, int timeoutMs)
{
    if (!m_impl->isStarted())
        return Status::unavailable(
            QStringLiteral("The producer service state not OK, not started or shut down"));
    const auto begin = Clock::now();
    const QByteArray correlation = QUuid::createUuid().toByteArray(QUuid::WithoutBraces);
    msg.setProperty(MC::CorrelationId.toByteArray(), correlation);
    msg.setProperty(MC::ReplyToClient.toByteArray(), m_impl->clientId());
    msg.setProperty(MC::Ttl.toByteArray(), QByteArray::number(timeoutMs));
    auto p = m_impl->prepare(msg);
    if (!p)
        return p.error();
    // The broker pushes the reply over this client's producer channel, which it learns from a
    // heartbeat: make sure the topic's brokers have had one.
    auto info = m_impl->publishInfo(msg.topic(), false);
    if (!info)
        return info.error();
    (void)m_impl->instance()->sendHeartbeatToAllBrokers(true);

    auto promise = std::make_shared<std::promise<Result<MessageExt>>>();
    auto future = promise->get_future();
    m_impl->instance()->expectReply(correlation, timeoutMs,
        [promise](Result<MessageExt> r) { promise->set_value(std::move(r)); });
    auto sent = m_impl->sendPrepared(*p, std::nullopt, m_impl->options().retryTimesWhenSendFailed);
    if (!sent) {
        m_impl->instance()->cancelReply(correlation);
        return sent.error();
    }
    const auto left = std::chrono::milliseconds(timeoutMs) - (Clock::now() - begin);
    if (future.wait_for(left + std::chrono::milliseconds(200)) != std::future_status::ready) {
        m_impl->instance()->cancelReply(correlation);
        return Status::timeout(QStringLiteral("no reply within %1 ms").arg(timeoutMs));
    }
    return future.get();
}

Result<Message> Producer::createReplyMessage(const MessageExt &request, QByteArray body)
{
    const QByteArray cluster = request.property(MC::Cluster);
    const QByteArray correlation = request.property(MC::CorrelationId);
    const QByteArray replyTo = request.property(MC::ReplyToClient);
    if (cluster.isEmpty() || correlation.isEmpty() || replyTo.isEmpty())
        return Status::invalidArgument(
            QStringLiteral("create reply message fail: the request message has no CLUSTER, "
                           "CORRELATION_ID or REPLY_TO_CLIENT"));
    Message reply(cluster + "_REPLY_TOPIC", std::move(body));
    reply.setProperty(MC::CorrelationId.toByteArray(), correlation);
    reply.setProperty(MC::ReplyToClient.toByteArray(), replyTo);
    reply.setProperty(MC::Ttl.toByteArray(), request.property(MC::Ttl));
    reply.setProperty(MC::MessageType.toByteArray(), "reply");
    return reply;
}

Result<std::vector<MessageQueue>> Producer::fetchPublishMessageQueues(const QByteArray &topic)
{
    if (!m_impl->isStarted())
        return Status::unavailable(
            QStringLiteral("The producer service state not OK, not started or shut down"));
    auto info = m_impl->publishInfo(topic, false);
    if (!info)
        return info.error();
    return (*info)->queues;
}

// -- TransactionProducer ----------------------------------------------------------------------

TransactionProducer::TransactionProducer(ProducerOptions options, TransactionListener *listener)
    : Producer(std::move(options))
{
    m_impl->setTransactionListener(listener);
}

Result<TransactionSendResult> TransactionProducer::sendMessageInTransaction(Message msg, void *arg)
{
    TransactionListener *listener = m_impl->transactionListener();
    if (!listener)
        return Status::invalidArgument(QStringLiteral("TransactionListener is null"));
    if (msg.delayTimeLevel() > 0)
        msg.setDelayTimeLevel(0); // Java clears it: delayed half messages are not supported
    msg.setProperty(MC::TransactionPrepared.toByteArray(), "true");
    msg.setProperty(MC::ProducerGroup.toByteArray(), m_impl->options().group);
    auto p = m_impl->prepare(msg);
    if (!p)
        return p.error();
    auto sent = m_impl->sendPrepared(*p, std::nullopt, m_impl->options().retryTimesWhenSendFailed);
    if (!sent)
        return sent.error();
    TransactionSendResult result;
    result.sendResult = *sent;
    const QByteArray transactionId = p->uniqueIds;
    msg.setProperty(MC::UniqClientMessageIdKeyIdx.toByteArray(), p->uniqueIds);
    msg.setTransactionId(transactionId);
    if (sent->status == SendStatus::SendOk) {
        try {
            result.localTransactionState = listener->executeLocalTransaction(msg, arg);
        } catch (const std::exception &e) {
            qCWarning(lcProducer, "executeLocalTransaction threw: %s", e.what());
            result.localTransactionState = LocalTransactionState::Unknown;
        }
    } else {
        result.localTransactionState = LocalTransactionState::RollbackMessage;
    }
    result.sendResult.transactionId = transactionId;
    m_impl->endTransaction(
        result.sendResult, result.localTransactionState, p->uniqueIds, transactionId);
    return result;
}

const char *localTransactionStateName(LocalTransactionState state)
{
    switch (state) {
    case LocalTransactionState::CommitMessage:
        return "COMMIT_MESSAGE";
    case LocalTransactionState::RollbackMessage:
        return "ROLLBACK_MESSAGE";
    case LocalTransactionState::Unknown:
        return "UNKNOW";
    }
    return "UNKNOW";
}

namespace selectors {

MessageQueueSelector byHash(QByteArray key)
{
    return [key = std::move(key)](const std::vector<MessageQueue> &queues, const Message &) {
        if (queues.empty())
            return MessageQueue();
        const std::int64_t h = javaStringHash(key);
        const std::int64_t index = (h < 0 ? -h : h) % static_cast<std::int64_t>(queues.size());
        return queues[static_cast<std::size_t>(index)];
    };
}

MessageQueueSelector random()
{
    return [](const std::vector<MessageQueue> &queues, const Message &) {
        if (queues.empty())
            return MessageQueue();
        return queues[QRandomGenerator::global()->bounded(static_cast<quint32>(queues.size()))];
    };
}

} // namespace selectors

} // namespace qrocket::client
