// EpollEventDispatcher, the I/O threads' event dispatcher, on a QThread of its own: socket
// notifiers (read, write, enable/disable, deletion while a pass is under way), timers (single
// shot, repeating, killed from their own handler, remainingTime, registeredTimers), events posted
// from other threads, deleteLater, nested event loops and quitting. The remoting suites exercise
// it under real connections; this one pins down the QAbstractEventDispatcher contract itself.

#include "clientlib/remoting/epolldispatcher.h"

#include <QEventLoop>
#include <QPointer>
#include <QSocketNotifier>
#include <QTest>
#include <QThread>
#include <QTimer>

#include <atomic>
#include <functional>
#include <memory>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using qrocket::remoting::EpollEventDispatcher;

namespace {

constexpr int kWaitMs = 5000;

/// A socketpair closed at scope exit.
struct SocketPair
{
    int fd[2] = {-1, -1};
    SocketPair()
    {
        if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fd) != 0)
            qFatal("socketpair failed");
    }
    ~SocketPair()
    {
        for (int f : fd)
            if (f >= 0)
                ::close(f);
    }
    SocketPair(const SocketPair &) = delete;
    SocketPair &operator=(const SocketPair &) = delete;
};

} // namespace

class TestEpollDispatcher : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<QThread> m_thread;
    QObject *m_context = nullptr; // lives on m_thread

    /// Runs `f` on the dispatcher's thread and waits for it.
    void onThread(const std::function<void()> &f)
    {
        QMetaObject::invokeMethod(m_context, f, Qt::BlockingQueuedConnection);
    }

