// AdminProcessor: RocketMQ 5's replication status requests, GET_BROKER_HA_STATUS (907) and
// GET_BROKER_EPOCH_CACHE (1007), bodies in clientlib/protocol/bodies/habodies.h.
//
// HA status: a master lists its connected slaves (acknowledged offset, the gap to its commit-log
// end, in sync while that gap is below haSlaveFallbehindMax, RocketMQ's haMaxGapNotInSync, and
// where its next transfer starts); a slave describes its replication client. QRocket measures no
// transfer rate: transferredByteInSecond is 0. masterFlushOffset is 0 (QRocket's slaves keep no
// master flush offset).
//
// Epoch cache: in controller mode the broker's epoch history, each entry's endOffset the next
// entry's start (the last one open: Long.MAX_VALUE, which RocketMQ's mqadmin replaces with
// maxOffset when it prints); outside controller mode, unlike RocketMQ 5 (SYSTEM_ERROR "this
// request only for controllerMode"), an empty list, so that tools can ask any broker. In
// controller mode QRocket adds the master and SyncStateSet of the election record the broker
// last saw (habodies.h), what the console's election view shows.

#include "broker/common/brokercontext.h"
#include "broker/config/brokerconfig.h"
#include "broker/ha/haclient.h"
#include "broker/ha/haservice.h"
#include "broker/processors/admincommon.h"
#include "broker/processors/adminprocessor.h"
#include "clientlib/protocol/bodies/habodies.h"
#include "storage/messagestore.h"

namespace qrocket::broker {

using protocol::RemotingCommand;

RemotingCommand AdminProcessor::haStatus(const RemotingCommand &request)
{
    protocol::HARuntimeInfo info;
    const std::int64_t end = m_ctx.store->commitLogMaxOffset();
    info.master = m_ctx.config->isMaster();
    if (info.master) {
        info.masterCommitLogMaxOffset = end;
        if (const ha::HAService *ha = m_ctx.haService) {
            const std::int64_t gapNotInSync = m_ctx.store->config().haSlaveFallbehindMax;
            for (const ha::HAService::SlaveState &s : ha->slaves()) {
                protocol::HAConnectionRuntimeInfo c;
                c.addr = s.address;
                c.slaveAckOffset = std::max<std::int64_t>(0, s.ackOffset);
                c.diff = end - c.slaveAckOffset;
                c.inSync = s.ackOffset >= 0 && c.diff < gapNotInSync;
                c.transferFromWhere = std::max<std::int64_t>(0, s.sentOffset);
                info.inSyncSlaveNums += c.inSync ? 1 : 0;
                info.haConnectionInfo.push_back(std::move(c));
            }
        }
    } else {
        protocol::HAClientRuntimeInfo &c = info.haClientRuntimeInfo;
        c.maxOffset = end;
        if (const ha::HAClient *client = m_ctx.haClient) {
            c.masterAddr = client->masterAddress();
            c.lastReadTimestamp = client->lastReadTimestamp();
            c.lastWriteTimestamp = client->lastWriteTimestamp();
        }
    }
    RemotingCommand response = makeResponse(request, toInt(ResponseCode::Success));
    response.body = info.toJson();
    return response;
}

RemotingCommand AdminProcessor::epochCache(const RemotingCommand &request)
{
    protocol::EpochEntryCache cache;
    cache.clusterName = m_ctx.config->brokerClusterName.toUtf8();
    cache.brokerName = m_ctx.config->brokerName.toUtf8();
    cache.brokerId = m_ctx.config->brokerId;
    cache.maxOffset = m_ctx.store->commitLogMaxOffset();
    if (m_ctx.epochHistory) {
        const auto history = m_ctx.epochHistory();
        for (std::size_t i = 0; i < history.size(); ++i) {
            protocol::EpochEntryInfo e;
            e.epoch = static_cast<int>(history[i].first);
            e.startOffset = history[i].second;
            if (i + 1 < history.size())
                e.endOffset = history[i + 1].second;
            cache.epochList.push_back(e);
        }
    }
    if (m_ctx.electionState)
        std::tie(cache.masterAddr, cache.syncStateSet) = m_ctx.electionState();
    RemotingCommand response = makeResponse(request, toInt(ResponseCode::Success));
    response.body = cache.toJson();
    return response;
}

} // namespace qrocket::broker
