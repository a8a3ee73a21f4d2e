// Who may use a master's HA port, with real qrocket-broker processes on loopback. Linux routes
// all of 127/8 to lo, so a client socket bound to 127.0.0.2 plays a host outside
// haAllowedAddresses=127.0.0.1, while the real slave connects from 127.0.0.1:
// - a peer outside the list gets not one byte of the commit log, and is closed;
// - thousands of connections, outside the list or beyond haMaxConnections, do not take the
//   master down: it still serves sends and replicates to its slave afterwards;
// - a fake slave acknowledging everything from outside the list cannot make a SYNC_MASTER
//   answer SEND_OK (from inside the list it can: the control that the fake works).
// The fake slave speaks the HA wire format on raw sockets (haprotocol.h); every wait is bounded.

#include "broker/ha/haprotocol.h"
#include "tests/system/ha/hatestutil.h"
#include "tests/testlib/daemonprocess.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace qrocket;
using namespace qrocket::hatest;
using namespace qrocket::testlib;

namespace {

/// A TCP socket from `source` (bound, port 0) to 127.0.0.1:port; connect() in progress when
/// non-blocking. -1 on failure.
int connectFrom(const char *source, quint16 port, bool nonBlocking)
{
    int type = SOCK_STREAM | SOCK_CLOEXEC;
    if (nonBlocking)
        type |= SOCK_NONBLOCK;
    const int fd = ::socket(AF_INET, type, 0);
    if (fd < 0)
        return -1;
    sockaddr_in local {};
    local.sin_family = AF_INET;
    ::inet_pton(AF_INET, source, &local.sin_addr);
    sockaddr_in remote {};
    remote.sin_family = AF_INET;
    remote.sin_port = htons(port);
    ::inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr);
    if (::bind(fd, reinterpret_cast<const sockaddr *>(&local), sizeof local) != 0
        || (::connect(fd, reinterpret_cast<const sockaddr *>(&remote), sizeof remote) != 0
            && errno != EINPROGRESS)) {
        ::close(fd);
        return -1;
    }
    return fd;
}

bool sendReport(int fd, std::int64_t offset)
{
    char report[broker::ha::kReportSize];
    broker::ha::encodeReport(report, offset);
    return ::send(fd, report, sizeof report, MSG_NOSIGNAL) == static_cast<ssize_t>(sizeof report);
}

/// An HA slave faked on a raw socket, from `source`: reports offset 0, then acknowledges every
/// transfer it receives (start + size), on its own thread until stop() or the master closes.
class FakeSlave
{
public:
    FakeSlave(const char *source, quint16 haPort) : m_source(source), m_port(haPort)
    {
        m_thread = std::thread([this] { run(); });
    }
    ~FakeSlave() { stop(); }
    void stop()
    {
        m_stop = true;
        if (m_thread.joinable())
            m_thread.join();
    }
    bool connected() const { return m_connected.load(); }
    bool closedByMaster() const { return m_closed.load(); }
    std::int64_t bytesReceived() const { return m_received.load(); }
    std::int64_t acked() const { return m_acked.load(); }

private:
    void run()
    {
        const int fd = connectFrom(m_source, m_port, false);
        if (fd < 0)
            return;
        m_connected = true;
        QByteArray buf;
        char chunk[65536];
        if (!sendReport(fd, 0)) {
            m_closed = true;
        }
        while (!m_stop.load() && !m_closed.load()) {
            pollfd p {fd, POLLIN, 0};
            if (::poll(&p, 1, 50) <= 0)
                continue;
            const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
            if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
                m_closed = true; // EOF, or the master's reset
                break;
            }
            if (n < 0)
                continue;
            m_received += n;
            buf.append(chunk, n);
            while (buf.size() >= broker::ha::kHeaderSize) {
                const broker::ha::TransferHeader h = broker::ha::decodeHeader(buf.constData());
                if (buf.size() < broker::ha::kHeaderSize + h.bodySize)
                    break;
                buf.remove(0, broker::ha::kHeaderSize + h.bodySize);
                m_acked = h.startPhyOffset + h.bodySize;
                if (!sendReport(fd, m_acked.load())) {
                    m_closed = true;
                    break;
                }
            }
        }
        ::close(fd);
    }

    const char *m_source;
    const quint16 m_port;
    std::atomic<bool> m_stop {false};
    std::atomic<bool> m_connected {false};
    std::atomic<bool> m_closed {false};
    std::atomic<std::int64_t> m_received {0};
    std::atomic<std::int64_t> m_acked {-1};
    std::thread m_thread;
};

} // namespace

