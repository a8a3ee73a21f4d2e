#pragma once

// Logging categories of the storage module (default Info): recovery, flush and cleanup decisions
// log at Info with the file and offset; per-message traces at Debug only.

#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcStore)
Q_DECLARE_LOGGING_CATEGORY(lcStoreRecovery)
Q_DECLARE_LOGGING_CATEGORY(lcStoreFlush)
Q_DECLARE_LOGGING_CATEGORY(lcStoreClean)
