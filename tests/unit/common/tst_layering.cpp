// The source tree's shape, checked on every build: which part may include which (the layers the
// README's "Layout" table describes), no include circle between folders, and no source file
// over 800 lines. It reads the checkout this test was built from (QROCKET_SOURCE_DIR).

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QMap>
#include <QRegularExpression>
#include <QSet>
#include <QTest>

#include <algorithm>
#include <functional>

namespace {

const QString kRoot = QStringLiteral(QROCKET_SOURCE_DIR);
const QStringList kProductTops = {QStringLiteral("clientlib"), QStringLiteral("storage"),
    QStringLiteral("namesrv"), QStringLiteral("broker"), QStringLiteral("console")};
constexpr int kMaxLines = 800;

/// The part a source path belongs to: a clientlib library ("clientlib/client"), else its top
/// folder ("broker").
QString partOf(const QString &path)
{
    const QStringList segments = path.split(QLatin1Char('/'));
    if (segments.first() == QLatin1String("clientlib") && segments.size() > 2)
        return segments[0] + QLatin1Char('/') + segments[1];
    return segments.first();
}

/// What each part may include besides itself. Downwards only: common <- protocol <- remoting
/// <- (acl, client, storage) <- (namesrv, broker) <- embedded; the tools sit on the client.
/// clientlib/embedded links the daemons' libraries to start a cluster inside a test process,
/// so it is the top of the tree: nothing here may include it (tests and examples may).
const QMap<QString, QStringList> &allowedDependencies()
{
    static const QMap<QString, QStringList> allowed = [] {
        const QString common = QStringLiteral("clientlib/common");
        const QString protocol = QStringLiteral("clientlib/protocol");
        const QString remoting = QStringLiteral("clientlib/remoting");
        const QString acl = QStringLiteral("clientlib/acl");
        const QString client = QStringLiteral("clientlib/client");
        const QString storage = QStringLiteral("storage");
        QMap<QString, QStringList> map;
        map[common] = {};
        map[protocol] = {common};
        map[remoting] = {common, protocol};
        map[acl] = {common, protocol, remoting};
        map[client] = {common, protocol, remoting};
        map[storage] = {common, protocol};
        map[QStringLiteral("namesrv")] = {common, protocol, remoting, acl};
        map[QStringLiteral("broker")] = {common, protocol, remoting, acl, storage};
        map[QStringLiteral("clientlib/embedded")] = {common, protocol, remoting, acl, client,
            storage, QStringLiteral("namesrv"), QStringLiteral("broker")};
        map[QStringLiteral("clientlib/bench")] = {common, protocol, remoting, client};
        map[QStringLiteral("console")] = {common, protocol, remoting, client};
        return map;
    }();
    return allowed;
}

struct Include
{
    QString from; // file, relative to the root
    QString target; // file, relative to the root
};

bool isSource(const QString &name)
{
    return name.endsWith(QLatin1String(".h")) || name.endsWith(QLatin1String(".cpp"));
}

QStringList sourcesUnder(const QString &top)
{
    QStringList files;
    QDirIterator it(kRoot + QLatin1Char('/') + top, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        if (isSource(path))
            files << QDir(kRoot).relativeFilePath(path);
    }
    files.sort();
    return files;
}

/// The project includes ("dir/file.h" from the root, or a neighbour's "file.h") of a file.
QList<Include> includesOf(const QString &file)
{
    static const QRegularExpression re(QStringLiteral("^\\s*#\\s*include\\s*\"([^\"]+)\""));
    QList<Include> out;
    QFile f(kRoot + QLatin1Char('/') + file);
    if (!f.open(QIODevice::ReadOnly))
        return out;
    const QString dir = QFileInfo(file).path();
    while (!f.atEnd()) {
        const QString line = QString::fromUtf8(f.readLine());
        const QRegularExpressionMatch m = re.match(line);
        if (!m.hasMatch())
            continue;
        const QString name = m.captured(1);
        const QString neighbour = QDir::cleanPath(dir + QLatin1Char('/') + name);
        if (QFile::exists(kRoot + QLatin1Char('/') + neighbour))
            out.append({file, neighbour});
        else if (QFile::exists(kRoot + QLatin1Char('/') + name))
            out.append({file, QDir::cleanPath(name)});
    }
    return out;
}

/// The product folders' includes, read once for all the checks.
const QList<Include> &productIncludes()
{
    static const QList<Include> all = [] {
        QList<Include> out;
        for (const QString &top : kProductTops)
            for (const QString &file : sourcesUnder(top))
                out += includesOf(file);
        return out;
    }();
    return all;
}

} // namespace

