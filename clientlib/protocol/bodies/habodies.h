#pragma once

// The replication admin bodies of RocketMQ 5 (protocol.md §4.9):
//
//   GET_BROKER_HA_STATUS (907)    HARuntimeInfo
//     {"haClientRuntimeInfo":{"lastReadTimestamp":..,"lastWriteTimestamp":..,"masterAddr":..,
//       "masterFlushOffset":..,"maxOffset":..,"transferredByteInSecond":..},
//      "haConnectionInfo":[{"addr":..,"diff":..,"inSync":..,"slaveAckOffset":..,
//       "transferFromWhere":..,"transferredByteInSecond":..}],
//      "inSyncSlaveNums":..,"master":..,"masterCommitLogMaxOffset":..}
//   GET_BROKER_EPOCH_CACHE (1007) EpochEntryCache
//     {"brokerId":..,"brokerName":..,"clusterName":..,
//      "epochList":[{"endOffset":..,"epoch":..,"startOffset":..}],"maxOffset":..}
//     QRocket extension, only in controller mode (RocketMQ's readers ignore unknown fields):
//      "masterAddr":.. (the master this replica last saw in etcd) and "syncStateSet":[..]
//      (that record's SyncStateSet, broker addresses), so the console shows elections without
//      a connection to etcd. Absent outside controller mode (the body stays RocketMQ's).
//
// Neither request has a header. The writers keep fastjson's (alphabetical) field order; the
// readers take the fields in any order and tolerate unknown ones. A master fills the
// connections, a slave the client part (RocketMQ's DefaultHAService.getRuntimeInfo). An epoch
// entry's endOffset is Long.MAX_VALUE while the epoch is open (RocketMQ's default).
//
// Plain value types: copy them, move them, use them from any thread.

#include "clientlib/common/result.h"

#include <QByteArray>
#include <QByteArrayView>

#include <cstdint>
#include <limits>
#include <vector>

namespace qrocket::protocol {

/// HARuntimeInfo.haConnectionInfo: one slave connected to a master.
struct HAConnectionRuntimeInfo
{
    QByteArray addr; // the slave's "ip:port" as the master sees it
    std::int64_t slaveAckOffset = 0;
    std::int64_t diff = 0; // the master's commit-log end - slaveAckOffset
    bool inSync = false; // diff below haMaxGapNotInSync
    std::int64_t transferredByteInSecond = 0;
    std::int64_t transferFromWhere = 0; // where the master's next transfer starts

    friend bool operator==(const HAConnectionRuntimeInfo &, const HAConnectionRuntimeInfo &)
        = default;
};

/// HARuntimeInfo.haClientRuntimeInfo: a slave's replication client.
struct HAClientRuntimeInfo
{
    QByteArray masterAddr; // the master's HA address ("ip:haPort"), empty when none
    std::int64_t transferredByteInSecond = 0;
    std::int64_t maxOffset = 0; // this slave's commit-log end
    std::int64_t lastReadTimestamp = 0; // ms since epoch
    std::int64_t lastWriteTimestamp = 0;
    std::int64_t masterFlushOffset = 0;

    friend bool operator==(const HAClientRuntimeInfo &, const HAClientRuntimeInfo &) = default;
};

struct HARuntimeInfo
{
    bool master = false;
    std::int64_t masterCommitLogMaxOffset = 0;
    int inSyncSlaveNums = 0;
    std::vector<HAConnectionRuntimeInfo> haConnectionInfo;
    HAClientRuntimeInfo haClientRuntimeInfo;

    friend bool operator==(const HARuntimeInfo &, const HARuntimeInfo &) = default;
    QByteArray toJson() const;
    static Result<HARuntimeInfo> fromJson(QByteArrayView json);
};

/// EpochEntryCache.epochList: ⟨epoch, start offset⟩ of one mastership.
struct EpochEntryInfo
{
    int epoch = 0;
    std::int64_t startOffset = 0;
    std::int64_t endOffset = std::numeric_limits<std::int64_t>::max(); // open: Long.MAX_VALUE

    friend bool operator==(const EpochEntryInfo &, const EpochEntryInfo &) = default;
    /// Java's EpochEntry.toString(): "EpochEntry{epoch=1, startOffset=0, endOffset=100}".
    QByteArray toString() const;
};

struct EpochEntryCache
{
    QByteArray clusterName;
    QByteArray brokerName;
    std::int64_t brokerId = 0;
    std::vector<EpochEntryInfo> epochList;
    std::int64_t maxOffset = 0; // the broker's commit-log end
    // QRocket extension (controller mode only; empty otherwise): the election record last seen.
    QByteArray masterAddr;
    std::vector<QByteArray> syncStateSet;

    friend bool operator==(const EpochEntryCache &, const EpochEntryCache &) = default;
    QByteArray toJson() const;
    static Result<EpochEntryCache> fromJson(QByteArrayView json);
};

} // namespace qrocket::protocol
