#include "clientlib/remoting/logging.h"

#include <chrono>

Q_LOGGING_CATEGORY(lcRemoting, "qrocket.remoting", QtInfoMsg)
Q_LOGGING_CATEGORY(lcRemotingServer, "qrocket.remoting.server", QtInfoMsg)
Q_LOGGING_CATEGORY(lcRemotingClient, "qrocket.remoting.client", QtInfoMsg)

namespace qrocket::remoting {

bool LogRateLimiter::allow()
{
    const std::int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now().time_since_epoch())
                                 .count();
    std::int64_t start = m_windowStart.load(std::memory_order_relaxed);
    if (now - start >= m_windowMs
        && m_windowStart.compare_exchange_strong(start, now, std::memory_order_relaxed)) {
        m_count.store(0, std::memory_order_relaxed);
    }
    if (m_count.fetch_add(1, std::memory_order_relaxed) < m_burst)
        return true;
    m_suppressed.fetch_add(1, std::memory_order_relaxed);
    return false;
}

} // namespace qrocket::remoting
