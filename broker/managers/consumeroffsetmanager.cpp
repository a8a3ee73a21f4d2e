#include "broker/managers/consumeroffsetmanager.h"

#include "broker/common/logging.h"
#include "clientlib/protocol/json.h"

#include <QHashFunctions>

#include <algorithm>

namespace qrocket::broker {

using protocol::JsonValue;
using protocol::JsonWriter;

namespace {

constexpr char kSeparator = '@';

// "topic@group": the topic never contains '@' (name rules), the group might in theory, so split
// on the first '@'.
std::pair<QByteArrayView, QByteArrayView> splitKey(const QByteArray &key)
{
    const qsizetype at = key.indexOf(kSeparator);
    if (at < 0)
        return {QByteArrayView(key), QByteArrayView()};
    return {QByteArrayView(key).first(at), QByteArrayView(key).sliced(at + 1)};
}

} // namespace

ConsumerOffsetManager::ConsumerOffsetManager(QString path)
    : ConfigManager(std::move(path), "consumer offsets")
{ }

QString ConsumerOffsetManager::filePath(const QString &storePathRootDir)
{
    return storePathRootDir + QStringLiteral("/config/consumerOffset.json");
}

QByteArray ConsumerOffsetManager::key(QByteArrayView topic, QByteArrayView group)
{
    QByteArray k;
    k.reserve(topic.size() + group.size() + 1);
    k.append(topic).append(kSeparator).append(group);
    return k;
}

Status ConsumerOffsetManager::decode(QByteArrayView json)
{
    return applyTable(json, false);
}

Status ConsumerOffsetManager::mergeFrom(QByteArrayView json)
{
    return applyTable(json, true);
}

Status ConsumerOffsetManager::applyTable(QByteArrayView json, bool merge)
{
    std::unordered_map<QByteArray, QueueOffsets> loaded;
    const Status st = decodeOffsetTable(json, [&](const JsonValue &table) -> Status {
        for (const auto &[key, queues] : table.members()) {
            const QByteArray name = key.toString();
            if (Status q = decodeIntOffsets(queues, loaded[name], 0, QString::fromUtf8(name)); !q)
                return q;
        }
        return {};
    });
    if (!st)
        return st;
    std::lock_guard lock(m_mutex);
    if (!merge) {
        m_table = std::move(loaded);
        return {};
    }
    for (auto &[k, queues] : loaded)
        m_table.insert_or_assign(k, std::move(queues));
    return {};
}

QByteArray ConsumerOffsetManager::encode() const
{
    std::lock_guard lock(m_mutex);
    // Sorted keys keep the file stable between writes.
    std::vector<const std::pair<const QByteArray, QueueOffsets> *> entries;
    entries.reserve(m_table.size());
    for (const auto &e : m_table)
        entries.push_back(&e);
    std::sort(entries.begin(), entries.end(), [](auto *a, auto *b) { return a->first < b->first; });
    JsonWriter w;
    w.beginObject().key("offsetTable").beginObject();
    for (const auto *e : entries) {
        w.key(e->first);
        writeIntOffsets(w, e->second);
    }
    w.endObject().endObject();
    return w.take();
}

bool ConsumerOffsetManager::commit(
    QByteArrayView group, QByteArrayView topic, int queueId, std::int64_t offset)
{
    if (offset < 0 || queueId < 0)
        return false;
    std::lock_guard lock(m_mutex);
    m_table[key(topic, group)][queueId] = offset;
    return true;
}

std::int64_t ConsumerOffsetManager::query(
    QByteArrayView group, QByteArrayView topic, int queueId) const
{
    std::lock_guard lock(m_mutex);
    auto it = m_table.find(key(topic, group));
    if (it == m_table.end())
        return -1;
    auto q = it->second.find(queueId);
    return q == it->second.end() ? -1 : q->second;
}

ConsumerOffsetManager::QueueOffsets ConsumerOffsetManager::query(
    QByteArrayView group, QByteArrayView topic) const
{
    std::lock_guard lock(m_mutex);
    auto it = m_table.find(key(topic, group));
    return it == m_table.end() ? QueueOffsets() : it->second;
}

QList<QByteArray> ConsumerOffsetManager::topicsOfGroup(QByteArrayView group) const
{
    std::lock_guard lock(m_mutex);
    QList<QByteArray> out;
    for (const auto &[k, offsets] : m_table) {
        const auto [t, g] = splitKey(k);
        if (g == group)
            out.append(t.toByteArray());
    }
    std::sort(out.begin(), out.end());
    return out;
}

QList<QByteArray> ConsumerOffsetManager::groupsOfTopic(QByteArrayView topic) const
{
    std::lock_guard lock(m_mutex);
    QList<QByteArray> out;
    for (const auto &[k, offsets] : m_table) {
        const auto [t, g] = splitKey(k);
        if (t == topic)
            out.append(g.toByteArray());
    }
    std::sort(out.begin(), out.end());
    return out;
}

QList<QByteArray> ConsumerOffsetManager::keys() const
{
    std::lock_guard lock(m_mutex);
    QList<QByteArray> out;
    for (const auto &e : m_table)
        out.append(e.first);
    std::sort(out.begin(), out.end());
    return out;
}

void ConsumerOffsetManager::removeGroup(QByteArrayView group)
{
    std::lock_guard lock(m_mutex);
    std::erase_if(m_table, [&](const auto &e) { return splitKey(e.first).second == group; });
}

void ConsumerOffsetManager::remove(QByteArrayView group, QByteArrayView topic)
{
    std::lock_guard lock(m_mutex);
    m_table.erase(key(topic, group));
}

void ConsumerOffsetManager::removeTopic(QByteArrayView topic)
{
    std::lock_guard lock(m_mutex);
    std::erase_if(m_table, [&](const auto &e) { return splitKey(e.first).first == topic; });
}

void ConsumerOffsetManager::cloneOffsets(
    QByteArrayView srcGroup, QByteArrayView destGroup, QByteArrayView topic)
{
    std::lock_guard lock(m_mutex);
    auto it = m_table.find(key(topic, srcGroup));
    if (it != m_table.end()) {
        QueueOffsets copy = it->second;
        m_table[key(topic, destGroup)] = std::move(copy);
    }
}

} // namespace qrocket::broker
