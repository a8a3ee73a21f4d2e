#pragma once

// AdaptiveMutex: a mutex (std::mutex's interface, so std::lock_guard and std::unique_lock work)
// whose lock() spins briefly while the holder is running before it sleeps: glibc's
// PTHREAD_MUTEX_ADAPTIVE_NP.
//
// For locks held for well under a microsecond by threads that would otherwise sleep on the
// futex and need a wake-up (the commit log's put lock, taken by every I/O thread): on a machine
// with fewer cores than busy threads, a thread that sleeps may then wait for a CPU until the
// next scheduler tick, a millisecond later, for a lock that was free again 300 ns after it
// slept.

#include <pthread.h>

namespace qrocket {

class AdaptiveMutex
{
public:
    AdaptiveMutex() noexcept
    {
        pthread_mutexattr_t attr;
        pthread_mutexattr_init(&attr);
        pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP);
        pthread_mutex_init(&m_mutex, &attr);
        pthread_mutexattr_destroy(&attr);
    }
    ~AdaptiveMutex() { pthread_mutex_destroy(&m_mutex); }
    AdaptiveMutex(const AdaptiveMutex &) = delete;
    AdaptiveMutex &operator=(const AdaptiveMutex &) = delete;

    void lock() noexcept { pthread_mutex_lock(&m_mutex); }
    bool try_lock() noexcept { return pthread_mutex_trylock(&m_mutex) == 0; }
    void unlock() noexcept { pthread_mutex_unlock(&m_mutex); }

private:
    pthread_mutex_t m_mutex;
};

} // namespace qrocket
