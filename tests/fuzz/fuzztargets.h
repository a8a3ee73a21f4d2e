#pragma once

// One entry point per input kind, shared by the bounded ctest loop and the libFuzzer targets.
// Each feeds arbitrary bytes through the protocol decoders and everything downstream of a
// successful decode; any crash, hang, sanitizer report or broken invariant is a bug. Invariant
// violations abort via QROCKET_CHECK.

#include <QByteArrayView>

namespace qrocket::fuzz {

/// Incremental frame decoding (whole and split), header/body decoders, re-encoding.
void fuzzFrame(QByteArrayView data);
/// Stored-record and batch decoding, properties, msgIds, zlib.
void fuzzRecord(QByteArrayView data);
/// The tolerant JSON reader and every body reader.
void fuzzJson(QByteArrayView data);

} // namespace qrocket::fuzz
