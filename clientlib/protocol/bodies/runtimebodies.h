#pragma once

// The runtime reports of the admin requests (protocol.md §4.9, extensioncode.h): what a consumer
// says about itself, the broker's stats and runtime table, QRocket's liveness and store-file
// extensions, and the config properties text. Same reading rules as adminbodies.h; the writers
// keep fastjson's (alphabetical) field order, which is also the order of QRocket's extensions.
//
//   ConsumerRunningInfo {"jstack":..,"mqTable":{MQ:ProcessQueueInfo},"properties":{..},
//                        "statusTable":{"T":ConsumeStatus},"subscriptionSet":[SubscriptionData]}
//   BrokerStatsData     {"statsDay":{"avgpt":..,"sum":..,"tps":..},"statsHour":..,"statsMinute":..}
//   BrokerRuntimeInfo   KVTable {"table":{"k":"v"}}
//   BrokerLiveness, StoreFiles: QRocket's extension bodies (extensioncode.h).
//
// Plain value types: copy them, move them, use them from any thread.

#include "clientlib/protocol/bodies/adminbodies.h"

#include <QString>

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace qrocket::protocol {

/// ConsumerRunningInfo.mqTable values: a consumer's view of one of its queues.
struct ProcessQueueInfo
{
    std::int64_t commitOffset = 0;
    std::int64_t cachedMsgMinOffset = 0;
    std::int64_t cachedMsgMaxOffset = 0;
    int cachedMsgCount = 0;
    int cachedMsgSizeInMiB = 0;
    std::int64_t transactionMsgMinOffset = 0;
    std::int64_t transactionMsgMaxOffset = 0;
    int transactionMsgCount = 0;
    bool locked = false;
    std::int64_t tryUnlockTimes = 0;
    std::int64_t lastLockTimestamp = 0;
    /// "droped" on the wire (sic).
    bool dropped = false;
    std::int64_t lastPullTimestamp = 0;
    std::int64_t lastConsumeTimestamp = 0;

    friend bool operator==(const ProcessQueueInfo &, const ProcessQueueInfo &) = default;
};

/// ConsumerRunningInfo.statusTable values: a consumer's rates for one topic.
struct ConsumeStatus
{
    double pullRT = 0;
    double pullTPS = 0;
    double consumeRT = 0;
    double consumeOKTPS = 0;
    double consumeFailedTPS = 0;
    std::int64_t consumeFailedMsgs = 0;

    friend bool operator==(const ConsumeStatus &, const ConsumeStatus &) = default;
};

/// GET_CONSUMER_RUNNING_INFO: what a consumer reports about itself.
struct ConsumerRunningInfo
{
    /// PROP_CONSUME_TYPE, PROP_CLIENT_VERSION, PROP_CONSUMER_START_TIMESTAMP, ... and the
    /// consumer's settings.
    std::map<QByteArray, QByteArray> properties;
    std::vector<SubscriptionData> subscriptionSet;
    std::map<MessageQueue, ProcessQueueInfo> mqTable;
    std::map<QByteArray, ConsumeStatus> statusTable;
    QByteArray jstack;

    /// properties["PROP_CONSUME_TYPE"] == "CONSUME_PASSIVELY" (a push consumer).
    bool isPushConsumer() const;
    /// properties["PROP_CONSUMEORDERLY"] == "true".
    bool isOrderly() const;
    friend bool operator==(const ConsumerRunningInfo &, const ConsumerRunningInfo &) = default;
    /// properties in key order; subscriptionSet in its order here (Java's TreeSet: by topic).
    QByteArray toJson() const;
    static Result<ConsumerRunningInfo> fromJson(QByteArrayView json);
};

/// VIEW_BROKER_STATS_DATA.
struct BrokerStatsItem
{
    std::int64_t sum = 0;
    double tps = 0;
    double avgpt = 0;

    friend bool operator==(const BrokerStatsItem &, const BrokerStatsItem &) = default;
};

struct BrokerStatsData
{
    BrokerStatsItem statsMinute;
    BrokerStatsItem statsHour;
    BrokerStatsItem statsDay;

    friend bool operator==(const BrokerStatsData &, const BrokerStatsData &) = default;
    QByteArray toJson() const;
    static Result<BrokerStatsData> fromJson(QByteArrayView json);
};

/// GET_BROKER_RUNTIME_INFO: the broker's KVTable, with typed reads of the keys tools show.
struct BrokerRuntimeInfo
{
    std::map<QByteArray, QByteArray> table;

    /// The value, or a null QByteArray.
    QByteArray value(QByteArrayView key) const;
    /// The value as a number ("0.23", "1292"; of a list such as "0.0 0.36 0.0", the first),
    /// or `fallback`.
    double number(QByteArrayView key, double fallback = 0) const;
    std::int64_t integer(QByteArrayView key, std::int64_t fallback = 0) const;
    /// "V4_9_7"
    QByteArray versionDesc() const { return value("brokerVersionDesc"); }
    friend bool operator==(const BrokerRuntimeInfo &, const BrokerRuntimeInfo &) = default;
    static Result<BrokerRuntimeInfo> fromJson(QByteArrayView json);
};

/// QRocket name server extension (kGetBrokerLiveness): one registered broker.
struct BrokerLivenessEntry
{
    QByteArray clusterName;
    QByteArray brokerName;
    std::int64_t brokerId = 0;
    QByteArray brokerAddr;
    QByteArray haServerAddr;
    DataVersion dataVersion;
    /// The name server's wall clock at its last registration (epoch ms).
    std::int64_t lastUpdateTimestamp = 0;
    /// Milliseconds since that registration (monotonic on the name server).
    std::int64_t ageMillis = 0;

    friend bool operator==(const BrokerLivenessEntry &, const BrokerLivenessEntry &) = default;
};

struct BrokerLiveness
{
    std::vector<BrokerLivenessEntry> brokers;
    /// A broker silent for longer is dropped by the name server.
    std::int64_t brokerChannelExpiredTime = 0;
    /// The name server's wall clock when it answered.
    std::int64_t now = 0;

    friend bool operator==(const BrokerLiveness &, const BrokerLiveness &) = default;
    QByteArray toJson() const;
    static Result<BrokerLiveness> fromJson(QByteArrayView json);
};

/// QRocket broker extension (kGetStoreFiles): one commit-log file.
struct StoreFile
{
    QByteArray path;
    std::int64_t size = 0;
    std::int64_t lastModified = 0;
    std::int64_t ageMillis = 0;
    /// When the clean service may delete it (epoch ms).
    std::int64_t expiresAt = 0;
    /// Why it is still there ("not expired", "in use", ...).
    QByteArray reasonKept;

    friend bool operator==(const StoreFile &, const StoreFile &) = default;
};

struct StoreFiles
{
    std::vector<StoreFile> files;
    std::int64_t commitLogMinOffset = 0;
    std::int64_t commitLogMaxOffset = 0;
    bool diskFull = false;
    /// Used fraction of the store's disk, -1 when unknown.
    double diskRatio = -1;
    int fileReservedTimeHours = 0;
    std::int64_t now = 0;
    /// Why the broker refuses writes (empty when it does not).
    QByteArray refuseReason;

    friend bool operator==(const StoreFiles &, const StoreFiles &) = default;
    QByteArray toJson() const;
    static Result<StoreFiles> fromJson(QByteArrayView json);
};

/// GET_BROKER_CONFIG / GET_NAMESRV_CONFIG bodies: Java properties text, in the peer's order.
struct ConfigProperties
{
    std::vector<std::pair<QString, QString>> entries;
    /// GET_BROKER_CONFIG's `version` header (counter 0 when absent).
    DataVersion version;

    /// The value of `key` (the last one when repeated), or a null QString.
    QString value(QStringView key) const;
    bool contains(QStringView key) const;
    friend bool operator==(const ConfigProperties &, const ConfigProperties &) = default;
    static ConfigProperties fromText(QByteArrayView text);
    /// `key=value` lines, escaped as Java's Properties.store does (UPDATE_*_CONFIG bodies).
    static QByteArray toText(const std::vector<std::pair<QString, QString>> &entries);
};

} // namespace qrocket::protocol
