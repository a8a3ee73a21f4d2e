#pragma once

// BrokerConfiguration: the broker's whole configuration as one properties table (RocketMQ 4.9's
// Configuration over BrokerConfig and MessageStoreConfig), behind GET_BROKER_CONFIG (26) and
// UPDATE_BROKER_CONFIG (25).
//
// - text(): every BrokerConfig key and every store key the broker does not already print, as
//   `key=value` lines; never a secret (isSecretConfigKey) nor a key of the config file that
//   neither knows (RocketMQ prints those: a credential an operator put there would leak).
// - update(): refuses, as NotSupported with a remark naming the key, every path, address, port,
//   role, identity and security key (clientlib/common/configkeys.h: storePathRootDir,
//   namesrvAddr, brokerIP1, haMasterAddress, brokerRole, brokerId, aclEnable, tls.*, ...) whatever
//   configBlackList says, and the keys of RocketMQ 4.9.8's black list (rocketmqHome,
//   brokerConfigPath, configBlackList and the ';'-separated configBlackList setting); ignores
//   keys nobody knows (RocketMQ's mergeIfExist), including the file's unknown keys, which are
//   written back unchanged. Numeric and boolean BrokerConfig keys take effect at
//   once; text keys and store keys are kept as pending values, shown by text() and applied at
//   the next start (other threads read those fields without a lock). Bumps the DataVersion and
//   rewrites the config file (RocketMQ persists to the -c file, else
//   ${user.home}/store/config/broker.properties), so a restart keeps the update.
//   Unlike RocketMQ, a value that does not parse, or that the next start would reject
//   (BrokerConfig/MessageStoreConfig validate()), is refused as InvalidArgument: persisting it
//   would keep the broker from starting again.
//
// Thread-safe (one mutex); BrokerConfig fields outside it are read by other threads as before.

#include "broker/config/topicconfig.h"
#include "clientlib/common/properties.h"
#include "clientlib/common/result.h"
#include "clientlib/common/status.h"
#include "storage/core/storeconfig.h"

#include <QMap>
#include <QString>
#include <QStringList>

#include <mutex>

namespace qrocket::broker {

struct BrokerConfig;

class BrokerConfiguration
{
public:
    /// `config` must outlive this object. An empty `filePath` (in-process tests) persists nothing;
    /// keys of an existing file that neither config knows are kept and written back.
    BrokerConfiguration(
        BrokerConfig &config, storage::MessageStoreConfig storeConfig, QString filePath);

    QByteArray text() const;
    DataVersion dataVersion() const;
    const QString &filePath() const { return m_filePath; }

    struct Update
    {
        QStringList appliedNow;
        QStringList atNextStart;
        QStringList ignored; // unknown keys
    };
    /// See the file comment. NotSupported: a black-listed key (the caller answers 16
    /// NO_PERMISSION); InvalidArgument: a bad value (then nothing changes). A file that cannot
    /// be written is logged, as RocketMQ does; the update stands.
    Result<Update> update(const Properties &props);

private:
    /// forFile: with the file's unknown keys (persisting); else without them and secrets.
    QList<std::pair<QString, QString>> entriesLocked(bool forFile) const;

    BrokerConfig &m_config;
    const QString m_filePath;
    mutable std::mutex m_mutex;
    storage::MessageStoreConfig m_storeConfig; // guarded by m_mutex, with pending store values
    QMap<QString, QString> m_pending; // guarded by m_mutex: BrokerConfig text keys, next start
    QList<std::pair<QString, QString>> m_fileExtras; // guarded by m_mutex
    DataVersion m_version; // guarded by m_mutex
};

} // namespace qrocket::broker
