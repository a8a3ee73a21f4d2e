#pragma once

// TRANSACTION messages over gRPC, as RocketMQ 5.3's proxy serves them, without its in-memory
// transaction table: the transaction_id SendMessage returns is stateless, "T1" + the half
// record's commit-log offset + its half-queue offset (16 hex digits each), exactly what
// END_TRANSACTION needs; the orphan check rebuilds the same form from CHECK_TRANSACTION_STATE's
// offsets. EndTransaction verifies the half message at those offsets (a half record whose
// UNIQ_KEY is the request's message id and whose real topic is the request's topic) before it
// dispatches END_TRANSACTION, so a forged or stale id answers INVALID_TRANSACTION_ID and never
// resolves another message. Pure functions, thread-safe.

#include "broker/grpc/grpcconvert.h"
#include "clientlib/protocol/remotingcommand.h"

#include <QByteArray>
#include <QByteArrayView>

#include <apache/rocketmq/v2/service.pb.h>
#include <cstdint>
#include <optional>

namespace qrocket::broker::v2 {

struct TransactionRef
{
    std::int64_t commitLogOffset = 0;
    std::int64_t queueOffset = 0; // in the half queue (END_TRANSACTION's tranStateTableOffset)
};

std::string makeTransactionId(const TransactionRef &ref);
/// nullopt unless `id` is exactly what makeTransactionId() writes.
std::optional<TransactionRef> parseTransactionId(QByteArrayView id);
/// The id for a SEND_MESSAGE answer of a half message: the offset msgId's commit-log offset and
/// the answer's queue offset; empty when the answer does not carry them.
std::string transactionIdOfSend(const protocol::RemotingCommand &response);
/// CHECK_TRANSACTION_STATE -> TelemetryCommand{recover_orphaned_transaction_command}; false
/// for any other request or one that does not decode.
bool recoverCommandOf(const protocol::RemotingCommand &request, pb::TelemetryCommand &out);

} // namespace qrocket::broker::v2
