#pragma once

// ProducerManager: the live producer channels of each producer group, from HEART_BEAT's
// producerDataSet (protocol.md §4.3). Used for GET_PRODUCER_CONNECTION_LIST and to find a live
// channel of a group for CHECK_TRANSACTION_STATE (§4.6).
//
// Thread-safety: every method may be called from any thread (one mutex).

#include "broker/managers/clientchannelinfo.h"

#include <QByteArray>
#include <QList>

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <vector>

namespace qrocket::broker {

class ProducerManager
{
public:
    using Clock = std::function<std::int64_t()>; // ms since the epoch

    explicit ProducerManager(
        std::int64_t channelExpiredTimeoutMs = kChannelExpiredTimeoutMs, Clock clock = {});
    ProducerManager(const ProducerManager &) = delete;
    ProducerManager &operator=(const ProducerManager &) = delete;

    /// Adds the channel to the group or refreshes its heartbeat time. True when it is new.
    bool registerProducer(QByteArrayView group, ClientChannelInfo info);
    /// UNREGISTER_CLIENT: removes the group's channels with this client id (and `channel` if
    /// given). True when something was removed.
    bool unregisterProducer(
        QByteArrayView group, QByteArrayView clientId, const remoting::ChannelPtr &channel = {});
    /// Removes the channel from every group; returns the groups it was in.
    QList<QByteArray> channelClosed(std::uint64_t channelId);
    /// Removes and closes channels idle longer than the expiry; returns how many.
    int scanExpired();

    /// An active channel of the group, rotating between calls; null when none.
    remoting::ChannelPtr availableChannel(QByteArrayView group);
    /// The channel of a client id in any group, or null.
    remoting::ChannelPtr findChannel(QByteArrayView clientId) const;
    /// The group's connections sorted by clientId (GET_PRODUCER_CONNECTION_LIST).
    std::vector<ClientChannelInfo> connections(QByteArrayView group) const;
    QList<QByteArray> groups() const;

private:
    const std::int64_t m_expiry;
    const Clock m_clock;
    mutable std::mutex m_mutex;
    // group -> channel id -> info; guarded by m_mutex
    std::map<QByteArray, std::map<std::uint64_t, ClientChannelInfo>> m_groups;
    std::uint64_t m_rotation = 0; // guarded by m_mutex
};

} // namespace qrocket::broker
