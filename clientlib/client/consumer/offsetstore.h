#pragma once

// Where a consumer keeps its progress (RocketMQ's OffsetStore):
//   RemoteBrokerOffsetStore  clustering: on the broker (QUERY/UPDATE_CONSUMER_OFFSET), committed
//                            every persistConsumerOffsetInterval and at shutdown;
//   LocalFileOffsetStore     broadcasting: <dir>/<clientId>/<group>/offsets.json, the Java
//                            client's path and JSON ({"offsetTable":{MQ:offset}}), written
//                            through a temporary file with the previous copy kept as .bak.
// Offsets are the next message to consume. Thread-safe.

#include "clientlib/client/message.h"

#include <QString>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>

namespace qrocket::client {

class ClientInstance;

enum class ReadOffsetType : std::uint8_t { Memory, Store, MemoryThenStore };

class OffsetStore
{
public:
    virtual ~OffsetStore() = default;
    virtual Status load() { return Status(); }
    /// `increaseOnly`: never moves an offset back (concurrent commits race).
    void updateOffset(const MessageQueue &mq, std::int64_t offset, bool increaseOnly);
    /// >= 0 the offset; -1 none stored; -2 the store could not be asked.
    virtual std::int64_t readOffset(const MessageQueue &mq, ReadOffsetType type);
    /// Commits the offsets of `queues` (all when empty); `wait` for the answers (shutdown).
    virtual void persistAll(const std::set<MessageQueue> &queues, bool wait) = 0;
    virtual void persist(const MessageQueue &mq, bool wait) = 0;
    void removeOffset(const MessageQueue &mq);
    std::map<MessageQueue, std::int64_t> offsets(const QByteArray &topic = {}) const;

protected:
    mutable std::mutex m_mutex;
    std::map<MessageQueue, std::int64_t> m_table; // guarded by m_mutex
};

class RemoteBrokerOffsetStore final : public OffsetStore
{
public:
    RemoteBrokerOffsetStore(std::shared_ptr<ClientInstance> instance, QByteArray group);
    std::int64_t readOffset(const MessageQueue &mq, ReadOffsetType type) override;
    void persistAll(const std::set<MessageQueue> &queues, bool wait) override;
    void persist(const MessageQueue &mq, bool wait) override;

private:
    bool commit(const MessageQueue &mq, std::int64_t offset, bool wait);
    /// Where the group's offsets of `mq` are read and committed.
    QByteArray offsetBrokerAddress(const MessageQueue &mq) const;
    std::shared_ptr<ClientInstance> m_instance;
    const QByteArray m_group;
};

class LocalFileOffsetStore final : public OffsetStore
{
public:
    /// `dir` empty: $HOME/.rocketmq_offsets (rocketmq.client.localOffsetStoreDir's default).
    LocalFileOffsetStore(const QString &dir, const QByteArray &clientId, const QByteArray &group);
    Status load() override;
    std::int64_t readOffset(const MessageQueue &mq, ReadOffsetType type) override;
    void persistAll(const std::set<MessageQueue> &queues, bool wait) override;
    void persist(const MessageQueue &mq, bool wait) override;
    const QString &path() const { return m_path; }

    static QByteArray encode(const std::map<MessageQueue, std::int64_t> &table);
    static Result<std::map<MessageQueue, std::int64_t>> decode(const QByteArray &json);

private:
    QString m_path;
    std::mutex m_fileMutex;
};

/// The store of `model`, not loaded yet: the broker's (clustering) or the file below `localDir`
/// (broadcasting).
std::unique_ptr<OffsetStore> makeOffsetStore(protocol::MessageModel model,
    std::shared_ptr<ClientInstance> instance, const QByteArray &group, const QString &localDir);

} // namespace qrocket::client
