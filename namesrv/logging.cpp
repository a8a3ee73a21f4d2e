#include "namesrv/logging.h"

Q_LOGGING_CATEGORY(lcNamesrv, "qrocket.namesrv", QtInfoMsg)
Q_LOGGING_CATEGORY(lcNamesrvRoute, "qrocket.namesrv.route", QtInfoMsg)
Q_LOGGING_CATEGORY(lcNamesrvKv, "qrocket.namesrv.kv", QtInfoMsg)
