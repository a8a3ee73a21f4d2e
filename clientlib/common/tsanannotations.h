#pragma once

// ThreadSanitizer and Qt's event queue. Debian's Qt is not built with -fsanitize=thread, and its
// QMutex and QWaitCondition synchronise through futexes TSan cannot see, so everything one
// thread hands another through QMetaObject::invokeMethod (a posted event) looks like a race to
// it. invokeOn() posts like invokeMethod and tells TSan what the queue guarantees: the poster's
// writes happen before the call runs (and, for BlockingQueuedConnection, the call's writes
// before the poster continues). Outside a TSan build it is exactly QMetaObject::invokeMethod.

#include <QMetaObject>
#include <QObject>

#include <memory>
#include <type_traits>
#include <utility>

#if defined(__SANITIZE_THREAD__)
#define QROCKET_TSAN 1
extern "C" void __tsan_acquire(void *addr);
extern "C" void __tsan_release(void *addr);
#endif

namespace qrocket {

/// TSan happens-before edges by hand (no-ops unless built with -fsanitize=thread).
inline void tsanRelease([[maybe_unused]] const void *addr)
{
#ifdef QROCKET_TSAN
    __tsan_release(const_cast<void *>(addr));
#endif
}
inline void tsanAcquire([[maybe_unused]] const void *addr)
{
#ifdef QROCKET_TSAN
    __tsan_acquire(const_cast<void *>(addr));
#endif
}

#ifdef QROCKET_TSAN
namespace detail {
/// The posted functor. Each copy releases on its own address once constructed (on the poster's
/// thread: Qt copies or moves it into its slot object inside invokeMethod); the call acquires
/// there first and releases after; the destructor acquires, since Qt may free it on the
/// poster's thread (after a BlockingQueuedConnection). Only `this` is used, never a member: a
/// member read before the acquire would itself be a report.
template<typename F>
struct TsanEdgeCall
{
    F fn;
    explicit TsanEdgeCall(F &&f) : fn(std::move(f)) { tsanRelease(this); }
    TsanEdgeCall(TsanEdgeCall &&other) : fn(std::move(other.fn)) { tsanRelease(this); }
    TsanEdgeCall(const TsanEdgeCall &other) : fn(other.fn) { tsanRelease(this); }
    ~TsanEdgeCall() { tsanAcquire(this); }
    void operator()()
    {
        tsanAcquire(this);
        fn();
        tsanRelease(this);
    }
};
} // namespace detail
#endif

/// QMetaObject::invokeMethod(target, f, type) for a functor, with the TSan edges above.
template<typename F>
bool invokeOn(QObject *target, F &&f, Qt::ConnectionType type = Qt::QueuedConnection)
{
#ifdef QROCKET_TSAN
    using Fn = std::decay_t<F>;
    return QMetaObject::invokeMethod(
        target, detail::TsanEdgeCall<Fn>(Fn(std::forward<F>(f))), type);
#else
    return QMetaObject::invokeMethod(target, std::forward<F>(f), type);
#endif
}

} // namespace qrocket
