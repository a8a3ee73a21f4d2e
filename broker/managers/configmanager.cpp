#include "broker/managers/configmanager.h"

#include "broker/common/logging.h"
#include "broker/config/configfilestore.h"

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

Status decodeOffsetTable(
    QByteArrayView json, const std::function<Status(const protocol::JsonValue &table)> &read)
{
    auto parsed = protocol::parseJson(json);
    if (!parsed)
        return parsed.error();
    const protocol::JsonValue &table = (*parsed)["offsetTable"];
    if (!parsed->isObject() || !table.isObject())
        return Status::corruption(QStringLiteral("no offsetTable object"));
    return read(table);
}

Status decodeIntOffsets(
    const protocol::JsonValue &object, IntOffsets &out, int minKey, const QString &where)
{
    if (!object.isObject())
        return Status::corruption(QStringLiteral("offsets of %1 are not an object").arg(where));
    for (const auto &[key, offset] : object.members()) {
        bool ok = false;
        const int id = key.toString().toInt(&ok);
        if (!ok || id < minKey || !offset.isNumber())
            return Status::corruption(QStringLiteral("bad offset entry '%1' in %2")
                                          .arg(QString::fromUtf8(key.toString()), where));
        out[id] = offset.toInteger();
    }
    return {};
}

void writeIntOffsets(protocol::JsonWriter &w, const IntOffsets &offsets)
{
    w.beginObject();
    for (const auto &[id, offset] : offsets)
        w.key(QByteArray::number(id)).value(offset);
    w.endObject();
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
