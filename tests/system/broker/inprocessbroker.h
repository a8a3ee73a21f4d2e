#pragma once

// An in-process BrokerController on 127.0.0.1 port 0 with a small store, for the socket-level
// broker tests (tst_brokerprocessors, tst_lockbatch, tst_replymessage, tst_adminmore,
// tst_transaction): startInProcessBroker() in initTestCase, stopInProcessBroker() in
// cleanupTestCase.

#include "broker/brokercontroller.h"
#include "broker/config/brokerconfig.h"
#include "storage/core/storeconfig.h"

#include <QString>
#include <QTest>

#include <functional>
#include <memory>

namespace qrocket::brokertest {

/// Starts a broker named `brokerName` with its store under `storeRoot`, registering with
/// `namesrvAddr` (an unreachable address is harmless: registration just fails); `configure`, if
/// given, adjusts the broker config before it is validated. Fails the calling test (QVERIFY) and
/// leaves `out` empty when it cannot start.
inline void startInProcessBroker(std::unique_ptr<broker::BrokerController> &out,
    const QString &storeRoot, const QString &brokerName, const QString &namesrvAddr,
    const std::function<void(broker::BrokerConfig &)> &configure = {})
{
    broker::BrokerConfig config;
    config.brokerIP1 = QStringLiteral("127.0.0.1");
    config.brokerIP2 = QStringLiteral("127.0.0.1");
    config.brokerName = brokerName;
    config.namesrvAddr = namesrvAddr;
    config.storePathRootDir = storeRoot;
    storage::MessageStoreConfig storeConfig;
    storeConfig.storePathRootDir = config.storePathRootDir;
    storeConfig.mappedFileSizeCommitLog = 16 * 1024 * 1024;
    storeConfig.mappedFileSizeConsumeQueue = 1000 * 20;
    if (configure)
        configure(config);
    QVERIFY2(config.validate().isOk(), qPrintable(config.validate().message()));
    config.listenPort = 0;
    auto controller = std::make_unique<broker::BrokerController>(config, storeConfig);
    const Status init = controller->initialize();
    QVERIFY2(init.isOk(), qPrintable(init.message()));
    const Status started = controller->start();
    QVERIFY2(started.isOk(), qPrintable(started.message()));
    out = std::move(controller);
}

/// Shuts the broker down (when there is one) and destroys it.
inline void stopInProcessBroker(std::unique_ptr<broker::BrokerController> &broker)
{
    if (broker)
        broker->shutdown();
    broker.reset();
}

} // namespace qrocket::brokertest
