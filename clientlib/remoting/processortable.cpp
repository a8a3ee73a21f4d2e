#include "clientlib/remoting/processortable.h"

#include "clientlib/remoting/logging.h"

#include <exception>
#include <mutex>
#include <utility>

namespace qrocket::remoting {

namespace {

struct ReplyTo
{
    int opaque = 0;
    protocol::SerializeType serializeType = protocol::SerializeType::Json;
    bool oneway = false;
    int requestCode = 0;

    static ReplyTo of(const RemotingCommand &request)
    {
        return {request.opaque, request.serializeType, request.isOneway(), request.code};
    }
};

void replyError(const ChannelPtr &channel, const ReplyTo &to, int code, QByteArray remark)
{
    if (to.oneway)
        return;
    RemotingCommand response;
    response.code = code;
    response.opaque = to.opaque;
    response.serializeType = to.serializeType;
    response.remark = std::move(remark);
    response.markResponse();
    channel->send(std::move(response));
}

void runProcessor(const RequestProcessorPtr &processor, const RequestGuardPtr &guard,
    const ChannelPtr &channel, RemotingCommand request, Responder respond)
{
    const ReplyTo to = ReplyTo::of(request);
    if (guard) {
        std::optional<RequestGuard::Refusal> refused;
        try {
            refused = guard->check(*channel, request);
        } catch (...) {
            refused = RequestGuard::Refusal {
                toInt(ResponseCode::SystemError), QByteArrayLiteral("request check failed")};
        }
        if (refused) {
            // Through the Responder: it answers in the request's opaque and serialize type (not
            // at all for a oneway request) and gives back the request's in-flight slot.
            RemotingCommand response;
            response.code = refused->code;
            response.remark = std::move(refused->remark);
            respond(std::move(response));
            return;
        }
    }
    try {
        processor->processRequest(channel, std::move(request), std::move(respond));
    } catch (const std::exception &e) {
        static LogRateLimiter limiter;
        if (limiter.allow()) {
            qCWarning(lcRemoting, "processor for code %d from %s threw: %s", to.requestCode,
                channel->remoteAddress().constData(), e.what());
        }
        replyError(channel, to, toInt(ResponseCode::SystemError), QByteArray(e.what()));
    } catch (...) {
        replyError(channel, to, toInt(ResponseCode::SystemError),
            QByteArrayLiteral("unknown exception in request processor"));
    }
}

} // namespace

void ProcessorTable::registerProcessor(
    int requestCode, RequestProcessorPtr processor, ExecutorPtr executor)
{
    std::unique_lock lock(m_mutex);
    m_entries[requestCode] = Entry {std::move(processor), std::move(executor), {}};
}

void ProcessorTable::setDefaultProcessor(RequestProcessorPtr processor, ExecutorPtr executor)
{
    std::unique_lock lock(m_mutex);
    m_default = Entry {std::move(processor), std::move(executor), {}};
}

ProcessorTable::Entry ProcessorTable::lookup(int requestCode) const
{
    std::shared_lock lock(m_mutex);
    const auto it = m_entries.find(requestCode);
    Entry entry = it != m_entries.end() ? it->second : m_default;
    entry.guard = m_guard;
    return entry;
}

void ProcessorTable::setRequestGuard(RequestGuardPtr guard)
{
    std::unique_lock lock(m_mutex);
    m_guard = std::move(guard);
}

void Responder::operator()(RemotingCommand response) const
{
    if (m_sink) {
        m_sink(std::move(response));
        return;
    }
    if (!m_channel)
        return; // a oneway request's: nobody waits for an answer
    response.opaque = m_opaque;
    response.serializeType = m_serializeType;
    response.flag &= ~RemotingCommand::kFlagOneway;
    response.markResponse();
    m_channel->send(std::move(response));
    releaseSlot();
}

Responder ProcessorTable::makeResponder(const ChannelPtr &channel, const RemotingCommand &request)
{
    if (request.isOneway())
        return Responder();
    return Responder(channel, request.opaque, request.serializeType, true);
}

void ProcessorTable::dispatch(const ChannelPtr &channel, RemotingCommand request) const
{
    const Entry entry = lookup(request.code);
    const ReplyTo to = ReplyTo::of(request);
    // Made first: it holds the request's in-flight slot (requestprocessor.h) on every path below,
    // the early answers included, and releases it however the request ends.
    Responder respond = makeResponder(channel, request);
    if (!entry.processor) {
        static LogRateLimiter limiter;
        if (limiter.allow()) {
            qCWarning(lcRemoting, "request code %d from %s not supported", request.code,
                channel->remoteAddress().constData());
        }
        replyError(channel, to, toInt(ResponseCode::RequestCodeNotSupported),
            " request type " + QByteArray::number(request.code) + " not supported");
        return;
    }
    bool reject = false;
    try {
        reject = entry.processor->rejectRequest();
    } catch (...) {
        reject = true;
    }
    if (reject) {
        replyError(channel, to, toInt(ResponseCode::SystemBusy),
            QByteArrayLiteral("[REJECTREQUEST]system busy, start flow control for a while"));
        return;
    }
    bool inlineRun = !entry.executor;
    if (!inlineRun) {
        try {
            inlineRun = entry.processor->runsInline(request);
        } catch (...) {
            inlineRun = false;
        }
    }
    if (inlineRun) {
        runProcessor(entry.processor, entry.guard, channel, std::move(request), std::move(respond));
        return;
    }
    // A request decoded by a server shares its connection's receive buffer
    // (decodeFrameSharingBody); one that waits in a queue gets a body of its own, so that the
    // buffer is not kept for it.
    if (!request.body.isEmpty() && !request.body.isDetached())
        request.body = QByteArray(request.body.constData(), request.body.size());
    const bool queued = entry.executor->tryExecute(
        [processor = entry.processor, guard = entry.guard, channel, request = std::move(request),
            respond = std::move(respond)]() mutable {
            runProcessor(processor, guard, channel, std::move(request), std::move(respond));
        });
    if (!queued) {
        static LogRateLimiter limiter;
        if (limiter.allow()) {
            qCWarning(lcRemoting, "executor full, request code %d from %s rejected", to.requestCode,
                channel->remoteAddress().constData());
        }
        replyError(channel, to, toInt(ResponseCode::SystemBusy),
            QByteArrayLiteral("[OVERLOAD]system busy, start flow control for a while"));
    }
}

} // namespace qrocket::remoting
