#pragma once

// MessageStoreConfig: the store's settings with RocketMQ's key names and defaults
// (org.apache.rocketmq.store.config.MessageStoreConfig, 4.9.x; the two disk ratios that 4.9 reads
// from system properties use their 5.x key names). bind() registers every key on a ConfigSchema
// so broker.conf files set them; validate() reports bad combinations as InvalidArgument.

#include "clientlib/common/status.h"

#include <QList>
#include <QString>

#include <cstdint>

namespace qrocket {
class ConfigSchema;
}

namespace qrocket::storage {

struct MessageStoreConfig
{
    QString storePathRootDir; // default: $HOME/store
    QString storePathCommitLog; // default: <root>/commitlog
    std::int64_t mappedFileSizeCommitLog = 1024LL * 1024 * 1024;
    int mappedFileSizeConsumeQueue = 300000 * 20;
    int maxHashSlotNum = 5000000;
    int maxIndexNum = 5000000 * 4;
    bool messageIndexEnable = true;
    bool messageIndexSafe = false;

    QString flushDiskType = QStringLiteral("ASYNC_FLUSH"); // or SYNC_FLUSH
    QString brokerRole = QStringLiteral("ASYNC_MASTER"); // ASYNC_MASTER, SYNC_MASTER, SLAVE
    int flushIntervalCommitLog = 500;
    int flushCommitLogLeastPages = 4;
    int flushCommitLogThoroughInterval = 10 * 1000;
    int flushIntervalConsumeQueue = 1000;
    int flushConsumeQueueLeastPages = 2;
    int flushConsumeQueueThoroughInterval = 60 * 1000;
    int syncFlushTimeout = 5 * 1000;
    int osPageCacheBusyTimeOutMills = 1000; // put lock held longer: new puts OS_PAGECACHE_BUSY

    int maxMessageSize = 4 * 1024 * 1024;
    bool checkCRCOnRecover = true;
    /// The consume queues found at start are checked after open() returns (on background
    /// threads, each at once when first used): the broker listens without waiting for
    /// 100,000s of files (messagestore.h queuesRecovered()). false: all before open() returns.
    bool recoverConsumeQueuesInBackground = true;
    bool warmMapedFileEnable = false; // pre-fault each new commit-log file in the background

    int fileReservedTime = 72; // hours
    QString deleteWhen = QStringLiteral("04");
    int diskMaxUsedSpaceRatio = 75;
    int diskSpaceCleanForciblyRatio = 85;
    int diskSpaceWarningLevelRatio = 90;
    bool cleanFileForciblyEnable = true;
    int cleanResourceInterval = 10 * 1000;
    int deleteCommitLogFilesInterval = 100;
    int destroyMapedFileIntervalForcibly = 120 * 1000;
    int deleteFileBatchMax = 10;

    int maxTransferBytesOnMessageInMemory = 256 * 1024;
    int maxTransferCountOnMessageInMemory = 32;
    int maxTransferBytesOnMessageInDisk = 64 * 1024;
    int maxTransferCountOnMessageInDisk = 8;
    int accessMessageInMemoryMaxRatio = 40;
    bool offsetCheckInSlave = false;
    int defaultQueryMaxNum = 32;

