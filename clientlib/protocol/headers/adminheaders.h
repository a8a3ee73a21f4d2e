#pragma once

// Admin and tooling headers (protocol.md §4.9).
// Wire names are the Java field names; `!` fields are required when decoding.

#include "clientlib/protocol/headers/headercodec.h"

namespace qrocket::protocol {

/// UPDATE_AND_CREATE_TOPIC (17). topicFilterType: SINGLE_TAG / MULTI_TAG.
struct CreateTopicRequestHeader
{
    QByteArray topic; // required
    QByteArray defaultTopic; // required
    std::int32_t readQueueNums = 0; // required
    std::int32_t writeQueueNums = 0; // required
    std::int32_t perm = 0; // required
    QByteArray topicFilterType; // required
    std::optional<std::int32_t> topicSysFlag;
    bool order = false; // required
    /// RocketMQ 5's attribute changes, "+key=value,-key" (a String in 5.x's header). A null
    /// value is not written, so a 4.9 broker sees the same fields as before 5.x.
    QByteArray attributes;

    QROCKET_HEADER_CODEC(CreateTopicRequestHeader);
};

/// DELETE_TOPIC_IN_BROKER (215).
struct DeleteTopicRequestHeader
{
    QByteArray topic; // required

    QROCKET_HEADER_CODEC(DeleteTopicRequestHeader);
};

/// GET_TOPIC_STATS_INFO (202).
struct GetTopicStatsInfoRequestHeader
{
    QByteArray topic; // required

    QROCKET_HEADER_CODEC(GetTopicStatsInfoRequestHeader);
};

/// GET_CONSUME_STATS (208).
struct GetConsumeStatsRequestHeader
{
    QByteArray consumerGroup; // required
    QByteArray topic;

    QROCKET_HEADER_CODEC(GetConsumeStatsRequestHeader);
};

/// GET_CONSUMER_CONNECTION_LIST (203).
struct GetConsumerConnectionListRequestHeader
{
    QByteArray consumerGroup; // required

    QROCKET_HEADER_CODEC(GetConsumerConnectionListRequestHeader);
};

/// GET_PRODUCER_CONNECTION_LIST (204).
struct GetProducerConnectionListRequestHeader
{
    QByteArray producerGroup; // required

    QROCKET_HEADER_CODEC(GetProducerConnectionListRequestHeader);
};

/// QUERY_TOPIC_CONSUME_BY_WHO (300).
struct QueryTopicConsumeByWhoRequestHeader
{
    QByteArray topic; // required

    QROCKET_HEADER_CODEC(QueryTopicConsumeByWhoRequestHeader);
};

/// DELETE_SUBSCRIPTIONGROUP (207).
struct DeleteSubscriptionGroupRequestHeader
{
    QByteArray groupName; // required
    bool removeOffset = false;

    QROCKET_HEADER_CODEC(DeleteSubscriptionGroupRequestHeader);
};

/// GET_CONSUMER_RUNNING_INFO (307).
struct GetConsumerRunningInfoRequestHeader
{
    QByteArray consumerGroup; // required
    QByteArray clientId; // required
    bool jstackEnable = false;

    QROCKET_HEADER_CODEC(GetConsumerRunningInfoRequestHeader);
};

/// CONSUME_MESSAGE_DIRECTLY (309).
struct ConsumeMessageDirectlyResultRequestHeader
{
    QByteArray consumerGroup; // required
    QByteArray clientId;
    QByteArray msgId;
    QByteArray brokerName;

    QROCKET_HEADER_CODEC(ConsumeMessageDirectlyResultRequestHeader);
};

/// GET_BROKER_CONFIG (26) response: version = DataVersion JSON.
struct GetBrokerConfigResponseHeader
{
    QByteArray version; // required

    QROCKET_HEADER_CODEC(GetBrokerConfigResponseHeader);
};

/// QUERY_CONSUME_QUEUE (321), debugging.
struct QueryConsumeQueueRequestHeader
{
    QByteArray topic; // required
    std::int32_t queueId = 0; // required
    std::int64_t index = 0; // required
    std::int32_t count = 0; // required
    QByteArray consumerGroup; // required

    QROCKET_HEADER_CODEC(QueryConsumeQueueRequestHeader);
};

} // namespace qrocket::protocol