class tst_HaSecurity final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void peerOutsideAllowListGetsNothing();
    void connectionFloodDoesNotKillMaster();
    void refusedFakeSlaveCannotAcknowledge();

private:
    struct Pair
    {
        DaemonProcess master {QStringLiteral("qrocket-broker")};
        DaemonProcess slave {QStringLiteral("qrocket-broker")};
        quint16 masterPort = 0;
        quint16 slavePort = 0;
        QString masterStore;
        QString slaveStore;
        quint16 haPort() const { return static_cast<quint16>(masterPort + 1); }
    };
    bool startMaster(Pair &p, const QByteArray &role, const QByteArray &extra);
    bool startSlave(Pair &p);
    std::int64_t info(const Pair &p, const QByteArray &key)
    {
        return runtimeLong(m_client, p.masterPort, key);
    }
    bool waitCaughtUp(Pair &p, int ms);

    QTemporaryDir m_dir;
    remoting::RemotingClient m_client;
    int m_pairs = 0;
};

void tst_HaSecurity::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QVERIFY2(QFile::exists(QDir(binDir()).filePath(QStringLiteral("qrocket-broker"))),
        "qrocket-broker not built");
    // 127.0.0.2 must be usable as a source address (Linux: all of 127/8 is on lo).
    const int probe = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    QVERIFY(probe >= 0);
    sockaddr_in local {};
    local.sin_family = AF_INET;
    ::inet_pton(AF_INET, "127.0.0.2", &local.sin_addr);
    const bool bound = ::bind(probe, reinterpret_cast<const sockaddr *>(&local), sizeof local) == 0;
    ::close(probe);
    if (!bound)
        QSKIP("cannot bind a socket to 127.0.0.2 on this host");
}

bool tst_HaSecurity::startMaster(Pair &p, const QByteArray &role, const QByteArray &extra)
{
    const QString n = QString::number(++m_pairs);
    p.masterStore = m_dir.filePath(QStringLiteral("m") + n);
    p.slaveStore = m_dir.filePath(QStringLiteral("s") + n);
    return startOnFreePort(p.master, p.masterStore + QStringLiteral(".conf"), p.masterPort,
        [&](quint16 port) { return brokerConf(p.masterStore, port, role, 0, extra); });
}

bool tst_HaSecurity::startSlave(Pair &p)
{
    return startOnFreePort(p.slave, p.slaveStore + QStringLiteral(".conf"), p.slavePort,
        [&](quint16 port) { return brokerConf(p.slaveStore, port, "SLAVE", p.masterPort); });
}

bool tst_HaSecurity::waitCaughtUp(Pair &p, int ms)
{
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < ms) {
        const std::int64_t m = runtimeLong(m_client, p.masterPort, "commitLogMaxOffset");
        if (m > 0 && runtimeLong(m_client, p.slavePort, "commitLogMaxOffset") == m)
            return true;
        QTest::qWait(20);
    }
    return false;
}

void tst_HaSecurity::peerOutsideAllowListGetsNothing()
{
    Pair p;
    QVERIFY(startMaster(p, "ASYNC_MASTER", "haAllowedAddresses=127.0.0.1\n"));
    QVERIFY(startSlave(p));
    for (int i = 0; i < 20; ++i)
        QCOMPARE(call(m_client, p.masterPort, sendV2("HaSec", 0, "m-" + num(i))).code, 0);
    QVERIFY(waitCaughtUp(p, 15000));
    QCOMPARE(info(p, "haConnectionCount"), 1);
    QCOMPARE(info(p, "haConnectionsRefusedByAddress"), 0);

    // From 127.0.0.2: an offset report, then not one byte back, and the connection closed.
    FakeSlave outsider("127.0.0.2", p.haPort());
    QTRY_VERIFY_WITH_TIMEOUT(outsider.closedByMaster(), 5000);
    QVERIFY(outsider.connected());
    QCOMPARE(outsider.bytesReceived(), 0);
    QTRY_COMPARE_WITH_TIMEOUT(info(p, "haConnectionsRefusedByAddress"), 1, 5000);
    QTRY_VERIFY_WITH_TIMEOUT(p.master.output().contains("HA connection from 127.0.0.2 refused: "
                                                        "not in haAllowedAddresses (127.0.0.1)"),
        5000);

    // The same fake from 127.0.0.1 is streamed the log: the probe itself works.
    FakeSlave insider("127.0.0.1", p.haPort());
    QTRY_VERIFY_WITH_TIMEOUT(insider.bytesReceived() > 0, 5000);
    QVERIFY(!insider.closedByMaster());
    insider.stop();

    // The real slave keeps replicating.
    for (int i = 0; i < 20; ++i)
        QCOMPARE(call(m_client, p.masterPort, sendV2("HaSec", 0, "after-" + num(i))).code, 0);
    QVERIFY(waitCaughtUp(p, 15000));
    const std::int64_t end = runtimeLong(m_client, p.masterPort, "commitLogMaxOffset");
    QCOMPARE(readCommitLog(p.slaveStore, 0, end), readCommitLog(p.masterStore, 0, end));
    QCOMPARE(info(p, "haConnectionsRefusedByAddress"), 1);
    QCOMPARE(info(p, "haConnectionsRefusedByLimit"), 0);
    QCOMPARE(p.slave.stop(), 0);
    QCOMPARE(p.master.stop(), 0);
}

