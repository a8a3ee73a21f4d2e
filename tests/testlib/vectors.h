#pragma once

// The RocketMQ 4.9.7 golden vectors of tests/data/vectors (test code only): real frames and store
// files captured from Apache RocketMQ with its Java client, rocketmq-client-cpp and ali-ons (see
// that folder's README.md).
//
// Every file is checked against tests/data/vectors/SHA256SUMS before it is used. A missing,
// truncated or changed file is a test failure with a message naming the file, never a skip:
//
//   QVERIFY2(testing::vectorsProblem().isEmpty(), qPrintable(testing::vectorsProblem()));
//   const QByteArray topics = testing::readVectorFile(QStringLiteral("store/config/topics.json"));
//
// The folder is QROCKET_VECTORS_DIR when set (ctest sets it), else the source tree's copy the
// build was configured with (QROCKET_DEFAULT_VECTORS_DIR), so a test binary also runs by hand.

#include <QByteArray>
#include <QCryptographicHash>
#include <QFile>
#include <QHash>
#include <QString>
#include <QTest>

namespace qrocket::testing {

inline QString vectorsDir()
{
    const QByteArray env = qgetenv("QROCKET_VECTORS_DIR");
    if (!env.isEmpty())
        return QString::fromLocal8Bit(env);
#ifdef QROCKET_DEFAULT_VECTORS_DIR
    return QStringLiteral(QROCKET_DEFAULT_VECTORS_DIR);
#else
    return QString();
#endif
}

namespace detail {

/// <dir>/SHA256SUMS as relative path -> lowercase hex digest (empty when the manifest is missing).
inline QHash<QString, QByteArray> readManifest(const QString &dir)
{
    QHash<QString, QByteArray> out;
    QFile f(dir + QStringLiteral("/SHA256SUMS"));
    if (!f.open(QIODevice::ReadOnly))
        return out;
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (line.size() > 66 && line.indexOf("  ") == 64)
            out.insert(QString::fromUtf8(line.mid(66).trimmed()), line.left(64).toLower());
    }
    return out;
}

inline const QHash<QString, QByteArray> &vectorManifest()
{
    static const QHash<QString, QByteArray> manifest = readManifest(vectorsDir());
    return manifest;
}

/// Checks <dir>/<relative> against the manifest; the problem as text, empty when intact.
inline QString checkVectorFile(
    const QString &dir, const QHash<QString, QByteArray> &manifest, const QString &relative)
{
    if (dir.isEmpty())
        return QStringLiteral("golden vectors: QROCKET_VECTORS_DIR is not set and the build "
                              "has no default folder");
    if (manifest.isEmpty())
        return QStringLiteral("golden vectors: %1/SHA256SUMS is missing or empty").arg(dir);
    const auto expected = manifest.constFind(relative);
    if (expected == manifest.cend())
        return QStringLiteral("golden vectors: %1 is not listed in %2/SHA256SUMS")
            .arg(relative, dir);
    QFile f(dir + QLatin1Char('/') + relative);
    if (!f.open(QIODevice::ReadOnly))
        return QStringLiteral("golden vectors: %1 not found (%2)")
            .arg(f.fileName(), f.errorString());
    QCryptographicHash hash(QCryptographicHash::Sha256);
    hash.addData(&f);
    if (hash.result().toHex() != *expected)
        return QStringLiteral("golden vectors: %1 is truncated or changed (%2 bytes; its SHA-256 "
                              "differs from SHA256SUMS)")
            .arg(f.fileName())
            .arg(f.size());
    return QString();
}

/// The cached verdict of checkVectorFile (each file is hashed once per process).
inline QString vectorFileProblem(const QString &relative)
{
    static QHash<QString, QString> verdicts;
    const auto it = verdicts.constFind(relative);
    if (it != verdicts.cend())
        return *it;
    return *verdicts.insert(relative, checkVectorFile(vectorsDir(), vectorManifest(), relative));
}

inline void failOnProblem(const QString &problem)
{
    if (!problem.isEmpty())
        QTest::qFail(qPrintable(problem), __FILE__, __LINE__);
}

} // namespace detail

/// Every file of the manifest checked; the first problem found, empty when all are intact.
inline QString vectorsProblem()
{
    const auto &manifest = detail::vectorManifest();
    if (manifest.isEmpty())
        return detail::checkVectorFile(vectorsDir(), manifest, QStringLiteral("SHA256SUMS"));
    for (auto it = manifest.cbegin(); it != manifest.cend(); ++it) {
        const QString problem = detail::vectorFileProblem(it.key());
        if (!problem.isEmpty())
            return problem;
    }
    return QString();
}

/// The absolute path of a vector file. A missing or damaged file fails the running test.
inline QString vectorPath(const QString &relative)
{
    detail::failOnProblem(detail::vectorFileProblem(relative));
    return vectorsDir() + QLatin1Char('/') + relative;
}

/// The bytes of a vector file. A missing or damaged file fails the running test (and gives
/// an empty array).
inline QByteArray readVectorFile(const QString &relative)
{
    const QString problem = detail::vectorFileProblem(relative);
    if (!problem.isEmpty()) {
        detail::failOnProblem(problem);
        return QByteArray();
    }
    QFile f(vectorsDir() + QLatin1Char('/') + relative);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace qrocket::testing

/// In a test function: fails it, with the file and the problem, unless every vector is intact.
#define QROCKET_REQUIRE_VECTORS()                                                                  \
    do {                                                                                           \
        const QString qrocketVectorsProblem = ::qrocket::testing::vectorsProblem();                \
        QVERIFY2(qrocketVectorsProblem.isEmpty(), qPrintable(qrocketVectorsProblem));              \
    } while (false)
