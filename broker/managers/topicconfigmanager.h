#pragma once

// TopicConfigManager: the broker's topic table, persisted in <storePathRootDir>/config/topics.json
// (protocol.md §7.6, §8.2).
//
// - At construction the system topics are created (SELF_TEST_TOPIC, TBW102 with perm 7 when
//   autoCreateTopicEnable, BenchmarkTest, <cluster>, <brokerName>, OFFSET_MOVED_EVENT,
//   SCHEDULE_TOPIC_XXXX, <cluster>_REPLY_TOPIC, the trace topic when traceTopicEnable); load()
//   then lays the file's entries over them, as RocketMQ does.
// - Every change bumps the DataVersion, is journaled (durable before the call returns; the full
//   file is rewritten coalesced, see ConfigManager) and calls the change listener (after all
//   locks are released) so the controller can re-register with the name servers.
//
// Thread-safety: every public method may be called from any thread (processor executors, the
// controller's thread). The table is guarded by a shared mutex (lookups share it); persistence is
// serialised by a second mutex. The change listener runs on the calling thread.

#include "broker/config/topicconfig.h"
#include "broker/managers/configmanager.h"
#include "clientlib/common/result.h"

#include <QByteArray>
#include <QList>
#include <QString>

#include <functional>
#include <mutex>
#include <vector>

namespace qrocket::broker {

struct BrokerConfig;

class TopicConfigManager final : public VersionedConfigManager<TopicConfig>
{
public:
    /// Called with the created, updated or deleted topic (an empty name: the whole table).
    using ChangeListener = std::function<void(const QByteArray &topic)>;
    /// The same, with the DataVersion that change gave the table (the name servers' incremental
    /// registration carries it: a later change has a later version even when its notification
    /// comes first).
    using VersionedChangeListener
        = std::function<void(const QByteArray &topic, const DataVersion &version)>;

    /// `path` is the topics.json file (see filePath()).
    TopicConfigManager(const BrokerConfig &config, QString path);
    /// Waits for the completions of updateTopicConfigAsync() still to run.
    ~TopicConfigManager() override;
    TopicConfigManager(const TopicConfigManager &) = delete;
    TopicConfigManager &operator=(const TopicConfigManager &) = delete;

    static QString filePath(const QString &storePathRootDir);

    // load() / persist() / flushJournal() (ConfigManager); changes are journaled.
    // encode() / decode() / find() / contains() / dataVersion(): VersionedConfigManager, table
    // "topicConfigTable" (the file content and the GET_ALL_TOPIC_CONFIG body).
    /// Slave sync from the master's GET_ALL_TOPIC_CONFIG body: replaces the whole table and the
    /// DataVersion, then persists and notifies. Nothing changes when `json` does not decode.
    Status replaceFrom(QByteArrayView json);

    void setChangeListener(ChangeListener listener);
    void setChangeListener(VersionedChangeListener listener);

    std::vector<TopicConfig> topics() const { return configs(); }
    QList<QByteArray> topicNames() const;
    /// Bumps the DataVersion without a change (brokerPermission updated: the name servers must
    /// take the next registration).
    void nextDataVersion();
    /// TopicValidator's system topics plus this broker's cluster and broker name topics.
    bool isSystemTopic(QByteArrayView topic) const;

    /// SEND_MESSAGE auto-create (createTopicInSendMessageMethod): returns the existing config, or
    /// creates `topic` from the template `defaultTopic` (normally TBW102) with
    /// min(clientDefaultTopicQueueNums, template writeQueueNums) queues, the template's perm
    /// without INHERIT and its filter type. NotFound when the template is missing, lacks INHERIT,
    /// or is TBW102 while autoCreateTopicEnable is off; InvalidArgument for a bad name.
    Result<TopicConfig> createTopicInSendMessageMethod(QByteArrayView topic,
        QByteArrayView defaultTopic, QByteArrayView remoteAddress, int clientDefaultTopicQueueNums,
        int topicSysFlag);
    /// Returns the existing config or creates `topic` with `queueNums` read/write queues
    /// (createTopicInSendMessageBackMethod; %RETRY%, %DLQ% and transaction topics).
    /// InvalidArgument for a name no topic may have (a retry topic of a group longer than
    /// topics::kGroupMaxLength), so that nothing is stored that can never be delivered.
    Result<TopicConfig> createTopicInSendMessageBackMethod(
        QByteArrayView topic, int queueNums, int perm, int topicSysFlag = 0);
    /// %RETRY%<group> with `retryQueueNums` queues, perm 6; InvalidArgument for a bad group.
    Result<TopicConfig> createRetryTopic(QByteArrayView group, int retryQueueNums);
    /// %DLQ%<group> with 1 queue, perm 6; InvalidArgument for a bad group.
    Result<TopicConfig> createDlqTopic(QByteArrayView group);

    /// UPDATE_AND_CREATE_TOPIC: validates the name and queue counts, then creates or replaces.
    /// Refusing system topics is the admin processor's call (isSystemTopic()).
    Status updateTopicConfig(TopicConfig config);
    /// updateTopicConfig() that does not wait for the disk: `done` gets its status, at once for
    /// a refused config, else once the change is durable, possibly on the journal's sync thread
    /// (requests in flight together share one sync; see ConfigManager::commitChangeAsync()). The
    /// change listener runs before `done`, on the same thread. Logs nothing: the caller does.
    void updateTopicConfigAsync(TopicConfig config, std::function<void(Status)> done);
    /// DELETE_TOPIC_IN_BROKER: false when the topic did not exist.
    bool deleteTopicConfig(QByteArrayView topic);
    /// RocketMQ's updateOrderTopicConfig, from the name server's ORDER_TOPIC_CONFIG table that a
    /// registration returns: the topics named there are order topics, every other one is not.
    /// On a change the DataVersion moves and the table is persisted (no re-registration).
    /// Returns whether anything changed.
    bool updateOrderTopics(const QList<QByteArray> &orderTopics);

private:
    void createSystemTopics(const BrokerConfig &config);
    void putSystemTopic(TopicConfig c);
    void changed(const QByteArray &topic, const DataVersion &version);
    /// updateTopicConfig()'s checks of `config`.
    static Status checkUpdate(const TopicConfig &config);

    QByteArray m_clusterName;
    QByteArray m_brokerName;
    bool m_autoCreateTopicEnable = true;

    std::mutex m_listenerMutex;
    VersionedChangeListener m_listener; // guarded by m_listenerMutex
};

} // namespace qrocket::broker
