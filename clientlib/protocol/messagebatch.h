#pragma once

// Batch body of SEND_BATCH_MESSAGE / SEND_MESSAGE_V2 with m=true (protocol.md §5.7): inner
// messages concatenated, each
//   0 i32 TOTALSIZE (22 + B + P)  4 i32 MAGICCODE (0)  8 i32 BODYCRC (0)  12 i32 FLAG
//  16 i32 BODYLEN + BODY          i16 PROPLEN + PROPERTIES
// Like Java's MessageDecoder.decodeMessage, the reader walks the length fields; TOTALSIZE is
// checked for consistency only when `strictTotalSize` is set.

#include "clientlib/common/result.h"

#include <QByteArray>
#include <QByteArrayView>

#include <cstdint>
#include <vector>

namespace qrocket::protocol {

inline constexpr int kBatchItemOverhead = 22;

/// One inner message; the views point into the batch body.
struct BatchItemView
{
    std::int32_t flag = 0;
    QByteArrayView body;
    QByteArrayView properties;
};

/// Decodes every inner message; an error names the item index and byte offset.
Result<std::vector<BatchItemView>> decodeBatch(QByteArrayView body, bool strictTotalSize = false);

/// The batch encoding of `items` (MAGICCODE and BODYCRC written as 0, as Java does).
QByteArray encodeBatch(const std::vector<BatchItemView> &items);

} // namespace qrocket::protocol