private slots:
    void init()
    {
        m_thread = std::make_unique<QThread>();
        auto *dispatcher = new EpollEventDispatcher;
        QVERIFY(dispatcher->isValid());
        m_thread->setEventDispatcher(dispatcher);
        m_context = new QObject;
        m_context->moveToThread(m_thread.get());
        connect(m_thread.get(), &QThread::finished, m_context, &QObject::deleteLater);
        m_thread->start();
        bool installed = false;
        onThread([&] {
            installed = QAbstractEventDispatcher::instance() == dispatcher
                && qobject_cast<EpollEventDispatcher *>(QAbstractEventDispatcher::instance());
        });
        QVERIFY(installed);
    }

    void cleanup()
    {
        m_thread->quit();
        QVERIFY(m_thread->wait(kWaitMs));
        m_thread.reset();
    }

    void readNotifierFiresWhileDataIsUnread()
    {
        SocketPair pair;
        std::atomic<int> activations {0};
        std::atomic<int> bytesRead {0};
        QSocketNotifier *notifier = nullptr;
        onThread([&] {
            notifier = new QSocketNotifier(pair.fd[0], QSocketNotifier::Read, m_context);
            connect(notifier, &QSocketNotifier::activated, notifier, [&] {
                ++activations;
                char c = 0;
                // One byte per activation: level triggered, the rest must fire again.
                if (::read(pair.fd[0], &c, 1) == 1)
                    ++bytesRead;
            });
        });
        QCOMPARE(::write(pair.fd[1], "abc", 3), 3);
        QTRY_COMPARE_WITH_TIMEOUT(bytesRead.load(), 3, kWaitMs);
        QCOMPARE(::write(pair.fd[1], "d", 1), 1);
        QTRY_COMPARE_WITH_TIMEOUT(bytesRead.load(), 4, kWaitMs);
        onThread([&] { delete notifier; });
        QCOMPARE(activations.load(), 4);
    }

    void writeNotifierFollowsEnabled()
    {
        SocketPair pair;
        std::atomic<int> activations {0};
        QSocketNotifier *notifier = nullptr;
        onThread([&] {
            notifier = new QSocketNotifier(pair.fd[0], QSocketNotifier::Write, m_context);
            connect(notifier, &QSocketNotifier::activated, notifier, [&, n = notifier] {
                ++activations;
                n->setEnabled(false); // as a connection does once its queue is written
            });
        });
        QTRY_COMPARE_WITH_TIMEOUT(activations.load(), 1, kWaitMs);
        // Disabled: a read notifier on the same descriptor still works and the writer stays quiet.
        std::atomic<bool> readable {false};
        onThread([&] {
            auto *reader = new QSocketNotifier(pair.fd[0], QSocketNotifier::Read, m_context);
            connect(reader, &QSocketNotifier::activated, reader, [&, reader] {
                char c = 0;
                (void)::read(pair.fd[0], &c, 1);
                readable = true;
                delete reader;
            });
        });
        QCOMPARE(::write(pair.fd[1], "x", 1), 1);
        QTRY_VERIFY_WITH_TIMEOUT(readable.load(), kWaitMs);
        QCOMPARE(activations.load(), 1);
        onThread([&] { notifier->setEnabled(true); });
        QTRY_COMPARE_WITH_TIMEOUT(activations.load(), 2, kWaitMs);
        onThread([&] { delete notifier; });
    }

    void notifierDeletedByAnEarlierActivationIsSkipped()
    {
        SocketPair a;
        SocketPair b;
        std::atomic<int> fired {0};
        std::atomic<bool> done {false};
        ssize_t wrote = 0;
        onThread([&] {
            // Both become ready in the same pass; whichever runs first deletes the other.
            auto *na = new QSocketNotifier(a.fd[0], QSocketNotifier::Read, m_context);
            auto *nb = new QSocketNotifier(b.fd[0], QSocketNotifier::Read, m_context);
            QPointer<QSocketNotifier> pa = na;
            QPointer<QSocketNotifier> pb = nb;
            auto handler = [&, pa, pb](QSocketNotifier *self) {
                ++fired;
                delete (self == pa.data() ? pb.data() : pa.data()); // pending in this pass
                self->setEnabled(false);
                self->deleteLater();
                done = true;
            };
            connect(na, &QSocketNotifier::activated, na, [handler, na] { handler(na); });
            connect(nb, &QSocketNotifier::activated, nb, [handler, nb] { handler(nb); });
            // Both ready before the thread next waits: written from this (its own) thread.
            wrote = ::write(a.fd[1], "1", 1) + ::write(b.fd[1], "2", 1);
        });
        QCOMPARE(wrote, 2);
        QTRY_VERIFY_WITH_TIMEOUT(done.load(), kWaitMs);
        // One more round trip through the thread: any stale activation would have run by now.
        onThread([] {});
        QCOMPARE(fired.load(), 1);
    }

    void timersFireAndStop()
    {
        std::atomic<int> single {0};
        std::atomic<int> repeats {0};
        std::atomic<bool> selfKilled {false};
        QTimer *repeating = nullptr;
        onThread([&] {
            QTimer::singleShot(10, m_context, [&] { ++single; });
            repeating = new QTimer(m_context);
            repeating->setInterval(5);
            connect(repeating, &QTimer::timeout, repeating, [&] {
                if (++repeats == 3)
                    repeating->stop(); // unregistered from inside its own activation
            });
            repeating->start();
            auto *once = new QTimer(m_context);
            once->setInterval(1);
            connect(once, &QTimer::timeout, once, [&, once] {
                once->stop(); // unregistered from inside its own activation, then gone
                once->deleteLater();
                selfKilled = true;
            });
            once->start();
        });
        QTRY_COMPARE_WITH_TIMEOUT(single.load(), 1, kWaitMs);
        QTRY_COMPARE_WITH_TIMEOUT(repeats.load(), 3, kWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(selfKilled.load(), kWaitMs);
        // A stopped timer stays stopped: a single-shot timer twice its interval later proves
        // the repeating one had its chances.
        std::atomic<bool> later {false};
        onThread([&] { QTimer::singleShot(20, m_context, [&] { later = true; }); });
        QTRY_VERIFY_WITH_TIMEOUT(later.load(), kWaitMs);
        QCOMPARE(repeats.load(), 3);
        QCOMPARE(single.load(), 1);
    }

    void timerBookkeeping()
    {
        int remaining = -2;
        int listed = 0;
        int afterKill = -2;
        bool unregistered = false;
        onThread([&] {
            QObject owner;
            const int id = owner.startTimer(60'000, Qt::CoarseTimer);
            QAbstractEventDispatcher *d = QAbstractEventDispatcher::instance();
            remaining = d->remainingTime(id);
            const auto timers = d->registeredTimers(&owner);
            listed = static_cast<int>(timers.size());
            if (listed == 1
                && (timers[0].timerId != id || timers[0].interval != 60'000
                    || timers[0].timerType != Qt::CoarseTimer))
                listed = -1;
            owner.killTimer(id);
            afterKill = d->remainingTime(id);
            owner.startTimer(1000);
            owner.startTimer(2000);
            unregistered = d->unregisterTimers(&owner) && d->registeredTimers(&owner).isEmpty();
        });
        QVERIFY2(remaining > 59'000 && remaining <= 60'000, qPrintable(QString::number(remaining)));
        QCOMPARE(listed, 1);
        QCOMPARE(afterKill, -1);
        QVERIFY(unregistered);
    }

    void postedEventsFromOtherThreadsAllRun()
    {
        constexpr int kPosts = 20'000;
        std::atomic<int> ran {0};
        std::thread other([&] {
            for (int i = 0; i < kPosts / 2; ++i)
                QMetaObject::invokeMethod(
                    m_context, [&] { ++ran; }, Qt::QueuedConnection);
        });
        for (int i = 0; i < kPosts / 2; ++i)
            QMetaObject::invokeMethod(
                m_context, [&] { ++ran; }, Qt::QueuedConnection);
        other.join();
        QTRY_COMPARE_WITH_TIMEOUT(ran.load(), kPosts, kWaitMs);
    }

    void deleteLaterRuns()
    {
        std::atomic<bool> destroyed {false};
        onThread([&] {
            auto *doomed = new QObject;
            connect(doomed, &QObject::destroyed, [&] { destroyed = true; });
            doomed->deleteLater();
        });
        QTRY_VERIFY_WITH_TIMEOUT(destroyed.load(), kWaitMs);
    }

    void nestedLoopKeepsDispatching()
    {
        SocketPair pair;
        std::atomic<bool> readInNested {false};
        std::atomic<bool> nestedDone {false};
        onThread([&] {
            auto *notifier = new QSocketNotifier(pair.fd[0], QSocketNotifier::Read, m_context);
            connect(notifier, &QSocketNotifier::activated, notifier, [&] {
                char c = 0;
                (void)::read(pair.fd[0], &c, 1);
                readInNested = true;
            });
            QTimer::singleShot(0, m_context, [&] {
                QEventLoop loop;
                QTimer::singleShot(kWaitMs, &loop, &QEventLoop::quit); // bound
                QTimer poll;
                connect(&poll, &QTimer::timeout, &loop, [&] {
                    if (readInNested)
                        loop.quit();
                });
                poll.start(1);
                loop.exec();
                nestedDone = true;
            });
        });
        QCOMPARE(::write(pair.fd[1], "n", 1), 1);
        QTRY_VERIFY_WITH_TIMEOUT(nestedDone.load(), kWaitMs + 1000);
        QVERIFY(readInNested.load());
    }

    void quitEndsTheThreadWhileIdle()
    {
        // Blocked in epoll_wait with no timer: quit() must wake it (cleanup() waits, bounded).
        QVERIFY(m_thread->isRunning());
        m_thread->quit();
        QVERIFY(m_thread->wait(kWaitMs));
        QVERIFY(m_thread->isFinished());
    }
};

QTEST_GUILESS_MAIN(TestEpollDispatcher)
#include "tst_epolldispatcher.moc"
