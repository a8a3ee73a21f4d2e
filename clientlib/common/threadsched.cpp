#include "clientlib/common/threadsched.h"

#include <QByteArray>
#include <QtGlobal>

#include <cstdint>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace qrocket {

namespace {

bool hintsEnabled()
{
    static const bool enabled = qgetenv("QROCKET_THREAD_HINTS") != "off";
    return enabled;
}

/// struct sched_attr of sched_setattr(2) (glibc 2.36 has no wrapper).
struct SchedAttr
{
    std::uint32_t size;
    std::uint32_t policy;
    std::uint64_t flags;
    std::int32_t nice;
    std::uint32_t priority;
    std::uint64_t runtime;
    std::uint64_t deadline;
    std::uint64_t period;
};

bool setCurrentThreadPolicy(int policy)
{
    if (!hintsEnabled())
        return false;
    sched_param param {};
    param.sched_priority = 0;
    return ::pthread_setschedparam(::pthread_self(), policy, &param) == 0;
}

} // namespace

bool markCurrentThreadBackground()
{
    return setCurrentThreadPolicy(SCHED_BATCH);
}

bool markCurrentThreadIdle()
{
    return setCurrentThreadPolicy(SCHED_IDLE);
}

bool markCurrentThreadLatencySensitive(int sliceMicros)
{
#ifdef SYS_sched_setattr
    if (!hintsEnabled() || sliceMicros < 100 || sliceMicros > 100'000)
        return false;
    SchedAttr attr {};
    attr.size = sizeof attr;
    attr.policy = SCHED_OTHER;
    attr.runtime = static_cast<std::uint64_t>(sliceMicros) * 1000; // the slice, in ns
    return ::syscall(SYS_sched_setattr, 0, &attr, 0) == 0;
#else
    (void)sliceMicros;
    return false;
#endif
}

} // namespace qrocket
