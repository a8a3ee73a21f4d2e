#include "clientlib/protocol/compression.h"

#include <algorithm>
#include <limits>
#include <zlib.h>

namespace qrocket::protocol {

namespace {
constexpr qsizetype kChunk = std::numeric_limits<uInt>::max() / 2;
} // namespace

Result<QByteArray> zlibCompress(QByteArrayView data, int level)
{
    z_stream zs {};
    if (deflateInit(&zs, std::clamp(level, 0, 9)) != Z_OK)
        return Status::internal(QStringLiteral("deflateInit failed"));
    QByteArray out;
    out.resize(static_cast<qsizetype>(deflateBound(&zs, static_cast<uLong>(data.size()))) + 16);
    zs.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(data.data()));
    zs.next_out = reinterpret_cast<Bytef *>(out.data());
    qsizetype inLeft = data.size();
    qsizetype outLeft = out.size();
    int rc = Z_OK;
    while (rc == Z_OK) {
        const qsizetype inChunk = std::min(inLeft, kChunk);
        const qsizetype outChunk = std::min(outLeft, kChunk);
        zs.avail_in = static_cast<uInt>(inChunk);
        zs.avail_out = static_cast<uInt>(outChunk);
        rc = deflate(&zs, inLeft == inChunk ? Z_FINISH : Z_NO_FLUSH);
        inLeft -= inChunk - zs.avail_in;
        outLeft -= outChunk - zs.avail_out;
        if (rc == Z_BUF_ERROR || (rc == Z_OK && outLeft == 0))
            break;
    }
    deflateEnd(&zs);
    if (rc != Z_STREAM_END)
        return Status::internal(QStringLiteral("deflate failed (%1)").arg(rc));
    out.resize(out.size() - outLeft);
    return out;
}

Result<QByteArray> zlibDecompress(QByteArrayView data, qsizetype maxOutput)
{
    z_stream zs {};
    if (inflateInit2(&zs, 15 + 32) != Z_OK) // zlib or gzip header, auto-detected
        return Status::internal(QStringLiteral("inflateInit failed"));
    QByteArray out;
    out.resize(std::min<qsizetype>(std::max<qsizetype>(data.size() * 4, 256), maxOutput + 1));
    zs.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(data.data()));
    qsizetype inLeft = data.size();
    qsizetype produced = 0;
    int rc = Z_OK;
    for (;;) {
        if (produced == out.size()) {
            if (out.size() > maxOutput)
                break;
            out.resize(std::min<qsizetype>(out.size() * 2, maxOutput + 1));
        }
        const qsizetype inChunk = std::min(inLeft, kChunk);
        const qsizetype outChunk = std::min(out.size() - produced, kChunk);
        zs.avail_in = static_cast<uInt>(inChunk);
        zs.next_out = reinterpret_cast<Bytef *>(out.data() + produced);
        zs.avail_out = static_cast<uInt>(outChunk);
        rc = inflate(&zs, Z_NO_FLUSH);
        inLeft -= inChunk - zs.avail_in;
        produced += outChunk - zs.avail_out;
        if (rc == Z_STREAM_END || (rc != Z_OK && rc != Z_BUF_ERROR))
            break;
        if (rc == Z_BUF_ERROR && inLeft == 0 && zs.avail_out > 0)
            break; // input exhausted before the end of the stream
    }
    inflateEnd(&zs);
    if (produced > maxOutput)
        return Status::invalidArgument(
            QStringLiteral("inflated body exceeds the limit of %1 bytes").arg(maxOutput));
    if (rc != Z_STREAM_END)
        return Status::invalidArgument(
            QStringLiteral("corrupt or truncated zlib data (%1)").arg(QLatin1String(zError(rc))));
    out.resize(produced);
    return out;
}

} // namespace qrocket::protocol
