#include "broker/transaction/endtransactionprocessor.h"

#include "broker/common/brokercodes.h"
#include "broker/common/brokercontext.h"
#include "broker/common/logging.h"
#include "broker/config/brokerconfig.h"
#include "broker/transaction/transactionalmessageservice.h"

namespace qrocket::broker {

void EndTransactionProcessor::processRequest(const remoting::ChannelPtr &channel,
    remoting::RemotingCommand request, remoting::Responder respond)
{
    const bool oneway = request.isOneway();
    const auto answer = [&](int code, QByteArray remark) {
        if (!oneway)
            respond(makeReply(request, code, std::move(remark)));
    };
    // decodeCommandCustomHeader: the @CFNotNull fields first.
    for (const char *field :
        {"producerGroup", "tranStateTableOffset", "commitLogOffset", "commitOrRollback", "msgId"}) {
        if (!request.hasExt(QByteArrayView(field))) {
            answer(toInt(ResponseCode::SystemError),
                "the custom field <" + QByteArray(field) + "> is null");
            return;
        }
    }
    EndTransactionHeader header;
    header.producerGroup = *request.ext("producerGroup");
    const auto tranStateTableOffset = request.extLong("tranStateTableOffset");
    const auto commitLogOffset = request.extLong("commitLogOffset");
    const auto commitOrRollback = request.extInt("commitOrRollback");
    if (!tranStateTableOffset || !commitLogOffset || !commitOrRollback) {
        answer(toInt(ResponseCode::SystemError), "decode END_TRANSACTION header failed");
        return;
    }
    header.tranStateTableOffset = *tranStateTableOffset;
    header.commitLogOffset = *commitLogOffset;
    header.commitOrRollback = *commitOrRollback;
    header.fromTransactionCheck = request.extBool("fromTransactionCheck").value_or(false);
    header.msgId = *request.ext("msgId");
    if (const QByteArray *tid = request.ext("transactionId"))
        header.transactionId = *tid;

    if (!m_ctx.config->isMaster() || m_ctx.config->brokerRole == QLatin1String("SLAVE")) {
        qCWarning(lcBroker) << "transaction: slave broker, END_TRANSACTION refused";
        answer(toInt(ResponseCode::SlaveNotAvailable), {});
        return;
    }
    switch (header.commitOrRollback) {
    case protocol::SysFlag::TransactionCommit:
    case protocol::SysFlag::TransactionRollback:
        break;
    case protocol::SysFlag::TransactionNot:
        if (header.fromTransactionCheck)
            qCInfo(lcBroker).noquote()
                << "transaction: check answered UNKNOW by" << channel->remoteAddress()
                << "for msgId" << header.msgId << request.remark;
        return;
    default:
        return;
    }
    if (header.commitOrRollback == protocol::SysFlag::TransactionRollback
        || header.fromTransactionCheck)
        qCInfo(lcBroker).noquote()
            << "transaction:" << channel->remoteAddress()
            << (header.commitOrRollback == protocol::SysFlag::TransactionCommit ? "commits"
                                                                                : "rolls back")
            << "msgId" << header.msgId << (header.fromTransactionCheck ? "(from check)" : "");
    const TransactionalMessageService::Answer result = m_service.endTransaction(header);
    answer(result.code, result.remark);
}

} // namespace qrocket::broker