class tst_Layering final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(kRoot + QStringLiteral("/CMakeLists.txt")), qPrintable(kRoot));
        QVERIFY(!productIncludes().isEmpty());
    }

    void partsIncludeOnlyDownwards()
    {
        QStringList violations;
        for (const Include &inc : productIncludes()) {
            const QString from = partOf(inc.from);
            const QString to = partOf(inc.target);
            if (from == to || !kProductTops.contains(inc.target.section(QLatin1Char('/'), 0, 0)))
                continue;
            const auto allowed = allowedDependencies().constFind(from);
            if (allowed == allowedDependencies().cend())
                violations
                    << QStringLiteral("%1: part %2 is not in the layer table").arg(inc.from, from);
            else if (!allowed->contains(to))
                violations << QStringLiteral("%1 includes %2 (%3 may not depend on %4)")
                                  .arg(inc.from, inc.target, from, to);
        }
        violations.removeDuplicates();
        QVERIFY2(violations.isEmpty(), qPrintable(violations.join(QLatin1Char('\n'))));
    }

    void noFolderCircles()
    {
        // Folder graph: an edge per include between two different folders; a strongly connected
        // component of more than one folder is a circle (Tarjan).
        QMap<QString, QSet<QString>> edges;
        QMap<QPair<QString, QString>, QString> example;
        for (const Include &inc : productIncludes()) {
            const QString a = QFileInfo(inc.from).path();
            const QString b = QFileInfo(inc.target).path();
            if (a == b)
                continue;
            edges[a].insert(b);
            example.insert({a, b}, inc.from + QStringLiteral(" -> ") + inc.target);
        }
        QMap<QString, int> index, low;
        QSet<QString> onStack;
        QStringList stack;
        QList<QStringList> circles;
        int counter = 0;
        std::function<void(const QString &)> visit = [&](const QString &v) {
            index[v] = low[v] = counter++;
            stack.push_back(v);
            onStack.insert(v);
            for (const QString &w : edges.value(v)) {
                if (!index.contains(w)) {
                    visit(w);
                    low[v] = std::min(low[v], low[w]);
                } else if (onStack.contains(w)) {
                    low[v] = std::min(low[v], index[w]);
                }
            }
            if (low[v] == index[v]) {
                QStringList component;
                QString w;
                do {
                    w = stack.takeLast();
                    onStack.remove(w);
                    component << w;
                } while (w != v);
                if (component.size() > 1)
                    circles << component;
            }
        };
        for (auto it = edges.cbegin(); it != edges.cend(); ++it)
            if (!index.contains(it.key()))
                visit(it.key());
        QStringList report;
        for (QStringList circle : circles) {
            circle.sort();
            report << QStringLiteral("circle: ") + circle.join(QStringLiteral(", "));
            for (const QString &a : circle)
                for (const QString &b : circle)
                    if (example.contains({a, b}))
                        report << QStringLiteral("    ") + example.value({a, b});
        }
        QVERIFY2(circles.isEmpty(), qPrintable(report.join(QLatin1Char('\n'))));
    }

    void noSourceFileOverTheLimit()
    {
        QStringList tooLong;
        for (const QString &top : kProductTops + QStringList {QStringLiteral("tests")}) {
            for (const QString &file : sourcesUnder(top)) {
                QFile f(kRoot + QLatin1Char('/') + file);
                QVERIFY(f.open(QIODevice::ReadOnly));
                const qsizetype lines = f.readAll().count('\n');
                if (lines > kMaxLines)
                    tooLong << QStringLiteral("%1: %2 lines").arg(file).arg(lines);
            }
        }
        QVERIFY2(tooLong.isEmpty(),
            qPrintable(QStringLiteral("over %1 lines (split along a seam):\n").arg(kMaxLines)
                + tooLong.join(QLatin1Char('\n'))));
    }
};

QTEST_GUILESS_MAIN(tst_Layering)
#include "tst_layering.moc"
