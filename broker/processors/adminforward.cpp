// AdminProcessor: requests forwarded to a consumer (307 GET_CONSUMER_RUNNING_INFO, 309
// CONSUME_MESSAGE_DIRECTLY), protocol.md §4.9, §4.10.

#include "broker/common/brokercontext.h"
#include "broker/common/logging.h"
#include "broker/config/brokerconfig.h"
#include "broker/managers/consumermanager.h"
#include "broker/processors/admincommon.h"
#include "broker/processors/adminprocessor.h"
#include "clientlib/protocol/messageid.h"
#include "storage/messagestore.h"

namespace qrocket::broker {

using protocol::RemotingCommand;

void AdminProcessor::forwardToConsumer(const RemotingCommand &request, remoting::Responder respond)
{
    const QByteArray group = request.extString("consumerGroup").toByteArray();
    const QByteArray clientId = request.extString("clientId").toByteArray();
    if (group.isEmpty() || clientId.isEmpty()) {
        respond(makeResponse(request, toInt(ResponseCode::SystemError),
            missingFieldRemark(group.isEmpty() ? "consumerGroup" : "clientId")));
        return;
    }
    const remoting::ChannelPtr channel
        = m_ctx.consumers ? m_ctx.consumers->findChannel(group, clientId) : nullptr;
    if (!channel || !channel->isActive()) {
        respond(makeResponse(request, toInt(ResponseCode::SystemError),
            QByteArrayLiteral("The Consumer <") + clientId + QByteArrayLiteral("> not online")));
        return;
    }

    RemotingCommand forward = RemotingCommand::createRequest(request.code);
    forward.extFields = request.extFields;
    forward.body = request.body;
    forward.remark = request.remark;
    if (request.code == toInt(RequestCode::ConsumeMessageDirectly) && m_ctx.store) {
        // The client consumes the message the broker attaches (looked up by its offset msgId).
        if (auto id = protocol::decodeOffsetMessageId(request.extString("msgId")); id.has_value()) {
            const storage::SelectedRecord sel
                = m_ctx.store->lookMessageByOffset(id.value().commitLogOffset);
            if (sel.isValid())
                forward.body = sel.bytes.toByteArray();
        }
        if (m_ctx.config)
            forward.setExt(QByteArrayLiteral("brokerName"), m_ctx.config->brokerName.toUtf8());
    }

    channel->invokeAsync(std::move(forward), kForwardTimeoutMillis,
        [request, respond = std::move(respond), clientId](Result<RemotingCommand> result) {
            if (result.has_value()) {
                const RemotingCommand &answer = result.value();
                RemotingCommand response = makeResponse(request, answer.code, answer.remark);
                response.extFields = answer.extFields;
                response.body = answer.body;
                respond(std::move(response));
                return;
            }
            if (result.error().code() == Status::Code::Timeout) {
                respond(makeResponse(request, toInt(ResponseCode::ConsumeMsgTimeout),
                    QByteArrayLiteral("consumer <") + clientId + QByteArrayLiteral("> timeout")));
                return;
            }
            respond(makeResponse(request, toInt(ResponseCode::SystemError),
                QByteArrayLiteral("invoke consumer <") + clientId + QByteArrayLiteral("> failed: ")
                    + result.error().message().toUtf8()));
        });
}

} // namespace qrocket::broker
