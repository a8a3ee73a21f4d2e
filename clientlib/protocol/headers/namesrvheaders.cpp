#include "clientlib/protocol/headers/namesrvheaders.h"

namespace qrocket::protocol {

QROCKET_HEADER_CODEC_IMPL(RegisterBrokerRequestHeader,
    headerField<&RegisterBrokerRequestHeader::brokerName>("brokerName", kRequired),
    headerField<&RegisterBrokerRequestHeader::brokerAddr>("brokerAddr", kRequired),
    headerField<&RegisterBrokerRequestHeader::clusterName>("clusterName", kRequired),
    headerField<&RegisterBrokerRequestHeader::haServerAddr>("haServerAddr", kRequired),
    headerField<&RegisterBrokerRequestHeader::brokerId>("brokerId", kRequired),
    headerField<&RegisterBrokerRequestHeader::compressed>("compressed", kOptional),
    headerField<&RegisterBrokerRequestHeader::bodyCrc32>("bodyCrc32", kOptional))

QROCKET_HEADER_CODEC_IMPL(RegisterBrokerResponseHeader,
    headerField<&RegisterBrokerResponseHeader::haServerAddr>("haServerAddr", kOptional),
    headerField<&RegisterBrokerResponseHeader::masterAddr>("masterAddr", kOptional))

QROCKET_HEADER_CODEC_IMPL(UnregisterBrokerRequestHeader,
    headerField<&UnregisterBrokerRequestHeader::brokerName>("brokerName", kRequired),
    headerField<&UnregisterBrokerRequestHeader::brokerAddr>("brokerAddr", kRequired),
    headerField<&UnregisterBrokerRequestHeader::clusterName>("clusterName", kRequired),
    headerField<&UnregisterBrokerRequestHeader::brokerId>("brokerId", kRequired))

QROCKET_HEADER_CODEC_IMPL(QueryDataVersionRequestHeader,
    headerField<&QueryDataVersionRequestHeader::brokerName>("brokerName", kRequired),
    headerField<&QueryDataVersionRequestHeader::brokerAddr>("brokerAddr", kRequired),
    headerField<&QueryDataVersionRequestHeader::clusterName>("clusterName", kRequired),
    headerField<&QueryDataVersionRequestHeader::brokerId>("brokerId", kRequired))

QROCKET_HEADER_CODEC_IMPL(QueryDataVersionResponseHeader,
    headerField<&QueryDataVersionResponseHeader::changed>("changed", kOptional))

QROCKET_HEADER_CODEC_IMPL(GetRouteInfoRequestHeader,
    headerField<&GetRouteInfoRequestHeader::topic>("topic", kRequired),
    headerField<&GetRouteInfoRequestHeader::acceptStandardJsonOnly>(
        "acceptStandardJsonOnly", kOptional))

QROCKET_HEADER_CODEC_IMPL(GetTopicsByClusterRequestHeader,
    headerField<&GetTopicsByClusterRequestHeader::cluster>("cluster", kRequired))

QROCKET_HEADER_CODEC_IMPL(DeleteTopicFromNamesrvRequestHeader,
    headerField<&DeleteTopicFromNamesrvRequestHeader::topic>("topic", kRequired),
    headerField<&DeleteTopicFromNamesrvRequestHeader::clusterName>("clusterName", kOptional))

QROCKET_HEADER_CODEC_IMPL(WipeWritePermOfBrokerRequestHeader,
    headerField<&WipeWritePermOfBrokerRequestHeader::brokerName>("brokerName", kRequired))

QROCKET_HEADER_CODEC_IMPL(WipeWritePermOfBrokerResponseHeader,
    headerField<&WipeWritePermOfBrokerResponseHeader::wipeTopicCount>("wipeTopicCount", kRequired))

QROCKET_HEADER_CODEC_IMPL(AddWritePermOfBrokerRequestHeader,
    headerField<&AddWritePermOfBrokerRequestHeader::brokerName>("brokerName", kRequired))

QROCKET_HEADER_CODEC_IMPL(AddWritePermOfBrokerResponseHeader,
    headerField<&AddWritePermOfBrokerResponseHeader::addTopicCount>("addTopicCount", kRequired))

QROCKET_HEADER_CODEC_IMPL(PutKVConfigRequestHeader,
    headerField<&PutKVConfigRequestHeader::nameSpace>("namespace", kRequired),
    headerField<&PutKVConfigRequestHeader::key>("key", kRequired),
    headerField<&PutKVConfigRequestHeader::value>("value", kRequired))

QROCKET_HEADER_CODEC_IMPL(GetKVConfigRequestHeader,
    headerField<&GetKVConfigRequestHeader::nameSpace>("namespace", kRequired),
    headerField<&GetKVConfigRequestHeader::key>("key", kRequired))

QROCKET_HEADER_CODEC_IMPL(
    GetKVConfigResponseHeader, headerField<&GetKVConfigResponseHeader::value>("value", kOptional))

QROCKET_HEADER_CODEC_IMPL(DeleteKVConfigRequestHeader,
    headerField<&DeleteKVConfigRequestHeader::nameSpace>("namespace", kRequired),
    headerField<&DeleteKVConfigRequestHeader::key>("key", kRequired))

QROCKET_HEADER_CODEC_IMPL(GetKVListByNamespaceRequestHeader,
    headerField<&GetKVListByNamespaceRequestHeader::nameSpace>("namespace", kRequired))

} // namespace qrocket::protocol