    // Replication (protocol.md §8.8). The HA server listens on haListenPort: the daemon sets it
    // to listenPort + 1 unless the file gives it (RocketMQ's BrokerStartup always does).
    int haListenPort = 10912;
    int haSendHeartbeatInterval = 5000; // slave: report the max offset at least this often
    int haHousekeepingInterval = 20000; // either side: drop a connection silent this long
    int haTransferBatchSize = 32 * 1024; // master: bytes per transfer at most
    QString haMasterAddress; // slave: "host:haPort" (else learnt from the name server)
    int haSlaveFallbehindMax = 256 * 1024 * 1024; // SYNC_MASTER: slave lag that fails puts
    // Master: the peers that may connect to the HA port, as RocketMQ ACL address patterns
    // (clientlib/common/addresspattern.h) separated by ',' or ';'. Empty: loopback and this
    // broker's brokerIP1/brokerIP2 only; "*": everyone. Others are closed at accept.
    QString haAllowedAddresses;
    int haMaxConnections = 16; // master: HA connections beyond this are closed at accept
    // Controller mode's SyncStateSet (RocketMQ 5's names; broker/controller/README.md).
    // allAckInSyncStateSet: a SYNC send is acknowledged once every replica of the set has it
    // (QRocket's default true: what makes any set member a safe next master; RocketMQ's is
    // false). false: once inSyncReplicas copies (the master's counted) exist among the set.
    bool allAckInSyncStateSet = true;
    int inSyncReplicas = 1;
    // A SYNC send is refused (SYSTEM_ERROR "in-sync replicas not enough", nothing stored) while
    // the SyncStateSet, master included, has fewer members than this.
    int minInSyncReplicas = 1;
    // A replica of the set that has not caught up with the master's log for this long (dead,
    // disconnected or lagging) is removed from the set in etcd before acknowledgements stop
    // waiting for it.
    std::int64_t haMaxTimeSlaveNotCatchup = 15000;
    // Controller mode, on the master: where a replica with an empty commit log starts copying.
    // false (RocketMQ 5's default): at the master's first byte, so every replica holds the whole
    // log and any of them can take over without consumers behind it losing messages; true: at
    // the start of the master's last file (plain master/slave mode always does this, as 4.9).
    bool syncFromLastFile = false;
    // Timer messages (RocketMQ 5's keys; broker/timer/). timerPrecisionMs is rounded down to
    // 100, 200, 500 or 1000 as RocketMQ's setter does.
    bool timerWheelEnable = true;
    int timerPrecisionMs = 1000;
    int timerMaxDelaySec = 3600 * 24 * 3;
    int timerFlushIntervalMs = 1000;
    int mappedFileSizeTimerLog = 100 * 1024 * 1024;
    /// timerPrecisionMs as RocketMQ normalizes it.
    int normalizedTimerPrecisionMs() const;
    // Light message queues (RocketMQ 4.9.3+, RIP-28; storage/core/multidispatch.h).
    bool enableLmq = false; // "%LMQ%" names are light queues: queue 0, no topic config needed
    bool enableMultiDispatch = false; // honour INNER_MULTI_DISPATCH on puts and dispatch
    int maxLmqConsumeQueueNum = 20000; // more light queues than this: multi-dispatch puts refused
    // Consume-queue files (of any topic, light or not) kept open and mapped at once; idle ones
    // beyond it are closed and mapped again when used (storage/core/mappingcache.h). 0: half of
    // the open-files limit (RLIMIT_NOFILE), between 64 and 32,768. QRocket's own key.
    int maxMappedConsumeQueueFiles = 0;
    QString messageDelayLevel
        = QStringLiteral("1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h");

    MessageStoreConfig();

    bool isSyncFlush() const { return flushDiskType == QLatin1String("SYNC_FLUSH"); }
    bool isSlave() const { return brokerRole == QLatin1String("SLAVE"); }
    bool isSyncMaster() const { return brokerRole == QLatin1String("SYNC_MASTER"); }
    QString commitLogDir() const;
    QString consumeQueueDir() const;
    QString indexDir() const;
    QString checkpointPath() const;
    QString abortPath() const;
    QString lockPath() const;
    /// Deleted topics and the commit-log offset below which their records stay unfiled.
    QString deletedTopicsPath() const;

    /// Registers every key on `schema` (fields must outlive it). Important keys are the ones
    /// `-m` prints.
    void bind(ConfigSchema &schema);
    Status validate() const;

    /// The hours of deleteWhen ("04;12" -> {4, 12}); empty when malformed.
    QList<int> deleteHours() const;
    /// Delay per level in ms (index 0 = level 1); empty when malformed.
    QList<std::int64_t> delayLevelMillis() const;
};

} // namespace qrocket::storage
