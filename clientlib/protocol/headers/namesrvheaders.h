#pragma once

// Name-server request/response headers (protocol.md §3).
// Wire names are the Java field names; `!` fields are required when decoding.

#include "clientlib/protocol/headers/headercodec.h"

namespace qrocket::protocol {

/// REGISTER_BROKER (103) request; body RegisterBrokerBody (§3.1).
struct RegisterBrokerRequestHeader
{
    QByteArray brokerName; // required
    QByteArray brokerAddr; // required
    QByteArray clusterName; // required
    QByteArray haServerAddr; // required
    std::int64_t brokerId = 0; // required
    bool compressed = false;
    std::int32_t bodyCrc32 = 0;

    QROCKET_HEADER_CODEC(RegisterBrokerRequestHeader);
};

/// REGISTER_BROKER response: filled for a slave whose master is registered.
struct RegisterBrokerResponseHeader
{
    QByteArray haServerAddr;
    QByteArray masterAddr;

    QROCKET_HEADER_CODEC(RegisterBrokerResponseHeader);
};

/// UNREGISTER_BROKER (104).
struct UnregisterBrokerRequestHeader
{
    QByteArray brokerName; // required
    QByteArray brokerAddr; // required
    QByteArray clusterName; // required
    std::int64_t brokerId = 0; // required

    QROCKET_HEADER_CODEC(UnregisterBrokerRequestHeader);
};

/// QUERY_DATA_VERSION (322); body DataVersion.
struct QueryDataVersionRequestHeader
{
    QByteArray brokerName; // required
    QByteArray brokerAddr; // required
    QByteArray clusterName; // required
    std::int64_t brokerId = 0; // required

    QROCKET_HEADER_CODEC(QueryDataVersionRequestHeader);
};

/// QUERY_DATA_VERSION response.
struct QueryDataVersionResponseHeader
{
    std::optional<bool> changed;

    QROCKET_HEADER_CODEC(QueryDataVersionResponseHeader);
};

/// GET_ROUTEINFO_BY_TOPIC (105).
struct GetRouteInfoRequestHeader
{
    QByteArray topic; // required
    std::optional<bool> acceptStandardJsonOnly;

    QROCKET_HEADER_CODEC(GetRouteInfoRequestHeader);
};

/// GET_TOPICS_BY_CLUSTER (224).
struct GetTopicsByClusterRequestHeader
{
    QByteArray cluster; // required

    QROCKET_HEADER_CODEC(GetTopicsByClusterRequestHeader);
};

/// DELETE_TOPIC_IN_NAMESRV (216).
struct DeleteTopicFromNamesrvRequestHeader
{
    QByteArray topic; // required
    QByteArray clusterName;

    QROCKET_HEADER_CODEC(DeleteTopicFromNamesrvRequestHeader);
};

/// WIPE_WRITE_PERM_OF_BROKER (205).
struct WipeWritePermOfBrokerRequestHeader
{
    QByteArray brokerName; // required

    QROCKET_HEADER_CODEC(WipeWritePermOfBrokerRequestHeader);
};

/// WIPE_WRITE_PERM_OF_BROKER response.
struct WipeWritePermOfBrokerResponseHeader
{
    std::int32_t wipeTopicCount = 0; // required

    QROCKET_HEADER_CODEC(WipeWritePermOfBrokerResponseHeader);
};

/// ADD_WRITE_PERM_OF_BROKER (327).
struct AddWritePermOfBrokerRequestHeader
{
    QByteArray brokerName; // required

    QROCKET_HEADER_CODEC(AddWritePermOfBrokerRequestHeader);
};

/// ADD_WRITE_PERM_OF_BROKER response.
struct AddWritePermOfBrokerResponseHeader
{
    std::int32_t addTopicCount = 0; // required

    QROCKET_HEADER_CODEC(AddWritePermOfBrokerResponseHeader);
};

/// PUT_KV_CONFIG (100).
struct PutKVConfigRequestHeader
{
    QByteArray nameSpace; // "namespace"
    QByteArray key; // required
    QByteArray value; // required

    QROCKET_HEADER_CODEC(PutKVConfigRequestHeader);
};

/// GET_KV_CONFIG (101).
struct GetKVConfigRequestHeader
{
    QByteArray nameSpace; // "namespace"
    QByteArray key; // required

    QROCKET_HEADER_CODEC(GetKVConfigRequestHeader);
};

/// GET_KV_CONFIG response.
struct GetKVConfigResponseHeader
{
    QByteArray value;

    QROCKET_HEADER_CODEC(GetKVConfigResponseHeader);
};

/// DELETE_KV_CONFIG (102).
struct DeleteKVConfigRequestHeader
{
    QByteArray nameSpace; // "namespace"
    QByteArray key; // required

    QROCKET_HEADER_CODEC(DeleteKVConfigRequestHeader);
};

/// GET_KVLIST_BY_NAMESPACE (219).
struct GetKVListByNamespaceRequestHeader
{
    QByteArray nameSpace; // "namespace"

    QROCKET_HEADER_CODEC(GetKVListByNamespaceRequestHeader);
};

} // namespace qrocket::protocol
