#pragma once

// Consumer-group, offset and client headers (protocol.md §4.3–§4.5, §4.10).
// Wire names are the Java field names; `!` fields are required when decoding.

#include "clientlib/protocol/headers/headercodec.h"

namespace qrocket::protocol {

/// UNREGISTER_CLIENT (35).
struct UnregisterClientRequestHeader
{
    QByteArray clientID; // required
    QByteArray producerGroup;
    QByteArray consumerGroup;

    QROCKET_HEADER_CODEC(UnregisterClientRequestHeader);
};

/// GET_CONSUMER_LIST_BY_GROUP (38).
struct GetConsumerListByGroupRequestHeader
{
    QByteArray consumerGroup; // required

    QROCKET_HEADER_CODEC(GetConsumerListByGroupRequestHeader);
};

/// QUERY_CONSUMER_OFFSET (14).
struct QueryConsumerOffsetRequestHeader
{
    QByteArray consumerGroup; // required
    QByteArray topic; // required
    std::int32_t queueId = 0; // required

    QROCKET_HEADER_CODEC(QueryConsumerOffsetRequestHeader);
};

/// QUERY_CONSUMER_OFFSET response.
struct QueryConsumerOffsetResponseHeader
{
    std::int64_t offset = 0; // required

    QROCKET_HEADER_CODEC(QueryConsumerOffsetResponseHeader);
};

/// UPDATE_CONSUMER_OFFSET (15), often oneway.
struct UpdateConsumerOffsetRequestHeader
{
    QByteArray consumerGroup; // required
    QByteArray topic; // required
    std::int32_t queueId = 0; // required
    std::int64_t commitOffset = 0; // required

    QROCKET_HEADER_CODEC(UpdateConsumerOffsetRequestHeader);
};

/// GET_MAX_OFFSET (30).
struct GetMaxOffsetRequestHeader
{
    QByteArray topic; // required
    std::int32_t queueId = 0; // required

    QROCKET_HEADER_CODEC(GetMaxOffsetRequestHeader);
};

/// GET_MAX_OFFSET response.
struct GetMaxOffsetResponseHeader
{
    std::int64_t offset = 0; // required

    QROCKET_HEADER_CODEC(GetMaxOffsetResponseHeader);
};

/// GET_MIN_OFFSET (31).
struct GetMinOffsetRequestHeader
{
    QByteArray topic; // required
    std::int32_t queueId = 0; // required

    QROCKET_HEADER_CODEC(GetMinOffsetRequestHeader);
};

/// GET_MIN_OFFSET response.
struct GetMinOffsetResponseHeader
{
    std::int64_t offset = 0; // required

    QROCKET_HEADER_CODEC(GetMinOffsetResponseHeader);
};

/// SEARCH_OFFSET_BY_TIMESTAMP (29).
struct SearchOffsetRequestHeader
{
    QByteArray topic; // required
    std::int32_t queueId = 0; // required
    std::int64_t timestamp = 0; // required

    QROCKET_HEADER_CODEC(SearchOffsetRequestHeader);
};

/// SEARCH_OFFSET_BY_TIMESTAMP response.
struct SearchOffsetResponseHeader
{
    std::int64_t offset = 0; // required

    QROCKET_HEADER_CODEC(SearchOffsetResponseHeader);
};

/// GET_EARLIEST_MSG_STORETIME (32).
struct GetEarliestMsgStoretimeRequestHeader
{
    QByteArray topic; // required
    std::int32_t queueId = 0; // required

    QROCKET_HEADER_CODEC(GetEarliestMsgStoretimeRequestHeader);
};

/// GET_EARLIEST_MSG_STORETIME response.
struct GetEarliestMsgStoretimeResponseHeader
{
    std::int64_t timestamp = 0; // required

    QROCKET_HEADER_CODEC(GetEarliestMsgStoretimeResponseHeader);
};

/// CONSUMER_SEND_MSG_BACK (36).
struct ConsumerSendMsgBackRequestHeader
{
    std::int64_t offset = 0; // required
    QByteArray group; // required
    std::int32_t delayLevel = 0; // required
    QByteArray originMsgId;
    QByteArray originTopic;
    bool unitMode = false;
    std::optional<std::int32_t> maxReconsumeTimes;

    QROCKET_HEADER_CODEC(ConsumerSendMsgBackRequestHeader);
};

/// NOTIFY_CONSUMER_IDS_CHANGED (40), broker to client, oneway.
struct NotifyConsumerIdsChangedRequestHeader
{
    QByteArray consumerGroup; // required

    QROCKET_HEADER_CODEC(NotifyConsumerIdsChangedRequestHeader);
};

/// INVOKE_BROKER_TO_RESET_OFFSET (222) and RESET_CONSUMER_CLIENT_OFFSET (220).
struct ResetOffsetRequestHeader
{
    QByteArray topic; // required
    QByteArray group; // required
    std::int64_t timestamp = 0; // required
    bool isForce = false; // required

    QROCKET_HEADER_CODEC(ResetOffsetRequestHeader);
};

/// GET_CONSUMER_STATUS_FROM_CLIENT (221) / INVOKE_BROKER_TO_GET_CONSUMER_STATUS (223).
struct GetConsumerStatusRequestHeader
{
    QByteArray topic; // required
    QByteArray group; // required
    QByteArray clientAddr;

    QROCKET_HEADER_CODEC(GetConsumerStatusRequestHeader);
};

} // namespace qrocket::protocol
