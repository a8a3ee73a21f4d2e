#pragma once

// MappingCache: bounds how many lazily mapped store files (consume queues) hold an open file
// descriptor and a mapping at once. A lazy MappedFile opens and maps itself on first use
// (MappedFile::pin()) and registers here; beyond the capacity the cache releases the mapping of
// a file not used since the clock hand last passed it (CLOCK, an approximation of least recently
// used that costs a used file one relaxed atomic store per use, no lock).
//
// Releasing drops the file's own reference to its mapping only: a reader or writer holding a
// MappedFile::Pin keeps the bytes mapped (and the descriptor open) until it lets go, so nothing is
// ever unmapped under a user. Writes made through a released mapping are in the page cache
// (MAP_SHARED) and are seen by the next mapping of the file; flushing a released file opens a
// descriptor for the fdatasync only.
//
// Threading: every member is safe to call from any thread. Lock order: the cache's mutex before
// a file's mapping mutex.

#include <QString>

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

namespace qrocket::storage {

class MappedFile;

class MappingCache
{
public:
    /// `capacity`: mapped files kept at most (at least 1); 0 sizes it from RLIMIT_NOFILE.
    explicit MappingCache(int capacity);
    MappingCache(const MappingCache &) = delete;
    MappingCache &operator=(const MappingCache &) = delete;

    /// The default capacity: half the soft RLIMIT_NOFILE (the rest is for the commit log, index,
    /// sockets), at least 64 and at most 32,768 (vm.max_map_count is 65,530 by default).
    static int defaultCapacity();

    int capacity() const { return m_capacity; }
    /// With room for fewer than capacity() + 1024 descriptors (RLIMIT_NOFILE) or mappings
    /// (vm.max_map_count), says so (the store logs it at open); empty when both suffice.
    QString limitWarning() const;
    /// Files mapped through this cache now (at most capacity(), plus those mapped while over it
    /// for an instant).
    int mappedCount() const { return m_count.load(std::memory_order_relaxed); }
    /// Mappings made (first uses and re-mappings after a release) and released, since creation.
    std::uint64_t mapCount() const { return m_maps.load(std::memory_order_relaxed); }
    std::uint64_t releaseCount() const { return m_releases.load(std::memory_order_relaxed); }
    /// Uses (pins) that found the file mapped, since creation (summed over the stripes).
    std::uint64_t hitCount() const;

    /// The figures above at one moment (each read relaxed: they may be a use apart).
    struct Stats
    {
        int capacity = 0;
        int mapped = 0;
        std::uint64_t hits = 0; // uses that found the mapping
        std::uint64_t maps = 0; // misses: first uses and re-mappings after a release
        std::uint64_t releases = 0; // evictions by the clock
    };
    Stats stats() const;

private:
    friend class MappedFile;
    /// `f` was just mapped: enters the clock; releases others beyond the capacity.
    void admit(MappedFile *f);
    /// `f` goes away (its destructor): leaves the clock.
    void forget(MappedFile *f);
    void unlinkLocked(MappedFile *f);
    /// A use found the file mapped: one relaxed add on this thread's stripe (no lock, and readers
    /// of different queues on different threads do not share a cache line for it).
    void noteHit();

    const int m_capacity;
    std::mutex m_mutex; // guards the ring (MappedFile::m_lruPrev/m_lruNext/m_inLru) and m_hand
    MappedFile *m_hand = nullptr; // the ring's next candidate; null when empty
    std::atomic<int> m_count {0};
    std::atomic<std::uint64_t> m_maps {0};
    std::atomic<std::uint64_t> m_releases {0};
    struct alignas(64) HitStripe
    {
        std::atomic<std::uint64_t> n {0};
    };
    static constexpr std::size_t kHitStripes = 16;
    std::array<HitStripe, kHitStripes> m_hits {};
};

using MappingCachePtr = std::shared_ptr<MappingCache>;

} // namespace qrocket::storage
