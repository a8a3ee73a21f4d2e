// libFuzzer entry (clang, -DQROCKET_LIBFUZZER=ON): see fuzztargets.h.
#include "fuzztargets.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    qrocket::fuzz::fuzzJson(QByteArrayView(data, static_cast<qsizetype>(size)));
    return 0;
}
