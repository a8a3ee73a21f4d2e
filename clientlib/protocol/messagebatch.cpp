#include "clientlib/protocol/messagebatch.h"

#include "clientlib/common/byteorder.h"

#include <cstring>

namespace qrocket::protocol {

Result<std::vector<BatchItemView>> decodeBatch(QByteArrayView body, bool strictTotalSize)
{
    std::vector<BatchItemView> items;
    const char *base = body.data();
    qsizetype pos = 0;
    while (pos < body.size()) {
        const auto fail = [&](const char *what) {
            return Status::invalidArgument(QStringLiteral("batch item %1 at byte %2: %3")
                                               .arg(items.size())
                                               .arg(pos)
                                               .arg(QLatin1String(what)));
        };
        const qsizetype left = body.size() - pos;
        if (left < kBatchItemOverhead)
            return fail("truncated header");
        const std::int32_t totalSize = readI32(base + pos);
        BatchItemView item;
        item.flag = readI32(base + pos + 12);
        const std::int32_t bodyLen = readI32(base + pos + 16);
        if (bodyLen < 0 || bodyLen > left - kBatchItemOverhead)
            return fail("body length beyond the batch");
        item.body = body.sliced(pos + 20, bodyLen);
        const qsizetype propPos = pos + 20 + bodyLen;
        const std::int16_t propLen = readI16(base + propPos);
        if (propLen < 0 || propLen > body.size() - propPos - 2)
            return fail("properties length beyond the batch");
        item.properties = body.sliced(propPos + 2, propLen);
        const qsizetype itemSize = kBatchItemOverhead + bodyLen + propLen;
        if (strictTotalSize && totalSize != itemSize)
            return fail("TOTALSIZE does not match the field lengths");
        items.push_back(item);
        pos += itemSize;
    }
    return items;
}

QByteArray encodeBatch(const std::vector<BatchItemView> &items)
{
    qsizetype size = 0;
    for (const BatchItemView &item : items)
        size += kBatchItemOverhead + item.body.size() + item.properties.size();
    QByteArray out(size, Qt::Uninitialized);
    char *p = out.data();
    for (const BatchItemView &item : items) {
        writeI32(p,
            static_cast<std::int32_t>(
                kBatchItemOverhead + item.body.size() + item.properties.size()));
        writeI32(p + 4, 0);
        writeI32(p + 8, 0);
        writeI32(p + 12, item.flag);
        writeI32(p + 16, static_cast<std::int32_t>(item.body.size()));
        p += 20;
        if (!item.body.isEmpty())
            std::memcpy(p, item.body.data(), static_cast<std::size_t>(item.body.size()));
        p += item.body.size();
        writeI16(p, static_cast<std::int16_t>(item.properties.size()));
        p += 2;
        if (!item.properties.isEmpty())
            std::memcpy(
                p, item.properties.data(), static_cast<std::size_t>(item.properties.size()));
        p += item.properties.size();
    }
    return out;
}

} // namespace qrocket::protocol
