#pragma once

// Rebuilds the send dedup window (SendDedupTable) from what the commit log holds, so that the
// window survives a restart, a crash (kill -9: recovery has cut the torn tail before this runs)
// and a switch to a replica with the same commit log. Reads the tail of the commit log that
// covers the window: from the last file whose first record is older than the window's start,
// every record stored within the window, in commit-log order (the first record of a key wins, as
// the first attempt did when it was live).
//
// What a record is keyed by is what the send path keys it by: its UNIQ_KEY under the topic the
// producer named (REAL_TOPIC for a delayed, timer or half (prepared) message, which are parked
// in a system topic), with the queue id the producer's reply named (REAL_QID for those) and the
// record's own queue offset, commit-log offset and store host (the msgId the first reply
// carried, also on a replica whose own address differs). %RETRY% and %DLQ% topics are left out
// (the send path does not deduplicate them: the same message goes there once per reconsume).
// A transaction's COMMIT record is also keyed under commitDedupTopic(), as END_TRANSACTION keys
// it, so that a repeated commit of the same half stays one message after a restart too.

#include "broker/dedup/senddeduptable.h"

namespace qrocket::storage {
class MessageStore;
}

namespace qrocket::broker {

struct SendDedupRebuild
{
    std::int64_t scannedRecords = 0;
    std::int64_t keys = 0; // inserted into the table
    std::int64_t fromOffset = 0; // where the scan started
    std::int64_t toOffset = 0; // where it ended
};

/// Call after the store is open (recovered) and before sends are accepted. `nowMs`: the window's
/// clock (ms since the epoch).
SendDedupRebuild rebuildSendDedup(SendDedupTable &table, const storage::MessageStore &store,
    std::int64_t nowMs, const SendDedupTable::Limits &limits);

/// Whether sends to `topic` are deduplicated at all (not %RETRY%/%DLQ%, not empty).
bool isDedupTopic(QByteArrayView topic);

/// Where END_TRANSACTION's COMMIT of a message of `topic` is keyed: apart from the sends of
/// `topic` (where its half message is keyed), under a name no topic can have (':').
QByteArray commitDedupTopic(QByteArrayView topic);

} // namespace qrocket::broker
