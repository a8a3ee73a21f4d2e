#pragma once

// The broker daemon's configuration step (RocketMQ's BrokerStartup): one properties file (-c)
// sets both the broker's keys (BrokerConfig) and the store's (MessageStoreConfig) through one
// ConfigSchema, so -p/-m print both and an unknown key is reported once.

#include "broker/config/brokerconfig.h"
#include "clientlib/common/status.h"
#include "storage/core/storeconfig.h"

#include <QString>
#include <QStringList>

namespace qrocket::broker {

struct BrokerStartupConfig
{
    BrokerConfig broker;
    storage::MessageStoreConfig store;

    /// Loads `configFile` (may be empty: defaults), applies `namesrvAddr` when non-empty (-n wins
    /// over the file), copies the shared store keys and validates both. Unknown keys are
    /// appended to `unknownKeys`.
    Status load(const QString &configFile, const QString &namesrvAddr, QStringList *unknownKeys);
    /// `key=value` lines of every setting (or only the important ones).
    QString print(bool importantOnly);
};

} // namespace qrocket::broker
