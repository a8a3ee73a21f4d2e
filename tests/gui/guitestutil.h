#pragma once

// Helpers shared by the console's GUI suites: an embedded cluster with the options they need
// (small files, 1 s clean runs, no automatic deletion hour), a started producer, and the folder
// screenshots go to (build/tests/screenshots).

#include "broker/config/brokerconfig.h"
#include "clientlib/client/producer.h"
#include "clientlib/embedded/embeddedcluster.h"
#include "storage/core/storeconfig.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QStandardPaths>

#include <memory>

namespace qrocket::guitest {

/// Two brokers; fileReservedTime 0 (every file but the newest is expired at once) and a
/// deleteWhen hour twelve hours away, so only a manual DELETE_EXPIRED_COMMITLOG deletes (while
/// the disk is below diskMaxUsedSpaceRatio). `disk`: the brokers' disk probes (statvfs when
/// null).
inline std::unique_ptr<EmbeddedCluster> startCluster(
    int brokers = 2, std::function<storage::DiskSpaceProbe(int index)> disk = {})
{
    EmbeddedClusterOptions o;
    o.brokerCount = brokers;
    o.diskSpace = std::move(disk);
    o.configureBroker = [](int, broker::BrokerConfig &, storage::MessageStoreConfig &s) {
        s.fileReservedTime = 0;
        s.cleanResourceInterval = 1000;
        s.deleteWhen = QString::number((QDateTime::currentDateTime().time().hour() + 12) % 24);
    };
    auto cluster = std::make_unique<EmbeddedCluster>(o);
    if (!cluster->start())
        return nullptr;
    return cluster;
}

inline std::unique_ptr<client::Producer> startProducer(
    const EmbeddedCluster &cluster, const QByteArray &group)
{
    client::ProducerOptions o;
    o.group = group;
    o.client.namesrvAddr = cluster.namesrvAddress().toUtf8();
    o.client.clientIP = "127.0.0.1";
    o.client.instanceName = group;
    o.compressMsgBodyOverHowmuch = 64 * 1024 * 1024;
    auto p = std::make_unique<client::Producer>(o);
    if (!p->start())
        return nullptr;
    return p;
}

/// build/tests/screenshots (created).
inline QString screenshotDir()
{
    const QString dir = QCoreApplication::applicationDirPath() + QStringLiteral("/screenshots");
    QDir().mkpath(dir);
    return dir;
}

/// QSettings of the suite in QStandardPaths' test location, never the user's.
inline void isolateSettings(const char *app)
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("QRocketTest"));
    QCoreApplication::setApplicationName(QString::fromLatin1(app));
}

} // namespace qrocket::guitest
