// qrocket-admin: RocketMQ's mqadmin rebuilt on QRocket's client library (qrocket::client::Admin).
// `qrocket-admin <command> [options]`; see cli.h for the registry and
// console/admin/README-section.md.

#include "console/admin/cli.h"

#include <QCoreApplication>
#include <QLoggingCategory>

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("qrocket-admin"));
    // The client library logs connection trouble at info/warning level; the CLI reports each
    // failure once on stderr instead. QROCKET_ADMIN_LOG=1 shows the library's log.
    if (qEnvironmentVariableIsEmpty("QROCKET_ADMIN_LOG"))
        QLoggingCategory::setFilterRules(
            QStringLiteral("qrocket.*=false\nqrocket.*.critical=true"));
    QStringList args = QCoreApplication::arguments();
    args.removeFirst();
    return qrocket::admincli::run(args);
}
