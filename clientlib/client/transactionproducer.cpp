// TransactionProducer (RocketMQ's TransactionMQProducer): the half message, the local
// transaction, END_TRANSACTION, and the answers to the broker's CHECK_TRANSACTION_STATE.

#include "clientlib/client/logging.h"
#include "clientlib/client/producerimpl.h"
#include "clientlib/protocol/messageid.h"

namespace qrocket::client {

namespace MC = protocol::MessageConst;

namespace {

/// END_TRANSACTION's commitOrRollback for a local transaction's state.
std::int32_t commitOrRollback(LocalTransactionState state)
{
    switch (state) {
    case LocalTransactionState::CommitMessage:
        return protocol::SysFlag::TransactionCommit;
    case LocalTransactionState::RollbackMessage:
        return protocol::SysFlag::TransactionRollback;
    case LocalTransactionState::Unknown:
        break;
    }
    return protocol::SysFlag::TransactionNot;
}

} // namespace

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
    h.commitOrRollback = commitOrRollback(state);
    h.fromTransactionCheck = false;
    h.msgId = uniqueKey;
    h.transactionId = transactionId;
    m_instance->api().endTransactionOneway(addr, h, QByteArray());
}

void ProducerImpl::traceEndTransaction(const Message &msg, const SendResult &result,
    LocalTransactionState state, const QByteArray &brokerAddr)
{
    if (!m_trace || m_trace->isTraceTopic(msg.topic()))
        return;
    protocol::trace::TraceRecord r;
    r.type = protocol::trace::TraceType::EndTransaction;
    r.timestamp = currentTimeMillis();
    r.regionId = msg.property(MC::MsgRegion);
    if (r.regionId.isEmpty())
        r.regionId
            = result.regionId.isEmpty() ? QByteArrayLiteral("DefaultRegion") : result.regionId;
    r.groupName = m_options.group;
    r.topic = msg.topic();
    r.msgId = result.msgId;
    r.tags = msg.tags();
    r.keys = msg.keys();
    r.storeHost = brokerAddr;
    r.msgType = protocol::trace::TraceMessageType::TransCommit;
    r.transactionId = result.transactionId;
    r.transactionState = localTransactionStateName(state);
    r.fromTransactionCheck = false;
    (void)m_trace->append(std::move(r));
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
        h.commitOrRollback = commitOrRollback(state);
        h.fromTransactionCheck = true;
        const QByteArray uniq = msg.property(MC::UniqClientMessageIdKeyIdx);
        h.msgId = uniq.isEmpty() ? header.msgId : uniq;
        h.transactionId = header.transactionId;
        self->m_instance->api().endTransactionOneway(brokerAddr, h, remark);
        qCDebug(lcProducer, "transaction %s checked: %s", h.msgId.constData(),
            localTransactionStateName(state));
    });
}

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
    m_impl->traceEndTransaction(msg, result.sendResult, result.localTransactionState,
        m_impl->instance()->masterAddress(result.sendResult.messageQueue.brokerName));
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

} // namespace qrocket::client
