#pragma once

// Message body compression (protocol.md §5.8): zlib-wrapped deflate (header + adler32, Java's
// Deflater/DeflaterOutputStream), never raw deflate or gzip on output. The inflater accepts zlib
// and (tolerantly) gzip framing, and refuses to produce more than `maxOutput` bytes so that a
// small hostile body cannot expand without bound.

#include "clientlib/common/result.h"

#include <QByteArray>
#include <QByteArrayView>

namespace qrocket::protocol {

/// Java producer default level (compressMsgBodyOverHowmuch bodies): 5; RegisterBrokerBody: 9.
Result<QByteArray> zlibCompress(QByteArrayView data, int level = 5);

/// Inflates `data`; InvalidArgument on corrupt or truncated input, or when the output would
/// exceed `maxOutput` bytes.
Result<QByteArray> zlibDecompress(QByteArrayView data, qsizetype maxOutput = 64 * 1024 * 1024);

} // namespace qrocket::protocol
