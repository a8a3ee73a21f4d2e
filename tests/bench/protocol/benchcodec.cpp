// qrocket-bench-codec: frame and stored-record codec throughput, each printed next to a memcpy
// of the same bytes measured in the same run. A program that prints figures, never a test.
//
//   qrocket-bench-codec [seconds-per-case, default 1]
//   qrocket-bench-codec --count N   fixed work for callgrind: N frame encode+decode, no figures

#include "clientlib/common/hash.h"
#include "clientlib/protocol/framecodec.h"
#include "clientlib/protocol/headers/sendheaders.h"
#include "clientlib/protocol/messagecodec.h"
#include "clientlib/protocol/requestcode.h"

#include <QCoreApplication>

#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>

using namespace qrocket;
using namespace qrocket::protocol;

namespace {

volatile std::uint64_t g_sink = 0;

struct Figure
{
    double opsPerSec = 0;
    double mbPerSec = 0;
};

/// This thread's CPU time in ns: on a shared machine wall time counts other processes' slices.
qint64 cpuNanos()
{
    timespec ts {};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<qint64>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

/// Best of 5 rounds of `seconds`/5 CPU time each, rates per CPU second (the machine may be
/// shared; the baseline and the codec are measured alike).
Figure measure(double seconds, qsizetype bytesPerOp, const std::function<void()> &op)
{
    for (int i = 0; i < 1000; ++i) // warm-up
        op();
    Figure best;
    const qint64 budget = static_cast<qint64>(seconds * 1e9 / 5);
    for (int round = 0; round < 5; ++round) {
        const qint64 start = cpuNanos();
        std::uint64_t ops = 0;
        qint64 elapsed = 0;
        do {
            for (int i = 0; i < 200; ++i)
                op();
            ops += 200;
            elapsed = cpuNanos() - start;
        } while (elapsed < budget);
        const double rate = static_cast<double>(ops) * 1e9 / static_cast<double>(elapsed);
        if (rate > best.opsPerSec)
            best.opsPerSec = rate;
    }
    best.mbPerSec = best.opsPerSec * static_cast<double>(bytesPerOp) / (1024.0 * 1024.0);
    return best;
}

void print(const char *name, const Figure &f, const Figure &baseline)
{
    std::printf("  %-34s %12.0f /s %10.1f MB/s   (%.1f%% of memcpy)\n", name, f.opsPerSec,
        f.mbPerSec, 100.0 * f.mbPerSec / baseline.mbPerSec);
}

RemotingCommand typicalSendV2(const QByteArray &body)
{
    // What a Java 4.9 producer sends (golden frame 43's shape), with a 1 KiB body.
    RemotingCommand cmd = RemotingCommand::createRequest(toInt(RequestCode::SendMessageV2));
    cmd.opaque = 123456;
    SendMessageRequestHeader h;
    h.producerGroup = "please_rename_unique_group_name";
    h.topic = "TopicTest";
    h.defaultTopic = "TBW102";
    h.defaultTopicQueueNums = 4;
    h.queueId = 3;
    h.sysFlag = 0;
    h.bornTimestamp = 1796013328622LL;
    h.flag = 0;
    h.properties = QByteArray("KEYS\x01OrderID188\x02UNIQ_KEY\x01"
                              "FD00000000000000000000000000000259455FFD2B279654A0ED0000\x02"
                              "WAIT\x01true\x02TAGS\x01TagA");
    h.reconsumeTimes = 0;
    h.unitMode = false;
    h.batch = false;
    h.brokerName = "broker-a";
    h.encode(cmd);
    cmd.body = body;
    return cmd;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const bool fixedCount = argc > 2 && std::strcmp(argv[1], "--count") == 0;
    const double seconds = argc > 1 && !fixedCount ? std::max(0.1, std::atof(argv[1])) : 1.0;

    QByteArray body(1024, Qt::Uninitialized);
    for (qsizetype i = 0; i < body.size(); ++i)
        body[i] = char('a' + i % 26);
    const RemotingCommand cmd = typicalSendV2(body);
    const QByteArray frame = encodeFrame(cmd);
    const qsizetype frameBytes = frame.size();

    if (fixedCount) {
        const long long n = std::atoll(argv[2]);
        QByteArray out;
        for (long long i = 0; i < n; ++i) {
            out.resize(0);
            encodeFrame(cmd, out);
            RemotingCommand c;
            const DecodeResult r = decodeFrame(out, c);
            g_sink = g_sink + static_cast<std::uint64_t>(r.consumed);
        }
        std::printf("%lld frame encode+decode done\n", n);
        return g_sink == 42 ? 1 : 0;
    }

    std::printf(
        "qrocket-bench-codec: SEND_MESSAGE_V2 frame, %lld bytes (JSON header %lld B, body %lld B), "
        "best of 5 rounds in %.1f CPU-s per case, rates per CPU second\n",
        static_cast<long long>(frameBytes), static_cast<long long>(encodeJsonHeader(cmd).size()),
        static_cast<long long>(body.size()), seconds);

    QByteArray dst(frameBytes, Qt::Uninitialized);
    const Figure memcpyFrame = measure(seconds, frameBytes, [&] {
        std::memcpy(dst.data(), frame.constData(), static_cast<std::size_t>(frameBytes));
        g_sink = g_sink + static_cast<unsigned char>(dst[frameBytes / 2]);
    });

    QByteArray out;
    out.reserve(frameBytes + 64);
    const Figure encode = measure(seconds, frameBytes, [&] {
        out.resize(0);
        encodeFrame(cmd, out);
        g_sink = g_sink + static_cast<std::uint64_t>(out.size());
    });
    const Figure decode = measure(seconds, frameBytes, [&] {
        RemotingCommand c;
        const DecodeResult r = decodeFrame(frame, c);
        g_sink = g_sink + static_cast<std::uint64_t>(r.consumed) + c.extFields.size();
    });
    const Figure both = measure(seconds, frameBytes, [&] {
        out.resize(0);
        encodeFrame(cmd, out);
        RemotingCommand c;
        const DecodeResult r = decodeFrame(out, c);
        g_sink = g_sink + static_cast<std::uint64_t>(r.consumed);
    });
    const Figure typed = measure(seconds, frameBytes, [&] {
        RemotingCommand c;
        decodeFrame(frame, c);
        const auto h = SendMessageRequestHeader::decode(c);
        g_sink = g_sink + static_cast<std::uint64_t>(h->queueId);
    });
    // The send header alone, from a decoded command: the client's reading and the broker's.
    RemotingCommand decoded;
    decodeFrame(frame, decoded);
    const Figure header = measure(seconds, frameBytes, [&] {
        const auto h = SendMessageRequestHeader::decode(decoded);
        g_sink = g_sink + static_cast<std::uint64_t>(h->queueId);
    });
    const Figure headerSend = measure(seconds, frameBytes, [&] {
        QByteArray remark;
        const auto h = SendMessageRequestHeader::decodeSend(decoded, &remark);
        g_sink = g_sink + static_cast<std::uint64_t>(h->queueId);
    });

    std::printf("frame codec (1 KiB body):\n");
    print("memcpy of the frame (baseline)", memcpyFrame, memcpyFrame);
    print("encodeFrame", encode, memcpyFrame);
    print("decodeFrame", decode, memcpyFrame);
    print("encode + decode", both, memcpyFrame);
    print("decode + typed SEND V2 header", typed, memcpyFrame);
    print("SEND V2 header alone: decode", header, memcpyFrame);
    print("SEND V2 header alone: decodeSend", headerSend, memcpyFrame);

    // Stored record (what the commit log writes per message and PULL returns).
    MessageRecordInput in;
    in.topic = "TopicTest";
    in.queueId = 3;
    in.bornTimestamp = 1796013328622LL;
    in.bornHost = HostAddress::ipv4(0x7F000001, 60734);
    in.storeHost = HostAddress::ipv4(0x7F000001, 10911);
    in.body = body;
    in.properties = QByteArrayView("KEYS\x01OrderID188\x02UNIQ_KEY\x01"
                                   "FD00000000000000000000000000000259455FFD2B279654A0ED0000\x02"
                                   "TAGS\x01TagA\x02"
                                   "CLUSTER\x01"
                                   "DefaultCluster");
    in.bodyCrc = crc32Masked(body);
    const qsizetype recordBytes = recordSize(in);
    QByteArray record(recordBytes, Qt::Uninitialized);
    encodeRecord(in, 1, 2, 3, record.data());
    QByteArray recordDst(recordBytes, Qt::Uninitialized);
    const Figure memcpyRecord = measure(seconds, recordBytes, [&] {
        std::memcpy(recordDst.data(), record.constData(), static_cast<std::size_t>(recordBytes));
        g_sink = g_sink + static_cast<unsigned char>(recordDst[recordBytes / 2]);
    });
    std::int64_t offset = 0;
    const Figure recEncode = measure(seconds, recordBytes, [&] {
        encodeRecord(in, offset, offset * 1000, 1796013328661LL, recordDst.data());
        ++offset;
        g_sink = g_sink + static_cast<unsigned char>(recordDst[9]);
    });
    const Figure recDecode = measure(seconds, recordBytes, [&] {
        MessageRecordView v;
        const RecordDecodeResult r = decodeRecord(record, v, false);
        g_sink = g_sink + static_cast<std::uint64_t>(r.size);
    });
    const Figure recDecodeCrc = measure(seconds, recordBytes, [&] {
        MessageRecordView v;
        const RecordDecodeResult r = decodeRecord(record, v, true);
        g_sink = g_sink + static_cast<std::uint64_t>(r.size);
    });
    std::printf("stored record (%lld bytes):\n", static_cast<long long>(recordBytes));
    print("memcpy of the record (baseline)", memcpyRecord, memcpyRecord);
    print("encodeRecord (into place)", recEncode, memcpyRecord);
    print("decodeRecord", recDecode, memcpyRecord);
    print("decodeRecord + body CRC check", recDecodeCrc, memcpyRecord);
    return g_sink == 42 ? 1 : 0;
}
