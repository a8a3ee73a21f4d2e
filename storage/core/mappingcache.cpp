#include "storage/core/mappingcache.h"

#include "storage/core/mappedfile.h"

#include <QFile>
#include <QStringList>

#include <algorithm>
#include <functional>
#include <sys/resource.h>
#include <thread>
#include <vector>

namespace qrocket::storage {

namespace {
constexpr int kMinCapacity = 64;
constexpr int kMaxDefaultCapacity = 32768;
} // namespace

MappingCache::MappingCache(int capacity) : m_capacity(capacity > 0 ? capacity : defaultCapacity())
{ }

int MappingCache::defaultCapacity()
{
    rlimit rl {};
    if (::getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return kMaxDefaultCapacity;
    const auto half = static_cast<std::int64_t>(rl.rlim_cur / 2);
    return static_cast<int>(std::clamp<std::int64_t>(half, kMinCapacity, kMaxDefaultCapacity));
}

QString MappingCache::limitWarning() const
{
    const std::int64_t need = std::int64_t(m_capacity) + 1024;
    QStringList low;
    rlimit fds {};
    if (::getrlimit(RLIMIT_NOFILE, &fds) == 0 && fds.rlim_cur != RLIM_INFINITY
        && static_cast<std::int64_t>(fds.rlim_cur) < need)
        low.append(QStringLiteral("open files limit (ulimit -n) %1").arg(fds.rlim_cur));
    QFile maps(QStringLiteral("/proc/sys/vm/max_map_count"));
    if (maps.open(QIODevice::ReadOnly)) {
        const std::int64_t maxMaps = maps.readAll().trimmed().toLongLong();
        if (maxMaps > 0 && maxMaps < need)
            low.append(QStringLiteral("vm.max_map_count %1").arg(maxMaps));
    }
    if (low.isEmpty())
        return {};
    return QStringLiteral("%1 below maxMappedConsumeQueueFiles %2 + 1024: consume-queue files "
                          "may fail to open or map")
        .arg(low.join(QStringLiteral(" and ")))
        .arg(m_capacity);
}

void MappingCache::noteHit()
{
    // The stripe is picked once per thread.
    static thread_local const std::size_t stripe
        = std::hash<std::thread::id> {}(std::this_thread::get_id()) % kHitStripes;
    m_hits[stripe].n.fetch_add(1, std::memory_order_relaxed);
}

std::uint64_t MappingCache::hitCount() const
{
    std::uint64_t sum = 0;
    for (const HitStripe &s : m_hits)
        sum += s.n.load(std::memory_order_relaxed);
    return sum;
}

MappingCache::Stats MappingCache::stats() const
{
    Stats s;
    s.capacity = m_capacity;
    s.mapped = mappedCount();
    s.hits = hitCount();
    s.maps = mapCount();
    s.releases = releaseCount();
    return s;
}

void MappingCache::unlinkLocked(MappedFile *f)
{
    if (f->m_lruNext == f) {
        m_hand = nullptr;
    } else {
        f->m_lruPrev->m_lruNext = f->m_lruNext;
        f->m_lruNext->m_lruPrev = f->m_lruPrev;
        if (m_hand == f)
            m_hand = f->m_lruNext;
    }
    f->m_lruPrev = f->m_lruNext = nullptr;
    f->m_inLru = false;
    m_count.fetch_sub(1, std::memory_order_relaxed);
}

void MappingCache::admit(MappedFile *f)
{
    // Released mappings are destroyed (munmap, close) after the mutex is let go; a mapping
    // still pinned by a reader lives on in its Pin.
    std::vector<std::shared_ptr<const void>> released;
    {
        std::lock_guard lock(m_mutex);
        m_maps.fetch_add(1, std::memory_order_relaxed);
        if (f->m_inLru)
            return;
        // Enter just behind the hand: the newest file is the last the hand reaches.
        if (!m_hand) {
            f->m_lruPrev = f->m_lruNext = f;
            m_hand = f;
        } else {
            f->m_lruNext = m_hand;
            f->m_lruPrev = m_hand->m_lruPrev;
            m_hand->m_lruPrev->m_lruNext = f;
            m_hand->m_lruPrev = f;
        }
        f->m_inLru = true;
        int count = m_count.fetch_add(1, std::memory_order_relaxed) + 1;
        // Two turns of the hand find a victim: the first clears every use mark.
        for (int steps = 2 * count + 2; count > m_capacity && steps > 0; --steps) {
            MappedFile *v = m_hand;
            m_hand = v->m_lruNext;
            if (v == f || v->m_referenced.exchange(false, std::memory_order_relaxed))
                continue;
            unlinkLocked(v);
            --count;
            std::lock_guard fileLock(v->m_mapMutex);
            released.push_back(std::move(v->m_map));
            v->m_map.reset();
            m_releases.fetch_add(1, std::memory_order_relaxed);
        }
    }
}

void MappingCache::forget(MappedFile *f)
{
    std::lock_guard lock(m_mutex);
    if (f->m_inLru)
        unlinkLocked(f);
}

} // namespace qrocket::storage
