#pragma once

// qrocket-bench's modes; each takes the arguments after the mode word (arguments[0] is the
// program name) and returns the process exit code: 0 done, 1 the run failed (nothing sent or
// consumed, cluster unreachable), 2 bad options.

#include <QStringList>

namespace qrocket::bench {

int runProducer(const QStringList &arguments);
int runConsumer(const QStringList &arguments);
int runPopConsumer(const QStringList &arguments);
int runTransactionProducer(const QStringList &arguments);

} // namespace qrocket::bench