void tst_HaSecurity::connectionFloodDoesNotKillMaster()
{
    // The test opens every connection at once: make room for them.
    rlimit files {};
    QCOMPARE(::getrlimit(RLIMIT_NOFILE, &files), 0);
    files.rlim_cur = std::max(files.rlim_cur, std::min<rlim_t>(files.rlim_max, 8192));
    QCOMPARE(::setrlimit(RLIMIT_NOFILE, &files), 0);
    const int total = std::min(2000, static_cast<int>(files.rlim_cur) - 200);
    QVERIFY2(total >= 1000, "too few file descriptors for the flood");

    Pair p;
    QVERIFY(startMaster(p, "SYNC_MASTER", "haAllowedAddresses=127.0.0.1\nhaMaxConnections=8\n"));
    QVERIFY(startSlave(p));
    QTRY_COMPARE_WITH_TIMEOUT(info(p, "haConnectionCount"), 1, 10000);
    QCOMPARE(call(m_client, p.masterPort, sendV2("HaFlood", 0, "before")).code, 0);

    // Half from 127.0.0.2 (outside the list), half from 127.0.0.1 (inside, beyond the cap);
    // each sends an offset report as soon as it is connected.
    std::vector<int> fds;
    std::vector<bool> outside;
    QElapsedTimer clock;
    clock.start();
    for (int i = 0; i < total; ++i) {
        const bool out = i % 2 == 0;
        const int fd = connectFrom(out ? "127.0.0.2" : "127.0.0.1", p.haPort(), true);
        QVERIFY2(fd >= 0, qPrintable(QString::fromLocal8Bit(::strerror(errno))));
        fds.push_back(fd);
        outside.push_back(out);
    }
    // Wait (bounded) for each to connect; count those that did.
    int connectedOutside = 0;
    int connected = 0;
    std::vector<bool> done(fds.size(), false);
    std::map<int, int> failures; // errno -> count
    while (connected < total && clock.elapsed() < 30000) {
        std::vector<pollfd> waiting;
        std::vector<size_t> index;
        for (size_t i = 0; i < fds.size(); ++i)
            if (!done[i]) {
                waiting.push_back({fds[i], POLLOUT, 0});
                index.push_back(i);
            }
        if (waiting.empty())
            break;
        if (::poll(waiting.data(), waiting.size(), 100) <= 0)
            continue;
        for (size_t k = 0; k < waiting.size(); ++k) {
            if (waiting[k].revents == 0)
                continue;
            const size_t i = index[k];
            done[i] = true;
            int err = 0;
            socklen_t len = sizeof err;
            ::getsockopt(fds[i], SOL_SOCKET, SO_ERROR, &err, &len);
            // ECONNRESET: connected, then already reset by the master (refused at accept).
            if (err == 0 || err == ECONNRESET || err == EPIPE) {
                ++connected;
                connectedOutside += outside[i] ? 1 : 0;
                sendReport(fds[i], 0);
            } else {
                ++failures[err];
            }
        }
    }
    qInfo("%d of %d connections established in %lld ms (%d from outside the list)", connected,
        total, static_cast<long long>(clock.elapsed()), connectedOutside);
    for (const auto &[err, count] : failures)
        qInfo("%d connections failed: %s", count, ::strerror(err));
    QVERIFY(connected >= total / 2);
    QVERIFY(p.master.isRunning());

    // The master counts each: every outsider refused by address, and most insiders refused by
    // the cap (8, the real slave holding one; an idle insider is dropped after
    // haHousekeepingInterval, and the next one takes its place).
    QTRY_VERIFY_WITH_TIMEOUT(info(p, "haConnectionsRefusedByAddress") >= connectedOutside, 30000);
    QVERIFY(info(p, "haConnectionsRefusedByAddress") <= total / 2);
    const int insiders = connected - connectedOutside;
    QTRY_VERIFY_WITH_TIMEOUT(info(p, "haConnectionsRefusedByLimit") >= insiders / 2, 30000);
    QVERIFY(info(p, "haConnectionCount") <= 8);
    for (int fd : fds)
        ::close(fd);

    // Still a working SYNC_MASTER: sends answer SEND_OK (the real slave acknowledges them) and
    // the slave has every byte.
    QVERIFY(p.master.isRunning());
    QTRY_COMPARE_WITH_TIMEOUT(info(p, "haConnectionCount"), 1, 15000);
    for (int i = 0; i < 20; ++i)
        QCOMPARE(call(m_client, p.masterPort, sendV2("HaFlood", 0, "after-" + num(i))).code, 0);
    QVERIFY(waitCaughtUp(p, 15000));
    const std::int64_t end = runtimeLong(m_client, p.masterPort, "commitLogMaxOffset");
    QCOMPARE(readCommitLog(p.slaveStore, 0, end), readCommitLog(p.masterStore, 0, end));
    // The refusals were logged, rate-limited: a few lines, not thousands.
    QTRY_VERIFY_WITH_TIMEOUT(p.master.output().contains("refused: not in haAllowedAddresses")
            && p.master.output().contains("(haMaxConnections)"),
        5000);
    const QByteArray out = p.master.output();
    const qsizetype addressLines = out.count("refused: not in haAllowedAddresses");
    const qsizetype limitLines = out.count("(haMaxConnections)");
    QVERIFY2(addressLines >= 1 && addressLines <= 10, qPrintable(QString::number(addressLines)));
    QVERIFY2(limitLines >= 1 && limitLines <= 10, qPrintable(QString::number(limitLines)));
    QCOMPARE(p.slave.stop(), 0);
    QCOMPARE(p.master.stop(), 0);
}

