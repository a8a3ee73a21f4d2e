#include "broker/managers/delayoffsetmanager.h"

#include "broker/common/logging.h"
#include "clientlib/protocol/json.h"

namespace qrocket::broker {

using protocol::JsonValue;
using protocol::JsonWriter;

DelayOffsetManager::DelayOffsetManager(QString path)
    : ConfigManager(std::move(path), "delay offsets")
{ }

QString DelayOffsetManager::filePath(const QString &storePathRootDir)
{
    return storePathRootDir + QStringLiteral("/config/delayOffset.json");
}

Status DelayOffsetManager::decode(QByteArrayView json)
{
    IntOffsets loaded;
    const Status st = decodeOffsetTable(json, [&](const JsonValue &table) {
        return decodeIntOffsets(table, loaded, 1, QStringLiteral("the delay levels"));
    });
    if (!st)
        return st;
    std::lock_guard lock(m_mutex);
    m_table = std::move(loaded);
    return {};
}

QByteArray DelayOffsetManager::encode() const
{
    std::lock_guard lock(m_mutex);
    JsonWriter w;
    w.beginObject().key("offsetTable");
    writeIntOffsets(w, m_table);
    w.endObject();
    return w.take();
}

std::int64_t DelayOffsetManager::offset(int level) const
{
    std::lock_guard lock(m_mutex);
    auto it = m_table.find(level);
    return it == m_table.end() ? 0 : it->second;
}

void DelayOffsetManager::setOffset(int level, std::int64_t offset)
{
    std::lock_guard lock(m_mutex);
    m_table[level] = offset;
}

std::map<int, std::int64_t> DelayOffsetManager::table() const
{
    std::lock_guard lock(m_mutex);
    return m_table;
}

} // namespace qrocket::broker
