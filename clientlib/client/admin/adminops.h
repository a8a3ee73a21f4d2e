#pragma once

// Internal to the Admin: the body of each admin call, run on the thread that makes the blocking
// call or on the Admin's pool for the async form (admin.cpp wires both). Each one bounds itself
// by the Call's deadline. adminops.cpp: cluster, topics, groups, configuration and maintenance;
// adminqueries.cpp: consumers, offsets and messages; admintools.cpp: what qrocket-admin needs
// beyond those (broker consume stats, offset cloning, reading queues).

#include "clientlib/client/admin/admincall.h"

namespace qrocket::client::adminimpl {

Result<protocol::ClusterInfo> doClusterInfo(Call &call);

Result<admin::BrokerRuntimeInfo> doBrokerRuntimeInfo(Call &call, const QByteArray &addr);

Result<ClusterOverview> doClusterOverview(Call &call, bool withRuntimeInfo);

Result<admin::BrokerLiveness> doBrokerLiveness(Call &call, const QByteArray &given);
Result<admin::BrokerRuntimeInfo> doNamesrvRuntimeInfo(Call &call, const QByteArray &given);

Result<admin::BrokerStatsData> doBrokerStatsData(
    Call &call, const QByteArray &addr, const QByteArray &name, const QByteArray &key);

Result<std::vector<QByteArray>> topicListBody(Result<RemotingCommand> r, const char *what);

Result<std::vector<QByteArray>> doTopicList(Call &call);

Result<std::vector<QByteArray>> doTopicListByCluster(Call &call, const QByteArray &cluster);

Result<std::vector<QByteArray>> doSystemTopicList(Call &call);

Result<admin::TopicStatsTable> doTopicStats(Call &call, const QByteArray &topic);

Result<protocol::TopicConfigSerializeWrapper> doAllTopicConfig(Call &call, const QByteArray &addr);

Result<protocol::TopicConfig> doTopicConfig(
    Call &call, const QByteArray &addr, const QByteArray &topic);

/// `attributes`: RocketMQ 5's attribute changes ("+key=value,-key"), sent only when not empty.
RemotingCommand createTopicRequest(
    Call &call, const protocol::TopicConfig &c, const QByteArray &attributes = {});

Status checkTopicConfig(const protocol::TopicConfig &c);

Status doCreateTopic(Call &call, const QByteArray &addr, const protocol::TopicConfig &c,
    const QByteArray &attributes = {});

RemotingCommand putKvRequest(
    Call &call, const QByteArray &ns, const QByteArray &key, const QByteArray &value);

RemotingCommand deleteKvRequest(Call &call, const QByteArray &ns, const QByteArray &key);

Result<FanOutResult> doCreateTopicInCluster(Call &call, const QByteArray &cluster,
    const protocol::TopicConfig &c, const QByteArray &attributes = {});

Result<FanOutResult> doDeleteTopic(Call &call, const QByteArray &topic, const QByteArray &cluster);

RemotingCommand groupRequest(Call &call, const admin::SubscriptionGroupConfig &c);

RemotingCommand deleteGroupRequest(Call &call, const QByteArray &group, bool removeOffset);

Status doCreateGroup(Call &call, const QByteArray &addr, const admin::SubscriptionGroupConfig &c);

Result<FanOutResult> doCreateGroupInCluster(
    Call &call, const QByteArray &cluster, const admin::SubscriptionGroupConfig &c);

Status doDeleteGroup(
    Call &call, const QByteArray &addr, const QByteArray &group, bool removeOffset);

Result<FanOutResult> doDeleteGroupInCluster(
    Call &call, const QByteArray &cluster, const QByteArray &group, bool removeOffset);

Result<admin::SubscriptionGroupWrapper> doAllGroups(Call &call, const QByteArray &addr);

RemotingCommand requestModeRequest(Call &call, const protocol::SetMessageRequestModeRequestBody &m);
Status doSetRequestMode(
    Call &call, const QByteArray &addr, const protocol::SetMessageRequestModeRequestBody &m);
Result<FanOutResult> doSetRequestModeInCluster(
    Call &call, const QByteArray &cluster, const protocol::SetMessageRequestModeRequestBody &m);
Result<protocol::MessageRequestModeTable> doAllRequestModes(Call &call, const QByteArray &addr);

Result<std::vector<Peer>> groupPeers(Call &call, const QByteArray &group);

Result<admin::ConsumerConnection> doConsumerConnection(Call &call, const QByteArray &group);

Result<admin::ConsumeStats> doConsumeStats(
    Call &call, const QByteArray &group, const QByteArray &topic);

Result<admin::ProducerConnection> doProducerConnection(
    Call &call, const QByteArray &group, const QByteArray &topic);

Result<admin::ConsumerRunningInfo> doConsumerRunningInfo(
    Call &call, const QByteArray &group, const QByteArray &clientId, bool jstack);

Result<std::vector<QByteArray>> doTopicConsumedBy(Call &call, const QByteArray &topic);

Result<std::map<MessageQueue, std::int64_t>> doResetOffset(Call &call, const QByteArray &topic,
    const QByteArray &group, std::int64_t timestamp, bool force);

Result<std::vector<ResetOffsetPreview>> doPreviewReset(Call &call, const QByteArray &topic,
    const QByteArray &group, std::int64_t timestamp, bool force);

Result<std::map<MessageQueue, std::int64_t>> doResetOffline(Call &call, const QByteArray &topic,
    const QByteArray &group, std::int64_t timestamp, bool force);

Result<MessageExt> doViewMessage(Call &call, const QByteArray &msgId);

Result<QueryMessageResult> queryMessages(Call &call, const QByteArray &topic, const QByteArray &key,
    int maxNum, std::int64_t begin, std::int64_t end, bool uniqueKey);

Result<MessageExt> queryByUniqueKey(Call &call, const QByteArray &topic, const QByteArray &key);

Result<std::vector<MessageTraceView>> doQueryMessageTrace(
    Call &call, const QByteArray &msgId, const QByteArray &traceTopic);

Result<MessageExt> doMessageById(Call &call, const QByteArray &topic, const QByteArray &msgId);

Result<MessageExt> doMessageAt(Call &call, const MessageQueue &queue, std::int64_t offset);

Result<admin::ConfigProperties> doBrokerConfig(Call &call, const QByteArray &addr);

Result<FanOutResult> doUpdateBrokerConfig(Call &call, const BrokerTarget &target,
    const std::vector<std::pair<QString, QString>> &entries);

Result<std::map<QByteArray, admin::ConfigProperties>> doNameServerConfig(
    Call &call, const std::vector<QByteArray> &given);

Result<FanOutResult> doUpdateNameServerConfig(Call &call,
    const std::vector<std::pair<QString, QString>> &entries, const std::vector<QByteArray> &given);

Status doPutKv(Call &call, const QByteArray &ns, const QByteArray &key, const QByteArray &value);

Result<QByteArray> doKv(Call &call, const QByteArray &ns, const QByteArray &key);

Status doDeleteKv(Call &call, const QByteArray &ns, const QByteArray &key);

Result<std::map<QByteArray, QByteArray>> doKvList(Call &call, const QByteArray &ns);

Result<FanOutResult> doWritePerm(
    Call &call, const QByteArray &brokerName, const std::vector<QByteArray> &given, bool add);

Result<FanOutResult> doMaintenance(Call &call, const BrokerTarget &target, int code);

Result<admin::StoreFiles> doStoreFiles(Call &call, const QByteArray &addr);
Result<admin::HARuntimeInfo> doBrokerHaStatus(Call &call, const QByteArray &addr);
Result<admin::EpochEntryCache> doBrokerEpochCache(Call &call, const QByteArray &addr);
Result<protocol::PopStatsBody> doPopStats(
    Call &call, const QByteArray &addr, const QByteArray &group);

// adminexplain.cpp: the QRocket explain extensions.
Result<protocol::ExplainBody> doExplainGroup(
    Call &call, const QByteArray &addr, const QByteArray &group, const QByteArray &topic);
Result<protocol::ExplainBody> doExplainCleanup(Call &call, const QByteArray &addr);
Result<protocol::ExplainBody> doExplainSend(Call &call, const QByteArray &addr,
    const QByteArray &topic, const QByteArray &accessKey, const QByteArray &sourceIp);
Result<protocol::ExplainBody> doExplainBroker(
    Call &call, const QByteArray &namesrvAddr, const QByteArray &brokerName);

// admintools.cpp

Result<admin::ConsumeStatsList> doBrokerConsumeStats(
    Call &call, const QByteArray &addr, bool isOrder);

Result<FanOutResult> doCloneGroupOffset(Call &call, const QByteArray &srcGroup,
    const QByteArray &destGroup, const QByteArray &topic, bool offline);

Result<std::int64_t> doSearchOffset(Call &call, const MessageQueue &queue, std::int64_t timestamp);

Result<PullResult> doPullMessages(Call &call, const MessageQueue &queue, std::int64_t offset,
    int maxNums, const QByteArray &subExpression);

// adminauth.cpp: ACL 2.0 users and ACLs (AUTH_* 3001-3010)

Result<FanOutResult> doUserChange(
    Call &call, const BrokerTarget &target, int code, const protocol::UserInfo &user);
Result<FanOutResult> doDeleteUser(Call &call, const BrokerTarget &target, const QByteArray &name);
Result<std::vector<protocol::UserInfo>> doGetUser(
    Call &call, const QByteArray &addr, const QByteArray &name);
Result<std::vector<protocol::UserInfo>> doListUsers(
    Call &call, const QByteArray &addr, const QByteArray &filter);
Result<FanOutResult> doAclChange(
    Call &call, const BrokerTarget &target, int code, const protocol::AclInfo &acl);
Result<FanOutResult> doDeleteAcl(Call &call, const BrokerTarget &target, const QByteArray &subject,
    const QByteArray &resource, const QByteArray &policyType);
Result<std::vector<protocol::AclInfo>> doGetAcl(
    Call &call, const QByteArray &addr, const QByteArray &subject);
Result<std::vector<protocol::AclInfo>> doListAcls(Call &call, const QByteArray &addr,
    const QByteArray &subjectFilter, const QByteArray &resourceFilter);

} // namespace qrocket::client::adminimpl
