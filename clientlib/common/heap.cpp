#include "clientlib/common/heap.h"

#include <cstdlib> // defines __GLIBC__ on glibc systems

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace qrocket {

void reserveHeapHeadroom()
{
#if defined(__GLIBC__)
    mallopt(M_TOP_PAD, 16 * 1024 * 1024);
#endif
}

} // namespace qrocket
