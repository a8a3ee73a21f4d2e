#include "broker/brokerstartup.h"

#include "clientlib/common/properties.h"

#include <QDir>

#include <algorithm>

namespace qrocket::broker {

Status BrokerStartupConfig::load(
    const QString &configFile, const QString &namesrvAddr, QStringList *unknownKeys)
{
    ConfigSchema schema;
    broker.bind(schema, false);
    store.bind(schema);
    bool haPortGiven = false;
    if (!configFile.isEmpty()) {
        Result<Properties> props = loadPropertiesFile(configFile);
        if (!props)
            return props.error();
        if (Status st = schema.apply(*props, unknownKeys); !st)
            return Status::invalidArgument(configFile + QStringLiteral(": ") + st.message());
        haPortGiven = std::any_of(props->cbegin(), props->cend(),
            [](const PropertyEntry &e) { return e.key == QLatin1String("haListenPort"); });
    }
    // RocketMQ's BrokerStartup sets haListenPort = listenPort + 1; QRocket keeps an explicit one.
    if (!haPortGiven)
        store.haListenPort = broker.listenPort + 1;
    if (!namesrvAddr.isEmpty())
        broker.namesrvAddr = namesrvAddr;
    // Where UPDATE_BROKER_CONFIG persists (RocketMQ's BrokerPathConfigHelper).
    broker.configFilePath = configFile.isEmpty()
        ? QDir::homePath() + QStringLiteral("/store/config/broker.properties")
        : configFile;
    broker.setSharedStoreKeys(store.storePathRootDir, store.brokerRole, store.messageDelayLevel);
    if (Status st = broker.validate(); !st)
        return st;
    return store.validate();
}

QString BrokerStartupConfig::print(bool importantOnly)
{
    ConfigSchema schema;
    broker.bind(schema, false);
    store.bind(schema);
    return schema.print(importantOnly);
}

} // namespace qrocket::broker
