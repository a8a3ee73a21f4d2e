#pragma once

// Logging categories of the common module, and the process-wide message pattern. Each module
// declares its own categories in its own logging.h ("qrocket.<module>[.<area>]"), default Info,
// so QT_LOGGING_RULES="qrocket.storage.debug=true" turns debug on.

#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcCommon)
Q_DECLARE_LOGGING_CATEGORY(lcConfig)

namespace qrocket {
/// Call once from main(): time, level, category and thread in every line.
void installMessagePattern();
} // namespace qrocket
