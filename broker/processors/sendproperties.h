#pragma once

// The send path's reading of a producer's properties (protocol.md §4.1). The send header itself
// is protocol::SendMessageRequestHeader (decodeSend).

#include <QByteArray>
#include <QByteArrayView>

namespace qrocket::broker {

/// What the send path reads from a producer's properties (the last value of each name, as
/// MessageDecoder's map keeps it).
struct SendProperties
{
    bool waitStoreMsgOk = true; // WAIT absent or not "false"
    bool transactionPrepared = false; // TRAN_MSG "true"
    bool hasDelay = false; // DELAY present
    int delayLevel = 0; // its value, when it parses as an int (else 0)
};

/// Rewrites a send's `props` for the store, exactly as protocol::replaceProperties(props, {WAIT,
/// CLUSTER}, clusterProperty) would (WAIT dropped, `clusterProperty` = "CLUSTER\x01<name>"
/// set), and reads what the send path needs, in one pass over the text (a send used to scan it
/// four times: WAIT, the rewrite, TRAN_MSG, DELAY).
SendProperties prepareSendProperties(QByteArray &props, QByteArrayView clusterProperty);

} // namespace qrocket::broker
