// TRANSACTION messages over gRPC: the stateless transaction id, the orphan-check command and
// the EndTransaction RPC (see grpctransaction.h).

#include "broker/grpc/grpctransaction.h"

#include "broker/common/brokercontext.h"
#include "broker/grpc/grpcservice.h"
#include "broker/transaction/transactionalmessage.h"
#include "clientlib/protocol/messageid.h"
#include "clientlib/protocol/requestcode.h"
#include "storage/messagestore.h"

namespace qrocket::broker::v2 {

namespace {

namespace mc = protocol::MessageConst;

constexpr QByteArrayView kIdPrefix = "T1";
constexpr qsizetype kHexDigits = 16;

void appendHex(std::string &out, std::int64_t v)
{
    static constexpr char digits[] = "0123456789abcdef";
    const auto u = static_cast<std::uint64_t>(v);
    for (int shift = 60; shift >= 0; shift -= 4)
        out.push_back(digits[(u >> shift) & 0xf]);
}

std::optional<std::int64_t> parseHex(QByteArrayView s)
{
    std::uint64_t v = 0;
    for (const char c : s) {
        int d = 0;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else
            return std::nullopt;
        v = (v << 4) | static_cast<std::uint64_t>(d);
    }
    const auto r = static_cast<std::int64_t>(v);
    if (r < 0)
        return std::nullopt;
    return r;
}

grpc::ServerUnaryReactor *finishWith(grpc::CallbackServerContext *context,
    pb::EndTransactionResponse *response, pb::Code code, std::string message)
{
    setStatus(response->mutable_status(), code, std::move(message));
    grpc::ServerUnaryReactor *reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
}

} // namespace

std::string makeTransactionId(const TransactionRef &ref)
{
    std::string id(kIdPrefix.data(), static_cast<std::size_t>(kIdPrefix.size()));
    appendHex(id, ref.commitLogOffset);
    appendHex(id, ref.queueOffset);
    return id;
}

std::optional<TransactionRef> parseTransactionId(QByteArrayView id)
{
    if (id.size() != kIdPrefix.size() + 2 * kHexDigits || !id.startsWith(kIdPrefix))
        return std::nullopt;
    const auto clo = parseHex(id.sliced(kIdPrefix.size(), kHexDigits));
    const auto qo = parseHex(id.sliced(kIdPrefix.size() + kHexDigits, kHexDigits));
    if (!clo || !qo)
        return std::nullopt;
    return TransactionRef {*clo, *qo};
}

std::string transactionIdOfSend(const protocol::RemotingCommand &response)
{
    const QByteArray *msgId = response.ext("msgId");
    const auto queueOffset = response.extLong("queueOffset");
    if (!msgId || !queueOffset || msgId->contains(','))
        return {};
    const auto decoded = protocol::decodeOffsetMessageId(*msgId);
    if (!decoded)
        return {};
    return makeTransactionId(TransactionRef {decoded.value().commitLogOffset, *queueOffset});
}

bool recoverCommandOf(const protocol::RemotingCommand &request, pb::TelemetryCommand &out)
{
    if (request.code != toInt(protocol::RequestCode::CheckTransactionState))
        return false;
    const auto clo = request.extLong("commitLogOffset");
    const auto qo = request.extLong("tranStateTableOffset");
    if (!clo || !qo)
        return false;
    protocol::MessageRecordView v;
    const auto d = protocol::decodeRecord(QByteArrayView(request.body), v, false);
    if (d.status != protocol::RecordStatus::Ok)
        return false;
    pb::RecoverOrphanedTransactionCommand *cmd = out.mutable_recover_orphaned_transaction_command();
    fillMessage(cmd->mutable_message(), v, {});
    cmd->set_transaction_id(makeTransactionId(TransactionRef {*clo, *qo}));
    return true;
}

grpc::ServerUnaryReactor *MessagingServiceImpl::EndTransaction(grpc::CallbackServerContext *context,
    const pb::EndTransactionRequest *request, pb::EndTransactionResponse *response)
{
    const QByteArray topic = fromStd(request->topic().name());
    if (topic.isEmpty())
        return finishWith(context, response, pb::ILLEGAL_TOPIC, "topic name cannot be empty");
    if (request->transaction_id().empty())
        return finishWith(
            context, response, pb::INVALID_TRANSACTION_ID, "transaction id cannot be empty");
    const std::optional<TransactionRef> ref
        = parseTransactionId(QByteArrayView(request->transaction_id()));
    if (!ref)
        return finishWith(context, response, pb::INVALID_TRANSACTION_ID,
            "malformed transaction id: " + request->transaction_id());
    // The half message the id names must be this message of this topic (END_TRANSACTION itself
    // checks the producer group and the offsets, not which message it resolves).
    std::optional<transaction::HalfMessage> half;
    if (const storage::SelectedRecord sel = m_ctx.store->lookMessageByOffset(ref->commitLogOffset);
        sel.isValid())
        half = transaction::HalfMessage::decode(sel.bytes);
    if (!half || half->inner.topic != transaction::kHalfTopic
        || half->queueOffset != ref->queueOffset || half->commitLogOffset != ref->commitLogOffset
        || half->properties.value(mc::UniqClientMessageIdKeyIdx) != fromStd(request->message_id())
        || half->properties.value(mc::RealTopic) != topic)
        return finishWith(
            context, response, pb::INVALID_TRANSACTION_ID, "cannot found transaction data");
    int commitOrRollback = 0;
    switch (request->resolution()) {
    case pb::COMMIT:
        commitOrRollback = protocol::SysFlag::TransactionCommit;
        break;
    case pb::ROLLBACK:
        commitOrRollback = protocol::SysFlag::TransactionRollback;
        break;
    default:
        // UNKNOWN: the broker keeps the half message and checks it again; nothing to send.
        return finishWith(context, response, pb::OK, "OK");
    }
    RemotingCommand req
        = RemotingCommand::createRequest(toInt(protocol::RequestCode::EndTransaction));
    req.setExt(QByteArrayLiteral("producerGroup"), topic); // as the proxy: the topic
    req.setExt(QByteArrayLiteral("tranStateTableOffset"), ref->queueOffset);
    req.setExt(QByteArrayLiteral("commitLogOffset"), ref->commitLogOffset);
    req.setExt(QByteArrayLiteral("commitOrRollback"), std::int64_t {commitOrRollback});
    req.setExtBool(
        QByteArrayLiteral("fromTransactionCheck"), request->source() == pb::SOURCE_SERVER_CHECK);
    req.setExt(QByteArrayLiteral("msgId"), fromStd(request->message_id()));
    req.setExt(QByteArrayLiteral("transactionId"), fromStd(request->transaction_id()));
    grpc::ServerUnaryReactor *reactor = context->DefaultReactor();
    invoke(callerOf(context), std::move(req), m_options.requestTimeoutMs,
        [reactor, response](RemotingCommand r) {
            if (r.code == 0)
                setStatus(response->mutable_status(), pb::OK, "OK");
            else
                setStatus(response->mutable_status(), codeOfRemoting(r.code),
                    r.remark.isEmpty() ? std::string(pb::Code_Name(codeOfRemoting(r.code)))
                                       : toStd(r.remark));
            reactor->Finish(grpc::Status::OK);
        });
    return reactor;
}

} // namespace qrocket::broker::v2
