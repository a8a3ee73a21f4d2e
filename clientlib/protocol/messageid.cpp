#include "clientlib/protocol/messageid.h"

#include "clientlib/common/byteorder.h"
#include "clientlib/common/hex.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QRandomGenerator>

#include <chrono>
#include <cstring>

namespace qrocket::protocol {

namespace {

bool fromHex(QByteArrayView hex, char *out)
{
    for (qsizetype i = 0; i + 1 < hex.size(); i += 2) {
        const int hi = hexDigitValue(hex[i]);
        const int lo = hexDigitValue(hex[i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        out[i / 2] = static_cast<char>((hi << 4) | lo);
    }
    return true;
}

std::int64_t nowMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::system_clock::now().time_since_epoch())
        .count();
}

} // namespace

namespace {

/// The two uppercase hex digits of every byte value, as they are stored in memory.
struct HexPairs
{
    char pair[256][2] = {};
};

constexpr HexPairs makeHexPairs()
{
    HexPairs t;
    for (int b = 0; b < 256; ++b) {
        t.pair[b][0] = kUpperHexDigits[b >> 4];
        t.pair[b][1] = kUpperHexDigits[b & 0xF];
    }
    return t;
}

constexpr HexPairs kHexPairs = makeHexPairs();

char *writeUpperHex(char *out, QByteArrayView bytes)
{
    for (const char c : bytes) {
        std::memcpy(out, kHexPairs.pair[static_cast<unsigned char>(c)], 2);
        out += 2;
    }
    return out;
}

} // namespace

QByteArray toUpperHex(QByteArrayView bytes)
{
    QByteArray out(bytes.size() * 2, Qt::Uninitialized);
    writeUpperHex(out.data(), bytes);
    return out;
}

char *writeOffsetMessageId(char *out, const HostAddress &storeHost, std::int64_t commitLogOffset)
{
    char raw[28];
    const int n = storeHost.addressLength();
    std::memcpy(raw, storeHost.ip.data(), static_cast<std::size_t>(n));
    writeI32(raw + n, storeHost.port);
    writeI64(raw + n + 4, commitLogOffset);
    return writeUpperHex(out, QByteArrayView(raw, n + 12));
}

QByteArray encodeOffsetMessageId(const HostAddress &storeHost, std::int64_t commitLogOffset)
{
    char text[kOffsetMessageIdMaxSize];
    const char *end = writeOffsetMessageId(text, storeHost, commitLogOffset);
    return QByteArray(text, end - text);
}

Result<OffsetMessageId> decodeOffsetMessageId(QByteArrayView id)
{
    if (id.size() != 32 && id.size() != 56)
        return Status::invalidArgument(
            QStringLiteral("offset msgId must have 32 or 56 hex digits, got %1").arg(id.size()));
    char raw[28];
    if (!fromHex(id, raw))
        return Status::invalidArgument(QStringLiteral("offset msgId is not hexadecimal"));
    OffsetMessageId out;
    out.storeHost.v6 = id.size() == 56;
    const int n = out.storeHost.addressLength();
    std::memcpy(out.storeHost.ip.data(), raw, static_cast<std::size_t>(n));
    out.storeHost.port = readI32(raw + n);
    out.commitLogOffset = readI64(raw + n + 4);
    return out;
}

void monthBounds(std::int64_t now, std::int64_t &start, std::int64_t &next)
{
    const QDate today = QDateTime::fromMSecsSinceEpoch(now).date();
    const QDate first(today.year(), today.month(), 1);
    start = first.startOfDay().toMSecsSinceEpoch();
    next = first.addMonths(1).startOfDay().toMSecsSinceEpoch();
}

UniqueIdGenerator::UniqueIdGenerator(const HostAddress *address, std::int64_t pid)
{
    QByteArray raw;
    if (address) {
        raw.append(reinterpret_cast<const char *>(address->ip.data()), address->addressLength());
    } else {
        const quint32 r = QRandomGenerator::system()->generate();
        char ip[4];
        writeU32(ip, r);
        raw.append(ip, 4);
    }
    if (pid < 0)
        pid = QCoreApplication::applicationPid();
    char pidBytes[2];
    writeI16(pidBytes, static_cast<std::int16_t>(pid & 0xFFFF));
    raw.append(pidBytes, 2);
    char opaque[4];
    writeU32(opaque, QRandomGenerator::system()->generate());
    raw.append(opaque, 4);
    m_prefix = toUpperHex(raw);
    m_counter = static_cast<std::uint16_t>(QRandomGenerator::system()->bounded(65536));
    rollMonth(nowMs());
}

void UniqueIdGenerator::rollMonth(std::int64_t now)
{
    monthBounds(now, m_monthStartMs, m_nextMonthStartMs);
}

QByteArray UniqueIdGenerator::next()
{
    char tail[6];
    {
        const std::lock_guard lock(m_mutex);
        const std::int64_t now = nowMs();
        if (now >= m_nextMonthStartMs || now < m_monthStartMs)
            rollMonth(now);
        writeI32(tail, static_cast<std::int32_t>(now - m_monthStartMs));
        writeI16(tail + 4, static_cast<std::int16_t>(m_counter++));
    }
    QByteArray out;
    out.reserve(m_prefix.size() + 12);
    out.append(m_prefix);
    out.append(toUpperHex(QByteArrayView(tail, 6)));
    return out;
}

std::int64_t UniqueIdGenerator::timestampOf(QByteArrayView id, std::int64_t monthStartMs)
{
    if (id.size() != 32 && id.size() != 56)
        return -1;
    char raw[4];
    if (!fromHex(id.sliced(id.size() - 12, 8), raw))
        return -1;
    return monthStartMs + static_cast<std::int64_t>(readU32(raw)); // wraps past 24.8 days in Java
}

} // namespace qrocket::protocol
