#pragma once

// AdminProcessor: the admin and tooling requests of protocol.md §4.9 that the console, mqadmin and
// slaves send (RocketMQ's AdminBrokerProcessor), plus QRocket's store-files extension:
//
//   topics    17 UPDATE_AND_CREATE_TOPIC, 215 DELETE_TOPIC_IN_BROKER, 21 GET_ALL_TOPIC_CONFIG,
//             305 GET_SYSTEM_TOPIC_LIST_FROM_BROKER                          (admintopic.cpp)
//   runtime   28 GET_BROKER_RUNTIME_INFO, 202 GET_TOPIC_STATS_INFO, 329 DELETE_EXPIRED_COMMITLOG,
//             306 CLEAN_EXPIRED_CONSUMEQUEUE, extension kGetStoreFiles      (adminruntime.cpp)
//   consumers 208 GET_CONSUME_STATS, 203/204 consumer/producer connections,
//             300 QUERY_TOPIC_CONSUME_BY_WHO, 222 INVOKE_BROKER_TO_RESET_OFFSET (adminconsumer.cpp)
//   groups    200/207/201 subscription groups, 43 GET_ALL_CONSUMER_OFFSET,
//             45 GET_ALL_DELAY_OFFSET, 26/25 GET/UPDATE_BROKER_CONFIG        (adminconfig.cpp)
//   forwarded 307 GET_CONSUMER_RUNNING_INFO, 309 CONSUME_MESSAGE_DIRECTLY   (adminforward.cpp)
//   more      303 QUERY_CONSUME_TIME_SPAN, 314 CLONE_GROUP_OFFSET, 317 GET_BROKER_CONSUME_STATS,
//             321 QUERY_CONSUME_QUEUE, 328 GET_ALL_PRODUCER_INFO, 223
//             INVOKE_BROKER_TO_GET_CONSUMER_STATUS (asks each consumer with 221) (adminmore.cpp)
//   stats     315 VIEW_BROKER_STATS_DATA, 316 CLEAN_UNUSED_TOPIC           (adminstats.cpp)
//   explain   extensions kExplainGroup, kExplainCleanup, kExplainSend     (adminexplain.cpp)
//
// Every request is answered (unknown codes with 3 REQUEST_CODE_NOT_SUPPORTED); a malformed one
// gets 1 with a remark, never a crash. Forwarded requests are answered when the client replies
// (or after 10 s with 207), without blocking an executor thread.
//
// Thread-safety: state is the BrokerContext (thread-safe members) and the boot time; runs on any
// executor thread.

#include "broker/config/topicconfig.h"
#include "clientlib/protocol/bodies/adminbodies.h"
#include "clientlib/protocol/bodies/explainbodies.h"
#include "clientlib/remoting/requestprocessor.h"

#include <QByteArray>

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace qrocket::acl {
struct AuthData;
struct AuthUser;
} // namespace qrocket::acl

namespace qrocket::broker {

struct BrokerContext;

class AdminProcessor final : public remoting::RequestProcessor
{
public:
    /// How long a forwarded request (307/309, and each consumer asked by 223) waits for the
    /// client (Broker2Client.callClient's timeout).
    static constexpr int kForwardTimeoutMillis = 10000;

    explicit AdminProcessor(BrokerContext &ctx);

    void processRequest(const remoting::ChannelPtr &channel, remoting::RemotingCommand request,
        remoting::Responder respond) override;

    /// The synchronous requests (all but 307/309/223): the response to `request`.
    remoting::RemotingCommand handle(const remoting::RemotingCommand &request);
    /// The request codes this processor serves.
    static const std::vector<int> &requestCodes();

private:
    using Command = remoting::RemotingCommand;

    // admintopic.cpp
    Command updateAndCreateTopic(const Command &request);
    /// The same, answered once the change is durable (processRequest's path).
    void updateAndCreateTopic(const Command &request, remoting::Responder respond);
    /// UPDATE_AND_CREATE_TOPIC's checks: the refusal to answer, or nullopt with `config` set to
    /// the topic to store.
    std::optional<Command> prepareTopicUpdate(const Command &request, TopicConfig &config);
    /// The answer once the topic was stored (`stored`: whether it is durable).
    static Command topicUpdated(
        const Command &request, const TopicConfig &config, const Status &stored);
    Command deleteTopic(const Command &request);
    Command allTopicConfig(const Command &request);
    Command systemTopicList(const Command &request);
    // adminruntime.cpp
    Command brokerRuntimeInfo(const Command &request);
    /// The replication keys of GET_BROKER_RUNTIME_INFO (role, slaves' acks and lag, master).
    void replicationInfo(
        std::vector<std::pair<QByteArray, QByteArray>> &t, std::int64_t commitLogMaxOffset) const;
    Command topicStatsInfo(const Command &request);
    Command deleteExpiredFiles(const Command &request);
    Command storeFiles(const Command &request);
    // adminha.cpp
    Command haStatus(const Command &request);
    Command epochCache(const Command &request);
    // adminconsumer.cpp
    Command consumeStats(const Command &request);
    Command consumerConnectionList(const Command &request);
    Command producerConnectionList(const Command &request);
    Command topicConsumeByWho(const Command &request);
    Command resetOffset(const Command &request);
    // adminconfig.cpp
    Command updateSubscriptionGroup(const Command &request);
    /// The same, answered once the change is durable (processRequest's path).
    void updateSubscriptionGroup(const Command &request, remoting::Responder respond);
    Command deleteSubscriptionGroup(const Command &request);
    Command allSubscriptionGroups(const Command &request);
    Command allConsumerOffsets(const Command &request);
    Command allDelayOffsets(const Command &request);
    Command brokerConfig(const Command &request);
    Command updateBrokerConfig(const Command &request);
    // adminforward.cpp
    void forwardToConsumer(const Command &request, remoting::Responder respond);
    // adminmore.cpp
    Command consumeTimeSpan(const Command &request);
    Command cloneGroupOffset(const Command &request);
    Command brokerConsumeStats(const Command &request);
    Command queryConsumeQueue(const Command &request);
    Command allProducerInfo(const Command &request);
    void consumerStatus(const Command &request, remoting::Responder respond);
    // adminstats.cpp
    Command viewBrokerStatsData(const Command &request);
    Command cleanUnusedTopic(const Command &request);
    // adminexplain.cpp
    Command explainGroup(const Command &request);
    Command explainCleanup(const Command &request);
    Command explainSend(const Command &request);
    /// The ACL finding of explainSend: the rule deciding for the request's "accessKey".
    void explainSendAcl(
        const Command &request, const QByteArray &topic, protocol::ExplainBody &body) const;
    /// The ACL 2.0 part of explainSendAcl: the user's status, type and policies for Pub.
    void explainSendAcl2(const Command &request, const QByteArray &topic, const acl::AuthData &data,
        const acl::AuthUser &user, protocol::ExplainBody &body) const;

    QByteArray brokerName() const;
    /// A group's position in one queue of `topic`, as GET_CONSUME_STATS lists it (offsets clamped
    /// at 0; last timestamp of the last consumed message, 0 when none).
    protocol::OffsetWrapper consumeOffset(
        const QByteArray &group, const QByteArray &topic, int queueId);

    BrokerContext &m_ctx;
    const std::int64_t m_bootTimestamp;
};

} // namespace qrocket::broker
