#pragma once

// Logging categories of the remoting module (default Info):
//   qrocket.remoting         connections, frames, dispatch
//   qrocket.remoting.server  listen/accept, server lifecycle
//   qrocket.remoting.client  connects, name-server failover
// Client-triggerable warnings (invalid frames, unknown codes) go through LogRateLimiter.

#include <QLoggingCategory>

#include <atomic>
#include <cstdint>

Q_DECLARE_LOGGING_CATEGORY(lcRemoting)
Q_DECLARE_LOGGING_CATEGORY(lcRemotingServer)
Q_DECLARE_LOGGING_CATEGORY(lcRemotingClient)

namespace qrocket::remoting {

/// Allows at most `burst` messages per `windowMs` window; thread-safe, lock-free. Use one static
/// instance per log site: `static LogRateLimiter limiter; if (limiter.allow()) qCWarning(...)`.
class LogRateLimiter
{
public:
    explicit LogRateLimiter(int burst = 5, std::int64_t windowMs = 1000)
        : m_burst(burst), m_windowMs(windowMs)
    { }
    bool allow();
    /// Messages refused since the last allowed one (reset by each allowed message).
    std::int64_t takeSuppressed() { return m_suppressed.exchange(0); }

private:
    const int m_burst;
    const std::int64_t m_windowMs;
    std::atomic<std::int64_t> m_windowStart {0};
    std::atomic<int> m_count {0};
    std::atomic<std::int64_t> m_suppressed {0};
};

} // namespace qrocket::remoting
