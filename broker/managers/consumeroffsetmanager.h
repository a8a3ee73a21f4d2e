#pragma once

// ConsumerOffsetManager: committed consumer offsets, "<topic>@<group>" -> {queueId: offset},
// persisted in <storePathRootDir>/config/consumerOffset.json (protocol.md §4.4, §7.6). The file
// of RocketMQ (fastjson, unquoted int keys: {"offsetTable":{"T@G":{0:15,1:7}}}) loads as is; we
// write standard JSON with quoted keys, which fastjson reads too.
//
// commit() only updates memory; the controller calls persist() every flushConsumerOffsetInterval
// (5 s) and at shutdown.
//
// With enableLmq (RocketMQ 4.9.7's LmqConsumerOffsetManager) the offsets of a light-queue group
// (a "%LMQ%" name, as RocketMQ's MQTT gateway uses) are one number per "topic@group" (a light
// queue has one queue; the queue id is ignored, as there), kept in a flat table beside the
// per-queue one, and the file is <storePathRootDir>/config/lmqConsumerOffset.json holding both:
// {"offsetTable":{...},"lmqOffsetTable":{"%LMQ%q@%LMQ%q":5}}, so a 4.9.7 broker with enableLmq
// reads the store as is. A million light queues then cost a map entry each, not a queue map.
//
// Thread-safety: all public methods may be called from any thread (guarded by one mutex; the
// file write is serialised by a second one and runs outside the table lock).

#include "broker/managers/configmanager.h"
#include "clientlib/common/status.h"

#include <QByteArray>
#include <QList>
#include <QString>

#include <cstdint>
#include <map>
#include <mutex>
#include <unordered_map>

namespace qrocket::broker {

class ConsumerOffsetManager final : public ConfigManager
{
public:
    using QueueOffsets = std::map<int, std::int64_t>;

    /// `lmqEnabled`: enableLmq (light-queue groups in the flat table, encoded as lmqOffsetTable).
    explicit ConsumerOffsetManager(QString path, bool lmqEnabled = false);
    ConsumerOffsetManager(const ConsumerOffsetManager &) = delete;
    ConsumerOffsetManager &operator=(const ConsumerOffsetManager &) = delete;

    static QString filePath(const QString &storePathRootDir);
    /// <storePathRootDir>/config/lmqConsumerOffset.json: the file with enableLmq.
    static QString lmqFilePath(const QString &storePathRootDir);
    /// The file a broker reads at start: its own (lmqFilePath with enableLmq, else filePath), or
    /// the other one when that is newer or its own is missing, so that turning enableLmq on or
    /// off keeps the committed offsets (RocketMQ 4.9.7 starts from an empty table then).
    static QString fileToLoad(const QString &storePathRootDir, bool lmqEnabled);
    bool lmqEnabled() const { return m_lmq; }

    // load() / persist(): ConfigManager.
    /// {"offsetTable":{"T@G":{"0":15}}}: the file content and the GET_ALL_CONSUMER_OFFSET body.
    QByteArray encode() const override;
    /// Replaces the table with the one in `json` (fastjson or standard form); nothing changes
    /// when it does not decode.
    Status decode(QByteArrayView json) override;
    /// A slave's sync from its master (RocketMQ 4.9.7's SlaveSynchronize: putAll into the offset
    /// table): each "topic@group" in `json` replaces the slave's entry of that key whole; keys
    /// only the slave has (a group that committed to it while its master was down) are kept.
    /// Nothing changes when `json` does not decode.
    Status mergeFrom(QByteArrayView json);

    /// Stores `offset` for the queue. Negative offsets are ignored (ali-ons sends -1 for "none",
    /// client-ali-ons.md pitfall 6) and false is returned.
    bool commit(QByteArrayView group, QByteArrayView topic, int queueId, std::int64_t offset);
    /// The committed offset, or -1 when none.
    std::int64_t query(QByteArrayView group, QByteArrayView topic, int queueId) const;
    /// Every committed queue offset of the group on the topic (empty when none).
    QueueOffsets query(QByteArrayView group, QByteArrayView topic) const;

    /// Topics the group has offsets for / groups with offsets on the topic.
    QList<QByteArray> topicsOfGroup(QByteArrayView group) const;
    QList<QByteArray> groupsOfTopic(QByteArrayView topic) const;
    /// All "topic@group" keys.
    QList<QByteArray> keys() const;

    /// Drops every offset of the group (DELETE_SUBSCRIPTIONGROUP with removeOffset).
    void removeGroup(QByteArrayView group);
    /// Drops the offsets of one topic@group.
    void remove(QByteArrayView group, QByteArrayView topic);
    /// Drops the offsets of every group on the topic.
    void removeTopic(QByteArrayView topic);
    /// Copies the offsets of srcGroup on the topic to destGroup (cloneGroupOffset).
    void cloneOffsets(QByteArrayView srcGroup, QByteArrayView destGroup, QByteArrayView topic);

    static QByteArray key(QByteArrayView topic, QByteArrayView group);

private:
    using Table = std::unordered_map<QByteArray, QueueOffsets>;
    using LmqTable = std::unordered_map<QByteArray, std::int64_t>;

    Status applyTable(QByteArrayView json, bool merge);
    /// A light-queue group with enableLmq: its offsets live in m_lmqTable.
    bool isLmqGroup(QByteArrayView group) const;
    /// The offsets of `k` (either table) as queue offsets; empty when none. m_mutex held.
    QueueOffsets offsetsLocked(const QByteArray &k, bool lmq) const;

    const bool m_lmq;
    mutable std::mutex m_mutex;
    Table m_table; // guarded by m_mutex
    LmqTable m_lmqTable; // "topic@group" of light-queue groups -> offset; guarded by m_mutex
};

} // namespace qrocket::broker
