#include "storage/core/logging.h"

Q_LOGGING_CATEGORY(lcStore, "qrocket.storage", QtInfoMsg)
Q_LOGGING_CATEGORY(lcStoreRecovery, "qrocket.storage.recovery", QtInfoMsg)
Q_LOGGING_CATEGORY(lcStoreFlush, "qrocket.storage.flush", QtInfoMsg)
Q_LOGGING_CATEGORY(lcStoreClean, "qrocket.storage.clean", QtInfoMsg)
