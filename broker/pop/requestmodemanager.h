#pragma once

// RequestModeManager: each (topic, group)'s message request mode, PULL or POP, set by
// SET_MESSAGE_REQUEST_MODE (401), listed by GET_ALL_MESSAGE_REQUEST_MODE (402) and read by
// QUERY_ASSIGNMENT (400); persisted in <storePathRootDir>/config/messageRequestMode.json
// (RocketMQ's file name and MessageRequestModeSerializeWrapper format) through
// ConfigFileStore, at once on every change.
//
// Thread-safe.

#include "clientlib/common/status.h"
#include "clientlib/protocol/bodies/popbodies.h"

#include <QString>

#include <mutex>
#include <optional>

namespace qrocket::broker::pop {

class RequestModeManager
{
public:
    explicit RequestModeManager(QString path) : m_path(std::move(path)) { }

    static QString filePath(const QString &storePathRootDir);

    Status load();
    /// Sets and persists; the change stays in memory when the file cannot be written.
    Status set(const protocol::SetMessageRequestModeRequestBody &mode);
    std::optional<protocol::SetMessageRequestModeRequestBody> find(
        const QByteArray &topic, const QByteArray &group) const;
    QByteArray toJson() const;
    protocol::MessageRequestModeTable table() const;

private:
    const QString m_path;
    std::mutex m_writeMutex;
    mutable std::mutex m_mutex;
    protocol::MessageRequestModeTable m_table; // guarded by m_mutex
};

} // namespace qrocket::broker::pop
