#pragma once

// Logging categories of the name server (default Info; QT_LOGGING_RULES turns debug on).

#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcNamesrv) // qrocket.namesrv: lifecycle, config
Q_DECLARE_LOGGING_CATEGORY(lcNamesrvRoute) // qrocket.namesrv.route: registrations, expiry
Q_DECLARE_LOGGING_CATEGORY(lcNamesrvKv) // qrocket.namesrv.kv: KV config store
