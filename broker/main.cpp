// qrocket-broker: the broker daemon (RocketMQ's BrokerStartup).

#include "broker/brokercontroller.h"
#include "broker/brokerstartup.h"
#include "broker/common/logging.h"
#include "broker/controllermode.h"
#include "clientlib/common/heap.h"
#include "clientlib/common/logging.h"
#include "clientlib/common/signalwatcher.h"

#include <QCommandLineParser>
#include <QCoreApplication>

#include <csignal>
#include <cstdio>

using namespace qrocket::broker;

static int fail(const QString &message)
{
    std::fprintf(stderr, "qrocket-broker: %s\n", qPrintable(message));
    return 1;
}

int main(int argc, char *argv[])
{
    qrocket::reserveHeapHeadroom();
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("qrocket-broker"));
    QCoreApplication::setApplicationVersion(QStringLiteral(QROCKET_VERSION_STRING));
    qrocket::installMessagePattern();

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("QRocket broker (RocketMQ-compatible)"));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption configFile({QStringLiteral("c"), QStringLiteral("configFile")},
        QStringLiteral("Broker config properties file."), QStringLiteral("FILE"));
    const QCommandLineOption namesrv({QStringLiteral("n"), QStringLiteral("namesrvAddr")},
        QStringLiteral("Name server address list, e.g. '192.168.0.1:9876;192.168.0.2:9876'."),
        QStringLiteral("ADDRS"));
    const QCommandLineOption printAll({QStringLiteral("p"), QStringLiteral("printConfigItem")},
        QStringLiteral("Print all config items and exit."));
    const QCommandLineOption printImportant(
        {QStringLiteral("m"), QStringLiteral("printImportantConfig")},
        QStringLiteral("Print important config items and exit."));
    parser.addOptions({configFile, namesrv, printAll, printImportant});
    parser.process(app);

    BrokerStartupConfig config;
    QStringList unknown;
    const qrocket::Status loaded
        = config.load(parser.value(configFile), parser.value(namesrv), &unknown);
    for (const QString &key : std::as_const(unknown))
        std::fprintf(
            stderr, "qrocket-broker: warning: unknown config key '%s' ignored\n", qPrintable(key));
    if (!loaded)
        return fail(loaded.message());
    if (parser.isSet(printAll) || parser.isSet(printImportant)) {
        std::fputs(qPrintable(config.print(!parser.isSet(printAll))), stdout);
        return 0;
    }

    // Watch SIGTERM/SIGINT before anything listens: a signal that arrives while the daemon
    // starts is then handled by the event loop (a clean stop) instead of killing it outright.
    qrocket::SignalWatcher signalWatcher({SIGTERM, SIGINT});
    QObject::connect(&signalWatcher, &qrocket::SignalWatcher::received, &app, [](int signalNumber) {
        qCInfo(lcBroker) << "signal" << signalNumber << "received, shutting down";
        QCoreApplication::quit();
    });
    // Test seam: the store's partitions as a file gives them ("total free available", bytes)
    // instead of statvfs, so that a system test can fill and free the disk of a real daemon (in
    // controller mode too: each broker the election starts gets it).
    qrocket::storage::DiskSpaceProbe diskSpaceProbe;
    if (const QString file = qEnvironmentVariable("QROCKET_DISK_SPACE_FILE"); !file.isEmpty()) {
        qCWarning(lcBroker).noquote() << "disk space read from" << file
                                      << "(QROCKET_DISK_SPACE_FILE, for tests), not measured";
        diskSpaceProbe = qrocket::storage::diskSpaceFileProbe(file);
    }
    if (config.broker.enableControllerMode) {
        // The election decides the role; the broker is restarted in-process at each change.
        controller::ControllerMode mode(config.broker, config.store);
        mode.setDiskSpaceProbe(diskSpaceProbe);
        if (auto st = mode.start(); !st)
            return fail(st.message());
        const int rc = QCoreApplication::exec();
        mode.shutdown();
        return rc;
    }
    BrokerController controller(config.broker, config.store);
    if (diskSpaceProbe)
        controller.setDiskSpaceProbe(diskSpaceProbe);
    if (auto st = controller.initialize(); !st)
        return fail(st.message());
    if (auto st = controller.start(); !st)
        return fail(st.message());
    const int rc = QCoreApplication::exec();
    controller.shutdown();
    return rc;
}
