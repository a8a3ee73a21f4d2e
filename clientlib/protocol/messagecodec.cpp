#include "clientlib/protocol/messagecodec.h"

#include "clientlib/common/byteorder.h"
#include "clientlib/common/hash.h"

#include <cstring>

namespace qrocket::protocol {

namespace {

constexpr std::int32_t kFixedRecordSize = 91; // every field but body, topic, properties (IPv4)
constexpr std::int32_t kV6Extra = 12; // 16-byte instead of 4-byte address

char *writeHost(char *p, const HostAddress &h)
{
    const int n = h.addressLength();
    std::memcpy(p, h.ip.data(), static_cast<std::size_t>(n));
    writeI32(p + n, h.port);
    return p + n + 4;
}

std::int32_t effectiveSysFlag(const MessageRecordInput &in)
{
    std::int32_t flag = in.sysFlag & ~(SysFlag::BornHostV6 | SysFlag::StoreHostV6);
    if (in.bornHost.v6)
        flag |= SysFlag::BornHostV6;
    if (in.storeHost.v6)
        flag |= SysFlag::StoreHostV6;
    return flag;
}

RecordDecodeResult result(RecordStatus status, std::int32_t size, QString error = {})
{
    RecordDecodeResult r;
    r.status = status;
    r.size = size;
    r.error = std::move(error);
    return r;
}

} // namespace

std::int32_t recordSize(const MessageRecordInput &in)
{
    return kFixedRecordSize
        + static_cast<std::int32_t>(in.body.size() + in.topic.size() + in.properties.size())
        + (in.bornHost.v6 ? kV6Extra : 0) + (in.storeHost.v6 ? kV6Extra : 0);
}

void encodeRecord(const MessageRecordInput &in, std::int64_t queueOffset,
    std::int64_t physicalOffset, std::int64_t storeTimestamp, char *dst)
{
    char *p = dst;
    writeI32(p, recordSize(in));
    writeI32(p + 4, kMessageMagic);
    writeI32(p + 8, in.bodyCrc);
    writeI32(p + 12, in.queueId);
    writeI32(p + 16, in.flag);
    writeI64(p + 20, queueOffset);
    writeI64(p + 28, physicalOffset);
    writeI32(p + 36, effectiveSysFlag(in));
    writeI64(p + 40, in.bornTimestamp);
    p = writeHost(p + 48, in.bornHost);
    writeI64(p, storeTimestamp);
    p = writeHost(p + 8, in.storeHost);
    writeI32(p, in.reconsumeTimes);
    writeI64(p + 4, in.preparedTransactionOffset);
    p += 12;
    writeI32(p, static_cast<std::int32_t>(in.body.size()));
    p += 4;
    if (!in.body.isEmpty())
        std::memcpy(p, in.body.data(), static_cast<std::size_t>(in.body.size()));
    p += in.body.size();
    *p++ = static_cast<char>(in.topic.size());
    if (!in.topic.isEmpty())
        std::memcpy(p, in.topic.data(), static_cast<std::size_t>(in.topic.size()));
    p += in.topic.size();
    writeI16(p, static_cast<std::int16_t>(in.properties.size()));
    p += 2;
    if (!in.properties.isEmpty())
        std::memcpy(p, in.properties.data(), static_cast<std::size_t>(in.properties.size()));
}

QByteArray encodeRecord(const MessageRecordInput &in, std::int64_t queueOffset,
    std::int64_t physicalOffset, std::int64_t storeTimestamp)
{
    QByteArray out(recordSize(in), Qt::Uninitialized);
    encodeRecord(in, queueOffset, physicalOffset, storeTimestamp, out.data());
    return out;
}

RecordDecodeResult decodeRecord(QByteArrayView bytes, MessageRecordView &out, bool checkCrc)
{
    if (bytes.size() < 8)
        return result(RecordStatus::Truncated, 0,
            QStringLiteral("only %1 bytes, a record starts with 8").arg(bytes.size()));
    const char *base = bytes.data();
    const std::int32_t totalSize = readI32(base);
    const std::int32_t magic = readI32(base + 4);
    if (magic == kBlankMagic) {
        if (totalSize < kBlankRecordSize)
            return result(RecordStatus::Invalid, 0,
                QStringLiteral("BLANK record with size %1").arg(totalSize));
        out = MessageRecordView();
        out.totalSize = totalSize;
        out.magic = magic;
        return result(RecordStatus::Blank, totalSize);
    }
    if (magic != kMessageMagic)
        return result(RecordStatus::Invalid, 0,
            QStringLiteral("bad magic 0x%1")
                .arg(static_cast<std::uint32_t>(magic), 8, 16, QLatin1Char('0')));
    if (totalSize < kFixedRecordSize)
        return result(RecordStatus::Invalid, 0,
            QStringLiteral("record size %1 below the minimum %2")
                .arg(totalSize)
                .arg(kFixedRecordSize));
    if (bytes.size() < totalSize)
        return result(RecordStatus::Truncated, 0,
            QStringLiteral("record of %1 bytes, only %2 available")
                .arg(totalSize)
                .arg(bytes.size()));

    MessageRecordView v;
    v.totalSize = totalSize;
    v.magic = magic;
    v.bodyCrc = readI32(base + 8);
    v.queueId = readI32(base + 12);
    v.flag = readI32(base + 16);
    v.queueOffset = readI64(base + 20);
    v.physicalOffset = readI64(base + 28);
    v.sysFlag = readI32(base + 36);
    v.bornTimestamp = readI64(base + 40);

    const bool bornV6 = v.sysFlag & SysFlag::BornHostV6;
    const bool storeV6 = v.sysFlag & SysFlag::StoreHostV6;
    const std::int32_t fixed
        = kFixedRecordSize + (bornV6 ? kV6Extra : 0) + (storeV6 ? kV6Extra : 0);
    if (totalSize < fixed)
        return result(RecordStatus::Invalid, 0,
            QStringLiteral("record size %1 below the minimum %2 for its hosts")
                .arg(totalSize)
                .arg(fixed));
    qsizetype pos = 48;
    const auto readHost = [&](HostAddress &h, bool v6) {
        h = HostAddress();
        h.v6 = v6;
        const int n = h.addressLength();
        std::memcpy(h.ip.data(), base + pos, static_cast<std::size_t>(n));
        h.port = readI32(base + pos + n);
        pos += n + 4;
    };
    readHost(v.bornHost, bornV6);
    v.storeTimestamp = readI64(base + pos);
    pos += 8;
    readHost(v.storeHost, storeV6);
    v.reconsumeTimes = readI32(base + pos);
    v.preparedTransactionOffset = readI64(base + pos + 4);
    pos += 12;

    // Variable part: bounds-checked against TOTALSIZE, which must be matched exactly.
    const qsizetype end = totalSize;
    const std::int32_t bodyLen = readI32(base + pos);
    pos += 4;
    if (bodyLen < 0 || bodyLen > end - pos - 3)
        return result(RecordStatus::Invalid, 0,
            QStringLiteral("body length %1 does not fit in the record of %2 bytes")
                .arg(bodyLen)
                .arg(totalSize));
    v.body = bytes.sliced(pos, bodyLen);
    pos += bodyLen;
    const std::int32_t topicLen = static_cast<std::int8_t>(base[pos]);
    pos += 1;
    if (topicLen < 0 || topicLen > end - pos - 2)
        return result(RecordStatus::Invalid, 0,
            QStringLiteral("topic length %1 does not fit in the record").arg(topicLen));
    v.topic = bytes.sliced(pos, topicLen);
    pos += topicLen;
    const std::int32_t propLen = readI16(base + pos);
    pos += 2;
    if (propLen < 0 || propLen != end - pos)
        return result(RecordStatus::Invalid, 0,
            QStringLiteral("properties length %1 does not match the record size %2")
                .arg(propLen)
                .arg(totalSize));
    v.properties = bytes.sliced(pos, propLen);

    if (checkCrc) {
        const std::int32_t crc = crc32Masked(v.body);
        if (crc != v.bodyCrc)
            return result(RecordStatus::Invalid, 0,
                QStringLiteral("body CRC mismatch: stored %1, computed %2")
                    .arg(v.bodyCrc)
                    .arg(crc));
    }
    out = v;
    return result(RecordStatus::Ok, totalSize);
}

} // namespace qrocket::protocol
