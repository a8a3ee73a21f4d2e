#include "broker/filter/sqlfiltercache.h"

#include "broker/filter/sqlexpression.h"

#include <algorithm>
#include <utility>

namespace qrocket::broker::filter {

namespace {

class SqlPropertyFilter final : public storage::PropertyFilter
{
public:
    explicit SqlPropertyFilter(std::shared_ptr<const SqlExpression> expression)
        : m_expression(std::move(expression))
    { }
    bool matches(QByteArrayView properties) const override
    {
        return m_expression->matches(properties);
    }

private:
    std::shared_ptr<const SqlExpression> m_expression;
};

} // namespace

SqlFilterCache::SqlFilterCache(std::size_t maxEntries)
    : m_maxEntries(std::max<std::size_t>(1, maxEntries))
{ }

Result<std::shared_ptr<const storage::PropertyFilter>> SqlFilterCache::get(
    QByteArrayView expression)
{
    {
        std::lock_guard lock(m_mutex);
        if (const auto it = m_entries.find(expression); it != m_entries.end()) {
            it->second.lastUse = ++m_clock;
            if (it->second.filter)
                return it->second.filter;
            return it->second.error;
        }
    }
    // Compiled outside the lock: a long selector must not stall other groups' pulls. Two pulls
    // compiling the same new text at once both succeed; the first one stored is kept.
    Entry entry;
    auto compiled = SqlExpression::compile(expression);
    if (compiled)
        entry.filter = std::make_shared<SqlPropertyFilter>(std::move(compiled).value());
    else
        entry.error = compiled.error();
    std::lock_guard lock(m_mutex);
    auto [it, inserted] = m_entries.try_emplace(expression.toByteArray(), std::move(entry));
    it->second.lastUse = ++m_clock;
    if (inserted && m_entries.size() > m_maxEntries)
        evictOneLocked();
    if (it->second.filter)
        return it->second.filter;
    return it->second.error;
}

Result<std::shared_ptr<const storage::PropertyFilter>> SqlFilterCache::forSubscription(
    QByteArrayView expressionType, QByteArrayView expression)
{
    if (expressionType != kSql92)
        return Status::notSupported(QStringLiteral("no message filter of type \"%1\"")
                                        .arg(QString::fromUtf8(expressionType)));
    return get(expression);
}

Result<std::shared_ptr<const storage::PropertyFilter>> subscriptionFilter(
    SqlFilterCache *cache, QByteArrayView expressionType, QByteArrayView expression)
{
    if (!cache)
        return Status::notSupported(QStringLiteral("property filters are not set up"));
    return cache->forSubscription(expressionType, expression);
}

void SqlFilterCache::evictOneLocked()
{
    // Linear, but only when a new text arrives at a full cache.
    auto oldest = m_entries.begin();
    for (auto it = m_entries.begin(); it != m_entries.end(); ++it)
        if (it->second.lastUse < oldest->second.lastUse)
            oldest = it;
    m_entries.erase(oldest);
}

std::size_t SqlFilterCache::size() const
{
    std::lock_guard lock(m_mutex);
    return m_entries.size();
}

} // namespace qrocket::broker::filter
