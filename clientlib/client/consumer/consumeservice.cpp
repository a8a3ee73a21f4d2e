#include "clientlib/client/consumer/consumeservice.h"

#include "clientlib/client/consumer/pushconsumerimpl.h"
#include "clientlib/client/logging.h"
#include "clientlib/protocol/json.h"

#include <chrono>
#include <exception>

namespace qrocket::client {

namespace MC = protocol::MessageConst;

ConsumeService::ConsumeService(PushConsumerImpl &consumer) : m_consumer(consumer)
{ }

ConsumeService::~ConsumeService() = default;

void ConsumeService::prepareForListener(std::vector<MessageExt> &msgs) const
{
    // The text of the current millisecond, made once per millisecond and thread (a consumer
    // with consumeMessageBatchMaxSize 1 comes here once per message).
    thread_local std::int64_t cachedMs = -1;
    thread_local QByteArray cachedText;
    if (const std::int64_t ms = currentTimeMillis(); ms != cachedMs) {
        cachedMs = ms;
        cachedText = QByteArray::number(ms);
    }
    const QByteArray now = cachedText;
    const QByteArray name = protocol::MessageProperties::internedName(MC::ConsumeStartTimestamp);
    for (MessageExt &m : msgs) {
        // A redelivery from %RETRY%<group> shows the topic it was first sent to.
        if (m.topic() == m_consumer.m_retryTopic) {
            const QByteArray original = m.property(MC::RetryTopic);
            if (!original.isEmpty())
                m.setTopic(original);
        }
        m.setProperty(name, now);
    }
}

bool ConsumeService::prepareInPlace(std::vector<MessageExt> &msgs) const
{
    for (const MessageExt &m : msgs) {
        if (m.topic() == m_consumer.m_retryTopic
            || m.properties().contains(MC::ConsumeStartTimestamp))
            return false;
    }
    prepareForListener(msgs);
    return true;
}

void ConsumeService::undoPrepareInPlace(MessageExt &msg)
{
    msg.removeProperty(MC::ConsumeStartTimestamp);
}

bool ConsumeService::runListener(
    const std::function<void()> &call, const char *listener, const char *then) const
{
    const QByteArray &group = m_consumer.m_options.group;
    try {
        call();
        return true;
    } catch (const std::exception &e) {
        qCWarning(
            lcConsumer, "%s: the %s threw (%s): %s", group.constData(), listener, e.what(), then);
    } catch (...) {
        qCWarning(lcConsumer, "%s: the %s threw: %s", group.constData(), listener, then);
    }
    return false;
}

namespace {

/// Java skips messages a producer marked TRACE_ON=false.
bool traced(const MessageExt &m)
{
    return m.property(MC::TraceSwitch) != "false";
}

} // namespace

QByteArray ConsumeService::traceBefore(const std::vector<MessageExt> &msgs) const
{
    TraceDispatcher *trace = m_consumer.m_trace.get();
    if (!trace)
        return {};
    QByteArray requestId;
    const std::int64_t now = currentTimeMillis();
    for (const MessageExt &m : msgs) {
        if (!traced(m) || trace->isTraceTopic(m.topic()))
            continue;
        if (requestId.isEmpty())
            requestId = TraceDispatcher::newRequestId();
        protocol::trace::TraceRecord r;
        r.type = protocol::trace::TraceType::SubBefore;
        r.timestamp = now;
        r.regionId = m.property(MC::MsgRegion);
        r.groupName = m_consumer.m_options.group;
        r.requestId = requestId;
        r.topic = m.topic();
        r.msgId = m.msgId();
        r.tags = m.tags();
        r.keys = m.keys();
        r.bodyLength = m.storeSize();
        r.retryTimes = m.reconsumeTimes();
        (void)trace->append(std::move(r));
    }
    return requestId;
}

void ConsumeService::traceAfter(const std::vector<MessageExt> &msgs, const QByteArray &requestId,
    std::int64_t costMs, bool success, int returnType) const
{
    TraceDispatcher *trace = m_consumer.m_trace.get();
    if (!trace || requestId.isEmpty())
        return;
    std::size_t count = 0;
    for (const MessageExt &m : msgs)
        count += traced(m) && !trace->isTraceTopic(m.topic()) ? 1 : 0;
    if (count == 0)
        return;
    const std::int64_t now = currentTimeMillis();
    for (const MessageExt &m : msgs) {
        if (!traced(m) || trace->isTraceTopic(m.topic()))
            continue;
        protocol::trace::TraceRecord r;
        r.type = protocol::trace::TraceType::SubAfter;
        r.timestamp = now;
        r.regionId = m.property(MC::MsgRegion);
        r.groupName = m_consumer.m_options.group;
        r.requestId = requestId;
        r.costTime = static_cast<int>(costMs / static_cast<std::int64_t>(count));
        r.success = success;
        r.contextCode = returnType;
        r.topic = m.topic();
        r.msgId = m.msgId();
        r.keys = m.keys();
        (void)trace->append(std::move(r));
    }
}

QByteArray ConsumeService::consumeMessageDirectly(const MessageExt &msg)
{
    std::vector<MessageExt> msgs {msg};
    prepareForListener(msgs);
    const auto t0 = std::chrono::steady_clock::now();
    QByteArray result = "CR_SUCCESS";
    QByteArray remark;
    try {
        result = consumeDirectly(msgs, msg.messageQueue()) ? "CR_SUCCESS" : "CR_LATER";
    } catch (const std::exception &e) {
        result = "CR_THROW_EXCEPTION";
        remark = e.what();
    }
    const auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - t0)
                           .count();
    protocol::JsonWriter w;
    w.beginObject();
    w.key("autoCommit").value(true);
    w.key("consumeResult").value(result);
    w.key("order").value(orderly());
    w.key("remark").value(remark);
    w.key("spentTimeMills").value(static_cast<std::int64_t>(spent));
    w.endObject();
    return w.take();
}

} // namespace qrocket::client
