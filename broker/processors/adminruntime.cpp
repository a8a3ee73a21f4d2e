// AdminProcessor: broker runtime and store requests (28, 202, 329, 306, the store-files
// extension), protocol.md §4.9.

#include "broker/common/brokercontext.h"
#include "broker/common/logging.h"
#include "broker/config/brokerconfig.h"
#include "broker/ha/haclient.h"
#include "broker/ha/haservice.h"
#include "broker/managers/brokerstats.h"
#include "broker/managers/topicconfigmanager.h"
#include "broker/processors/admincommon.h"
#include "broker/processors/adminprocessor.h"
#include "broker/schedule/schedulemessageservice.h"
#include "broker/timer/timermessagestore.h"
#include "clientlib/protocol/bodies/runtimebodies.h"
#include "clientlib/remoting/metricswriter.h"
#include "clientlib/remoting/remotingserver.h"
#include "storage/messagestore.h"

#include <QDateTime>

#include <cmath>

namespace qrocket::broker {

using protocol::RemotingCommand;

namespace {

/// QRocket's keys for the remoting limits (both listen ports together).
void remotingLimitsInfo(
    const remoting::RemotingServerStats &r, std::vector<std::pair<QByteArray, QByteArray>> &t)
{
    t.emplace_back("remotingConnections", QByteArray::number(r.connections));
    t.emplace_back("remotingRefusedMaxConnections", QByteArray::number(r.refusedMaxConnections));
    t.emplace_back("remotingRefusedMaxConnectionsPerAddress",
        QByteArray::number(r.refusedMaxConnectionsPerAddress));
    t.emplace_back("remotingPendingInputBytes", QByteArray::number(r.pendingInputBytes));
    t.emplace_back("remotingClosedPendingInputBudget", QByteArray::number(r.closedInputBudget));
    t.emplace_back("remotingClosedFrameTimeout", QByteArray::number(r.closedFrameTimeout));
    t.emplace_back("remotingClosedIdle", QByteArray::number(r.closedIdle));
    t.emplace_back("remotingClosedUnsentCap", QByteArray::number(r.closedUnsentCap));
    t.emplace_back("remotingInflightPauses", QByteArray::number(r.inflightPauses));
    t.emplace_back("remotingTlsConnections", QByteArray::number(r.tlsConnections));
    t.emplace_back("remotingClosedPlainRefused", QByteArray::number(r.closedPlainRefused));
    t.emplace_back("remotingClosedTlsFailed", QByteArray::number(r.closedTlsFailed));
    t.emplace_back("remotingTlsReloads", QByteArray::number(r.tlsReloads));
}

/// RocketMQ's MixAll.humanReadableByteCount(bytes, false): "512 B", "1.5 KiB", "252.0 GiB".
QByteArray humanBytes(std::int64_t bytes)
{
    if (bytes < 1024)
        return QByteArray::number(bytes) + QByteArrayLiteral(" B");
    const int exp
        = std::min(6, static_cast<int>(std::log(static_cast<double>(bytes)) / std::log(1024.0)));
    const char prefix = "KMGTPE"[exp - 1];
    return QByteArray::number(static_cast<double>(bytes) / std::pow(1024.0, exp), 'f', 1) + ' '
        + prefix + QByteArrayLiteral("iB");
}

QByteArray runtimeText(std::int64_t millis)
{
    const std::int64_t s = std::max<std::int64_t>(millis, 0) / 1000;
    return QByteArrayLiteral("[ ") + QByteArray::number(s / 86400) + QByteArrayLiteral(" days, ")
        + QByteArray::number(s / 3600 % 24) + QByteArrayLiteral(" hours, ")
        + QByteArray::number(s / 60 % 60) + QByteArrayLiteral(" minutes, ")
        + QByteArray::number(s % 60) + QByteArrayLiteral(" seconds ]");
}

} // namespace

RemotingCommand AdminProcessor::brokerRuntimeInfo(const RemotingCommand &request)
{
    // The keys of RocketMQ 4.9's AdminBrokerProcessor.prepareRuntimeInfo() and
    // DefaultMessageStore.getRuntimeInfo(), from the same sources where QRocket has them.
    const storage::MessageStore &store = *m_ctx.store;
    const storage::StoreStats st = store.stats();
    const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
    const QString commitLogDir = store.config().commitLogDir();
    // The disk figures are the store's one measure (storage/diskspace.h), as its clean service
    // last took it: the ratios it compared with its marks, and the diskFull they decided.
    const storage::DiskMeasure disk = store.diskMeasure();
    const storage::DiskSpace rootDisk = store.diskSpace(store.config().storePathRootDir);
    const QByteArray zero = QByteArrayLiteral("0");
    // StoreStatsService prints 1 put when there was none (it divides by it).
    const std::int64_t putTimes = std::max<std::int64_t>(st.putMessageTotal, 1);

    std::vector<std::pair<QByteArray, QByteArray>> t {
        {"brokerVersionDesc", "V4_9_7"},
        {"brokerVersion", QByteArray::number(protocol::kQRocketVersion)},
        {"bootTimestamp", QByteArray::number(m_bootTimestamp)},
        {"runtime", runtimeText(now - m_bootTimestamp)},
        {"msgPutTotalTodayNow", QByteArray::number(st.putMessageTotal)},
        {"msgGetTotalTodayNow", QByteArray::number(st.getMessageTotal)},
        {"putMessageTimesTotal", QByteArray::number(putTimes)},
        {"putMessageSizeTotal", QByteArray::number(st.putBytesTotal)},
        {"putMessageAverageSize",
            BrokerStats::javaDouble(
                static_cast<double>(st.putBytesTotal) / static_cast<double>(putTimes))},
        // Measured inside the store's put, which does not expose them (yet).
        {"putMessageEntireTimeMax", zero},
        {"putMessageFailedTimes", zero},
        {"putMessageDistributeTime", "null"},
        {"putLatency99", "0.00"},
        {"putLatency999", "0.00"},
        {"pageCacheLockTimeMills", zero},
        // Never set in RocketMQ 4.9 either.
        {"dispatchMaxBuffer", zero},
        {"dispatchBehindBytes", QByteArray::number(st.dispatchBehindBytes)},
        {"earliestMessageTimeStamp", QByteArray::number(store.earliestMessageTime())},
        {"startAcceptSendRequestTimeStamp",
            QByteArray::number(m_ctx.config->startAcceptSendRequestTimeStamp)},
        // No transient store pool: RocketMQ prints Integer.MAX_VALUE then.
        {"remainTransientStoreBufferNumbs", "2147483647"},
        {"remainHowManyDataToFlush", humanBytes(st.flushBacklogBytes)},
        {"commitLogMinOffset", QByteArray::number(st.commitLogMinOffset)},
        {"commitLogMaxOffset", QByteArray::number(st.commitLogMaxOffset)},
        // QRocket additions (ignored by RocketMQ's tools).
        {"diskFull", st.diskFull ? "true" : "false"},
        {"storeFileCount", QByteArray::number(static_cast<qsizetype>(st.commitLogFiles.size()))},
    };
    // QRocket: the broker process's resident memory now and at its peak (-1: unknown).
    const remoting::ProcessMemory memory = remoting::readProcessMemory();
    t.emplace_back("processRssBytes", QByteArray::number(memory.rssBytes));
    t.emplace_back("processPeakRssBytes", QByteArray::number(memory.peakRssBytes));
    // RocketMQ leaves the key out when storePathRootDir does not exist (nothing to measure).
    if (rootDisk.isKnown())
        t.emplace_back("commitLogDirCapacity",
            QByteArrayLiteral("Total : ") + humanBytes(rootDisk.total)
                + QByteArrayLiteral(", Free : ") + humanBytes(rootDisk.available) + '.');
    // QRocket: while writes are refused, why: the partition, its measured ratio and the mark
    // that decided (RocketMQ has no key for its disk-full flag; the log line says the same).
    if (st.diskFull && !st.refuseReason.isEmpty())
        t.emplace_back("diskFullReason", st.refuseReason.toUtf8());
    const QByteArray commitLogRatio = BrokerStats::javaDouble(disk.commitLogRatio());
    t.emplace_back("commitLogDiskRatio", commitLogRatio);
    t.emplace_back(
        QByteArrayLiteral("commitLogDiskRatio_") + commitLogDir.toUtf8(), commitLogRatio);
    t.emplace_back("consumeQueueDiskRatio", BrokerStats::javaDouble(disk.consumeQueueRatio()));
    // QRocket: the consume queues' mapped files (maxMappedConsumeQueueFiles, mappingcache.h):
    // mapped now, the cap, uses that found the mapping, mappings made (misses) and released.
    const storage::MappingCache::Stats cq = store.consumeQueueMappings().stats();
    t.emplace_back("consumeQueueMappedFiles", QByteArray::number(cq.mapped));
    t.emplace_back("consumeQueueMappedFilesMax", QByteArray::number(cq.capacity));
    t.emplace_back("consumeQueueMappingHits", QByteArray::number(cq.hits));
    t.emplace_back("consumeQueueMappingMisses", QByteArray::number(cq.maps));
    t.emplace_back("consumeQueueMappingEvictions", QByteArray::number(cq.releases));
    if (m_ctx.stats) {
        for (auto &kv : m_ctx.stats->runtimeInfo())
            t.push_back(std::move(kv));
    }
    if (m_ctx.schedule) {
        for (auto &kv : m_ctx.schedule->runtimeInfo())
            t.push_back(std::move(kv));
    }
    if (m_ctx.timer) {
        for (auto &kv : m_ctx.timer->runtimeInfo())
            t.push_back(std::move(kv));
    }
    if (m_ctx.remotingStats)
        remotingLimitsInfo(m_ctx.remotingStats(), t);
    replicationInfo(t, st.commitLogMaxOffset);
    RemotingCommand response = makeResponse(request, toInt(ResponseCode::Success));
    response.body = protocol::KVTable::toJson(t);
    return response;
}

void AdminProcessor::replicationInfo(
    std::vector<std::pair<QByteArray, QByteArray>> &t, std::int64_t commitLogMaxOffset) const
{
    // RocketMQ 4.9.7's runtime info has no replication keys (its master only logs
    // slaveFallBehindMuch every minute); these are QRocket's, for the console and brokerStatus.
    t.emplace_back("brokerRole", brokerRoleName(m_ctx.config->role()));
    if (const ha::HAService *ha = m_ctx.haService) {
        const std::int64_t acked = ha->push2SlaveMaxOffset();
        t.emplace_back("haListenPort", QByteArray::number(ha->port()));
        t.emplace_back("haConnectionCount", QByteArray::number(ha->connectionCount()));
        t.emplace_back("haPush2SlaveMaxOffset", QByteArray::number(acked));
        t.emplace_back("haConnectionsRefusedByAddress", QByteArray::number(ha->refusedByAddress()));
        t.emplace_back("haConnectionsRefusedByLimit", QByteArray::number(ha->refusedByLimit()));
        t.emplace_back("haConnectionsRefusedPlain", QByteArray::number(ha->refusedPlain()));
        t.emplace_back("haTlsConnections", QByteArray::number(ha->tlsConnections()));
        t.emplace_back("slaveFallBehindMuch",
            QByteArray::number(ha->connectionCount() > 0
                    ? std::max<std::int64_t>(0, commitLogMaxOffset - acked)
                    : commitLogMaxOffset));
        // One pair of keys per connected slave: "haSlaveAckOffset_<ip:port>", "haSlaveLag_...".
        for (const ha::HAService::SlaveState &s : ha->slaves()) {
            t.emplace_back(QByteArrayLiteral("haSlaveAckOffset_") + s.address,
                QByteArray::number(s.ackOffset));
            t.emplace_back(QByteArrayLiteral("haSlaveLag_") + s.address, QByteArray::number(s.lag));
        }
    }
    if (const ha::HAClient *client = m_ctx.haClient) {
        t.emplace_back("haMasterAddress", client->masterAddress());
        t.emplace_back("haMasterConnected", client->isConnected() ? "true" : "false");
        t.emplace_back("haMasterRefused", client->isRefusingMaster() ? "true" : "false");
        t.emplace_back("haReportedOffset", QByteArray::number(client->reportedOffset()));
        t.emplace_back("haLastReadTimestamp", QByteArray::number(client->lastReadTimestamp()));
    }
}

RemotingCommand AdminProcessor::topicStatsInfo(const RemotingCommand &request)
{
    const QByteArray topic = request.extString("topic").toByteArray();
    if (topic.isEmpty())
        return makeResponse(request, toInt(ResponseCode::SystemError), missingFieldRemark("topic"));
    const std::optional<TopicConfig> config = m_ctx.topics->find(topic);
    if (!config)
        return makeResponse(request, toInt(ResponseCode::TopicNotExist),
            QByteArrayLiteral("topic[") + topic + QByteArrayLiteral("] not exist"));
    protocol::TopicStatsTable stats;
    const QByteArray name = brokerName();
    for (int i = 0; i < config->writeQueueNums; ++i) {
        protocol::TopicOffset &o = stats.offsetTable[{topic, name, i}];
        o.minOffset = std::max<std::int64_t>(m_ctx.store->minOffsetInQueue(topic, i), 0);
        o.maxOffset = std::max<std::int64_t>(m_ctx.store->maxOffsetInQueue(topic, i), 0);
        if (o.maxOffset > 0)
            o.lastUpdateTimestamp = std::max<std::int64_t>(
                m_ctx.store->messageStoreTimestamp(topic, i, o.maxOffset - 1), 0);
    }
    RemotingCommand response = makeResponse(request, toInt(ResponseCode::Success));
    response.body = stats.toJson();
    return response;
}

RemotingCommand AdminProcessor::deleteExpiredFiles(const RemotingCommand &request)
{
    // Both requests end in the clean service: the next passes delete expired commit-log files at
    // any hour, then the consume-queue and index files below the new commit-log min offset.
    m_ctx.store->cleanService().requestManualDelete();
    qCInfo(lcBroker) << "admin requested deleting expired files (code" << request.code << ")";
    return makeResponse(request, toInt(ResponseCode::Success));
}

RemotingCommand AdminProcessor::storeFiles(const RemotingCommand &request)
{
    const storage::StoreStats st = m_ctx.store->stats();
    const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
    protocol::StoreFiles body;
    body.commitLogMinOffset = st.commitLogMinOffset;
    body.commitLogMaxOffset = st.commitLogMaxOffset;
    body.diskFull = st.diskFull;
    body.diskRatio = st.diskRatio;
    body.fileReservedTimeHours = m_ctx.store->config().fileReservedTime;
    body.now = now;
    body.refuseReason = st.refuseReason.toUtf8();
    for (const storage::StoreFileStatus &f : st.commitLogFiles) {
        body.files.push_back({f.path.toUtf8(), f.size, f.lastModified,
            std::max<std::int64_t>(now - f.lastModified, 0), f.expiresAt, f.reasonKept.toUtf8()});
    }
    RemotingCommand response = makeResponse(request, toInt(ResponseCode::Success));
    response.body = body.toJson();
    return response;
}

} // namespace qrocket::broker
