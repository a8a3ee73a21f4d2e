// The golden vectors the tests replay are in the repository, whole: every file of
// tests/data/vectors/SHA256SUMS is present with its recorded digest, and a missing or truncated
// file is reported as such (tests/testlib/vectors.h).

#include "tests/testlib/vectors.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

using namespace qrocket::testing;

class tst_Vectors : public QObject
{
    Q_OBJECT

private slots:
    void everyFileIsIntact();
    void framesAreAllThere();
    void truncatedFileIsReported();
    void missingFileIsReported();
};

void tst_Vectors::everyFileIsIntact()
{
    QROCKET_REQUIRE_VECTORS();
    // frames.jsonl, the commit-log, consume-queue, checkpoint, config and index samples.
    QCOMPARE(detail::vectorManifest().size(), 15);
    QVERIFY(QFile::exists(vectorsDir() + QStringLiteral("/README.md")));
}

void tst_Vectors::framesAreAllThere()
{
    const QByteArray all = readVectorFile(QStringLiteral("frames.jsonl"));
    QCOMPARE(all.count('\n'), 287);
}

namespace {

/// Copies the vectors' manifest and one file into `dir`.
bool copyOne(const QTemporaryDir &dir, const QString &relative)
{
    QDir().mkpath(QFileInfo(dir.filePath(relative)).path());
    return QFile::copy(vectorsDir() + QStringLiteral("/SHA256SUMS"),
               dir.filePath(QStringLiteral("SHA256SUMS")))
        && QFile::copy(vectorsDir() + QLatin1Char('/') + relative, dir.filePath(relative));
}

} // namespace

void tst_Vectors::truncatedFileIsReported()
{
    QTemporaryDir dir;
    const QString rel = QStringLiteral("store/checkpoint");
    QVERIFY(copyOne(dir, rel));
    const auto manifest = detail::readManifest(dir.path());
    QCOMPARE(detail::checkVectorFile(dir.path(), manifest, rel), QString());
    QFile f(dir.filePath(rel));
    QVERIFY(f.setPermissions(QFile::ReadOwner | QFile::WriteOwner));
    QVERIFY(f.resize(4000));
    const QString problem = detail::checkVectorFile(dir.path(), manifest, rel);
    QVERIFY2(problem.contains(QStringLiteral("truncated or changed")), qPrintable(problem));
    QVERIFY(problem.contains(QStringLiteral("store/checkpoint")));
}

void tst_Vectors::missingFileIsReported()
{
    QTemporaryDir dir;
    QVERIFY(copyOne(dir, QStringLiteral("store/checkpoint")));
    const auto manifest = detail::readManifest(dir.path());
    const QString problem
        = detail::checkVectorFile(dir.path(), manifest, QStringLiteral("frames.jsonl"));
    QVERIFY2(problem.contains(QStringLiteral("not found")), qPrintable(problem));
    const QString noManifest = detail::checkVectorFile(
        dir.path() + QStringLiteral("/nowhere"), {}, QStringLiteral("frames.jsonl"));
    QVERIFY2(noManifest.contains(QStringLiteral("SHA256SUMS")), qPrintable(noManifest));
}

QTEST_GUILESS_MAIN(tst_Vectors)
#include "tst_vectors.moc"