void tst_HaSecurity::refusedFakeSlaveCannotAcknowledge()
{
    // A SYNC_MASTER with no real slave. syncFlushTimeout short: a send nobody acknowledges
    // answers FLUSH_SLAVE_TIMEOUT (12) in 1 s; with no slave connected, SLAVE_NOT_AVAILABLE (11).
    Pair p;
    QVERIFY(startMaster(p, "SYNC_MASTER", "haAllowedAddresses=127.0.0.1\nsyncFlushTimeout=1000\n"));
    QCOMPARE(call(m_client, p.masterPort, sendV2("HaFake", 0, "alone")).code, 11);

    // A fake slave acknowledging everything, from outside the list: refused at accept, so the
    // sends answer as before.
    {
        FakeSlave outsider("127.0.0.2", p.haPort());
        QTRY_VERIFY_WITH_TIMEOUT(outsider.closedByMaster(), 5000);
        for (int i = 0; i < 5; ++i) {
            const int code = call(m_client, p.masterPort, sendV2("HaFake", 0, "x" + num(i))).code;
            QVERIFY2(code == 11 || code == 12, qPrintable(QString::number(code)));
        }
        QCOMPARE(outsider.bytesReceived(), 0);
        QCOMPARE(info(p, "haConnectionCount"), 0);
        QCOMPARE(info(p, "haPush2SlaveMaxOffset"), 0);
        QVERIFY(info(p, "haConnectionsRefusedByAddress") >= 1);
    }
    // Control: the same fake from 127.0.0.1 does get SEND_OK, so the refusal above is what
    // kept it out.
    FakeSlave insider("127.0.0.1", p.haPort());
    QTRY_COMPARE_WITH_TIMEOUT(info(p, "haConnectionCount"), 1, 5000);
    QTRY_VERIFY_WITH_TIMEOUT(insider.acked() > 0, 5000);
    QCOMPARE(call(m_client, p.masterPort, sendV2("HaFake", 0, "acked")).code, 0);
    insider.stop();
    QCOMPARE(p.master.stop(), 0);
}

QTEST_GUILESS_MAIN(tst_HaSecurity)
#include "tst_hasecurity.moc"
