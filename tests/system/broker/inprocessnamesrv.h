#pragma once

// An in-process NamesrvController on 127.0.0.1 port 0, for the broker system tests that need a
// real name server (tst_brokerprocessors, tst_rocketmqparity). The test links
// QRocket::namesrv_lib.

#include "namesrv/namesrvcontroller.h"

#include <QDir>
#include <QString>
#include <QTest>

#include <memory>

namespace qrocket::brokertest {

/// Starts a name server keeping its kvConfig.json and namesrv.properties under `dir`/namesrv.
/// Fails the calling test (QVERIFY) and leaves `out` empty when it cannot start.
inline void startInProcessNamesrv(
    std::unique_ptr<namesrv::NamesrvController> &out, const QString &dir)
{
    namesrv::NamesrvConfig config;
    config.listenPort = 0;
    config.listenAddress = QStringLiteral("127.0.0.1");
    config.kvConfigPath = QDir(dir).filePath(QStringLiteral("namesrv/kvConfig.json"));
    config.configStorePath = QDir(dir).filePath(QStringLiteral("namesrv/namesrv.properties"));
    auto controller = std::make_unique<namesrv::NamesrvController>(config);
    QVERIFY(controller->initialize().isOk());
    QVERIFY(controller->start().isOk());
    out = std::move(controller);
}

} // namespace qrocket::brokertest
