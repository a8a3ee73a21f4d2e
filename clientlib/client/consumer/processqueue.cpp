#include "clientlib/client/consumer/processqueue.h"

namespace qrocket::client {

bool ProcessQueue::putMessages(const std::vector<MessageExt> &msgs, bool keepMessages)
{
    std::lock_guard lock(m_mutex);
    for (const MessageExt &m : msgs) {
        const qsizetype bytes = m.body().size();
        const bool added = keepMessages
            ? m_messages.try_emplace(m.queueOffset(), Held {bytes, m}).second
            : m_messages.try_emplace(m.queueOffset(), Held {bytes, MessageExt()}).second;
        if (added) {
            ++m_count;
            m_bytes += bytes;
        }
        if (m.queueOffset() > m_maxOffset)
            m_maxOffset = m.queueOffset();
    }
    if (!m_messages.empty() && !m_consumingOrderly) {
        m_consumingOrderly = true;
        return true;
    }
    return false;
}

std::int64_t ProcessQueue::removeMessages(const std::vector<MessageExt> &msgs)
{
    std::vector<std::int64_t> offsets;
    offsets.reserve(msgs.size());
    for (const MessageExt &m : msgs)
        offsets.push_back(m.queueOffset());
    return removeMessages(offsets);
}

std::int64_t ProcessQueue::removeMessages(std::span<const std::int64_t> queueOffsets)
{
    std::lock_guard lock(m_mutex);
    if (m_messages.empty())
        return -1;
    for (const std::int64_t queueOffset : queueOffsets) {
        const auto it = m_messages.find(queueOffset);
        if (it == m_messages.end())
            continue;
        m_bytes -= it->second.bytes;
        --m_count;
        m_messages.erase(it);
    }
    return m_messages.empty() ? m_maxOffset + 1 : m_messages.begin()->first;
}

std::int64_t ProcessQueue::maxSpan() const
{
    std::lock_guard lock(m_mutex);
    return m_messages.empty() ? 0 : m_messages.rbegin()->first - m_messages.begin()->first;
}

std::int64_t ProcessQueue::messageCount() const
{
    std::lock_guard lock(m_mutex);
    return m_count;
}

std::int64_t ProcessQueue::messageBytes() const
{
    std::lock_guard lock(m_mutex);
    return m_bytes;
}

std::vector<MessageExt> ProcessQueue::takeMessages(int n)
{
    std::vector<MessageExt> out;
    std::lock_guard lock(m_mutex);
    while (static_cast<int>(out.size()) < n && !m_messages.empty()) {
        auto it = m_messages.begin();
        out.push_back(it->second.msg);
        m_consuming.emplace(it->first, std::move(it->second));
        m_messages.erase(it);
    }
    if (out.empty())
        m_consumingOrderly = false;
    return out;
}

std::int64_t ProcessQueue::commit()
{
    std::lock_guard lock(m_mutex);
    if (m_consuming.empty())
        return -1;
    const std::int64_t offset = m_consuming.rbegin()->first + 1;
    for (const auto &[off, held] : m_consuming) {
        --m_count;
        m_bytes -= held.bytes;
    }
    m_consuming.clear();
    return offset;
}

void ProcessQueue::makeMessagesToConsumeAgain(const std::vector<MessageExt> &msgs)
{
    std::lock_guard lock(m_mutex);
    for (const MessageExt &m : msgs) {
        m_consuming.erase(m.queueOffset());
        m_messages.try_emplace(m.queueOffset(), Held {m.body().size(), m});
    }
}

void ProcessQueue::clear()
{
    std::lock_guard lock(m_mutex);
    m_messages.clear();
    m_consuming.clear();
    m_count = 0;
    m_bytes = 0;
    m_maxOffset = -1;
}

ProcessQueue::Info ProcessQueue::info() const
{
    std::lock_guard lock(m_mutex);
    Info i;
    i.cachedMsgCount = static_cast<std::int64_t>(m_messages.size());
    if (!m_messages.empty()) {
        i.cachedMsgMinOffset = m_messages.begin()->first;
        i.cachedMsgMaxOffset = m_messages.rbegin()->first;
    }
    i.cachedMsgSizeInMiB = m_bytes / (1024 * 1024);
    i.transactionMsgCount = static_cast<std::int64_t>(m_consuming.size());
    return i;
}

} // namespace qrocket::client
