// ConfigFileStore: tmp -> .bak -> rename writes and .bak fallback on load.

#include "broker/config/configfilestore.h"
#include "tests/unit/broker/brokertestutil.h"

#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

using namespace qrocket;
using namespace qrocket::broker;
using namespace qrocket::testing;

namespace {

// Accepts text starting with '{' (stands in for "decodes as JSON").
Status decodeInto(QByteArray *out, const QByteArray &text)
{
    if (!text.startsWith('{'))
        return Status::corruption(QStringLiteral("not an object"));
    *out = text;
    return {};
}

} // namespace

class tst_ConfigFileStore final : public QObject
{
    Q_OBJECT

private slots:
    void writeKeepsBackupOfPreviousContent()
    {
        QTemporaryDir dir;
        const QString path = dir.path() + QStringLiteral("/config/topics.json");
        QVERIFY(ConfigFileStore::write(path, "{1}"));
        QCOMPARE(readFile(path), QByteArray("{1}"));
        QVERIFY(!QFile::exists(path + QStringLiteral(".bak")));
        QVERIFY(ConfigFileStore::write(path, "{2}"));
        QCOMPARE(readFile(path), QByteArray("{2}"));
        QCOMPARE(readFile(path + QStringLiteral(".bak")), QByteArray("{1}"));
        QVERIFY(!QFile::exists(path + QStringLiteral(".tmp")));
    }

    void loadsMainFile()
    {
        QTemporaryDir dir;
        const QString path = dir.path() + QStringLiteral("/a.json");
        QVERIFY(ConfigFileStore::write(path, "{old}"));
        QVERIFY(ConfigFileStore::write(path, "{new}"));
        QByteArray got;
        QVERIFY(
            ConfigFileStore::load(path, [&](const QByteArray &t) { return decodeInto(&got, t); }));
        QCOMPARE(got, QByteArray("{new}"));
    }

    void fallsBackToBackup_data()
    {
        QTest::addColumn<QByteArray>("main");
        QTest::addRow("corrupt") << QByteArray("garbage");
        QTest::addRow("empty") << QByteArray("");
        QTest::addRow("blank") << QByteArray(" \n");
    }
    void fallsBackToBackup()
    {
        QFETCH(QByteArray, main);
        QTemporaryDir dir;
        const QString path = dir.path() + QStringLiteral("/a.json");
        QVERIFY(writeFile(path, main));
        QVERIFY(writeFile(path + QStringLiteral(".bak"), "{backup}"));
        QByteArray got;
        QVERIFY(
            ConfigFileStore::load(path, [&](const QByteArray &t) { return decodeInto(&got, t); }));
        QCOMPARE(got, QByteArray("{backup}"));
    }

    void missingMainUsesBackup()
    {
        // A crash between "copy to .bak" and the rename can leave only the backup.
        QTemporaryDir dir;
        const QString path = dir.path() + QStringLiteral("/a.json");
        QVERIFY(writeFile(path + QStringLiteral(".bak"), "{backup}"));
        QVERIFY(writeFile(path + QStringLiteral(".tmp"), "{half-writ"));
        QByteArray got;
        QVERIFY(
            ConfigFileStore::load(path, [&](const QByteArray &t) { return decodeInto(&got, t); }));
        QCOMPARE(got, QByteArray("{backup}"));
    }

    void nothingIsNotFound()
    {
        QTemporaryDir dir;
        bool called = false;
        const Status st = ConfigFileStore::load(
            dir.path() + QStringLiteral("/none.json"), [&](const QByteArray &) {
                called = true;
                return Status();
            });
        QCOMPARE(st.code(), Status::Code::NotFound);
        QVERIFY(!called);
    }

    void bothCorruptIsAnError()
    {
        QTemporaryDir dir;
        const QString path = dir.path() + QStringLiteral("/a.json");
        QVERIFY(writeFile(path, "garbage"));
        QVERIFY(writeFile(path + QStringLiteral(".bak"), "more garbage"));
        QByteArray got;
        const Status st
            = ConfigFileStore::load(path, [&](const QByteArray &t) { return decodeInto(&got, t); });
        QCOMPARE(st.code(), Status::Code::Corruption);
        QVERIFY(st.message().contains(path));
        QVERIFY(got.isEmpty());
    }

    void writeFailsCleanlyOnUnwritableDir()
    {
        if (::geteuid() == 0)
            QSKIP("root ignores directory permissions");
        QTemporaryDir dir;
        QVERIFY(QFile::setPermissions(dir.path(), QFileDevice::ReadOwner | QFileDevice::ExeOwner));
        const Status st = ConfigFileStore::write(dir.path() + QStringLiteral("/a.json"), "{}");
        QFile::setPermissions(
            dir.path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
        QCOMPARE(st.code(), Status::Code::IoError);
    }

    void writeFailsWhenParentIsAFile()
    {
        QTemporaryDir dir;
        QVERIFY(writeFile(dir.path() + QStringLiteral("/file"), "x"));
        const Status st = ConfigFileStore::write(dir.path() + QStringLiteral("/file/a.json"), "{}");
        QCOMPARE(st.code(), Status::Code::IoError);
    }
};

QTEST_APPLESS_MAIN(tst_ConfigFileStore)
#include "tst_configfilestore.moc"
