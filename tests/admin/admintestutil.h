#pragma once

// Helpers for qrocket-admin's suites: run build/bin/qrocket-admin (found through
// QROCKET_BIN_DIR) as a real process with a bounded wait, and read its output.

#include <QElapsedTimer>
#include <QProcess>
#include <QProcessEnvironment>
#include <QStringList>
#include <QTest>

#include <initializer_list>

namespace qrocket::admintest {

struct Run
{
    int exitCode = -1;
    bool finished = false;
    QString out;
    QString err;
    qint64 elapsedMs = 0;

    QStringList lines() const { return out.split(QLatin1Char('\n'), Qt::SkipEmptyParts); }
    /// For QVERIFY2 messages.
    QByteArray describe() const
    {
        return QStringLiteral("exit %1 after %2 ms\n--- stdout\n%3\n--- stderr\n%4")
            .arg(exitCode)
            .arg(elapsedMs)
            .arg(out, err)
            .toUtf8();
    }
};

inline QString adminPath()
{
    const QString dir = qEnvironmentVariable("QROCKET_BIN_DIR");
    return (dir.isEmpty() ? QStringLiteral(".") : dir) + QStringLiteral("/qrocket-admin");
}

/// Runs qrocket-admin with `args` (NAMESRV_ADDR removed from the environment unless given in
/// `env`), waiting at most `timeoutMs`.
inline Run runAdmin(
    const QStringList &args, const QProcessEnvironment &extraEnv = {}, int timeoutMs = 20000)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("NAMESRV_ADDR"));
    for (const QString &k : extraEnv.keys())
        env.insert(k, extraEnv.value(k));
    p.setProcessEnvironment(env);
    QElapsedTimer t;
    t.start();
    p.start(adminPath(), args);
    Run r;
    if (!p.waitForStarted(5000)) {
        r.err = QStringLiteral("cannot start %1: %2").arg(adminPath(), p.errorString());
        return r;
    }
    r.finished = p.waitForFinished(timeoutMs);
    if (!r.finished) {
        p.kill();
        p.waitForFinished(2000);
    }
    r.elapsedMs = t.elapsed();
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

/// A QStringList of literals (QT_NO_CAST_FROM_ASCII is on).
inline QStringList argv(std::initializer_list<const char *> items)
{
    QStringList l;
    for (const char *i : items)
        l << QString::fromUtf8(i);
    return l;
}

/// runAdmin with "-n <namesrv>" appended.
inline Run runAt(const QString &namesrv, QStringList args, int timeoutMs = 20000)
{
    args << QStringLiteral("-n") << namesrv;
    return runAdmin(args, {}, timeoutMs);
}

inline Run runAt(
    const QString &namesrv, std::initializer_list<const char *> args, int timeoutMs = 20000)
{
    return runAt(namesrv, argv(args), timeoutMs);
}

/// The whitespace-separated fields of a line.
inline QStringList fields(const QString &line)
{
    return line.split(QLatin1Char(' '), Qt::SkipEmptyParts);
}

/// The first line of `r` whose first field is `first`, or a null QString.
inline QString lineStartingWith(const Run &r, const QString &first)
{
    for (const QString &l : r.lines()) {
        if (!fields(l).isEmpty() && fields(l).first() == first)
            return l;
    }
    return {};
}

} // namespace qrocket::admintest
