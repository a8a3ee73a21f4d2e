#include "broker/pop/requestmodemanager.h"

#include "broker/config/configfilestore.h"

#include <QDir>

namespace qrocket::broker::pop {

QString RequestModeManager::filePath(const QString &storePathRootDir)
{
    return QDir(storePathRootDir).filePath(QStringLiteral("config/messageRequestMode.json"));
}

Status RequestModeManager::load()
{
    const Status st = ConfigFileStore::load(m_path, [this](const QByteArray &text) -> Status {
        auto table = protocol::MessageRequestModeTable::fromJson(text);
        if (!table)
            return table.error();
        std::lock_guard lock(m_mutex);
        m_table = std::move(table).value();
        return {};
    });
    return st.code() == Status::Code::NotFound ? Status() : st;
}

Status RequestModeManager::set(const protocol::SetMessageRequestModeRequestBody &mode)
{
    std::lock_guard writer(m_writeMutex); // files written in the order of the changes
    QByteArray text;
    {
        std::lock_guard lock(m_mutex);
        m_table.modes[mode.topic][mode.consumerGroup] = mode;
        text = m_table.toJson();
    }
    return ConfigFileStore::write(m_path, text);
}

std::optional<protocol::SetMessageRequestModeRequestBody> RequestModeManager::find(
    const QByteArray &topic, const QByteArray &group) const
{
    std::lock_guard lock(m_mutex);
    const auto t = m_table.modes.find(topic);
    if (t == m_table.modes.end())
        return std::nullopt;
    const auto g = t->second.find(group);
    if (g == t->second.end())
        return std::nullopt;
    return g->second;
}

QByteArray RequestModeManager::toJson() const
{
    std::lock_guard lock(m_mutex);
    return m_table.toJson();
}

protocol::MessageRequestModeTable RequestModeManager::table() const
{
    std::lock_guard lock(m_mutex);
    return m_table;
}

} // namespace qrocket::broker::pop
