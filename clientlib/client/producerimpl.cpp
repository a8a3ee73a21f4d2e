// ProducerImpl (producerimpl.h): lifecycle, validation and the preparation of messages for the
// wire. The send engine is in sendengine.cpp, transactions in transactionproducer.cpp.

#include "clientlib/client/producerimpl.h"

#include "clientlib/client/logging.h"
#include "clientlib/protocol/compression.h"
#include "clientlib/protocol/messagebatch.h"
#include "clientlib/protocol/messageid.h"
#include "clientlib/protocol/systemtopics.h"

#include <QCoreApplication>

#include <algorithm>
#include <chrono>

namespace qrocket::client {

namespace MC = protocol::MessageConst;

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
    return std::ranges::any_of(
        protocol::topics::kNotAllowedSend, [&](const char *t) { return topic == t; });
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
    if (m_options.enableMsgTrace) {
        TraceDispatcher::Options to;
        to.ownerGroup = m_options.group;
        to.traceTopic = m_options.customizedTraceTopic;
        to.client = m_options.client;
        m_trace = std::make_unique<TraceDispatcher>(std::move(to));
        if (Status s = m_trace->start(); !s) {
            qCWarning(lcProducer, "producer %s: message traces off: %s",
                m_options.group.constData(), qPrintable(s.toString()));
            m_trace.reset();
        }
    }
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
    if (m_trace)
        m_trace->shutdown(); // its producer's lease goes before ours
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
    const protocol::MessageProperties &given = msg.properties();
    Result<QByteArray> encoded = QByteArray();
    if (!p.topic.startsWith(protocol::topics::kRetryPrefix)
        && !given.contains(MC::UniqClientMessageIdKeyIdx)) {
        // Every plain send: a new UNIQ_KEY appended while encoding, the properties not copied.
        p.uniqueIds = uniqueIds(m_options.client.resolvedClientIP()).next();
        encoded = given.encodeCheckedAppending(MC::UniqClientMessageIdKeyIdx, p.uniqueIds);
    } else {
        protocol::MessageProperties props = given;
        if (!props.contains(MC::UniqClientMessageIdKeyIdx))
            props.set(MC::UniqClientMessageIdKeyIdx.toByteArray(),
                uniqueIds(m_options.client.resolvedClientIP()).next());
        p.uniqueIds = props.value(MC::UniqClientMessageIdKeyIdx);
        if (p.topic.startsWith(protocol::topics::kRetryPrefix)) {
            if (const QByteArray *v = props.find(MC::ReconsumeTime)) {
                p.reconsumeTimes = v->toInt();
                props.remove(MC::ReconsumeTime);
            }
            if (const QByteArray *v = props.find(MC::MaxReconsumeTimes)) {
                p.maxReconsumeTimes = v->toInt();
                props.remove(MC::MaxReconsumeTimes);
            }
        }
        encoded = props.encodeChecked();
    }
    // Neither key is touched above: the given properties answer for the encoded ones.
    if (given.value(MC::TransactionPrepared) == "true")
        p.sysFlag |= protocol::SysFlag::TransactionPrepared;
    p.reply = given.value(MC::MessageType) == "reply";
    if (!encoded)
        return encoded.error();
    p.properties = std::move(encoded).value();
    p.body = msg.body();
    if (m_trace) {
        p.tags = msg.tags();
        p.keys = msg.keys();
        p.bodyLength = static_cast<int>(msg.body().size());
        p.traceType = (p.sysFlag & protocol::SysFlag::TransactionPrepared)
            ? protocol::trace::TraceMessageType::TransHalf
            : msg.delayTimeLevel() > 0 ? protocol::trace::TraceMessageType::Delay
                                       : protocol::trace::TraceMessageType::Normal;
    }
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

Result<std::shared_ptr<const TopicPublishInfo>> ProducerImpl::publishInfo(
    const QByteArray &topic, bool refresh)
{
    return m_instance->publishInfo(topic, refresh, m_options.defaultTopicQueueNums);
}

} // namespace qrocket::client
