#pragma once

// SubscriptionGroupManager: consumer-group settings, persisted in
// <storePathRootDir>/config/subscriptionGroup.json (protocol.md §7.6, §8.2).
//
// Pre-seeded groups (as RocketMQ 4.9): TOOLS_CONSUMER, FILTERSRV_CONSUMER, SELF_TEST_C_GROUP,
// CID_ONS-HTTP-PROXY, CID_ONSAPI_PULL, CID_ONSAPI_PERMISSION, CID_ONSAPI_OWNER; load() lays the
// file over them. findOrCreate() auto-creates a group with the defaults when
// autoCreateSubscriptionGroup is on (or for a CID_RMQ_SYS_ group). With enableLmq a light-queue
// group ("%LMQ%" name, RocketMQ 4.9.7's LmqSubscriptionGroupManager) is never stored: it reads as
// the defaults, and UPDATE_AND_CREATE_SUBSCRIPTIONGROUP for one is accepted and ignored, so a
// million light queues consumed as groups do not become a million entries here. Every change bumps
// the DataVersion and is journaled (durable before the call returns; the full file is rewritten
// coalesced, see ConfigManager).
//
// Thread-safety: all public methods may be called from any thread; the table is guarded by a
// shared mutex and file writes by a second one.

#include "broker/config/topicconfig.h"
#include "broker/managers/configmanager.h"
#include "clientlib/protocol/bodies/adminbodies.h"

#include <QString>

#include <functional>
#include <optional>
#include <vector>

namespace qrocket::broker {

class SubscriptionGroupManager final
    : public VersionedConfigManager<protocol::SubscriptionGroupConfig>
{
public:
    SubscriptionGroupManager(
        bool autoCreateSubscriptionGroup, QString path, bool lmqEnabled = false);
    SubscriptionGroupManager(const SubscriptionGroupManager &) = delete;
    SubscriptionGroupManager &operator=(const SubscriptionGroupManager &) = delete;

    static QString filePath(const QString &storePathRootDir);

    // load() / persist(): ConfigManager. encode() / decode() / find() / dataVersion():
    // VersionedConfigManager, table "subscriptionGroupTable" (the file content and the
    // GET_ALL_SUBSCRIPTIONGROUP_CONFIG body).
    /// Slave sync from the master's GET_ALL_SUBSCRIPTIONGROUP_CONFIG body: replaces the table and
    /// the DataVersion, then persists. Nothing changes when `json` does not decode.
    Status replaceFrom(QByteArrayView json);

    /// findSubscriptionGroupConfig: the config, auto-created with the defaults when allowed
    /// (autoCreateSubscriptionGroup, or a CID_RMQ_SYS_ group) and the name is valid; else nullopt
    /// (the processor answers SUBSCRIPTION_GROUP_NOT_EXIST, 26).
    std::optional<protocol::SubscriptionGroupConfig> findOrCreate(QByteArrayView group);
    /// UPDATE_AND_CREATE_SUBSCRIPTIONGROUP: validates the name, creates or replaces.
    Status update(protocol::SubscriptionGroupConfig config);
    /// update() that does not wait for the disk: `done` gets its status, at once for a refused
    /// config, else once the change is durable, possibly on the journal's sync thread (see
    /// ConfigManager::commitChangeAsync()). Logs nothing: the caller does.
    void updateAsync(protocol::SubscriptionGroupConfig config, std::function<void(Status)> done);
    /// DELETE_SUBSCRIPTIONGROUP: false when it did not exist.
    bool remove(QByteArrayView group);

    std::vector<protocol::SubscriptionGroupConfig> groups() const { return configs(); }
    bool autoCreate() const { return m_autoCreate; }

    static bool isSystemConsumerGroup(QByteArrayView group)
    {
        return group.startsWith("CID_RMQ_SYS_");
    }

private:
    void seed(const char *group);
    /// update()'s checks of `config`.
    static Status checkUpdate(const protocol::SubscriptionGroupConfig &config);

    const bool m_autoCreate;
    const bool m_lmq;
};

} // namespace qrocket::broker
