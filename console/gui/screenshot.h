#pragma once

// Screenshot mode (qrocket-console -n ADDR --screenshot FILE --view NAME [--topic T]) and the
// GUI tests' screenshots: bring a view to a state worth showing (pick the topic or group it
// shows, run its query), wait, bounded, until it has data, and write the window as a PNG.

#include "clientlib/common/status.h"
#include "console/gui/clusterwidget.h"

#include <QByteArray>

#include <functional>

namespace qrocket::console {

/// Runs the event loop until `ready()` or `timeoutMs` (checking every 50 ms). False on timeout.
bool waitUntil(const std::function<bool()> &ready, int timeoutMs);

/// Shows `view` of `w` and prepares it: route / messages show `topic` (empty: the session's
/// default topic, the first non-system one, else TBW102); consumers select the group with the
/// most queues. OK once the view has data, Timeout (saying what is missing) after `timeoutMs`.
Status prepareView(ClusterWidget *w, ViewName view, const QByteArray &topic, int timeoutMs);

/// QWidget::grab of `window` written to `file` (PNG); IoError when it cannot be written.
Status writeScreenshot(QWidget *window, const QString &file);

} // namespace qrocket::console
