#pragma once

// Message query headers (protocol.md §4.8).
// Wire names are the Java field names; `!` fields are required when decoding.

#include "clientlib/protocol/headers/headercodec.h"

namespace qrocket::protocol {

/// QUERY_MESSAGE (12); `_UNIQUE_KEY_QUERY` is "true" when key is a UNIQ_KEY.
struct QueryMessageRequestHeader
{
    QByteArray topic; // required
    QByteArray key; // required
    std::int32_t maxNum = 0; // required
    std::int64_t beginTimestamp = 0; // required
    std::int64_t endTimestamp = 0; // required
    std::optional<bool> uniqueKeyQuery; // "_UNIQUE_KEY_QUERY"

    QROCKET_HEADER_CODEC(QueryMessageRequestHeader);
};

/// QUERY_MESSAGE response.
struct QueryMessageResponseHeader
{
    std::int64_t indexLastUpdateTimestamp = 0; // required
    std::int64_t indexLastUpdatePhyoffset = 0; // required

    QROCKET_HEADER_CODEC(QueryMessageResponseHeader);
};

/// VIEW_MESSAGE_BY_ID (33).
struct ViewMessageRequestHeader
{
    std::int64_t offset = 0; // required

    QROCKET_HEADER_CODEC(ViewMessageRequestHeader);
};

} // namespace qrocket::protocol
