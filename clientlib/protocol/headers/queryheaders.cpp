#include "clientlib/protocol/headers/queryheaders.h"

namespace qrocket::protocol {

QROCKET_HEADER_CODEC_IMPL(QueryMessageRequestHeader,
    headerField<&QueryMessageRequestHeader::topic>("topic", kRequired),
    headerField<&QueryMessageRequestHeader::key>("key", kRequired),
    headerField<&QueryMessageRequestHeader::maxNum>("maxNum", kRequired),
    headerField<&QueryMessageRequestHeader::beginTimestamp>("beginTimestamp", kRequired),
    headerField<&QueryMessageRequestHeader::endTimestamp>("endTimestamp", kRequired),
    headerField<&QueryMessageRequestHeader::uniqueKeyQuery>("_UNIQUE_KEY_QUERY", kOptional))

QROCKET_HEADER_CODEC_IMPL(QueryMessageResponseHeader,
    headerField<&QueryMessageResponseHeader::indexLastUpdateTimestamp>(
        "indexLastUpdateTimestamp", kRequired),
    headerField<&QueryMessageResponseHeader::indexLastUpdatePhyoffset>(
        "indexLastUpdatePhyoffset", kRequired))

QROCKET_HEADER_CODEC_IMPL(
    ViewMessageRequestHeader, headerField<&ViewMessageRequestHeader::offset>("offset", kRequired))

} // namespace qrocket::protocol
