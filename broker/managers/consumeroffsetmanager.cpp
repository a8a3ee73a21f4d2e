#include "broker/managers/consumeroffsetmanager.h"

#include "broker/common/logging.h"
#include "clientlib/protocol/json.h"
#include "storage/core/multidispatch.h"

#include <QFileInfo>
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

ConsumerOffsetManager::ConsumerOffsetManager(QString path, bool lmqEnabled)
    : ConfigManager(std::move(path), "consumer offsets"), m_lmq(lmqEnabled)
{ }

QString ConsumerOffsetManager::filePath(const QString &storePathRootDir)
{
    return storePathRootDir + QStringLiteral("/config/consumerOffset.json");
}

QString ConsumerOffsetManager::lmqFilePath(const QString &storePathRootDir)
{
    return storePathRootDir + QStringLiteral("/config/lmqConsumerOffset.json");
}

QString ConsumerOffsetManager::fileToLoad(const QString &storePathRootDir, bool lmqEnabled)
{
    const QString own = lmqEnabled ? lmqFilePath(storePathRootDir) : filePath(storePathRootDir);
    const QString other = lmqEnabled ? filePath(storePathRootDir) : lmqFilePath(storePathRootDir);
    const QFileInfo ownInfo(own), otherInfo(other);
    if (!otherInfo.exists())
        return own;
    if (!ownInfo.exists() || otherInfo.lastModified() > ownInfo.lastModified())
        return other;
    return own;
}

bool ConsumerOffsetManager::isLmqGroup(QByteArrayView group) const
{
    return m_lmq && storage::isLmqName(group);
}

ConsumerOffsetManager::QueueOffsets ConsumerOffsetManager::offsetsLocked(
    const QByteArray &k, bool lmq) const
{
    if (lmq) {
        auto it = m_lmqTable.find(k);
        return it == m_lmqTable.end() ? QueueOffsets() : QueueOffsets {{0, it->second}};
    }
    auto it = m_table.find(k);
    return it == m_table.end() ? QueueOffsets() : it->second;
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
    // Every entry goes where this broker keeps it, whichever table of the file it came from: a
    // light-queue group's queue offsets into the flat table with enableLmq (queue 0's, the only
    // queue of a light queue), its flat offset back into queue 0 without it.
    Table loaded;
    LmqTable loadedLmq;
    auto file = [&](const QByteArray &k, QueueOffsets queues) {
        if (isLmqGroup(splitKey(k).second)) {
            if (auto q0 = queues.find(0); q0 != queues.end())
                loadedLmq[k] = q0->second;
        } else {
            loaded[k] = std::move(queues);
        }
    };
    // One parse for both tables ({"offsetTable":{...}} as decodeOffsetTable reads it, and RocketMQ
    // 4.9.7's "lmqOffsetTable":{"topic@group":offset} beside it).
    const auto parsed = protocol::parseJson(json);
    if (!parsed)
        return parsed.error();
    const JsonValue &table = (*parsed)["offsetTable"];
    if (!parsed->isObject() || !table.isObject())
        return Status::corruption(QStringLiteral("no offsetTable object"));
    for (const auto &[key, queues] : table.members()) {
        const QByteArray name = key.toString();
        QueueOffsets offsets;
        if (Status q = decodeIntOffsets(queues, offsets, 0, QString::fromUtf8(name)); !q)
            return q;
        file(name, std::move(offsets));
    }
    if (const JsonValue *lmq = parsed->find("lmqOffsetTable"); lmq && !lmq->isNull()) {
        if (!lmq->isObject())
            return Status::corruption(QStringLiteral("lmqOffsetTable is not an object"));
        for (const auto &[key, offset] : lmq->members()) {
            if (!offset.isNumber())
                return Status::corruption(QStringLiteral("bad lmqOffsetTable entry '%1'")
                                              .arg(QString::fromUtf8(key.toString())));
            file(key.toString(), QueueOffsets {{0, offset.toInteger()}});
        }
    }
    std::lock_guard lock(m_mutex);
    if (!merge) {
        m_table = std::move(loaded);
        m_lmqTable = std::move(loadedLmq);
        return {};
    }
    for (auto &[k, queues] : loaded)
        m_table.insert_or_assign(k, std::move(queues));
    for (auto &[k, offset] : loadedLmq)
        m_lmqTable.insert_or_assign(k, offset);
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
    w.endObject();
    if (m_lmq) {
        std::vector<const std::pair<const QByteArray, std::int64_t> *> lmq;
        lmq.reserve(m_lmqTable.size());
        for (const auto &e : m_lmqTable)
            lmq.push_back(&e);
        std::sort(lmq.begin(), lmq.end(), [](auto *a, auto *b) { return a->first < b->first; });
        w.key("lmqOffsetTable").beginObject();
        for (const auto *e : lmq)
            w.key(e->first).value(e->second);
        w.endObject();
    }
    w.endObject();
    return w.take();
}

