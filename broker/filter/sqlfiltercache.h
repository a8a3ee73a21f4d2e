#pragma once

// SqlFilterCache: compiled SQL92 selectors (MessageSelector.bySql) by their text, as the pull
// path's property filters (storage::PropertyFilter).
//
// RocketMQ keeps a ConsumerFilterManager: one compiled expression per (topic, group), registered
// from heartbeats, versioned, persisted to consumerFilter.json, for the bloom-filter bit maps it
// can compute at dispatch. QRocket computes no bit maps, so a filter needs nothing but its text:
// the subscription a pull uses (the request's own with the SUBSCRIPTION flag, else the one its
// group's heartbeat registered, already version-checked) names the expression, and this cache
// compiles each text once for every group that subscribes with it. Nothing per group is kept, so
// nothing goes stale when a group leaves; the cache is bounded and drops the least recently used
// text when full. Compile errors are cached too, so a client repeating a bad selector costs a
// lookup.
//
// Thread-safe: get() may be called from any pull thread; the filters it returns are immutable.

#include "clientlib/common/result.h"
#include "storage/core/storetypes.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QHashFunctions>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace qrocket::broker::filter {

/// RocketMQ's ExpressionType.isTagType: no type, "", or "TAG" (case matters).
inline bool isTagType(QByteArrayView expressionType)
{
    return expressionType.isEmpty() || expressionType == "TAG";
}

inline constexpr char kSql92[] = "SQL92";

/// RocketMQ's remark for a non-TAG subscription while enablePropertyFilter is off.
inline QByteArray unsupportedFilterRemark(QByteArrayView expressionType)
{
    return "The broker does not support consumer to filter message by "
        + expressionType.toByteArray();
}

class SqlFilterCache;

/// The property filter of a non-TAG subscription through `cache` (null: none set up, an error),
/// as SqlFilterCache::forSubscription.
Result<std::shared_ptr<const storage::PropertyFilter>> subscriptionFilter(
    SqlFilterCache *cache, QByteArrayView expressionType, QByteArrayView expression);

class SqlFilterCache
{
public:
    static constexpr std::size_t kDefaultMaxEntries = 1024;

    explicit SqlFilterCache(std::size_t maxEntries = kDefaultMaxEntries);

    /// The filter for `expression`, compiled now or earlier, or why it does not compile.
    Result<std::shared_ptr<const storage::PropertyFilter>> get(QByteArrayView expression);

    /// For a subscription of `expressionType` that is not a TAG type: get() for "SQL92", an
    /// error for any other type (RocketMQ has no filter for it either).
    Result<std::shared_ptr<const storage::PropertyFilter>> forSubscription(
        QByteArrayView expressionType, QByteArrayView expression);

    std::size_t size() const;

private:
    struct Entry
    {
        std::shared_ptr<const storage::PropertyFilter> filter; // null when it did not compile
        Status error;
        std::uint64_t lastUse = 0;
    };
    void evictOneLocked();

    /// Looked up by view: a pull's lookup copies nothing.
    struct TextHash
    {
        using is_transparent = void;
        std::size_t operator()(QByteArrayView text) const { return qHash(text); }
    };
    struct TextEqual
    {
        using is_transparent = void;
        bool operator()(QByteArrayView a, QByteArrayView b) const { return a == b; }
    };

    const std::size_t m_maxEntries;
    mutable std::mutex m_mutex;
    std::unordered_map<QByteArray, Entry, TextHash, TextEqual> m_entries; // guarded by m_mutex
    std::uint64_t m_clock = 0; // guarded by m_mutex
};

} // namespace qrocket::broker::filter
