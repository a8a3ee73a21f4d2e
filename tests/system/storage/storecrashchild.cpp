// qrocket-store-crash-child <storeDir>: opens the store with SYNC_FLUSH and appends messages
// (8 in flight) until killed. Every acknowledged message is reported on stdout as
//   ACK <seq> <commitLogOffset> <size> <queueId> <queueOffset>
// after its completion fired (i.e. after it is durable). Prints "READY <maxOffset>" once open.

#include "storage/messagestore.h"

#include <QByteArray>
#include <QCoreApplication>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <unistd.h>

using namespace qrocket::storage;

namespace {
std::mutex g_outMutex;

void emitLine(const QByteArray &line)
{
    std::lock_guard lock(g_outMutex);
    const char *p = line.constData();
    qsizetype left = line.size();
    while (left > 0) {
        const ssize_t n = ::write(1, p, static_cast<size_t>(left));
        if (n <= 0)
            return;
        p += n;
        left -= n;
    }
}
} // namespace

QByteArray crashBody(std::int64_t seq)
{
    QByteArray b = "crash-message-" + QByteArray::number(seq) + '-';
    while (b.size() < 100 + seq % 300)
        b += char('a' + seq % 26);
    return b;
}

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s <storeDir> <firstSeq>\n", argv[0]);
        return 2;
    }
    MessageStoreConfig cfg;
    cfg.storePathRootDir = QString::fromLocal8Bit(argv[1]);
    cfg.mappedFileSizeCommitLog = 256 * 1024;
    cfg.mappedFileSizeConsumeQueue = 20 * 1000;
    cfg.maxHashSlotNum = 1024;
    cfg.maxIndexNum = 4096;
    cfg.maxMessageSize = 64 * 1024;
    cfg.flushDiskType = QStringLiteral("SYNC_FLUSH");
    cfg.flushIntervalConsumeQueue = 100;
    StoreOptions opt;
    opt.runCleanService = false;
    MessageStore store(cfg, opt);
    if (const qrocket::Status s = store.open(); !s) {
        std::fprintf(stderr, "open failed: %s\n", qPrintable(s.toString()));
        return 1;
    }
    emitLine(
        "READY " + QByteArray::number(static_cast<qlonglong>(store.commitLogMaxOffset())) + '\n');
    std::int64_t seq = QByteArray(argv[2]).toLongLong();
    std::mutex m;
    std::condition_variable cv;
    int inFlight = 0;
    for (;;) {
        {
            std::unique_lock lock(m);
            cv.wait(lock, [&] { return inFlight < 8; });
            ++inFlight;
        }
        MessageExtBrokerInner msg;
        msg.topic = "Crash";
        msg.queueId = static_cast<int>(seq % 4);
        msg.body = crashBody(seq);
        msg.properties = "KEYS\x01k" + QByteArray::number(seq);
        msg.bornTimestamp = 1;
        msg.bornHost = qrocket::protocol::HostAddress::ipv4(0x7F000001, 1);
        msg.storeHost = qrocket::protocol::HostAddress::ipv4(0x7F000001, 2);
        const std::int64_t mySeq = seq++;
        store.putMessage(msg, [&, mySeq](const PutMessageResult &r) {
            if (r.isOk())
                emitLine("ACK " + QByteArray::number(static_cast<qlonglong>(mySeq)) + ' '
                    + QByteArray::number(static_cast<qlonglong>(r.wroteOffset)) + ' '
                    + QByteArray::number(r.wroteBytes) + ' ' + QByteArray::number(mySeq % 4) + ' '
                    + QByteArray::number(static_cast<qlonglong>(r.queueOffset)) + '\n');
            else
                emitLine("NACK " + QByteArray::number(static_cast<qlonglong>(mySeq)) + ' '
                    + putMessageStatusName(r.status) + '\n');
            std::lock_guard lock(m);
            --inFlight;
            cv.notify_one();
        });
    }
}
