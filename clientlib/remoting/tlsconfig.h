#pragma once

// What the remoting server and client build from TlsSettings (tlssettings.h has the keys and
// the defaults) with Qt's TLS backend (OpenSSL).
//
// TlsServerContext is thread-safe: every I/O thread asks it for the configuration of a new
// connection; it checks the files' modification times at most once a second and reloads them when
// they changed (a file that does not load keeps the last good configuration, logged).

#include "clientlib/remoting/tlssettings.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QSslConfiguration>

#include <array>
#include <atomic>
#include <memory>
#include <mutex>

namespace qrocket::remoting {

/// False when Qt has no working TLS backend; `why` then says what to install.
bool tlsAvailable(QString *why);

class TlsServerContext
{
public:
    /// Reads the files of `settings` (tls.config.file included). Fails with a message naming the
    /// key and file when the mode is unknown, TLS is unavailable, or a file does not load.
    static Result<std::shared_ptr<TlsServerContext>> create(TlsSettings settings);

    TlsMode mode() const { return m_mode; }
    /// The configuration of a new server connection (reloaded files included). Any thread.
    QSslConfiguration configuration();
    /// How many times changed files were loaded since start.
    std::int64_t reloads() const { return m_reloads.load(std::memory_order_relaxed); }

private:
    struct Stamp
    {
        QDateTime modified;
        qint64 size = -1;
        bool operator==(const Stamp &) const = default;
    };
    explicit TlsServerContext(TlsSettings settings, TlsMode mode);
    Result<QSslConfiguration> load() const;
    std::array<Stamp, 3> stamps() const;

    const TlsSettings m_settings;
    const TlsMode m_mode;
    std::mutex m_mutex;
    QSslConfiguration m_config; // guarded by m_mutex
    std::array<Stamp, 3> m_stamps; // guarded by m_mutex
    QElapsedTimer m_lastCheck; // guarded by m_mutex
    std::atomic<std::int64_t> m_reloads {0};
};

/// A client's TLS configuration from tls.client.* and tls.test.mode.enable. Fails naming the key
/// and file when a file does not load or TLS is unavailable.
Result<QSslConfiguration> clientTlsConfiguration(const TlsSettings &settings);

} // namespace qrocket::remoting
