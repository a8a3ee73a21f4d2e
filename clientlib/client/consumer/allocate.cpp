#include "clientlib/client/consumer/allocate.h"

#include <QCryptographicHash>

#include <algorithm>
#include <map>

namespace qrocket::client {

const char *allocateStrategyName(AllocateStrategy strategy)
{
    switch (strategy) {
    case AllocateStrategy::Averagely:
        return "AVG";
    case AllocateStrategy::AveragelyByCircle:
        return "AVG_BY_CIRCLE";
    case AllocateStrategy::ConsistentHash:
        return "CONSISTENT_HASH";
    }
    return "AVG";
}

namespace {

/// The first 4 MD5 bytes as an unsigned number (RocketMQ's ConsistentHashRouter.MD5Hash).
std::uint64_t md5Hash(const QByteArray &key)
{
    const QByteArray digest = QCryptographicHash::hash(key, QCryptographicHash::Md5);
    std::uint64_t h = 0;
    for (int i = 0; i < 4; ++i)
        h = (h << 8) | static_cast<std::uint8_t>(digest[i]);
    return h;
}

QByteArray javaToString(const MessageQueue &mq)
{
    return "MessageQueue [topic=" + mq.topic + ", brokerName=" + mq.brokerName
        + ", queueId=" + QByteArray::number(mq.queueId) + "]";
}

} // namespace

std::vector<MessageQueue> allocateMessageQueues(AllocateStrategy strategy,
    const QByteArray &currentId, const std::vector<MessageQueue> &all,
    const std::vector<QByteArray> &consumerIds)
{
    std::vector<MessageQueue> out;
    const auto it = std::find(consumerIds.begin(), consumerIds.end(), currentId);
    if (it == consumerIds.end() || all.empty())
        return out;
    const auto index = static_cast<std::size_t>(it - consumerIds.begin());
    const std::size_t n = consumerIds.size();
    const std::size_t q = all.size();
    switch (strategy) {
    case AllocateStrategy::Averagely: {
        const std::size_t mod = q % n;
        const std::size_t average = q <= n ? 1 : (mod > 0 && index < mod ? q / n + 1 : q / n);
        const std::size_t start
            = (mod > 0 && index < mod) ? index * average : index * average + mod;
        const std::size_t range = start >= q ? 0 : std::min(average, q - start);
        for (std::size_t i = 0; i < range; ++i)
            out.push_back(all[(start + i) % q]);
        break;
    }
    case AllocateStrategy::AveragelyByCircle:
        for (std::size_t i = index; i < q; i += n)
            out.push_back(all[i]);
        break;
    case AllocateStrategy::ConsistentHash: {
        std::map<std::uint64_t, QByteArray> ring;
        for (const QByteArray &id : consumerIds) {
            for (int v = 0; v < 10; ++v)
                ring.emplace(md5Hash(id + '-' + QByteArray::number(v)), id);
        }
        for (const MessageQueue &mq : all) {
            auto node = ring.lower_bound(md5Hash(javaToString(mq)));
            if (node == ring.end())
                node = ring.begin();
            if (node->second == currentId)
                out.push_back(mq);
        }
        break;
    }
    }
    return out;
}

} // namespace qrocket::client
