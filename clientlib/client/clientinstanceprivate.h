#pragma once

// ClientInstance::Private: the instance's tables, shared by clientinstance.cpp (registry,
// lifecycle, heartbeats), routecache.cpp (routes and broker addresses) and brokerrequests.cpp
// (the requests brokers send to the client). Internal header.

#include "clientlib/client/clientinstance.h"
#include "clientlib/client/threads.h"

#include <QHash>

#include <atomic>
#include <map>
#include <mutex>

namespace qrocket::client {

struct ClientInstance::Private
{
    struct RouteEntry
    {
        protocol::TopicRouteData route;
        std::shared_ptr<const TopicPublishInfo> publish;
        std::vector<MessageQueue> subscribe;
    };
    struct PendingReply
    {
        ReplyCallback callback;
        Scheduler::TaskId timer = 0;
    };

    mutable std::mutex mutex;
    bool started = false;
    std::map<QByteArray, std::weak_ptr<ProducerInner>> producers; // guarded by mutex
    std::map<QByteArray, std::weak_ptr<ConsumerInner>> consumers; // guarded by mutex
    QHash<QByteArray, RouteEntry> routes; // guarded by mutex
    std::map<QByteArray, std::map<std::int64_t, QByteArray>> brokers; // guarded by mutex
    std::map<QByteArray, PendingReply> replies; // guarded by mutex
    std::mutex nameServerMutex; // one route update at a time (Java's lockNamesrv)
    std::atomic<bool> rebalancePosted {false};
};

} // namespace qrocket::client
