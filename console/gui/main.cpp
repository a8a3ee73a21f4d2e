// qrocket-console: the live Qt Widgets console for QRocket / RocketMQ clusters.
//
//   qrocket-console                          connection dialog (recent clusters offered)
//   qrocket-console -n "host:port;host:port" opens that cluster (repeat -n for several)
//   qrocket-console -n ADDR --screenshot FILE --view NAME [--topic T] [--timeout S]
//       connects, waits (bounded) until the view has data, writes FILE (PNG) and exits 0;
//       exits 1 with a message when it cannot. Without a display it runs offscreen.

#include "console/gui/clustersession.h"
#include "console/gui/clusterwidget.h"
#include "console/gui/connectdialog.h"
#include "console/gui/mainwindow.h"
#include "console/gui/screenshot.h"
#include "console/gui/style.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>

#include <cstdio>

using namespace qrocket::console;

namespace {

int fail(const QString &message, int code = 1)
{
    std::fprintf(stderr, "qrocket-console: %s\n", qPrintable(message));
    return code;
}

} // namespace

int main(int argc, char **argv)
{
    // Screenshot mode on a machine without a display: offscreen rather than a failed start.
    bool screenshotMode = false;
    for (int i = 1; i < argc; ++i)
        screenshotMode = screenshotMode || qstrcmp(argv[i], "--screenshot") == 0;
    if (screenshotMode && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")
        && qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");

    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("QRocket"));
    QApplication::setApplicationName(QStringLiteral("qrocket-console"));
    QApplication::setApplicationVersion(QStringLiteral("0.1"));
    initConsoleResources();

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Live console for QRocket and Apache RocketMQ clusters"));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption namesrv({QStringLiteral("n"), QStringLiteral("namesrv")},
        QStringLiteral(
            "Name servers of a cluster, \"host:port;host:port\" (repeat for several clusters)."),
        QStringLiteral("addr"));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"),
        QStringLiteral("Write a PNG of --view to <file> once it has data, then exit."),
        QStringLiteral("file"));
    const QCommandLineOption view(QStringLiteral("view"),
        QStringLiteral("View to show: %1.").arg(viewNames().join(QStringLiteral(", "))),
        QStringLiteral("name"), QStringLiteral("cluster"));
    const QCommandLineOption topic(QStringLiteral("topic"),
        QStringLiteral("Topic for the route and messages views (default: the first non-system "
                       "topic, else TBW102)."),
        QStringLiteral("name"));
    const QCommandLineOption timeout(QStringLiteral("timeout"),
        QStringLiteral("Screenshot mode: seconds to wait for data (default 15)."),
        QStringLiteral("s"), QStringLiteral("15"));
    const QCommandLineOption light(
        QStringLiteral("light"), QStringLiteral("Use the platform's light palette."));
    const QCommandLineOption aclConfig(QStringLiteral("aclConfig"),
        QStringLiteral("Sign every request with the ACL credentials of <file>, mqadmin's tools.yml "
                       "format (accessKey:, secretKey:); default $ROCKETMQ_HOME/conf/tools.yml "
                       "when it exists."),
        QStringLiteral("file"));
    const QCommandLineOption tls(QStringLiteral("tls"),
        QStringLiteral("Connect with TLS (RocketMQ's tls.enable), verifying the servers' "
                       "certificates."));
    const QCommandLineOption tlsTrust(QStringLiteral("tlsTrustCert"),
        QStringLiteral("PEM CA certificates the servers' certificates must chain to "
                       "(tls.client.trustCertPath; default: the system's)."),
        QStringLiteral("file"));
    const QCommandLineOption tlsCert(QStringLiteral("tlsCert"),
        QStringLiteral("PEM client certificate, for servers requiring one."),
        QStringLiteral("file"));
    const QCommandLineOption tlsKey(
        QStringLiteral("tlsKey"), QStringLiteral("PEM key of --tlsCert."), QStringLiteral("file"));
    parser.addOptions({namesrv, screenshot, view, topic, timeout, light, aclConfig, tls, tlsTrust,
        tlsCert, tlsKey});
    parser.process(app);
    if (!parser.positionalArguments().isEmpty())
        return fail(QStringLiteral("unexpected argument \"%1\" (see --help)")
                        .arg(parser.positionalArguments().first()),
            2);

    applyConsoleStyle(app, !parser.isSet(light));
    ViewName viewName = ViewName::Cluster;
    if (!parseViewName(parser.value(view), &viewName))
        return fail(QStringLiteral("unknown view \"%1\"; one of: %2")
                        .arg(parser.value(view), viewNames().join(QStringLiteral(", "))),
            2);
    bool ok = false;
    const int timeoutSeconds = parser.value(timeout).toInt(&ok);
    if (!ok || timeoutSeconds <= 0 || timeoutSeconds > 3600)
        return fail(QStringLiteral("--timeout needs a number of seconds, 1..3600"), 2);
    const QStringList clusters = parser.values(namesrv);
    for (const QString &c : clusters) {
        if (const QString why = ConnectDialog::checkAddress(c); !why.isEmpty())
            return fail(QStringLiteral("-n %1: %2").arg(c, why), 2);
    }

    qrocket::console::Credentials credentials;
    const QString credentialsFile = parser.isSet(aclConfig)
        ? parser.value(aclConfig)
        : qrocket::console::defaultCredentialsFile();
    if (!credentialsFile.isEmpty()) {
        auto read = qrocket::console::readCredentialsFile(credentialsFile);
        if (!read)
            return fail(read.status().toString(), 2);
        if (qrocket::Status s = read->check(); !s)
            return fail(QStringLiteral("%1: %2").arg(credentialsFile, s.message()), 2);
        credentials = *read;
    }
    qrocket::remoting::TlsSettings clientTls;
    clientTls.configFile.clear();
    clientTls.enable = parser.isSet(tls);
    clientTls.clientTrustCertPath = parser.value(tlsTrust);
    clientTls.clientCertPath = parser.value(tlsCert);
    clientTls.clientKeyPath = parser.value(tlsKey);
    ClusterSession::setClientTls(clientTls);

    MainWindow window;
    window.setCredentials(credentials);
    if (parser.isSet(screenshot)) {
        if (clusters.size() != 1)
            return fail(QStringLiteral("--screenshot needs exactly one -n ADDR"), 2);
        window.resize(1400, 860);
        ClusterWidget *cluster = nullptr;
        if (qrocket::Status s = window.addCluster(clusters.first(), &cluster); !s)
            return fail(s.toString());
        window.show();
        const qrocket::Status prepared
            = prepareView(cluster, viewName, parser.value(topic).toUtf8(), timeoutSeconds * 1000);
        if (!prepared)
            return fail(prepared.toString());
        if (qrocket::Status s = writeScreenshot(&window, parser.value(screenshot)); !s)
            return fail(s.toString());
        std::printf("%s\n", qPrintable(parser.value(screenshot)));
        return 0;
    }

    for (const QString &c : clusters) {
        if (qrocket::Status s = window.addCluster(c); !s)
            std::fprintf(
                stderr, "qrocket-console: %s: %s\n", qPrintable(c), qPrintable(s.toString()));
    }
    window.show();
    if (window.clusterCount() == 0)
        QTimer::singleShot(0, &window, &MainWindow::openConnectDialog);
    return app.exec();
}
