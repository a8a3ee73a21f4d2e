#include "broker/processors/replymessageprocessor.h"

#include "broker/common/brokercodes.h"
#include "broker/common/brokercontext.h"
#include "broker/common/logging.h"
#include "broker/config/brokerconfig.h"
#include "broker/managers/producermanager.h"
#include "broker/managers/topicconfigmanager.h"
#include "broker/processors/sendmessageprocessor.h"
#include "broker/processors/sendproperties.h"
#include "broker/stats/brokerstatsmanager.h"
#include "clientlib/protocol/headers/sendheaders.h"
#include "clientlib/protocol/messageid.h"
#include "clientlib/protocol/messageproperties.h"
#include "storage/messagestore.h"

#include <QDateTime>

#include <memory>

namespace qrocket::broker {

using protocol::RemotingCommand;
using protocol::SendMessageRequestHeader;
using storage::MessageExtBrokerInner;
using storage::PutMessageResult;
using storage::PutMessageStatus;
namespace mc = protocol::MessageConst;

namespace {

/// Java's InetSocketAddress.toString() of a resolved literal address: "/ip:port".
QByteArray javaSocketAddress(const QByteArray &hostPort)
{
    return '/' + hostPort;
}

bool putSucceeded(PutMessageStatus s)
{
    return s == PutMessageStatus::PutOk || s == PutMessageStatus::FlushDiskTimeout
        || s == PutMessageStatus::FlushSlaveTimeout || s == PutMessageStatus::SlaveNotAvailable;
}

/// What the reply request carries beyond SendRequestHeader: whether the optional
/// reconsumeTimes / unitMode were present (RocketMQ forwards them as sent, null included).
const QByteArray *optionalField(
    const RemotingCommand &request, bool v2, const char *v1Name, const char *v2Name)
{
    return request.ext(QByteArrayView(v2 ? v2Name : v1Name));
}

/// The state one reply carries from the push to the store to the answer.
struct ReplyState
{
    RemotingCommand request; // for opaque and the answer's shape
    remoting::Responder respond;
    MessageExtBrokerInner msg;
    int queueId = 0;
    bool pushOk = false;
    QByteArray pushRemark;
};

} // namespace

void ReplyMessageProcessor::processRequest(
    const remoting::ChannelPtr &channel, RemotingCommand request, remoting::Responder respond)
{
    const BrokerConfig &config = *m_ctx.config;
    const bool v2 = request.code == toInt(RequestCode::SendReplyMessageV2);

    // Every answer carries the region and trace switch, as RocketMQ sets them first.
    auto answer = [&config](const RemotingCommand &req, int code, QByteArray remark) {
        RemotingCommand r = makeReply(req, code, std::move(remark));
        r.setExt(QByteArrayLiteral("MSG_REGION"), config.regionId.toUtf8());
        r.setExt(QByteArrayLiteral("TRACE_ON"),
            config.traceOn ? QByteArrayLiteral("true") : QByteArrayLiteral("false"));
        return r;
    };

    // The send header decoder picks the key set by request code (V2 for SEND_REPLY_MESSAGE_V2).
    QByteArray error;
    std::optional<SendMessageRequestHeader> header
        = SendMessageRequestHeader::decodeSend(request, &error);
    if (!header) {
        respond(makeReply(request, toInt(ResponseCode::SystemError), error));
        return;
    }

    const int requestedQueueId = header->queueId; // the push forwards it as sent (-1 included)
    TopicConfig topicConfig;
    if (auto refusal = SendMessageProcessor::msgCheck(m_ctx, channel, *header, topicConfig)) {
        if (refusal->code == toInt(ResponseCode::TopicNotExist))
            refusal->remark += "\nSee http://rocketmq.apache.org/docs/faq/ for further details.";
        respond(answer(request, refusal->code, std::move(refusal->remark)));
        return;
    }

    auto state = std::make_shared<ReplyState>();
    state->queueId = header->queueId; // msgCheck chose one when it was negative
    MessageExtBrokerInner &msg = state->msg;
    msg.topic = header->topic;
    msg.queueId = state->queueId;
    msg.body = request.body;
    msg.flag = header->flag;
    msg.properties = header->properties;
    const QByteArrayView wait = protocol::findProperty(msg.properties, mc::WaitStoreMsgOk);
    msg.waitStoreMsgOk = wait.isNull() || wait.compare("false", Qt::CaseInsensitive) != 0;
    msg.bornTimestamp = header->bornTimestamp;
    channel->remoteHost(msg.bornHost);
    msg.storeHost = m_ctx.storeHostAddress;
    msg.reconsumeTimes = header->reconsumeTimes.value_or(0);

    // PUSH_REPLY_MESSAGE_TO_CLIENT: RocketMQ's ReplyMessageRequestHeader.
    RemotingCommand push
        = RemotingCommand::createRequest(toInt(RequestCode::PushReplyMessageToClient));
    push.setExt(QByteArrayLiteral("bornHost"), javaSocketAddress(channel->remoteAddress()));
    push.setExt(QByteArrayLiteral("storeHost"), javaSocketAddress(m_ctx.storeHost));
    push.setExt(QByteArrayLiteral("storeTimestamp"), QDateTime::currentMSecsSinceEpoch());
    push.setExt(QByteArrayLiteral("producerGroup"), header->producerGroup);
    push.setExt(QByteArrayLiteral("topic"), header->topic);
    push.setExt(QByteArrayLiteral("defaultTopic"), header->defaultTopic);
    push.setExt(QByteArrayLiteral("defaultTopicQueueNums"), header->defaultTopicQueueNums);
    push.setExt(QByteArrayLiteral("queueId"), requestedQueueId);
    push.setExt(QByteArrayLiteral("sysFlag"), header->sysFlag);
    push.setExt(QByteArrayLiteral("bornTimestamp"), header->bornTimestamp);
    push.setExt(QByteArrayLiteral("flag"), header->flag);
    if (const QByteArray *reconsume = optionalField(request, v2, "reconsumeTimes", "j"))
        push.setExt(QByteArrayLiteral("reconsumeTimes"), *reconsume);
    if (const QByteArray *unit = optionalField(request, v2, "unitMode", "k"))
        push.setExt(QByteArrayLiteral("unitMode"), *unit);
    push.body = request.body;

    RemotingCommand base = answer(request, toInt(ResponseCode::SystemError), {});
    state->request = std::move(base);
    state->respond = std::move(respond);

    // After the push: store (when enabled), then answer.
    auto finish = [ctx = &m_ctx](const std::shared_ptr<ReplyState> &s) {
        auto reply = [ctx](const std::shared_ptr<ReplyState> &st, const PutMessageResult *put) {
            RemotingCommand r = st->request; // the response shell: opaque, region, trace
            r.code = st->pushOk ? toInt(ResponseCode::Success) : toInt(ResponseCode::SystemError);
            r.remark = st->pushOk ? QByteArray() : st->pushRemark;
            QByteArray msgId;
            std::int64_t queueOffset = 0;
            const bool stored = put && putSucceeded(put->status);
            if (stored) {
                if (ctx->statsManager)
                    ctx->statsManager->onPut(st->msg.topic, put->msgNum, put->wroteBytes);
                msgId = protocol::encodeOffsetMessageId(ctx->storeHostAddress, put->wroteOffset);
                queueOffset = put->queueOffset;
            } else if (put) {
                qCWarning(lcBroker) << "reply message not stored:" << put->remark;
            }
            if (st->pushOk || stored) {
                r.setExt(QByteArrayLiteral("msgId"), stored ? msgId : QByteArrayLiteral("0"));
                r.setExt(QByteArrayLiteral("queueId"), st->queueId);
                r.setExt(QByteArrayLiteral("queueOffset"), queueOffset);
            }
            st->respond(std::move(r));
        };
        if (!ctx->config->storeReplyMessageEnable) {
            reply(s, nullptr);
            return;
        }
        ctx->store->putMessage(s->msg, [s, reply](const PutMessageResult &r) { reply(s, &r); });
    };

    const QByteArrayView senderView = protocol::findProperty(msg.properties, mc::ReplyToClient);
    if (senderView.isNull()) {
        qCWarning(lcBroker) << "REPLY_TO_CLIENT is null, can not reply message";
        state->pushRemark = QByteArrayLiteral("reply message properties[REPLY_TO_CLIENT] is null");
        finish(state);
        return;
    }
    const QByteArray senderId = senderView.toByteArray();
    const remoting::ChannelPtr requester
        = m_ctx.producers ? m_ctx.producers->findChannel(senderId) : nullptr;
    if (!requester || !requester->isActive()) {
        state->pushRemark = "push reply message fail, channel of <" + senderId + "> not found.";
        qCWarning(lcBroker) << state->pushRemark;
        finish(state);
        return;
    }
    // The pushed properties gain PUSH_REPLY_TIME; the stored ones stay as sent.
    QByteArray pushTime = mc::PushReplyTime.toByteArray();
    pushTime += protocol::kNameValueSeparator;
    pushTime += QByteArray::number(QDateTime::currentMSecsSinceEpoch());
    push.setExt(QByteArrayLiteral("properties"),
        protocol::replaceProperties(msg.properties, {mc::PushReplyTime}, pushTime));
    requester->invokeAsync(std::move(push), kPushTimeoutMillis,
        [state, finish, senderId](Result<RemotingCommand> result) {
            if (result.has_value() && result.value().code == toInt(ResponseCode::Success)) {
                state->pushOk = true;
            } else {
                state->pushRemark = "push reply message to " + senderId + "fail.";
                qCWarning(lcBroker) << "push reply message to" << senderId << "failed:"
                                    << (result.has_value() ? result.value().remark
                                                           : result.error().message().toUtf8());
            }
            finish(state);
        });
}

} // namespace qrocket::broker
