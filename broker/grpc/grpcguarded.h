#pragma once

// GuardedMessagingService: the MessagingService the gRPC server registers when aclEnable=true.
// Each RPC is authenticated first (GrpcAuth::authenticate, grpcauth.h); a refused one is answered
// with status UNAUTHORIZED in its response (a ReceiveMessage stream: one response with it; a
// Telemetry stream: one command with it, then the stream ends), as RocketMQ 5.3's proxy answers;
// an accepted one goes to MessagingServiceImpl's handler, whose internal requests are then
// authorized one by one (MessagingServiceImpl::invoke). QueryAssignment is authorized here (it
// makes no internal request). With ACL off the server registers MessagingServiceImpl itself.

#include "broker/grpc/grpcauth.h"
#include "broker/grpc/grpcservice.h"

namespace qrocket::broker::v2 {

class GuardedMessagingService final : public pb::MessagingService::CallbackService
{
public:
    GuardedMessagingService(MessagingServiceImpl &inner, const GrpcAuth &auth)
        : m_inner(inner), m_auth(auth)
    { }

    grpc::ServerUnaryReactor *QueryRoute(grpc::CallbackServerContext *context,
        const pb::QueryRouteRequest *request, pb::QueryRouteResponse *response) override;
    grpc::ServerUnaryReactor *Heartbeat(grpc::CallbackServerContext *context,
        const pb::HeartbeatRequest *request, pb::HeartbeatResponse *response) override;
    grpc::ServerUnaryReactor *SendMessage(grpc::CallbackServerContext *context,
        const pb::SendMessageRequest *request, pb::SendMessageResponse *response) override;
    grpc::ServerUnaryReactor *QueryAssignment(grpc::CallbackServerContext *context,
        const pb::QueryAssignmentRequest *request, pb::QueryAssignmentResponse *response) override;
    grpc::ServerWriteReactor<pb::ReceiveMessageResponse> *ReceiveMessage(
        grpc::CallbackServerContext *context, const pb::ReceiveMessageRequest *request) override;
    grpc::ServerUnaryReactor *AckMessage(grpc::CallbackServerContext *context,
        const pb::AckMessageRequest *request, pb::AckMessageResponse *response) override;
    grpc::ServerUnaryReactor *ForwardMessageToDeadLetterQueue(grpc::CallbackServerContext *context,
        const pb::ForwardMessageToDeadLetterQueueRequest *request,
        pb::ForwardMessageToDeadLetterQueueResponse *response) override;
    grpc::ServerUnaryReactor *UpdateOffset(grpc::CallbackServerContext *context,
        const pb::UpdateOffsetRequest *request, pb::UpdateOffsetResponse *response) override;
    grpc::ServerUnaryReactor *GetOffset(grpc::CallbackServerContext *context,
        const pb::GetOffsetRequest *request, pb::GetOffsetResponse *response) override;
    grpc::ServerUnaryReactor *QueryOffset(grpc::CallbackServerContext *context,
        const pb::QueryOffsetRequest *request, pb::QueryOffsetResponse *response) override;
    grpc::ServerUnaryReactor *EndTransaction(grpc::CallbackServerContext *context,
        const pb::EndTransactionRequest *request, pb::EndTransactionResponse *response) override;
    grpc::ServerBidiReactor<pb::TelemetryCommand, pb::TelemetryCommand> *Telemetry(
        grpc::CallbackServerContext *context) override;
    grpc::ServerUnaryReactor *NotifyClientTermination(grpc::CallbackServerContext *context,
        const pb::NotifyClientTerminationRequest *request,
        pb::NotifyClientTerminationResponse *response) override;
    grpc::ServerUnaryReactor *ChangeInvisibleDuration(grpc::CallbackServerContext *context,
        const pb::ChangeInvisibleDurationRequest *request,
        pb::ChangeInvisibleDurationResponse *response) override;
    grpc::ServerUnaryReactor *RecallMessage(grpc::CallbackServerContext *context,
        const pb::RecallMessageRequest *request, pb::RecallMessageResponse *response) override;

private:
    MessagingServiceImpl &m_inner;
    const GrpcAuth &m_auth;
};

} // namespace qrocket::broker::v2
