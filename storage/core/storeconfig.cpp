#include "storage/core/storeconfig.h"

#include "clientlib/common/addresspattern.h"
#include "clientlib/common/properties.h"

#include <QDir>

namespace qrocket::storage {

MessageStoreConfig::MessageStoreConfig()
    : storePathRootDir(QDir::homePath() + QStringLiteral("/store"))
{ }

QString MessageStoreConfig::commitLogDir() const
{
    return storePathCommitLog.isEmpty() ? storePathRootDir + QStringLiteral("/commitlog")
                                        : storePathCommitLog;
}

QString MessageStoreConfig::consumeQueueDir() const
{
    return storePathRootDir + QStringLiteral("/consumequeue");
}

QString MessageStoreConfig::indexDir() const
{
    return storePathRootDir + QStringLiteral("/index");
}
QString MessageStoreConfig::checkpointPath() const
{
    return storePathRootDir + QStringLiteral("/checkpoint");
}
QString MessageStoreConfig::abortPath() const
{
    return storePathRootDir + QStringLiteral("/abort");
}
QString MessageStoreConfig::lockPath() const
{
    return storePathRootDir + QStringLiteral("/lock");
}
QString MessageStoreConfig::deletedTopicsPath() const
{
    return storePathRootDir + QStringLiteral("/deletedTopics");
}

void MessageStoreConfig::bind(ConfigSchema &s)
{
    s.add("storePathRootDir", &storePathRootDir, true);
    s.add("storePathCommitLog", &storePathCommitLog, true);
    s.add("mappedFileSizeCommitLog", &mappedFileSizeCommitLog, true);
    s.add("mappedFileSizeConsumeQueue", &mappedFileSizeConsumeQueue);
    s.add("maxHashSlotNum", &maxHashSlotNum);
    s.add("enableLmq", &enableLmq);
    s.add("enableMultiDispatch", &enableMultiDispatch);
    s.add("maxLmqConsumeQueueNum", &maxLmqConsumeQueueNum);
    s.add("maxMappedConsumeQueueFiles", &maxMappedConsumeQueueFiles, true);
    s.add("maxIndexNum", &maxIndexNum);
    s.add("messageIndexEnable", &messageIndexEnable);
    s.add("messageIndexSafe", &messageIndexSafe);
    s.add("flushDiskType", &flushDiskType, true);
    s.add("brokerRole", &brokerRole, true);
    s.add("flushIntervalCommitLog", &flushIntervalCommitLog);
    s.add("flushCommitLogLeastPages", &flushCommitLogLeastPages);
    s.add("flushCommitLogThoroughInterval", &flushCommitLogThoroughInterval);
    s.add("flushIntervalConsumeQueue", &flushIntervalConsumeQueue);
    s.add("flushConsumeQueueLeastPages", &flushConsumeQueueLeastPages);
    s.add("flushConsumeQueueThoroughInterval", &flushConsumeQueueThoroughInterval);
    s.add("syncFlushTimeout", &syncFlushTimeout);
    s.add("osPageCacheBusyTimeOutMills", &osPageCacheBusyTimeOutMills);
    s.add("maxMessageSize", &maxMessageSize, true);
    s.add("checkCRCOnRecover", &checkCRCOnRecover);
    s.add("recoverConsumeQueuesInBackground", &recoverConsumeQueuesInBackground);
    s.add("warmMapedFileEnable", &warmMapedFileEnable);
    s.add("fileReservedTime", &fileReservedTime, true);
    s.add("deleteWhen", &deleteWhen, true);
    s.add("diskMaxUsedSpaceRatio", &diskMaxUsedSpaceRatio, true);
    s.add("diskSpaceCleanForciblyRatio", &diskSpaceCleanForciblyRatio);
    s.add("diskSpaceWarningLevelRatio", &diskSpaceWarningLevelRatio);
    s.add("cleanFileForciblyEnable", &cleanFileForciblyEnable);
    s.add("cleanResourceInterval", &cleanResourceInterval);
    s.add("deleteCommitLogFilesInterval", &deleteCommitLogFilesInterval);
    s.add("destroyMapedFileIntervalForcibly", &destroyMapedFileIntervalForcibly);
    s.add("deleteFileBatchMax", &deleteFileBatchMax);
    s.add("maxTransferBytesOnMessageInMemory", &maxTransferBytesOnMessageInMemory);
    s.add("maxTransferCountOnMessageInMemory", &maxTransferCountOnMessageInMemory);
    s.add("maxTransferBytesOnMessageInDisk", &maxTransferBytesOnMessageInDisk);
    s.add("maxTransferCountOnMessageInDisk", &maxTransferCountOnMessageInDisk);
    s.add("accessMessageInMemoryMaxRatio", &accessMessageInMemoryMaxRatio);
    s.add("offsetCheckInSlave", &offsetCheckInSlave);
    s.add("defaultQueryMaxNum", &defaultQueryMaxNum);
    s.add("messageDelayLevel", &messageDelayLevel);
    s.add("timerWheelEnable", &timerWheelEnable);
    s.add("timerPrecisionMs", &timerPrecisionMs, true);
    s.add("timerMaxDelaySec", &timerMaxDelaySec, true);
    s.add("timerFlushIntervalMs", &timerFlushIntervalMs);
    s.add("mappedFileSizeTimerLog", &mappedFileSizeTimerLog);
    s.add("haListenPort", &haListenPort);
    s.add("haSendHeartbeatInterval", &haSendHeartbeatInterval);
    s.add("haHousekeepingInterval", &haHousekeepingInterval);
    s.add("haTransferBatchSize", &haTransferBatchSize);
    s.add("haMasterAddress", &haMasterAddress, true);
    s.add("haSlaveFallbehindMax", &haSlaveFallbehindMax);
    s.add("haAllowedAddresses", &haAllowedAddresses, true);
    s.add("haMaxConnections", &haMaxConnections);
    s.add("allAckInSyncStateSet", &allAckInSyncStateSet);
    s.add("inSyncReplicas", &inSyncReplicas);
    s.add("minInSyncReplicas", &minInSyncReplicas);
    s.add("haMaxTimeSlaveNotCatchup", &haMaxTimeSlaveNotCatchup);
    s.add("syncFromLastFile", &syncFromLastFile);
}

int MessageStoreConfig::normalizedTimerPrecisionMs() const
{
    for (int candidate : {1000, 500, 200}) {
        if (timerPrecisionMs >= candidate)
            return candidate;
    }
    return 100;
}

QList<int> MessageStoreConfig::deleteHours() const
{
    QList<int> hours;
    for (const QString &part : deleteWhen.split(u';', Qt::SkipEmptyParts)) {
        bool ok = false;
        const int h = part.trimmed().toInt(&ok);
        if (!ok || h < 0 || h > 23)
            return {};
        hours.append(h);
    }
    return hours;
}

QList<std::int64_t> MessageStoreConfig::delayLevelMillis() const
{
    QList<std::int64_t> out;
    for (const QString &part : messageDelayLevel.split(u' ', Qt::SkipEmptyParts)) {
        if (part.size() < 2)
            return {};
        const QChar unit = part.back();
        bool ok = false;
        const std::int64_t n = part.left(part.size() - 1).toLongLong(&ok);
        if (!ok || n < 0)
            return {};
        std::int64_t mult = 0;
        if (unit == u's')
            mult = 1000;
        else if (unit == u'm')
            mult = 60 * 1000;
        else if (unit == u'h')
            mult = 3600 * 1000;
        else if (unit == u'd')
            mult = 24 * 3600 * 1000;
        else
            return {};
        out.append(n * mult);
    }
    return out;
}

Status MessageStoreConfig::validate() const
{
    auto bad = [](const QString &what) { return Status::invalidArgument(what); };
    if (storePathRootDir.isEmpty())
        return bad(QStringLiteral("storePathRootDir is empty"));
    if (mappedFileSizeCommitLog < 4096 || mappedFileSizeCommitLog > (1LL << 31) - 1)
        return bad(QStringLiteral("mappedFileSizeCommitLog %1 must be between 4096 and 2^31-1")
                       .arg(mappedFileSizeCommitLog));
    if (mappedFileSizeConsumeQueue < 20 || mappedFileSizeConsumeQueue % 20 != 0)
        return bad(QStringLiteral("mappedFileSizeConsumeQueue %1 must be a positive multiple of 20")
                       .arg(mappedFileSizeConsumeQueue));
    if (maxMappedConsumeQueueFiles < 0)
        return bad(
            QStringLiteral("maxMappedConsumeQueueFiles %1 must be 0 (from ulimit -n) or more")
                .arg(maxMappedConsumeQueueFiles));
    if (maxHashSlotNum < 1 || maxIndexNum < 2)
        return bad(QStringLiteral("maxHashSlotNum/maxIndexNum must be positive"));
    if (flushDiskType != QLatin1String("ASYNC_FLUSH")
        && flushDiskType != QLatin1String("SYNC_FLUSH"))
        return bad(QStringLiteral("flushDiskType '%1' must be ASYNC_FLUSH or SYNC_FLUSH")
                       .arg(flushDiskType));
    if (brokerRole != QLatin1String("ASYNC_MASTER") && brokerRole != QLatin1String("SYNC_MASTER")
        && brokerRole != QLatin1String("SLAVE"))
        return bad(QStringLiteral("brokerRole '%1' must be ASYNC_MASTER, SYNC_MASTER or SLAVE")
                       .arg(brokerRole));
    if (timerMaxDelaySec < 1 || timerMaxDelaySec > 3650 * 24 * 3600)
        return bad(QStringLiteral("timerMaxDelaySec %1 must be between 1 and 10 years")
                       .arg(timerMaxDelaySec));
    if (mappedFileSizeTimerLog < 4096)
        return bad(QStringLiteral("mappedFileSizeTimerLog %1 must be at least 4096")
                       .arg(mappedFileSizeTimerLog));
    if (maxMessageSize < 256 || maxMessageSize > 64 * 1024 * 1024)
        return bad(QStringLiteral("maxMessageSize %1 out of range").arg(maxMessageSize));
    if (maxMessageSize >= mappedFileSizeCommitLog)
        return bad(
            QStringLiteral("mappedFileSizeCommitLog %1 cannot hold a maximum-size message (%2)")
                .arg(mappedFileSizeCommitLog)
                .arg(maxMessageSize));
    if (deleteHours().isEmpty() && !deleteWhen.trimmed().isEmpty())
        return bad(
            QStringLiteral("deleteWhen '%1' must be ';'-separated hours 0-23").arg(deleteWhen));
    if (delayLevelMillis().isEmpty())
        return bad(QStringLiteral("messageDelayLevel '%1' is malformed").arg(messageDelayLevel));
    for (int r : {diskMaxUsedSpaceRatio, diskSpaceCleanForciblyRatio, diskSpaceWarningLevelRatio})
        if (r < 10 || r > 99)
            return bad(QStringLiteral("disk ratios must be between 10 and 99 (got %1)").arg(r));
    if (fileReservedTime < 0 || syncFlushTimeout < 1 || flushIntervalCommitLog < 1
        || flushIntervalConsumeQueue < 1 || cleanResourceInterval < 1)
        return bad(QStringLiteral("intervals and fileReservedTime must be positive"));
    if (haListenPort < 0 || haListenPort > 65535)
        return bad(QStringLiteral("haListenPort %1 out of range (0..65535)").arg(haListenPort));
    if (haSendHeartbeatInterval < 1 || haHousekeepingInterval < 1)
        return bad(
            QStringLiteral("haSendHeartbeatInterval/haHousekeepingInterval must be positive"));
    if (haHousekeepingInterval <= haSendHeartbeatInterval)
        return bad(QStringLiteral("haHousekeepingInterval %1 must exceed haSendHeartbeatInterval "
                                  "%2 (an idle connection would be dropped between heartbeats)")
                       .arg(haHousekeepingInterval)
                       .arg(haSendHeartbeatInterval));
    if (haTransferBatchSize < 1024 || haTransferBatchSize > 16 * 1024 * 1024)
        return bad(QStringLiteral("haTransferBatchSize %1 out of range (1024..16777216)")
                       .arg(haTransferBatchSize));
    if (haSlaveFallbehindMax < 1)
        return bad(QStringLiteral("haSlaveFallbehindMax must be positive"));
    if (const auto patterns = AddressPattern::parseList(haAllowedAddresses); !patterns)
        return bad(QStringLiteral("haAllowedAddresses: %1").arg(patterns.error().message()));
    if (haMaxConnections < 1 || haMaxConnections > 4096)
        return bad(
            QStringLiteral("haMaxConnections %1 out of range (1..4096)").arg(haMaxConnections));
    if (inSyncReplicas < 1 || inSyncReplicas > 16)
        return bad(QStringLiteral("inSyncReplicas %1 out of range (1..16)").arg(inSyncReplicas));
    if (minInSyncReplicas < 1 || minInSyncReplicas > 16)
        return bad(
            QStringLiteral("minInSyncReplicas %1 out of range (1..16)").arg(minInSyncReplicas));
    if (haMaxTimeSlaveNotCatchup < 500)
        return bad(QStringLiteral("haMaxTimeSlaveNotCatchup %1 ms is below 500")
                       .arg(haMaxTimeSlaveNotCatchup));
    if (!haMasterAddress.isEmpty()) {
        const qsizetype colon = haMasterAddress.lastIndexOf(u':');
        bool ok = false;
        const int port = colon > 0 ? haMasterAddress.mid(colon + 1).toInt(&ok) : 0;
        if (!ok || port <= 0 || port > 65535)
            return bad(
                QStringLiteral("haMasterAddress '%1' is not host:port").arg(haMasterAddress));
    }
    return {};
}

} // namespace qrocket::storage
