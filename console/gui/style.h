#pragma once

// The console's look in one place: the dark Fusion palette, the status colours (chosen to read on
// the dark palette, and never used without a text or icon beside them) and the icons from
// resources/console (console.qrc).

#include "console/gui/sessiontypes.h"

#include <QColor>
#include <QIcon>

class QApplication;

namespace qrocket::console {

/// Registers console.qrc (the library is static, so the resource needs an explicit init).
void initConsoleResources();
/// Fusion with a dark palette (the default look), or the platform's light one.
void applyConsoleStyle(QApplication &app, bool dark = true);

QColor okColor();
QColor warnColor();
QColor badColor();
/// Greyed text for stale values.
QColor staleColor();
QColor livenessColor(Liveness l);
QIcon livenessIcon(Liveness l);
QIcon appIcon();

} // namespace qrocket::console
