#pragma once

// Metadata load (issue 30), shared by qrocket-bench-metadata and tst_metadatacluster: the admin
// requests that create topics and subscription groups, a pipeline that keeps a window of them in
// flight on a RemotingClient and waits (bounded) for every answer, and a daemon's RSS and CPU time
// read from /proc. Header-only: the includer links QRocket::remoting (testlib does not).

#include "clientlib/protocol/remotingcommand.h"
#include "clientlib/remoting/remotingclient.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QList>
#include <QString>
#include <QTimer>

#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <unistd.h>
#include <utility>

namespace qrocket::testlib {

/// A field of /proc/<pid>/status in KiB ("VmRSS:", "VmHWM:" = peak RSS); 0 when unknown.
inline qint64 statusKib(qint64 pid, const char *field)
{
    QFile f(QStringLiteral("/proc/%1/status").arg(pid));
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (line.startsWith(field))
            return line.mid(qsizetype(qstrlen(field))).trimmed().split(' ').value(0).toLongLong();
    }
    return 0;
}

/// utime + stime of a process in milliseconds.
inline qint64 cpuMs(qint64 pid)
{
    QFile f(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    const QByteArray stat = f.readAll();
    const QList<QByteArray> fields = stat.mid(stat.lastIndexOf(')') + 2).split(' ');
    const long ticks = ::sysconf(_SC_CLK_TCK);
    return (fields.value(11).toLongLong() + fields.value(12).toLongLong()) * 1000 / ticks;
}

/// UPDATE_AND_CREATE_TOPIC (17) as qrocket-admin updateTopic sends it.
inline protocol::RemotingCommand createTopicRequest(const QByteArray &topic, int queues)
{
    protocol::RemotingCommand r = protocol::RemotingCommand::createRequest(17);
    r.setExt("topic", topic);
    r.setExt("defaultTopic", QByteArrayLiteral("TBW102"));
    r.setExt("readQueueNums", queues);
    r.setExt("writeQueueNums", queues);
    r.setExt("perm", 6);
    r.setExt("topicFilterType", QByteArrayLiteral("SINGLE_TAG"));
    r.setExt("topicSysFlag", 0);
    r.setExtBool("order", false);
    return r;
}

/// UPDATE_AND_CREATE_SUBSCRIPTIONGROUP (200) with RocketMQ's defaults for everything but the name.
inline protocol::RemotingCommand createGroupRequest(const QByteArray &group)
{
    protocol::RemotingCommand r = protocol::RemotingCommand::createRequest(200);
    r.body = "{\"groupName\":\"" + group + "\"}";
    return r;
}

/// Runs the event loop until `done` or `timeoutMs`; true when done.
inline bool spinUntil(const std::function<bool()> &done, int timeoutMs)
{
    QElapsedTimer t;
    t.start();
    while (!done()) {
        if (t.hasExpired(timeoutMs))
            return false;
        QEventLoop loop;
        QTimer::singleShot(5, &loop, &QEventLoop::quit);
        loop.exec();
    }
    return true;
}

struct PipelineResult
{
    bool finished = false;
    qint64 elapsedMs = 0;
    int failed = 0;
    QByteArray firstFailure;
    qint64 bodyBytes = 0; // of the last answer
    double meanLatencyMs = 0;
};

/// Sends `total` requests, request i being `make(i)` = {address, command}, `window` in flight
/// (one connection per address), and waits (event loop, bounded by `timeoutMs`) for every answer;
/// an answer other than code 0 counts as failed. `answered(i)` (optional) is called on the
/// client's thread for each request answered with code 0.
inline PipelineResult pipeline(remoting::RemotingClient &client, int total, int window,
    const std::function<std::pair<QByteArray, protocol::RemotingCommand>(int)> &make, int timeoutMs,
    const std::function<void(int)> &answered = {})
{
    struct State
    {
        std::atomic<int> sent {0};
        std::atomic<int> done {0};
        std::atomic<int> failed {0};
        std::atomic<qint64> bodyBytes {0};
        std::atomic<qint64> latencyNs {0};
        std::mutex failMutex;
        QByteArray firstFailure;
        QElapsedTimer clock;
    };
    auto st = std::make_shared<State>();
    st->clock.start();
    std::function<void()> sendNext = [&, st] {
        const int i = st->sent.fetch_add(1);
        if (i >= total)
            return;
        const qint64 startNs = st->clock.nsecsElapsed();
        auto [addr, command] = make(i);
        client.invokeAsync(addr, std::move(command), std::max(timeoutMs, 1000),
            [&, st, startNs, i](Result<protocol::RemotingCommand> r) {
                st->latencyNs.fetch_add(st->clock.nsecsElapsed() - startNs);
                if (!r || r->code != 0) {
                    std::lock_guard lock(st->failMutex);
                    if (st->failed.fetch_add(1) == 0)
                        st->firstFailure = r ? r->remark : r.error().message().toUtf8();
                } else {
                    st->bodyBytes.store(r->body.size());
                    if (answered)
                        answered(i);
                }
                st->done.fetch_add(1);
                sendNext();
            });
    };
    for (int i = 0; i < std::min(window, total); ++i)
        sendNext();
    PipelineResult out;
    out.finished = spinUntil([&] { return st->done.load() == total; }, timeoutMs);
    out.elapsedMs = st->clock.elapsed();
    out.failed = st->failed.load();
    {
        std::lock_guard lock(st->failMutex);
        out.firstFailure = st->firstFailure;
    }
    out.bodyBytes = st->bodyBytes.load();
    out.meanLatencyMs = st->latencyNs.load() / 1e6 / std::max(1, st->done.load());
    if (!out.finished) // answers still to come would call into this frame's captures
        client.shutdown();
    return out;
}

/// pipeline() to one address.
inline PipelineResult pipeline(remoting::RemotingClient &client, const QByteArray &addr, int total,
    int window, const std::function<protocol::RemotingCommand(int)> &make, int timeoutMs)
{
    return pipeline(
        client, total, window, [&](int i) { return std::make_pair(addr, make(i)); }, timeoutMs);
}

} // namespace qrocket::testlib
