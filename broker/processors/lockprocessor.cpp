#include "broker/processors/lockprocessor.h"

#include "broker/managers/rebalancelockmanager.h"
#include "broker/processors/admincommon.h"
#include "clientlib/protocol/bodies/clientbodies.h"

namespace qrocket::broker {

using protocol::RemotingCommand;

void LockProcessor::processRequest(
    const remoting::ChannelPtr &, RemotingCommand request, remoting::Responder respond)
{
    RemotingCommand response = handle(request);
    if (!request.isOneway())
        respond(std::move(response));
}

RemotingCommand LockProcessor::handle(const RemotingCommand &request)
{
    if (request.code != kLockBatchMq && request.code != kUnlockBatchMq) {
        return makeResponse(request, toInt(ResponseCode::RequestCodeNotSupported),
            QByteArrayLiteral("request type ") + QByteArray::number(request.code)
                + QByteArrayLiteral(" not supported"));
    }
    if (request.body.isEmpty())
        return makeResponse(
            request, toInt(ResponseCode::SystemError), QByteArrayLiteral("empty body"));
    auto body = protocol::LockBatchRequestBody::fromJson(request.body);
    if (!body.has_value())
        return makeResponse(
            request, toInt(ResponseCode::SystemError), body.error().message().toUtf8());
    if (body->consumerGroup.isEmpty() || body->clientId.isEmpty()) {
        return makeResponse(request, toInt(ResponseCode::SystemError),
            QByteArrayLiteral("LockBatchRequestBody: consumerGroup and clientId are required"));
    }

    if (request.code == kUnlockBatchMq) {
        m_locks.unlockBatch(body->consumerGroup, body->mqSet, body->clientId);
        return makeResponse(request, toInt(ResponseCode::Success));
    }
    protocol::LockBatchResponseBody answer {
        m_locks.tryLockBatch(body->consumerGroup, body->mqSet, body->clientId)};
    RemotingCommand response = makeResponse(request, toInt(ResponseCode::Success));
    response.body = answer.toJson();
    return response;
}

} // namespace qrocket::broker
