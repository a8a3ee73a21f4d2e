#include "clientlib/protocol/headers/transactionheaders.h"

namespace qrocket::protocol {

QROCKET_HEADER_CODEC_IMPL(EndTransactionRequestHeader,
    headerField<&EndTransactionRequestHeader::producerGroup>("producerGroup", kRequired),
    headerField<&EndTransactionRequestHeader::tranStateTableOffset>(
        "tranStateTableOffset", kRequired),
    headerField<&EndTransactionRequestHeader::commitLogOffset>("commitLogOffset", kRequired),
    headerField<&EndTransactionRequestHeader::commitOrRollback>("commitOrRollback", kRequired),
    headerField<&EndTransactionRequestHeader::fromTransactionCheck>(
        "fromTransactionCheck", kOptional),
    headerField<&EndTransactionRequestHeader::msgId>("msgId", kRequired),
    headerField<&EndTransactionRequestHeader::transactionId>("transactionId", kOptional))

QROCKET_HEADER_CODEC_IMPL(CheckTransactionStateRequestHeader,
    headerField<&CheckTransactionStateRequestHeader::tranStateTableOffset>(
        "tranStateTableOffset", kRequired),
    headerField<&CheckTransactionStateRequestHeader::commitLogOffset>("commitLogOffset", kRequired),
    headerField<&CheckTransactionStateRequestHeader::msgId>("msgId", kOptional),
    headerField<&CheckTransactionStateRequestHeader::transactionId>("transactionId", kOptional),
    headerField<&CheckTransactionStateRequestHeader::offsetMsgId>("offsetMsgId", kOptional))

} // namespace qrocket::protocol
