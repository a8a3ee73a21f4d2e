#pragma once

// Transaction headers (protocol.md §4.6).
// Wire names are the Java field names; `!` fields are required when decoding.

#include "clientlib/protocol/headers/headercodec.h"

namespace qrocket::protocol {

/// END_TRANSACTION (37), oneway. commitOrRollback: 0 unknown, 8 commit, 12 rollback.
struct EndTransactionRequestHeader
{
    QByteArray producerGroup; // required
    std::int64_t tranStateTableOffset = 0; // required
    std::int64_t commitLogOffset = 0; // required
    std::int32_t commitOrRollback = 0; // required
    bool fromTransactionCheck = false;
    QByteArray msgId; // required
    QByteArray transactionId;

    QROCKET_HEADER_CODEC(EndTransactionRequestHeader);
};

/// CHECK_TRANSACTION_STATE (39), broker to producer, oneway; body is the half message.
struct CheckTransactionStateRequestHeader
{
    std::int64_t tranStateTableOffset = 0; // required
    std::int64_t commitLogOffset = 0; // required
    QByteArray msgId;
    QByteArray transactionId;
    QByteArray offsetMsgId;

    QROCKET_HEADER_CODEC(CheckTransactionStateRequestHeader);
};

} // namespace qrocket::protocol
