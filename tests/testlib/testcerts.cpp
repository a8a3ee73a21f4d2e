#include "tests/testlib/testcerts.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStringList>

namespace qrocket::testlib {

namespace {

/// Runs openssl with `args` in `dir` (bounded); empty on success, else the command and output.
QString openssl(const QString &dir, const QStringList &args)
{
    QProcess process;
    process.setWorkingDirectory(dir);
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(QStringLiteral("openssl"), args);
    const QString command = QStringLiteral("openssl ") + args.join(QLatin1Char(' '));
    if (!process.waitForStarted(10'000))
        return command + QStringLiteral(": cannot start: ") + process.errorString();
    if (!process.waitForFinished(30'000)) {
        process.kill();
        process.waitForFinished(5'000);
        return command + QStringLiteral(": did not finish in 30 s");
    }
    if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0)
        return command + QStringLiteral(": ") + QString::fromLocal8Bit(process.readAll());
    return {};
}

QStringList newKey(const QString &key)
{
    return {QStringLiteral("-newkey"), QStringLiteral("ec"), QStringLiteral("-pkeyopt"),
        QStringLiteral("ec_paramgen_curve:prime256v1"), QStringLiteral("-nodes"),
        QStringLiteral("-keyout"), key};
}

} // namespace

QString generateTestCerts(const QString &dirPath, TestCerts &out)
{
    const QDir dir(dirPath);
    {
        QFile ext(dir.filePath(QStringLiteral("server.ext")));
        if (!ext.open(QIODevice::WriteOnly))
            return ext.fileName() + QStringLiteral(": ") + ext.errorString();
        ext.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n"
                  "extendedKeyUsage=serverAuth\n");
        QFile clientExt(dir.filePath(QStringLiteral("client.ext")));
        if (!clientExt.open(QIODevice::WriteOnly))
            return clientExt.fileName() + QStringLiteral(": ") + clientExt.errorString();
        clientExt.write("extendedKeyUsage=clientAuth\n");
    }
    const QString days = QStringLiteral("2");
    const QList<QStringList> steps = {
        QStringList {QStringLiteral("req"), QStringLiteral("-x509")}
            + newKey(QStringLiteral("ca.key"))
            + QStringList {QStringLiteral("-out"), QStringLiteral("ca.pem"),
                QStringLiteral("-days"), days, QStringLiteral("-subj"),
                QStringLiteral("/CN=qrocket-test-ca")},
        QStringList {QStringLiteral("req")} + newKey(QStringLiteral("server.key"))
            + QStringList {QStringLiteral("-out"), QStringLiteral("server.csr"),
                QStringLiteral("-subj"), QStringLiteral("/CN=localhost")},
        {QStringLiteral("x509"), QStringLiteral("-req"), QStringLiteral("-in"),
            QStringLiteral("server.csr"), QStringLiteral("-CA"), QStringLiteral("ca.pem"),
            QStringLiteral("-CAkey"), QStringLiteral("ca.key"), QStringLiteral("-CAcreateserial"),
            QStringLiteral("-out"), QStringLiteral("server.pem"), QStringLiteral("-days"), days,
            QStringLiteral("-extfile"), QStringLiteral("server.ext")},
        {QStringLiteral("pkcs8"), QStringLiteral("-topk8"), QStringLiteral("-in"),
            QStringLiteral("server.key"), QStringLiteral("-out"), QStringLiteral("server-enc.key"),
            QStringLiteral("-passout"),
            QStringLiteral("pass:") + QLatin1String(TestCerts::kKeyPassword)},
        QStringList {QStringLiteral("req")} + newKey(QStringLiteral("client.key"))
            + QStringList {QStringLiteral("-out"), QStringLiteral("client.csr"),
                QStringLiteral("-subj"), QStringLiteral("/CN=qrocket-test-client")},
        {QStringLiteral("x509"), QStringLiteral("-req"), QStringLiteral("-in"),
            QStringLiteral("client.csr"), QStringLiteral("-CA"), QStringLiteral("ca.pem"),
            QStringLiteral("-CAkey"), QStringLiteral("ca.key"), QStringLiteral("-CAcreateserial"),
            QStringLiteral("-out"), QStringLiteral("client.pem"), QStringLiteral("-days"), days,
            QStringLiteral("-extfile"), QStringLiteral("client.ext")},
        QStringList {QStringLiteral("req"), QStringLiteral("-x509")}
            + newKey(QStringLiteral("rogue.key"))
            + QStringList {QStringLiteral("-out"), QStringLiteral("rogue.pem"),
                QStringLiteral("-days"), days, QStringLiteral("-subj"),
                QStringLiteral("/CN=localhost"), QStringLiteral("-addext"),
                QStringLiteral("subjectAltName=IP:127.0.0.1,DNS:localhost")},
    };
    for (const QStringList &args : steps) {
        if (QString error = openssl(dirPath, args); !error.isEmpty())
            return error;
    }
    out.caCert = dir.filePath(QStringLiteral("ca.pem"));
    out.serverCert = dir.filePath(QStringLiteral("server.pem"));
    out.serverKey = dir.filePath(QStringLiteral("server.key"));
    out.serverKeyEncrypted = dir.filePath(QStringLiteral("server-enc.key"));
    out.clientCert = dir.filePath(QStringLiteral("client.pem"));
    out.clientKey = dir.filePath(QStringLiteral("client.key"));
    out.rogueCert = dir.filePath(QStringLiteral("rogue.pem"));
    out.rogueKey = dir.filePath(QStringLiteral("rogue.key"));
    return {};
}

} // namespace qrocket::testlib
