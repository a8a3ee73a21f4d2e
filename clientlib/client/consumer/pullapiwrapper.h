#pragma once

// PullAPIWrapper: RocketMQ's seam of that name, the one place where the push and the lite-pull
// consumer build a PULL_MESSAGE request and make sense of its answer: which node of a broker a
// queue is pulled from (the one the broker last suggested, master at first), the request's flags
// and header, and the client-side tag filter of what was found (the broker filters by tag hash
// only). Thread-safe.

#include "clientlib/client/clientinstance.h"
#include "clientlib/client/sendresult.h"

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

namespace qrocket::client {

class PullAPIWrapper
{
public:
    PullAPIWrapper(std::shared_ptr<ClientInstance> instance, QByteArray group);

    /// The broker node to pull `mq` from: with `suggested`, the node the broker last suggested
    /// (any node of that broker when that one is unknown), else its master only. The route is
    /// refreshed once when the broker is not known. nullopt: not known even then.
    std::optional<ClientInstance::BrokerAddress> findBroker(const MessageQueue &mq, bool suggested);

    struct Request
    {
        MessageQueue mq;
        std::int64_t offset = 0;
        int maxMsgNums = 32;
        /// > 0: committed with the pull when it goes to the master.
        std::int64_t commitOffset = 0;
        /// The subscription's expression travels with the request (else the broker's
        /// heartbeat copy is used).
        bool withExpression = false;
        bool litePull = false;
        int brokerSuspendMaxTimeMillis = 15000;
        int timeoutMillis = 30000;
    };
    /// Sends the pull to `broker`; `callback` runs on the remoting I/O thread.
    void pullAsync(const ClientInstance::BrokerAddress &broker, const Request &request,
        const protocol::SubscriptionData &sub, std::function<void(Result<PullResult>)> callback);

    /// Records the node the broker suggests for `mq`'s next pull and, when messages were found,
    /// keeps only those `sub`'s tags accept (with `stampOffsets`, each marked with the queue's
    /// MIN_OFFSET / MAX_OFFSET as in RocketMQ).
    void processPullResult(const MessageQueue &mq, PullResult &result,
        const protocol::SubscriptionData &sub, bool stampOffsets);

private:
    std::int64_t pullFromWhichNode(const MessageQueue &mq) const;

    const std::shared_ptr<ClientInstance> m_instance;
    const QByteArray m_group;
    mutable std::mutex m_mutex;
    std::map<MessageQueue, std::int64_t> m_pullFromWhichNode; // guarded by m_mutex
};

} // namespace qrocket::client
