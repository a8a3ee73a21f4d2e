#pragma once

// Interned header strings, internal to the protocol module: the extFields keys QRocket's typed
// headers use and the commonest small values come back as QByteArrays over static storage (no
// allocation, and no reference counting when copied), so a typical decoded header allocates only
// for its free-text values (topic, group, properties...). Everything here is inline: the header
// decoders call it once per field.

#include <QByteArray>
#include <QByteArrayView>

#include <array>
#include <cstdint>
#include <cstring>

namespace qrocket::protocol::interning {

/// Every extFields key QRocket's typed headers read or write (RocketMQ's header field names).
inline constexpr const char *kKnownKeys[] = {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k",
    "l", "m", "n", "MSG_REGION", "TRACE_ON", "_UNIQUE_KEY_QUERY", "acceptStandardJsonOnly",
    "addTopicCount", "batch", "beginTimestamp", "bname", "bornTimestamp", "brokerAddr", "brokerId",
    "brokerName", "changed", "clientAddr", "clientID", "clientId", "cluster", "clusterName",
    "commitLogOffset", "commitOffset", "commitOrRollback", "compressed", "consumerGroup", "count",
    "defaultTopic", "defaultTopicQueueNums", "delayLevel", "endTimestamp", "expressionType", "flag",
    "fromTransactionCheck", "group", "groupName", "haServerAddr", "index",
    "indexLastUpdatePhyoffset", "indexLastUpdateTimestamp", "isForce", "jstackEnable", "key",
    "masterAddr", "maxMsgNums", "maxNum", "maxOffset", "maxReconsumeTimes", "minOffset", "msgId",
    "namespace", "nextBeginOffset", "offset", "offsetMsgId", "order", "originMsgId", "originTopic",
    "perm", "producerGroup", "properties", "queueId", "queueOffset", "readQueueNums",
    "reconsumeTimes", "removeOffset", "subVersion", "subscription", "suggestWhichBrokerId",
    "suspendTimeoutMillis", "sysFlag", "timestamp", "topic", "topicFilterType", "topicSysFlag",
    "tranStateTableOffset", "transactionId", "unitMode", "value", "version", "wipeTopicCount",
    "writeQueueNums", "topicSeq", "sysFlagOfRequest", "maxMsgBytes", "brokerVersion", "bodyCrc32",
    "compressedFilter", "enableActingMaster", "heartbeatTimeoutMillis", "zoneName", "unit", "lo"};

inline std::uint32_t internHash(const char *p, qsizetype n)
{
    const auto first = static_cast<unsigned char>(p[0]);
    const auto last = static_cast<unsigned char>(p[n - 1]);
    const auto mid = static_cast<unsigned char>(p[n / 2]);
    return (static_cast<std::uint32_t>(n) * 97u + first * 31u + mid * 7u + last) & 511u;
}

class KeyTable
{
public:
    KeyTable()
    {
        for (const char *key : kKnownKeys) {
            const auto n = static_cast<qsizetype>(std::strlen(key));
            std::uint32_t h = internHash(key, n);
            while (m_slots[h].data())
                h = (h + 1) & 511u;
            m_slots[h] = QByteArrayView(key, n);
        }
    }
    /// A static QByteArray for a known key, else a null one.
    QByteArray find(QByteArrayView key) const
    {
        if (key.isEmpty())
            return QByteArray();
        for (std::uint32_t h = internHash(key.data(), key.size());; h = (h + 1) & 511u) {
            const QByteArrayView slot = m_slots[h];
            if (!slot.data())
                return QByteArray();
            if (slot.size() == key.size()
                && std::memcmp(slot.data(), key.data(), static_cast<std::size_t>(key.size())) == 0)
                return QByteArray::fromRawData(slot.data(), slot.size());
        }
    }

private:
    std::array<QByteArrayView, 512> m_slots {};
};

const KeyTable &keyTable()
{
    static const KeyTable table;
    return table;
}

/// Static text of -1..99, each NUL-terminated.
struct SmallNumbers
{
    char text[101][4] = {};
};

constexpr SmallNumbers makeSmallNumbers()
{
    SmallNumbers numbers;
    numbers.text[0][0] = '-';
    numbers.text[0][1] = '1';
    for (int i = 0; i < 100; ++i) {
        char *t = numbers.text[i + 1];
        if (i < 10) {
            t[0] = static_cast<char>('0' + i);
        } else {
            t[0] = static_cast<char>('0' + i / 10);
            t[1] = static_cast<char>('0' + i % 10);
        }
    }
    return numbers;
}

inline constexpr SmallNumbers kSmallNumbers = makeSmallNumbers();

/// "a".."z", each NUL-terminated: the one-letter keys of the V2 send headers.
inline constexpr char kLetterKeys[]
    = "a\0b\0c\0d\0e\0f\0g\0h\0i\0j\0k\0l\0m\0n\0o\0p\0q\0r\0s\0t\0u\0v\0w\0x\0y\0z";

inline QByteArray staticBytes(const char *text, qsizetype n)
{
    return QByteArray::fromRawData(text, n);
}

/// The longest interned value ("false").
inline constexpr qsizetype kMaxStaticValue = 5;

/// `text` over static storage when it is an interned value (empty, -1..99, true, false), else a
/// null QByteArray.
inline QByteArray staticValue(QByteArrayView text)
{
    const qsizetype n = text.size();
    const char *p = text.data();
    if (n == 0)
        return staticBytes("", 0);
    if (n <= 2) {
        const bool digits = (p[0] >= '0' && p[0] <= '9' && (n == 1 || (p[1] >= '0' && p[1] <= '9')))
            && !(n == 2 && p[0] == '0');
        if (digits) {
            const int v = n == 1 ? p[0] - '0' : (p[0] - '0') * 10 + (p[1] - '0');
            const char *t = kSmallNumbers.text[v + 1];
            return staticBytes(t, n);
        }
        if (n == 2 && p[0] == '-' && p[1] == '1')
            return staticBytes(kSmallNumbers.text[0], 2);
    } else if (n == 4 && std::memcmp(p, "true", 4) == 0) {
        return staticBytes("true", 4);
    } else if (n == 5 && std::memcmp(p, "false", 5) == 0) {
        return staticBytes("false", 5);
    }
    return QByteArray();
}

/// `text` as a QByteArray, over static storage when it is an interned value.
inline QByteArray internValue(QByteArrayView text)
{
    QByteArray known = staticValue(text);
    return known.isNull() ? text.toByteArray() : known;
}

inline QByteArray internKey(QByteArrayView key)
{
    QByteArray known = keyTable().find(key);
    return known.isNull() ? key.toByteArray() : known;
}

/// A 64-bit signature of a key, to detect duplicates without comparing every pair.
inline std::uint64_t keyBit(QByteArrayView key)
{
    if (key.isEmpty())
        return 1;
    return std::uint64_t(1) << (internHash(key.data(), key.size()) & 63u);
}

} // namespace qrocket::protocol::interning
