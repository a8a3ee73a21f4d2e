// qrocket-namesrv: the name server daemon (RocketMQ's NamesrvStartup).

#include "clientlib/common/logging.h"
#include "clientlib/common/signalwatcher.h"
#include "namesrv/logging.h"
#include "namesrv/namesrvcontroller.h"

#include <QCommandLineParser>
#include <QCoreApplication>

#include <csignal>
#include <cstdio>

using namespace qrocket::namesrv;

static int fail(const QString &message)
{
    std::fprintf(stderr, "qrocket-namesrv: %s\n", qPrintable(message));
    return 1;
}

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("qrocket-namesrv"));
    QCoreApplication::setApplicationVersion(QStringLiteral(QROCKET_VERSION_STRING));
    qrocket::installMessagePattern();

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("QRocket name server (RocketMQ-compatible)"));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption configFile({QStringLiteral("c"), QStringLiteral("configFile")},
        QStringLiteral("Name server config properties file."), QStringLiteral("FILE"));
    const QCommandLineOption printAll({QStringLiteral("p"), QStringLiteral("printConfigItem")},
        QStringLiteral("Print all config items and exit."));
    const QCommandLineOption printImportant(
        {QStringLiteral("m"), QStringLiteral("printImportantConfig")},
        QStringLiteral("Print important config items and exit."));
    parser.addOptions({configFile, printAll, printImportant});
    parser.process(app);

    NamesrvConfig config;
    if (parser.isSet(configFile)) {
        QStringList unknown;
        if (auto st = loadConfigFile(parser.value(configFile), config, &unknown); !st.isOk())
            return fail(st.message());
        for (const QString &key : std::as_const(unknown))
            std::fprintf(stderr, "qrocket-namesrv: warning: unknown config key '%s' ignored\n",
                qPrintable(key));
    }
    if (parser.isSet(printAll) || parser.isSet(printImportant)) {
        std::fputs(qPrintable(config.schema().print(!parser.isSet(printAll))), stdout);
        return 0;
    }

    // Watch SIGTERM/SIGINT before anything listens: a signal that arrives while the daemon
    // starts is then handled by the event loop (a clean stop) instead of killing it outright.
    qrocket::SignalWatcher signalWatcher({SIGTERM, SIGINT});
    QObject::connect(&signalWatcher, &qrocket::SignalWatcher::received, &app, [](int signalNumber) {
        qCInfo(lcNamesrv) << "signal" << signalNumber << "received, shutting down";
        QCoreApplication::quit();
    });
    NamesrvController controller(config);
    if (auto st = controller.initialize(); !st.isOk())
        return fail(st.message());
    if (auto st = controller.start(); !st.isOk())
        return fail(st.message());
    const int rc = QCoreApplication::exec();
    controller.shutdown();
    return rc;
}
