#include "clientlib/client/consumer/offsetstore.h"

#include "clientlib/client/clientinstance.h"
#include "clientlib/client/logging.h"
#include "clientlib/protocol/json.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

namespace qrocket::client {

void OffsetStore::updateOffset(const MessageQueue &mq, std::int64_t offset, bool increaseOnly)
{
    std::lock_guard lock(m_mutex);
    // Look up before inserting: emplace() would build (allocate) a node on every call, and a
    // consumer calls this once per consumed batch.
    const auto it = m_table.find(mq);
    if (it == m_table.end())
        m_table.emplace(mq, offset);
    else if (!increaseOnly || offset > it->second)
        it->second = offset;
}

std::int64_t OffsetStore::readOffset(const MessageQueue &mq, ReadOffsetType)
{
    std::lock_guard lock(m_mutex);
    const auto it = m_table.find(mq);
    return it == m_table.end() ? -1 : it->second;
}

void OffsetStore::removeOffset(const MessageQueue &mq)
{
    std::lock_guard lock(m_mutex);
    m_table.erase(mq);
}

std::map<MessageQueue, std::int64_t> OffsetStore::offsets(const QByteArray &topic) const
{
    std::lock_guard lock(m_mutex);
    if (topic.isEmpty())
        return m_table;
    std::map<MessageQueue, std::int64_t> out;
    for (const auto &[mq, off] : m_table) {
        if (mq.topic == topic)
            out.emplace(mq, off);
    }
    return out;
}

// -- remote ---------------------------------------------------------------------------------

RemoteBrokerOffsetStore::RemoteBrokerOffsetStore(
    std::shared_ptr<ClientInstance> instance, QByteArray group)
    : m_instance(std::move(instance)), m_group(std::move(group))
{ }

QByteArray RemoteBrokerOffsetStore::offsetBrokerAddress(const MessageQueue &mq) const
{
    // As the Java client (4.9.7's RemoteBrokerOffsetStore): the master; when the route has
    // none, refresh it and take any broker of the name, so that a group whose master is down
    // reads and commits its offsets on the slave that serves its pulls.
    QByteArray addr = m_instance->masterAddress(mq.brokerName);
    if (addr.isEmpty()) {
        (void)m_instance->refreshTopicRoute(mq.topic);
        const auto any = m_instance->brokerAddress(mq.brokerName, 0, false);
        if (any)
            addr = any->address;
    }
    return addr;
}

std::int64_t RemoteBrokerOffsetStore::readOffset(const MessageQueue &mq, ReadOffsetType type)
{
    if (type != ReadOffsetType::Store) {
        const std::int64_t inMemory = OffsetStore::readOffset(mq, type);
        if (inMemory >= 0 || type == ReadOffsetType::Memory)
            return inMemory;
    }
    const QByteArray addr = offsetBrokerAddress(mq);
    if (addr.isEmpty())
        return -2;
    protocol::QueryConsumerOffsetRequestHeader h;
    h.consumerGroup = m_group;
    h.topic = mq.topic;
    h.queueId = mq.queueId;
    auto r = m_instance->api().queryConsumerOffset(
        addr, h, m_instance->config().mqClientApiTimeout, mq.brokerName);
    if (!r) {
        qCDebug(lcConsumer, "offset of %s/%d for %s: %s", mq.topic.constData(), mq.queueId,
            m_group.constData(), qPrintable(r.error().message()));
        return -2;
    }
    if (*r >= 0)
        updateOffset(mq, *r, false);
    return *r;
}

bool RemoteBrokerOffsetStore::commit(const MessageQueue &mq, std::int64_t offset, bool wait)
{
    const QByteArray addr = offsetBrokerAddress(mq);
    if (addr.isEmpty())
        return false;
    protocol::UpdateConsumerOffsetRequestHeader h;
    h.consumerGroup = m_group;
    h.topic = mq.topic;
    h.queueId = mq.queueId;
    h.commitOffset = offset;
    if (!wait) {
        m_instance->api().updateConsumerOffsetOneway(addr, h, mq.brokerName);
        return true;
    }
    const Status s = m_instance->api().updateConsumerOffset(
        addr, h, m_instance->config().mqClientApiTimeout, mq.brokerName);
    if (!s)
        qCWarning(lcConsumer, "committing offset %lld of %s/%d for %s: %s",
            static_cast<long long>(offset), mq.topic.constData(), mq.queueId, m_group.constData(),
            qPrintable(s.message()));
    return s.isOk();
}

void RemoteBrokerOffsetStore::persistAll(const std::set<MessageQueue> &queues, bool wait)
{
    for (const auto &[mq, offset] : offsets()) {
        if (queues.empty() || queues.count(mq))
            commit(mq, offset, wait);
    }
}

void RemoteBrokerOffsetStore::persist(const MessageQueue &mq, bool wait)
{
    const std::int64_t offset = OffsetStore::readOffset(mq, ReadOffsetType::Memory);
    if (offset >= 0)
        commit(mq, offset, wait);
}

// -- local file -----------------------------------------------------------------------------

LocalFileOffsetStore::LocalFileOffsetStore(
    const QString &dir, const QByteArray &clientId, const QByteArray &group)
{
    const QString root
        = dir.isEmpty() ? QDir::homePath() + QStringLiteral("/.rocketmq_offsets") : dir;
    m_path = root + QLatin1Char('/') + QString::fromUtf8(clientId) + QLatin1Char('/')
        + QString::fromUtf8(group) + QStringLiteral("/offsets.json");
}

QByteArray LocalFileOffsetStore::encode(const std::map<MessageQueue, std::int64_t> &table)
{
    protocol::JsonWriter w;
    w.beginObject().key("offsetTable").beginObject();
    for (const auto &[mq, offset] : table)
        w.rawKey(mq.toJson()).value(offset);
    w.endObject().endObject();
    return w.take();
}

Result<std::map<MessageQueue, std::int64_t>> LocalFileOffsetStore::decode(const QByteArray &json)
{
    auto v = protocol::parseJson(json);
    if (!v)
        return v.error();
    const protocol::JsonValue &table = (*v)["offsetTable"];
    if (!table.isObject())
        return Status::corruption(QStringLiteral("offsets.json has no offsetTable object"));
    std::map<MessageQueue, std::int64_t> out;
    for (const auto &[key, value] : table.members()) {
        // fastjson writes the key as an object; a string holding the JSON is accepted too.
        Result<MessageQueue> mq = key.isString() ? [&]() -> Result<MessageQueue> {
            auto inner = protocol::parseJson(key.toString());
            if (!inner)
                return inner.error();
            return MessageQueue::fromJsonValue(*inner);
        }()
            : MessageQueue::fromJsonValue(key);
        if (!mq)
            return Status::corruption(
                QStringLiteral("offsets.json: bad queue key: %1").arg(mq.error().message()));
        out[*mq] = value.toInteger(-1);
    }
    return out;
}

Status LocalFileOffsetStore::load()
{
    for (const QString &path : {m_path, m_path + QStringLiteral(".bak")}) {
        QFile f(path);
        if (!f.exists())
            continue;
        if (!f.open(QIODevice::ReadOnly)) {
            qCWarning(
                lcConsumer, "cannot read %s: %s", qPrintable(path), qPrintable(f.errorString()));
            continue;
        }
        auto table = decode(f.readAll());
        if (!table) {
            qCWarning(lcConsumer, "%s: %s", qPrintable(path), qPrintable(table.error().message()));
            continue;
        }
        std::lock_guard lock(m_mutex);
        m_table = std::move(table).value();
        qCInfo(lcConsumer, "loaded %zu offsets from %s", m_table.size(), qPrintable(path));
        return Status();
    }
    return Status();
}

std::int64_t LocalFileOffsetStore::readOffset(const MessageQueue &mq, ReadOffsetType type)
{
    if (type != ReadOffsetType::Store) {
        const std::int64_t inMemory = OffsetStore::readOffset(mq, ReadOffsetType::Memory);
        if (inMemory >= 0 || type == ReadOffsetType::Memory)
            return inMemory;
    }
    // The file is the store (the rebalance drops the in-memory copy before it asks).
    for (const QString &path : {m_path, m_path + QStringLiteral(".bak")}) {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            continue;
        auto table = decode(f.readAll());
        if (!table)
            continue;
        const auto it = table->find(mq);
        if (it == table->end())
            return -1;
        updateOffset(mq, it->second, false);
        return it->second;
    }
    return -1;
}

void LocalFileOffsetStore::persistAll(const std::set<MessageQueue> &queues, bool)
{
    std::map<MessageQueue, std::int64_t> table;
    for (const auto &[mq, offset] : offsets()) {
        if (queues.empty() || queues.count(mq))
            table.emplace(mq, offset);
    }
    if (table.empty())
        return;
    std::lock_guard lock(m_fileMutex);
    QDir().mkpath(QFileInfo(m_path).path());
    if (QFile::exists(m_path)) {
        QFile::remove(m_path + QStringLiteral(".bak"));
        QFile::copy(m_path, m_path + QStringLiteral(".bak"));
    }
    QSaveFile f(m_path);
    if (!f.open(QIODevice::WriteOnly) || f.write(encode(table)) < 0 || !f.commit())
        qCWarning(
            lcConsumer, "cannot write %s: %s", qPrintable(m_path), qPrintable(f.errorString()));
}

void LocalFileOffsetStore::persist(const MessageQueue &mq, bool wait)
{
    (void)mq;
    persistAll({}, wait);
}

std::unique_ptr<OffsetStore> makeOffsetStore(protocol::MessageModel model,
    std::shared_ptr<ClientInstance> instance, const QByteArray &group, const QString &localDir)
{
    if (model == protocol::MessageModel::Clustering)
        return std::make_unique<RemoteBrokerOffsetStore>(std::move(instance), group);
    return std::make_unique<LocalFileOffsetStore>(localDir, instance->clientId(), group);
}

} // namespace qrocket::client
