#pragma once

// QROCKET_CHECK(cond, msg): an always-on invariant check (redpanda's vassert). On failure it logs
// file, line, condition and message, then aborts. Use it for invariants whose violation would
// corrupt data; never for input validation (bad input gets a Status, not an abort).

#include <QtGlobal>

namespace qrocket::detail {
[[noreturn]] void checkFailed(const char *file, int line, const char *cond, const char *msg);
} // namespace qrocket::detail

#define QROCKET_CHECK(cond, msg)                                                                   \
    do {                                                                                           \
        if (Q_UNLIKELY(!(cond)))                                                                   \
            ::qrocket::detail::checkFailed(__FILE__, __LINE__, #cond, msg);                        \
    } while (0)
