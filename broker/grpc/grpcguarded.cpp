#include "broker/grpc/grpcguarded.h"

#include "clientlib/protocol/popcodes.h"

#include <memory>

namespace qrocket::broker::v2 {

namespace {

template<class Response>
grpc::ServerUnaryReactor *refuse(
    grpc::CallbackServerContext *context, Response *response, std::string why)
{
    setStatus(response->mutable_status(), pb::UNAUTHORIZED, std::move(why));
    grpc::ServerUnaryReactor *reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
}

/// A stream refused at its start: one message carrying the status, then the end.
template<class Base, class Message>
class RefusedStream final : public Base
{
public:
    explicit RefusedStream(std::string why)
    {
        setStatus(m_message.mutable_status(), pb::UNAUTHORIZED, std::move(why));
        this->StartWrite(&m_message);
    }
    void OnWriteDone(bool) override { this->Finish(grpc::Status::OK); }
    void OnDone() override { delete this; }

private:
    Message m_message;
};

} // namespace

#define QROCKET_GUARDED_UNARY(Rpc)                                                                 \
    grpc::ServerUnaryReactor *GuardedMessagingService::Rpc(grpc::CallbackServerContext *context,   \
        const pb::Rpc##Request *request, pb::Rpc##Response *response)                              \
    {                                                                                              \
        if (std::optional<std::string> no = m_auth.authenticate(context))                          \
            return refuse(context, response, std::move(*no));                                      \
        return m_inner.Rpc(context, request, response);                                            \
    }

QROCKET_GUARDED_UNARY(QueryRoute)
QROCKET_GUARDED_UNARY(Heartbeat)
QROCKET_GUARDED_UNARY(SendMessage)
QROCKET_GUARDED_UNARY(AckMessage)
QROCKET_GUARDED_UNARY(ForwardMessageToDeadLetterQueue)
QROCKET_GUARDED_UNARY(UpdateOffset)
QROCKET_GUARDED_UNARY(GetOffset)
QROCKET_GUARDED_UNARY(QueryOffset)
QROCKET_GUARDED_UNARY(EndTransaction)
QROCKET_GUARDED_UNARY(NotifyClientTermination)
QROCKET_GUARDED_UNARY(ChangeInvisibleDuration)
QROCKET_GUARDED_UNARY(RecallMessage)

#undef QROCKET_GUARDED_UNARY

grpc::ServerUnaryReactor *GuardedMessagingService::QueryAssignment(
    grpc::CallbackServerContext *context, const pb::QueryAssignmentRequest *request,
    pb::QueryAssignmentResponse *response)
{
    if (std::optional<std::string> no = m_auth.authenticate(context))
        return refuse(context, response, std::move(*no));
    // Consuming the topic as the group (RocketMQ 5.3: topic SUB, group SUB), put to the guard
    // as the POP it stands for.
    RemotingCommand probe = RemotingCommand::createRequest(protocol::popcode::PopMessage);
    probe.setExt(QByteArrayLiteral("topic"), fromStd(request->topic().name()));
    probe.setExt(QByteArrayLiteral("consumerGroup"), fromStd(request->group().name()));
    const Caller caller = m_inner.callerOf(context);
    if (std::optional<QByteArray> no = m_auth.authorize(*caller.channel, caller.credential, probe))
        return refuse(context, response, toStd(*no));
    return m_inner.QueryAssignment(context, request, response);
}

grpc::ServerWriteReactor<pb::ReceiveMessageResponse> *GuardedMessagingService::ReceiveMessage(
    grpc::CallbackServerContext *context, const pb::ReceiveMessageRequest *request)
{
    if (std::optional<std::string> no = m_auth.authenticate(context))
        return new RefusedStream<grpc::ServerWriteReactor<pb::ReceiveMessageResponse>,
            pb::ReceiveMessageResponse>(std::move(*no));
    return m_inner.ReceiveMessage(context, request);
}

grpc::ServerBidiReactor<pb::TelemetryCommand, pb::TelemetryCommand> *
GuardedMessagingService::Telemetry(grpc::CallbackServerContext *context)
{
    if (std::optional<std::string> no = m_auth.authenticate(context))
        return new RefusedStream<
            grpc::ServerBidiReactor<pb::TelemetryCommand, pb::TelemetryCommand>,
            pb::TelemetryCommand>(std::move(*no));
    return m_inner.Telemetry(context);
}

} // namespace qrocket::broker::v2
