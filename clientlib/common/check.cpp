#include "clientlib/common/check.h"

#include <cstdio>
#include <cstdlib>

namespace qrocket::detail {

void checkFailed(const char *file, int line, const char *cond, const char *msg)
{
    std::fprintf(
        stderr, "QROCKET_CHECK failed at %s:%d: (%s) %s\n", file, line, cond, msg ? msg : "");
    std::fflush(stderr);
    std::abort();
}

} // namespace qrocket::detail