bool ConsumerOffsetManager::commit(
    QByteArrayView group, QByteArrayView topic, int queueId, std::int64_t offset)
{
    if (offset < 0 || queueId < 0)
        return false;
    const bool lmq = isLmqGroup(group);
    std::lock_guard lock(m_mutex);
    if (lmq)
        m_lmqTable[key(topic, group)] = offset;
    else
        m_table[key(topic, group)][queueId] = offset;
    return true;
}

std::int64_t ConsumerOffsetManager::query(
    QByteArrayView group, QByteArrayView topic, int queueId) const
{
    const bool lmq = isLmqGroup(group);
    std::lock_guard lock(m_mutex);
    if (lmq) { // one offset whatever the queue id, as RocketMQ's LmqConsumerOffsetManager
        auto it = m_lmqTable.find(key(topic, group));
        return it == m_lmqTable.end() ? -1 : it->second;
    }
    auto it = m_table.find(key(topic, group));
    if (it == m_table.end())
        return -1;
    auto q = it->second.find(queueId);
    return q == it->second.end() ? -1 : q->second;
}

ConsumerOffsetManager::QueueOffsets ConsumerOffsetManager::query(
    QByteArrayView group, QByteArrayView topic) const
{
    const bool lmq = isLmqGroup(group);
    std::lock_guard lock(m_mutex);
    return offsetsLocked(key(topic, group), lmq);
}

QList<QByteArray> ConsumerOffsetManager::topicsOfGroup(QByteArrayView group) const
{
    std::lock_guard lock(m_mutex);
    QList<QByteArray> out;
    auto visit = [&](const QByteArray &k) {
        const auto [t, g] = splitKey(k);
        if (g == group)
            out.append(t.toByteArray());
    };
    for (const auto &e : m_table)
        visit(e.first);
    for (const auto &e : m_lmqTable)
        visit(e.first);
    std::sort(out.begin(), out.end());
    return out;
}

QList<QByteArray> ConsumerOffsetManager::groupsOfTopic(QByteArrayView topic) const
{
    std::lock_guard lock(m_mutex);
    QList<QByteArray> out;
    auto visit = [&](const QByteArray &k) {
        const auto [t, g] = splitKey(k);
        if (t == topic)
            out.append(g.toByteArray());
    };
    for (const auto &e : m_table)
        visit(e.first);
    for (const auto &e : m_lmqTable)
        visit(e.first);
    std::sort(out.begin(), out.end());
    return out;
}

QList<QByteArray> ConsumerOffsetManager::keys() const
{
    std::lock_guard lock(m_mutex);
    QList<QByteArray> out;
    for (const auto &e : m_table)
        out.append(e.first);
    for (const auto &e : m_lmqTable)
        out.append(e.first);
    std::sort(out.begin(), out.end());
    return out;
}

void ConsumerOffsetManager::removeGroup(QByteArrayView group)
{
    std::lock_guard lock(m_mutex);
    std::erase_if(m_table, [&](const auto &e) { return splitKey(e.first).second == group; });
    std::erase_if(m_lmqTable, [&](const auto &e) { return splitKey(e.first).second == group; });
}

void ConsumerOffsetManager::remove(QByteArrayView group, QByteArrayView topic)
{
    std::lock_guard lock(m_mutex);
    m_table.erase(key(topic, group));
    m_lmqTable.erase(key(topic, group));
}

void ConsumerOffsetManager::removeTopic(QByteArrayView topic)
{
    std::lock_guard lock(m_mutex);
    std::erase_if(m_table, [&](const auto &e) { return splitKey(e.first).first == topic; });
    std::erase_if(m_lmqTable, [&](const auto &e) { return splitKey(e.first).first == topic; });
}

void ConsumerOffsetManager::cloneOffsets(
    QByteArrayView srcGroup, QByteArrayView destGroup, QByteArrayView topic)
{
    const bool srcLmq = isLmqGroup(srcGroup);
    const bool destLmq = isLmqGroup(destGroup);
    std::lock_guard lock(m_mutex);
    QueueOffsets copy = offsetsLocked(key(topic, srcGroup), srcLmq);
    if (copy.empty())
        return;
    if (!destLmq)
        m_table[key(topic, destGroup)] = std::move(copy);
    else if (auto q0 = copy.find(0); q0 != copy.end())
        m_lmqTable[key(topic, destGroup)] = q0->second;
}

} // namespace qrocket::broker
