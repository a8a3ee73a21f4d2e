#include "broker/managers/configmanager.h"

#include "broker/logging.h"
#include "broker/managers/configfilestore.h"

namespace qrocket::broker {

ConfigManager::ConfigManager(QString path, const char *what) : m_path(std::move(path)), m_what(what)
{ }

ConfigManager::~ConfigManager() = default;

Status ConfigManager::load()
{
    const Status st
        = ConfigFileStore::load(m_path, [this](const QByteArray &text) { return decode(text); });
    if (st.code() == Status::Code::NotFound) {
        qCInfo(lcBroker).noquote() << "no" << m_path << "yet; starting with no stored" << m_what;
        return {};
    }
    if (st)
        qCInfo(lcBroker).noquote() << "loaded" << m_what << "from" << m_path;
    return st;
}

Status ConfigManager::persist()
{
    std::lock_guard lock(m_persistMutex);
    const Status st = ConfigFileStore::write(m_path, encode());
    if (!st)
        qCWarning(lcBroker).noquote() << "persisting" << m_what << "failed:" << st.message();
    return st;
}

} // namespace qrocket::broker
