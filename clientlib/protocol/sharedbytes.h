#pragma once

// SharedBytes: several short QByteArrays in one allocation. Each string is written into the
// block, NUL-terminated as QByteArray's own data is, and handed out as a QByteArray that shares
// the block (a Qt 6 array may start anywhere inside its allocation, as after remove(0, n)), so
// n strings cost one malloc and one free instead of n. The block lives until the last of them
// is gone; changing one detaches it (or, when it is the last holder, grows it in place over
// bytes nobody else can see). Internal to the protocol module and the send path's replies.

#include <QByteArray>
#include <QByteArrayView>

#include <cstring>
#include <utility>

namespace qrocket::protocol {

class SharedBytes
{
public:
    /// A block of `capacity` bytes, allocated at the first room() call.
    explicit SharedBytes(qsizetype capacity) : m_size(capacity) { }

    /// Where to write a string of up to `n` bytes (its NUL is added by commit()), or nullptr
    /// when it does not fit.
    char *room(qsizetype n)
    {
        if (!m_base) {
            m_block = QByteArray(m_size, Qt::Uninitialized);
            m_base = m_block.data(); // before any sharing: no detach
        }
        return m_used + n < m_size ? m_base + m_used : nullptr;
    }
    /// The longest string room() still accepts.
    qsizetype roomLeft() const { return m_size - m_used - 1; }

    /// The `n` bytes just written at room() as a QByteArray sharing the block.
    QByteArray commit(qsizetype n)
    {
        char *at = m_base + m_used;
        at[n] = '\0';
        m_used += n + 1;
        QByteArray::DataPointer shared = m_block.data_ptr(); // one more reference
        shared.ptr = at;
        shared.size = n;
        return QByteArray(std::move(shared));
    }

    /// A copy of `text` in the block, or its own QByteArray when it does not fit.
    QByteArray copy(QByteArrayView text)
    {
        char *at = room(text.size());
        if (!at)
            return text.toByteArray();
        if (!text.isEmpty())
            std::memcpy(at, text.data(), static_cast<std::size_t>(text.size()));
        return commit(text.size());
    }

private:
    qsizetype m_size;
    QByteArray m_block;
    char *m_base = nullptr;
    qsizetype m_used = 0;
};

} // namespace qrocket::protocol
