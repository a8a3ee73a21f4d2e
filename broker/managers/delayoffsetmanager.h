#pragma once

// DelayOffsetManager: the delivery progress of each delay level, level -> next ConsumeQueue index
// of SCHEDULE_TOPIC_XXXX queue (level - 1), persisted in <storePathRootDir>/config/delayOffset.json
// as {"offsetTable":{1:0,2:13}} (protocol.md §7.6, §8.3). The delay-schedule service reads and
// advances it; the controller persists it every flushDelayOffsetInterval (10 s) and at shutdown.
//
// Thread-safety: all public methods may be called from any thread (one mutex).

#include "broker/managers/configmanager.h"
#include "clientlib/common/status.h"

#include <QByteArray>
#include <QString>

#include <cstdint>
#include <map>
#include <mutex>

namespace qrocket::broker {

class DelayOffsetManager final : public ConfigManager
{
public:
    explicit DelayOffsetManager(QString path);
    DelayOffsetManager(const DelayOffsetManager &) = delete;
    DelayOffsetManager &operator=(const DelayOffsetManager &) = delete;

    static QString filePath(const QString &storePathRootDir);

    // load() / persist(): ConfigManager.
    /// {"offsetTable":{"1":0,"2":13}}: the file content and the GET_ALL_DELAY_OFFSET body.
    QByteArray encode() const override;
    /// Replaces the table; nothing changes when `json` does not decode.
    Status decode(QByteArrayView json) override;

    /// The next index to deliver for the level (1-based), 0 when none is stored.
    std::int64_t offset(int level) const;
    void setOffset(int level, std::int64_t offset);
    std::map<int, std::int64_t> table() const;

private:
    mutable std::mutex m_mutex;
    std::map<int, std::int64_t> m_table; // guarded by m_mutex
};

} // namespace qrocket::broker
