#pragma once

// messageDelayLevel (protocol.md §8.3): "1s 5s 10s 30s 1m ... 2h", space-separated durations with
// unit s, m, h or d. Level n (1-based) delays by the n-th duration.

#include "clientlib/common/result.h"

#include <QAnyStringView>

#include <cstdint>
#include <vector>

namespace qrocket::broker {

inline constexpr const char *kDefaultMessageDelayLevel
    = "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h";

/// The delay of each level in milliseconds, index 0 = level 1. Extra spaces are tolerated; an
/// empty list, a missing or unknown unit, or a bad or negative number is an InvalidArgument
/// naming the token.
Result<std::vector<std::int64_t>> parseMessageDelayLevel(QAnyStringView text);

} // namespace qrocket::broker
