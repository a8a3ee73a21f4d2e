#include "broker/managers/delayoffsetmanager.h"

#include "broker/logging.h"
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
    auto parsed = protocol::parseJson(json);
    if (!parsed)
        return parsed.error();
    const JsonValue &table = (*parsed)["offsetTable"];
    if (!parsed->isObject() || !table.isObject())
        return Status::corruption(QStringLiteral("no offsetTable object"));
    std::map<int, std::int64_t> loaded;
    for (const auto &[key, value] : table.members()) {
        bool ok = false;
        const int level = key.toString().toInt(&ok);
        if (!ok || level <= 0 || !value.isNumber())
            return Status::corruption(QStringLiteral("bad delay level entry '%1'")
                                          .arg(QString::fromUtf8(key.toString())));
        loaded[level] = value.toInteger();
    }
    std::lock_guard lock(m_mutex);
    m_table = std::move(loaded);
    return {};
}

QByteArray DelayOffsetManager::encode() const
{
    std::lock_guard lock(m_mutex);
    JsonWriter w;
    w.beginObject().key("offsetTable").beginObject();
    for (const auto &[level, offset] : m_table)
        w.key(QByteArray::number(level)).value(offset);
    w.endObject().endObject();
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
