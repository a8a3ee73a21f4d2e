#include "storage/core/prefaultservice.h"

#include "storage/core/logging.h"

#include <algorithm>
#include <cerrno>

namespace qrocket::storage {

PrefaultService::PrefaultService(MappedFileQueue &files, std::int64_t windowBytes, bool writable)
    : m_files(files), m_window(windowBytes), m_writable(writable)
{ }

std::int64_t PrefaultService::runOnce(std::int64_t chunk)
{
    if (m_unsupported)
        return 0;
    const MappedFilePtr f = m_files.lastFile();
    if (!f)
        return 0;
    const std::int64_t base = f->fileFromOffset();
    const std::int64_t wrote = f->wrotePosition();
    const std::int64_t from = std::max(m_frontier - base, wrote);
    const std::int64_t to = std::min({f->fileSize(), wrote + m_window, from + chunk});
    if (to <= from)
        return 0;
    if (const int err = f->populate(from, to, m_writable); err != 0) {
        if (err == EINVAL || err == ENOSYS) {
            m_unsupported = true;
            qCInfo(lcStore) << "pre-faulting commit-log pages is not supported here; appends"
                            << "will fault pages in themselves";
        }
        return 0; // anything else (EINTR, EAGAIN, ENOMEM): try again after a nap
    }
    m_frontier = base + to;
    return to - from;
}

void PrefaultService::start()
{
    m_thread.start(
        [this] {
            constexpr std::int64_t kChunk = 1 << 20;
            std::int64_t lastMax = -1;
            while (!m_thread.isStopping()) {
                if (runOnce(kChunk) > 0)
                    continue;
                // Window full: look again soon while the writer moves, rarely while it is idle.
                const std::int64_t max = m_files.maxOffset();
                m_thread.nap(std::chrono::milliseconds(max != lastMax ? 2 : 10));
                lastMax = max;
            }
        },
        "qr-prefault", ServiceThread::Priority::Idle);
}

} // namespace qrocket::storage
