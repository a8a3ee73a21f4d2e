#include "clientlib/client/admin/admin.h"

#include "clientlib/client/admin/adminops.h"

#include <atomic>

namespace qrocket::client {

using namespace adminimpl;

namespace {

// -- async plumbing --------------------------------------------------------------------------

/// Runs the callback exactly once: with the outcome, or with Unavailable when the task is
/// dropped unrun (the pool shut down).
template<typename R>
class Once
{
public:
    explicit Once(std::function<void(R)> callback) : m_callback(std::move(callback)) { }
    ~Once()
    {
        if (!m_done.exchange(true) && m_callback)
            m_callback(R(Status::unavailable(
                QStringLiteral("the admin was shut down before the call ran"))));
    }
    Once(const Once &) = delete;
    Once &operator=(const Once &) = delete;
    void operator()(R value)
    {
        if (!m_done.exchange(true) && m_callback)
            m_callback(std::move(value));
    }

private:
    std::function<void(R)> m_callback;
    std::atomic<bool> m_done {false};
};

template<typename R, typename Fn>
void submit(
    const std::shared_ptr<Admin::Core> &core, std::function<void(R)> callback, int timeoutMs, Fn fn)
{
    auto once = std::make_shared<Once<R>>(std::move(callback));
    std::shared_ptr<WorkerPool> pool;
    {
        std::lock_guard lock(core->mutex);
        pool = core->pool;
    }
    if (!pool) {
        (*once)(R(Status::unavailable(QStringLiteral("the admin is not started (or shut down)"))));
        return;
    }
    const bool queued = pool->execute([core, once, timeoutMs, fn = std::move(fn)]() mutable {
        Call call(*core, timeoutMs);
        if (Status s = call.check(); !s) {
            (*once)(R(s));
            return;
        }
        (*once)(fn(call));
    });
    if (!queued)
        (*once)(R(Status::unavailable(QStringLiteral("the admin was shut down"))));
}

} // namespace

// -- FanOutResult ----------------------------------------------------------------------------

Status FanOutResult::status() const
{
    for (const BrokerOutcome &o : outcomes) {
        if (!o.status)
            return o.status;
    }
    return {};
}

// -- Admin -----------------------------------------------------------------------------------

Admin::Admin(AdminOptions options) : d(std::make_shared<Core>(std::move(options)))
{ }

Admin::~Admin()
{
    shutdown();
}

Status Admin::start()
{
    if (d->options.timeoutMs <= 0)
        return Status::invalidArgument(QStringLiteral("AdminOptions::timeoutMs must be positive"));
    if (d->options.callbackThreads <= 0)
        return Status::invalidArgument(
            QStringLiteral("AdminOptions::callbackThreads must be positive"));
    std::lock_guard lock(d->mutex);
    if (d->started)
        return {};
    ClientInstance::Lease instance = ClientInstance::acquire(d->options.client);
    const QByteArray namesrv = d->options.client.resolvedNamesrvAddr();
    if (instance->config().resolvedNamesrvAddr() != namesrv) {
        // The process's default client id is in use with other name servers (another Admin
        // or a producer of another cluster): a default-named Admin gets an id of its own, an
        // explicitly named one is refused rather than silently talking to the wrong cluster.
        if (d->options.client.instanceName != "DEFAULT")
            return Status::invalidArgument(
                QStringLiteral("client id %1 is already in use with name servers '%2', not '%3': "
                               "give this Admin another client.instanceName")
                    .arg(QString::fromUtf8(instance->clientId()),
                        QString::fromUtf8(instance->config().resolvedNamesrvAddr()),
                        QString::fromUtf8(namesrv)));
        ClientConfig own = d->options.client;
        own.instanceName
            = own.resolvedInstanceName() + "#admin-" + QByteArray::number(qHash(namesrv), 16);
        instance = ClientInstance::acquire(own);
    }
    d->lease = std::move(instance);
    d->lease->start();
    d->pool = std::make_shared<WorkerPool>(
        QByteArrayLiteral("qrocket-admin"), d->options.callbackThreads);
    d->started = true;
    return {};
}

void Admin::shutdown()
{
    std::shared_ptr<WorkerPool> pool;
    ClientInstance::Lease lease;
    {
        std::lock_guard lock(d->mutex);
        if (!d->started)
            return;
        d->started = false;
        pool = std::move(d->pool);
        lease = std::move(d->lease);
    }
    // Queued calls are dropped: their callbacks run here with Unavailable (Once).
    pool->shutdown(std::chrono::seconds(3));
    lease.reset(); // the last user's shutdown stops the client instance here
}

bool Admin::isStarted() const
{
    std::lock_guard lock(d->mutex);
    return d->started;
}

const AdminOptions &Admin::options() const
{
    return d->options;
}

QByteArray Admin::clientId() const
{
    std::lock_guard lock(d->mutex);
    return d->lease ? d->lease->clientId() : d->options.client.buildClientId();
}

// Each call: the blocking form runs `do...` on the calling thread; the async form runs it on the
// pool and hands the outcome to the callback there.
#define QROCKET_ADMIN_CALL(Type, name, params, asyncParams, callbackType, ...)                     \
    Type Admin::name params                                                                        \
    {                                                                                              \
        Call call(*d, timeoutMs);                                                                  \
        if (Status s = call.check(); !s)                                                           \
            return s;                                                                              \
        return __VA_ARGS__;                                                                        \
    }                                                                                              \
    void Admin::name##Async asyncParams                                                            \
    {                                                                                              \
        submit<Type>(d, callbackType(std::move(callback)), timeoutMs,                              \
            [=](Call &call) -> Type { return __VA_ARGS__; });                                      \
    }

using protocol::ClusterInfo;
using protocol::TopicConfig;
using protocol::TopicConfigSerializeWrapper;
using protocol::TopicRouteData;
using ByteList = std::vector<QByteArray>;
using Entries = std::vector<std::pair<QString, QString>>;
using OffsetMap = std::map<MessageQueue, std::int64_t>;
using KvMap = std::map<QByteArray, QByteArray>;
using ConfigMap = std::map<QByteArray, admin::ConfigProperties>;
using Previews = std::vector<ResetOffsetPreview>;

QROCKET_ADMIN_CALL(Result<ClusterInfo>, clusterInfo, (int timeoutMs),
    (Callback<ClusterInfo> callback, int timeoutMs), Callback<ClusterInfo>, doClusterInfo(call))
QROCKET_ADMIN_CALL(Result<ClusterOverview>, clusterOverview, (bool withRuntimeInfo, int timeoutMs),
    (bool withRuntimeInfo, Callback<ClusterOverview> callback, int timeoutMs),
    Callback<ClusterOverview>, doClusterOverview(call, withRuntimeInfo))
QROCKET_ADMIN_CALL(Result<admin::BrokerRuntimeInfo>, brokerRuntimeInfo,
    (const QByteArray &brokerAddr, int timeoutMs),
    (const QByteArray &brokerAddr, Callback<admin::BrokerRuntimeInfo> callback, int timeoutMs),
    Callback<admin::BrokerRuntimeInfo>, doBrokerRuntimeInfo(call, brokerAddr))
QROCKET_ADMIN_CALL(Result<admin::BrokerRuntimeInfo>, namesrvRuntimeInfo,
    (const QByteArray &namesrvAddr, int timeoutMs),
    (const QByteArray &namesrvAddr, Callback<admin::BrokerRuntimeInfo> callback, int timeoutMs),
    Callback<admin::BrokerRuntimeInfo>, doNamesrvRuntimeInfo(call, namesrvAddr))
QROCKET_ADMIN_CALL(Result<admin::BrokerLiveness>, brokerLiveness,
    (const QByteArray &namesrvAddr, int timeoutMs),
    (const QByteArray &namesrvAddr, Callback<admin::BrokerLiveness> callback, int timeoutMs),
    Callback<admin::BrokerLiveness>, doBrokerLiveness(call, namesrvAddr))
QROCKET_ADMIN_CALL(Result<admin::BrokerStatsData>, brokerStatsData,
    (const QByteArray &brokerAddr, const QByteArray &statsName, const QByteArray &statsKey,
        int timeoutMs),
    (const QByteArray &brokerAddr, const QByteArray &statsName, const QByteArray &statsKey,
        Callback<admin::BrokerStatsData> callback, int timeoutMs),
    Callback<admin::BrokerStatsData>, doBrokerStatsData(call, brokerAddr, statsName, statsKey))

QROCKET_ADMIN_CALL(Result<ByteList>, topicList, (int timeoutMs),
    (Callback<ByteList> callback, int timeoutMs), Callback<ByteList>, doTopicList(call))
QROCKET_ADMIN_CALL(Result<ByteList>, topicListByCluster, (const QByteArray &cluster, int timeoutMs),
    (const QByteArray &cluster, Callback<ByteList> callback, int timeoutMs), Callback<ByteList>,
    doTopicListByCluster(call, cluster))
QROCKET_ADMIN_CALL(Result<ByteList>, systemTopicList, (int timeoutMs),
    (Callback<ByteList> callback, int timeoutMs), Callback<ByteList>, doSystemTopicList(call))
QROCKET_ADMIN_CALL(Result<TopicRouteData>, topicRoute, (const QByteArray &topic, int timeoutMs),
    (const QByteArray &topic, Callback<TopicRouteData> callback, int timeoutMs),
    Callback<TopicRouteData>, routeOf(call, topic))
QROCKET_ADMIN_CALL(Result<admin::TopicStatsTable>, topicStats,
    (const QByteArray &topic, int timeoutMs),
    (const QByteArray &topic, Callback<admin::TopicStatsTable> callback, int timeoutMs),
    Callback<admin::TopicStatsTable>, doTopicStats(call, topic))
QROCKET_ADMIN_CALL(Result<TopicConfigSerializeWrapper>, allTopicConfig,
    (const QByteArray &brokerAddr, int timeoutMs),
    (const QByteArray &brokerAddr, Callback<TopicConfigSerializeWrapper> callback, int timeoutMs),
    Callback<TopicConfigSerializeWrapper>, doAllTopicConfig(call, brokerAddr))
QROCKET_ADMIN_CALL(Result<TopicConfig>, topicConfig,
    (const QByteArray &brokerAddr, const QByteArray &topic, int timeoutMs),
    (const QByteArray &brokerAddr, const QByteArray &topic, Callback<TopicConfig> callback,
        int timeoutMs),
    Callback<TopicConfig>, doTopicConfig(call, brokerAddr, topic))
QROCKET_ADMIN_CALL(Status, createOrUpdateTopic,
    (const QByteArray &brokerAddr, const TopicConfig &config, int timeoutMs),
    (const QByteArray &brokerAddr, const TopicConfig &config, StatusCallback callback,
        int timeoutMs),
    StatusCallback, doCreateTopic(call, brokerAddr, config))
QROCKET_ADMIN_CALL(Result<FanOutResult>, createOrUpdateTopicInCluster,
    (const QByteArray &cluster, const TopicConfig &config, int timeoutMs),
    (const QByteArray &cluster, const TopicConfig &config, Callback<FanOutResult> callback,
        int timeoutMs),
    Callback<FanOutResult>, doCreateTopicInCluster(call, cluster, config))
QROCKET_ADMIN_CALL(Status, createOrUpdateTopic,
    (const QByteArray &brokerAddr, const TopicConfig &config, const QByteArray &attributes,
        int timeoutMs),
    (const QByteArray &brokerAddr, const TopicConfig &config, const QByteArray &attributes,
        StatusCallback callback, int timeoutMs),
    StatusCallback, doCreateTopic(call, brokerAddr, config, attributes))
QROCKET_ADMIN_CALL(Result<FanOutResult>, createOrUpdateTopicInCluster,
    (const QByteArray &cluster, const TopicConfig &config, const QByteArray &attributes,
        int timeoutMs),
    (const QByteArray &cluster, const TopicConfig &config, const QByteArray &attributes,
        Callback<FanOutResult> callback, int timeoutMs),
    Callback<FanOutResult>, doCreateTopicInCluster(call, cluster, config, attributes))
QROCKET_ADMIN_CALL(Result<FanOutResult>, deleteTopic,
    (const QByteArray &topic, const QByteArray &cluster, int timeoutMs),
    (const QByteArray &topic, const QByteArray &cluster, Callback<FanOutResult> callback,
        int timeoutMs),
    Callback<FanOutResult>, doDeleteTopic(call, topic, cluster))

QROCKET_ADMIN_CALL(Status, createOrUpdateSubscriptionGroup,
    (const QByteArray &brokerAddr, const admin::SubscriptionGroupConfig &config, int timeoutMs),
    (const QByteArray &brokerAddr, const admin::SubscriptionGroupConfig &config,
        StatusCallback callback, int timeoutMs),
    StatusCallback, doCreateGroup(call, brokerAddr, config))
QROCKET_ADMIN_CALL(Result<FanOutResult>, createOrUpdateSubscriptionGroupInCluster,
    (const QByteArray &cluster, const admin::SubscriptionGroupConfig &config, int timeoutMs),
    (const QByteArray &cluster, const admin::SubscriptionGroupConfig &config,
        Callback<FanOutResult> callback, int timeoutMs),
    Callback<FanOutResult>, doCreateGroupInCluster(call, cluster, config))
QROCKET_ADMIN_CALL(Status, deleteSubscriptionGroup,
    (const QByteArray &brokerAddr, const QByteArray &group, bool removeOffset, int timeoutMs),
    (const QByteArray &brokerAddr, const QByteArray &group, bool removeOffset,
        StatusCallback callback, int timeoutMs),
    StatusCallback, doDeleteGroup(call, brokerAddr, group, removeOffset))
QROCKET_ADMIN_CALL(Result<FanOutResult>, deleteSubscriptionGroupInCluster,
    (const QByteArray &cluster, const QByteArray &group, bool removeOffset, int timeoutMs),
    (const QByteArray &cluster, const QByteArray &group, bool removeOffset,
        Callback<FanOutResult> callback, int timeoutMs),
    Callback<FanOutResult>, doDeleteGroupInCluster(call, cluster, group, removeOffset))
QROCKET_ADMIN_CALL(Result<admin::SubscriptionGroupWrapper>, allSubscriptionGroups,
    (const QByteArray &brokerAddr, int timeoutMs),
    (const QByteArray &brokerAddr, Callback<admin::SubscriptionGroupWrapper> callback,
        int timeoutMs),
    Callback<admin::SubscriptionGroupWrapper>, doAllGroups(call, brokerAddr))

QROCKET_ADMIN_CALL(Status, setMessageRequestMode,
    (const QByteArray &brokerAddr, const protocol::SetMessageRequestModeRequestBody &mode,
        int timeoutMs),
    (const QByteArray &brokerAddr, const protocol::SetMessageRequestModeRequestBody &mode,
        StatusCallback callback, int timeoutMs),
    StatusCallback, doSetRequestMode(call, brokerAddr, mode))
QROCKET_ADMIN_CALL(Result<FanOutResult>, setMessageRequestModeInCluster,
    (const QByteArray &cluster, const protocol::SetMessageRequestModeRequestBody &mode,
        int timeoutMs),
    (const QByteArray &cluster, const protocol::SetMessageRequestModeRequestBody &mode,
        Callback<FanOutResult> callback, int timeoutMs),
    Callback<FanOutResult>, doSetRequestModeInCluster(call, cluster, mode))
QROCKET_ADMIN_CALL(Result<protocol::MessageRequestModeTable>, allMessageRequestModes,
    (const QByteArray &brokerAddr, int timeoutMs),
    (const QByteArray &brokerAddr, Callback<protocol::MessageRequestModeTable> callback,
        int timeoutMs),
    Callback<protocol::MessageRequestModeTable>, doAllRequestModes(call, brokerAddr))

QROCKET_ADMIN_CALL(Result<admin::ConsumerConnection>, consumerConnection,
    (const QByteArray &group, int timeoutMs),
    (const QByteArray &group, Callback<admin::ConsumerConnection> callback, int timeoutMs),
    Callback<admin::ConsumerConnection>, doConsumerConnection(call, group))
QROCKET_ADMIN_CALL(Result<admin::ConsumeStats>, consumeStats,
    (const QByteArray &group, const QByteArray &topic, int timeoutMs),
    (const QByteArray &group, const QByteArray &topic, Callback<admin::ConsumeStats> callback,
        int timeoutMs),
    Callback<admin::ConsumeStats>, doConsumeStats(call, group, topic))
QROCKET_ADMIN_CALL(Result<admin::ProducerConnection>, producerConnection,
    (const QByteArray &group, const QByteArray &topic, int timeoutMs),
    (const QByteArray &group, const QByteArray &topic, Callback<admin::ProducerConnection> callback,
        int timeoutMs),
    Callback<admin::ProducerConnection>, doProducerConnection(call, group, topic))
QROCKET_ADMIN_CALL(Result<admin::ConsumerRunningInfo>, consumerRunningInfo,
    (const QByteArray &group, const QByteArray &clientId, bool jstack, int timeoutMs),
    (const QByteArray &group, const QByteArray &clientId, bool jstack,
        Callback<admin::ConsumerRunningInfo> callback, int timeoutMs),
    Callback<admin::ConsumerRunningInfo>, doConsumerRunningInfo(call, group, clientId, jstack))
QROCKET_ADMIN_CALL(Result<ByteList>, topicConsumedBy, (const QByteArray &topic, int timeoutMs),
    (const QByteArray &topic, Callback<ByteList> callback, int timeoutMs), Callback<ByteList>,
    doTopicConsumedBy(call, topic))
QROCKET_ADMIN_CALL(Result<OffsetMap>, resetOffsetByTime,
    (const QByteArray &topic, const QByteArray &group, std::int64_t timestamp, bool force,
        int timeoutMs),
    (const QByteArray &topic, const QByteArray &group, std::int64_t timestamp, bool force,
        Callback<OffsetMap> callback, int timeoutMs),
    Callback<OffsetMap>, doResetOffset(call, topic, group, timestamp, force))
QROCKET_ADMIN_CALL(Result<OffsetMap>, resetOffsetByTimeOffline,
    (const QByteArray &topic, const QByteArray &group, std::int64_t timestamp, bool force,
        int timeoutMs),
    (const QByteArray &topic, const QByteArray &group, std::int64_t timestamp, bool force,
        Callback<OffsetMap> callback, int timeoutMs),
    Callback<OffsetMap>, doResetOffline(call, topic, group, timestamp, force))
QROCKET_ADMIN_CALL(Result<Previews>, previewResetOffset,
    (const QByteArray &topic, const QByteArray &group, std::int64_t timestamp, bool force,
        int timeoutMs),
    (const QByteArray &topic, const QByteArray &group, std::int64_t timestamp, bool force,
        Callback<Previews> callback, int timeoutMs),
    Callback<Previews>, doPreviewReset(call, topic, group, timestamp, force))

QROCKET_ADMIN_CALL(Result<MessageExt>, viewMessage, (const QByteArray &offsetMsgId, int timeoutMs),
    (const QByteArray &offsetMsgId, Callback<MessageExt> callback, int timeoutMs),
    Callback<MessageExt>, doViewMessage(call, offsetMsgId))
QROCKET_ADMIN_CALL(Result<QueryMessageResult>, queryMessageByKey,
    (const QByteArray &topic, const QByteArray &key, int maxNum, std::int64_t beginTimestamp,
        std::int64_t endTimestamp, int timeoutMs),
    (const QByteArray &topic, const QByteArray &key, int maxNum, std::int64_t beginTimestamp,
        std::int64_t endTimestamp, Callback<QueryMessageResult> callback, int timeoutMs),
    Callback<QueryMessageResult>,
    queryMessages(call, topic, key, maxNum, beginTimestamp, endTimestamp, false))
QROCKET_ADMIN_CALL(Result<MessageExt>, queryMessageByUniqueKey,
    (const QByteArray &topic, const QByteArray &uniqueKey, int timeoutMs),
    (const QByteArray &topic, const QByteArray &uniqueKey, Callback<MessageExt> callback,
        int timeoutMs),
    Callback<MessageExt>, queryByUniqueKey(call, topic, uniqueKey))
QROCKET_ADMIN_CALL(Result<std::vector<MessageTraceView>>, queryMessageTrace,
    (const QByteArray &msgId, const QByteArray &traceTopic, int timeoutMs),
    (const QByteArray &msgId, const QByteArray &traceTopic,
        Callback<std::vector<MessageTraceView>> callback, int timeoutMs),
    Callback<std::vector<MessageTraceView>>, doQueryMessageTrace(call, msgId, traceTopic))
QROCKET_ADMIN_CALL(Result<MessageExt>, messageById,
    (const QByteArray &topic, const QByteArray &msgId, int timeoutMs),
    (const QByteArray &topic, const QByteArray &msgId, Callback<MessageExt> callback,
        int timeoutMs),
    Callback<MessageExt>, doMessageById(call, topic, msgId))
QROCKET_ADMIN_CALL(Result<MessageExt>, messageAt,
    (const MessageQueue &queue, std::int64_t offset, int timeoutMs),
    (const MessageQueue &queue, std::int64_t offset, Callback<MessageExt> callback, int timeoutMs),
    Callback<MessageExt>, doMessageAt(call, queue, offset))

QROCKET_ADMIN_CALL(Result<admin::ConfigProperties>, brokerConfig,
    (const QByteArray &brokerAddr, int timeoutMs),
    (const QByteArray &brokerAddr, Callback<admin::ConfigProperties> callback, int timeoutMs),
    Callback<admin::ConfigProperties>, doBrokerConfig(call, brokerAddr))
QROCKET_ADMIN_CALL(Result<FanOutResult>, updateBrokerConfig,
    (const BrokerTarget &target, const Entries &entries, int timeoutMs),
    (const BrokerTarget &target, const Entries &entries, Callback<FanOutResult> callback,
        int timeoutMs),
    Callback<FanOutResult>, doUpdateBrokerConfig(call, target, entries))
QROCKET_ADMIN_CALL(Result<ConfigMap>, nameServerConfig,
    (const std::vector<QByteArray> &namesrvAddrs, int timeoutMs),
    (const std::vector<QByteArray> &namesrvAddrs, Callback<ConfigMap> callback, int timeoutMs),
    Callback<ConfigMap>, doNameServerConfig(call, namesrvAddrs))
QROCKET_ADMIN_CALL(Result<FanOutResult>, updateNameServerConfig,
    (const Entries &entries, const std::vector<QByteArray> &namesrvAddrs, int timeoutMs),
    (const Entries &entries, const std::vector<QByteArray> &namesrvAddrs,
        Callback<FanOutResult> callback, int timeoutMs),
    Callback<FanOutResult>, doUpdateNameServerConfig(call, entries, namesrvAddrs))
QROCKET_ADMIN_CALL(Status, putKvConfig,
    (const QByteArray &nameSpace, const QByteArray &key, const QByteArray &value, int timeoutMs),
    (const QByteArray &nameSpace, const QByteArray &key, const QByteArray &value,
        StatusCallback callback, int timeoutMs),
    StatusCallback, doPutKv(call, nameSpace, key, value))
QROCKET_ADMIN_CALL(Result<QByteArray>, kvConfig,
    (const QByteArray &nameSpace, const QByteArray &key, int timeoutMs),
    (const QByteArray &nameSpace, const QByteArray &key, Callback<QByteArray> callback,
        int timeoutMs),
    Callback<QByteArray>, doKv(call, nameSpace, key))
QROCKET_ADMIN_CALL(Status, deleteKvConfig,
    (const QByteArray &nameSpace, const QByteArray &key, int timeoutMs),
    (const QByteArray &nameSpace, const QByteArray &key, StatusCallback callback, int timeoutMs),
    StatusCallback, doDeleteKv(call, nameSpace, key))
QROCKET_ADMIN_CALL(Result<KvMap>, kvList, (const QByteArray &nameSpace, int timeoutMs),
    (const QByteArray &nameSpace, Callback<KvMap> callback, int timeoutMs), Callback<KvMap>,
    doKvList(call, nameSpace))

QROCKET_ADMIN_CALL(Result<FanOutResult>, wipeWritePerm,
    (const QByteArray &brokerName, const std::vector<QByteArray> &namesrvAddrs, int timeoutMs),
    (const QByteArray &brokerName, const std::vector<QByteArray> &namesrvAddrs,
        Callback<FanOutResult> callback, int timeoutMs),
    Callback<FanOutResult>, doWritePerm(call, brokerName, namesrvAddrs, false))
QROCKET_ADMIN_CALL(Result<FanOutResult>, addWritePerm,
    (const QByteArray &brokerName, const std::vector<QByteArray> &namesrvAddrs, int timeoutMs),
    (const QByteArray &brokerName, const std::vector<QByteArray> &namesrvAddrs,
        Callback<FanOutResult> callback, int timeoutMs),
    Callback<FanOutResult>, doWritePerm(call, brokerName, namesrvAddrs, true))
QROCKET_ADMIN_CALL(Result<FanOutResult>, deleteExpiredCommitLog,
    (const BrokerTarget &target, int timeoutMs),
    (const BrokerTarget &target, Callback<FanOutResult> callback, int timeoutMs),
    Callback<FanOutResult>, doMaintenance(call, target, toInt(RequestCode::DeleteExpiredCommitLog)))
QROCKET_ADMIN_CALL(Result<FanOutResult>, cleanExpiredConsumeQueue,
    (const BrokerTarget &target, int timeoutMs),
    (const BrokerTarget &target, Callback<FanOutResult> callback, int timeoutMs),
    Callback<FanOutResult>,
    doMaintenance(call, target, toInt(RequestCode::CleanExpiredConsumeQueue)))
QROCKET_ADMIN_CALL(Result<FanOutResult>, cleanUnusedTopic,
    (const BrokerTarget &target, int timeoutMs),
    (const BrokerTarget &target, Callback<FanOutResult> callback, int timeoutMs),
    Callback<FanOutResult>, doMaintenance(call, target, toInt(RequestCode::CleanUnusedTopic)))
QROCKET_ADMIN_CALL(Result<admin::HARuntimeInfo>, brokerHaStatus,
    (const QByteArray &brokerAddr, int timeoutMs),
    (const QByteArray &brokerAddr, Callback<admin::HARuntimeInfo> callback, int timeoutMs),
    Callback<admin::HARuntimeInfo>, doBrokerHaStatus(call, brokerAddr))
QROCKET_ADMIN_CALL(Result<admin::EpochEntryCache>, brokerEpochCache,
    (const QByteArray &brokerAddr, int timeoutMs),
    (const QByteArray &brokerAddr, Callback<admin::EpochEntryCache> callback, int timeoutMs),
    Callback<admin::EpochEntryCache>, doBrokerEpochCache(call, brokerAddr))
QROCKET_ADMIN_CALL(Result<admin::StoreFiles>, storeFiles,
    (const QByteArray &brokerAddr, int timeoutMs),
    (const QByteArray &brokerAddr, Callback<admin::StoreFiles> callback, int timeoutMs),
    Callback<admin::StoreFiles>, doStoreFiles(call, brokerAddr))
QROCKET_ADMIN_CALL(Result<protocol::PopStatsBody>, popStats,
    (const QByteArray &brokerAddr, const QByteArray &group, int timeoutMs),
    (const QByteArray &brokerAddr, const QByteArray &group,
        Callback<protocol::PopStatsBody> callback, int timeoutMs),
    Callback<protocol::PopStatsBody>, doPopStats(call, brokerAddr, group))
QROCKET_ADMIN_CALL(Result<protocol::ExplainBody>, explainGroup,
    (const QByteArray &brokerAddr, const QByteArray &group, const QByteArray &topic, int timeoutMs),
    (const QByteArray &brokerAddr, const QByteArray &group, const QByteArray &topic,
        Callback<protocol::ExplainBody> callback, int timeoutMs),
    Callback<protocol::ExplainBody>, doExplainGroup(call, brokerAddr, group, topic))
QROCKET_ADMIN_CALL(Result<protocol::ExplainBody>, explainCleanup,
    (const QByteArray &brokerAddr, int timeoutMs),
    (const QByteArray &brokerAddr, Callback<protocol::ExplainBody> callback, int timeoutMs),
    Callback<protocol::ExplainBody>, doExplainCleanup(call, brokerAddr))
QROCKET_ADMIN_CALL(Result<protocol::ExplainBody>, explainSend,
    (const QByteArray &brokerAddr, const QByteArray &topic, const QByteArray &accessKey,
        const QByteArray &sourceIp, int timeoutMs),
    (const QByteArray &brokerAddr, const QByteArray &topic, const QByteArray &accessKey,
        const QByteArray &sourceIp, Callback<protocol::ExplainBody> callback, int timeoutMs),
    Callback<protocol::ExplainBody>, doExplainSend(call, brokerAddr, topic, accessKey, sourceIp))
QROCKET_ADMIN_CALL(Result<protocol::ExplainBody>, explainBroker,
    (const QByteArray &namesrvAddr, const QByteArray &brokerName, int timeoutMs),
    (const QByteArray &namesrvAddr, const QByteArray &brokerName,
        Callback<protocol::ExplainBody> callback, int timeoutMs),
    Callback<protocol::ExplainBody>, doExplainBroker(call, namesrvAddr, brokerName))

QROCKET_ADMIN_CALL(Result<admin::ConsumeStatsList>, brokerConsumeStats,
    (const QByteArray &brokerAddr, bool isOrder, int timeoutMs),
    (const QByteArray &brokerAddr, bool isOrder, Callback<admin::ConsumeStatsList> callback,
        int timeoutMs),
    Callback<admin::ConsumeStatsList>, doBrokerConsumeStats(call, brokerAddr, isOrder))
QROCKET_ADMIN_CALL(Result<FanOutResult>, cloneGroupOffset,
    (const QByteArray &srcGroup, const QByteArray &destGroup, const QByteArray &topic, bool offline,
        int timeoutMs),
    (const QByteArray &srcGroup, const QByteArray &destGroup, const QByteArray &topic, bool offline,
        Callback<FanOutResult> callback, int timeoutMs),
    Callback<FanOutResult>, doCloneGroupOffset(call, srcGroup, destGroup, topic, offline))
QROCKET_ADMIN_CALL(Result<std::int64_t>, searchOffset,
    (const MessageQueue &queue, std::int64_t timestamp, int timeoutMs),
    (const MessageQueue &queue, std::int64_t timestamp, Callback<std::int64_t> callback,
        int timeoutMs),
    Callback<std::int64_t>, doSearchOffset(call, queue, timestamp))
QROCKET_ADMIN_CALL(Result<PullResult>, pullMessages,
    (const MessageQueue &queue, std::int64_t offset, int maxNums, const QByteArray &subExpression,
        int timeoutMs),
    (const MessageQueue &queue, std::int64_t offset, int maxNums, const QByteArray &subExpression,
        Callback<PullResult> callback, int timeoutMs),
    Callback<PullResult>, doPullMessages(call, queue, offset, maxNums, subExpression))

using protocol::AclInfo;
using protocol::UserInfo;
using Users = std::vector<UserInfo>;
using Acls = std::vector<AclInfo>;
QROCKET_ADMIN_CALL(Result<FanOutResult>, createUser,
    (const BrokerTarget &target, const UserInfo &user, int timeoutMs),
    (const BrokerTarget &target, const UserInfo &user, Callback<FanOutResult> callback,
        int timeoutMs),
    Callback<FanOutResult>, doUserChange(call, target, toInt(RequestCode::AuthCreateUser), user))
QROCKET_ADMIN_CALL(Result<FanOutResult>, updateUser,
    (const BrokerTarget &target, const UserInfo &user, int timeoutMs),
    (const BrokerTarget &target, const UserInfo &user, Callback<FanOutResult> callback,
        int timeoutMs),
    Callback<FanOutResult>, doUserChange(call, target, toInt(RequestCode::AuthUpdateUser), user))
QROCKET_ADMIN_CALL(Result<FanOutResult>, deleteUser,
    (const BrokerTarget &target, const QByteArray &username, int timeoutMs),
    (const BrokerTarget &target, const QByteArray &username, Callback<FanOutResult> callback,
        int timeoutMs),
    Callback<FanOutResult>, doDeleteUser(call, target, username))
QROCKET_ADMIN_CALL(Result<Users>, user,
    (const QByteArray &brokerAddr, const QByteArray &username, int timeoutMs),
    (const QByteArray &brokerAddr, const QByteArray &username, Callback<Users> callback,
        int timeoutMs),
    Callback<Users>, doGetUser(call, brokerAddr, username))
QROCKET_ADMIN_CALL(Result<Users>, listUsers,
    (const QByteArray &brokerAddr, const QByteArray &filter, int timeoutMs),
    (const QByteArray &brokerAddr, const QByteArray &filter, Callback<Users> callback,
        int timeoutMs),
    Callback<Users>, doListUsers(call, brokerAddr, filter))
QROCKET_ADMIN_CALL(Result<FanOutResult>, createAcl,
    (const BrokerTarget &target, const AclInfo &acl, int timeoutMs),
    (const BrokerTarget &target, const AclInfo &acl, Callback<FanOutResult> callback,
        int timeoutMs),
    Callback<FanOutResult>, doAclChange(call, target, toInt(RequestCode::AuthCreateAcl), acl))
QROCKET_ADMIN_CALL(Result<FanOutResult>, updateAcl,
    (const BrokerTarget &target, const AclInfo &acl, int timeoutMs),
    (const BrokerTarget &target, const AclInfo &acl, Callback<FanOutResult> callback,
        int timeoutMs),
    Callback<FanOutResult>, doAclChange(call, target, toInt(RequestCode::AuthUpdateAcl), acl))
QROCKET_ADMIN_CALL(Result<FanOutResult>, deleteAcl,
    (const BrokerTarget &target, const QByteArray &subject, const QByteArray &resource,
        const QByteArray &policyType, int timeoutMs),
    (const BrokerTarget &target, const QByteArray &subject, const QByteArray &resource,
        const QByteArray &policyType, Callback<FanOutResult> callback, int timeoutMs),
    Callback<FanOutResult>, doDeleteAcl(call, target, subject, resource, policyType))
QROCKET_ADMIN_CALL(Result<Acls>, acl,
    (const QByteArray &brokerAddr, const QByteArray &subject, int timeoutMs),
    (const QByteArray &brokerAddr, const QByteArray &subject, Callback<Acls> callback,
        int timeoutMs),
    Callback<Acls>, doGetAcl(call, brokerAddr, subject))
QROCKET_ADMIN_CALL(Result<Acls>, listAcls,
    (const QByteArray &brokerAddr, const QByteArray &subjectFilter,
        const QByteArray &resourceFilter, int timeoutMs),
    (const QByteArray &brokerAddr, const QByteArray &subjectFilter,
        const QByteArray &resourceFilter, Callback<Acls> callback, int timeoutMs),
    Callback<Acls>, doListAcls(call, brokerAddr, subjectFilter, resourceFilter))

#undef QROCKET_ADMIN_CALL

} // namespace qrocket::client
