#include "broker/managers/topicconfigmanager.h"

#include "broker/common/logging.h"
#include "broker/config/brokerconfig.h"
#include "broker/managers/topicvalidator.h"

#include <algorithm>

namespace qrocket::broker {

TopicConfigManager::TopicConfigManager(const BrokerConfig &config, QString path)
    : VersionedConfigManager(std::move(path), "topics", "topicConfigTable")
    , m_clusterName(config.brokerClusterName.toUtf8())
    , m_brokerName(config.brokerName.toUtf8())
    , m_autoCreateTopicEnable(config.autoCreateTopicEnable)
{
    createSystemTopics(config);
}

TopicConfigManager::~TopicConfigManager()
{
    waitForCommits(); // their completions call changed()
}

QString TopicConfigManager::filePath(const QString &storePathRootDir)
{
    return storePathRootDir + QStringLiteral("/config/topics.json");
}

void TopicConfigManager::putSystemTopic(TopicConfig c)
{
    const QByteArray name = c.topicName;
    m_table.insert_or_assign(name, std::move(c));
    touchedLocked(); // the constructor's: nothing else can hold the table yet
}

void TopicConfigManager::createSystemTopics(const BrokerConfig &config)
{
    using namespace topics;
    const int rw = Perm::Read | Perm::Write;
    putSystemTopic(TopicConfig(kSelfTest, 1));
    if (config.autoCreateTopicEnable)
        putSystemTopic(
            TopicConfig(kAutoCreateTopicKey, config.defaultTopicQueueNums, Perm::Inherit | rw));
    putSystemTopic(TopicConfig(kBenchmark, 1024));
    putSystemTopic(
        TopicConfig(m_clusterName, 16, Perm::Inherit | (config.clusterTopicEnable ? rw : 0)));
    putSystemTopic(
        TopicConfig(m_brokerName, 1, Perm::Inherit | (config.brokerTopicEnable ? rw : 0)));
    putSystemTopic(TopicConfig(kOffsetMovedEvent, 1));
    putSystemTopic(TopicConfig(kSchedule, kScheduleQueueNums));
    if (config.traceTopicEnable)
        putSystemTopic(TopicConfig(config.msgTraceTopicName.toUtf8(), 1));
    putSystemTopic(TopicConfig(m_clusterName + '_' + kReplyTopicPostfix, 1));
}

Status TopicConfigManager::replaceFrom(QByteArrayView json)
{
    if (Status st = apply(json, true); !st)
        return st;
    qCInfo(lcBrokerTopic) << "replaced the topic table from the master";
    persist();
    changed({}, dataVersion());
    return {};
}

void TopicConfigManager::setChangeListener(ChangeListener listener)
{
    VersionedChangeListener versioned;
    if (listener)
        versioned
            = [l = std::move(listener)](const QByteArray &topic, const DataVersion &) { l(topic); };
    setChangeListener(std::move(versioned));
}

void TopicConfigManager::setChangeListener(VersionedChangeListener listener)
{
    std::lock_guard lock(m_listenerMutex);
    m_listener = std::move(listener);
}

void TopicConfigManager::changed(const QByteArray &topic, const DataVersion &version)
{
    VersionedChangeListener listener;
    {
        std::lock_guard lock(m_listenerMutex);
        listener = m_listener;
    }
    if (listener)
        listener(topic, version);
}

QList<QByteArray> TopicConfigManager::topicNames() const
{
    std::shared_lock lock(m_mutex);
    QList<QByteArray> out;
    for (const auto &[name, c] : m_table)
        out.append(name);
    return out;
}

void TopicConfigManager::nextDataVersion()
{
    std::unique_lock lock(m_mutex);
    m_dataVersion.next();
    touchedLocked();
}

bool TopicConfigManager::isSystemTopic(QByteArrayView topic) const
{
    return topics::isSystemTopic(topic) || topic == m_clusterName || topic == m_brokerName
        || topic == m_clusterName + '_' + topics::kReplyTopicPostfix;
}

Result<TopicConfig> TopicConfigManager::createTopicInSendMessageMethod(QByteArrayView topic,
    QByteArrayView defaultTopic, QByteArrayView remoteAddress, int clientDefaultTopicQueueNums,
    int topicSysFlag)
{
    if (auto existing = find(topic))
        return *existing;
    if (Status st = topics::validateTopic(topic); !st)
        return st;
    const auto tmpl = find(defaultTopic);
    if (!tmpl)
        return Status::notFound(
            QStringLiteral("reject create topic %1: default topic %2 does not exist")
                .arg(QString::fromUtf8(topic), QString::fromUtf8(defaultTopic)));
    const bool isAutoCreateKey = defaultTopic == QByteArrayView(topics::kAutoCreateTopicKey);
    if (!Perm::isInherited(tmpl->perm) || (isAutoCreateKey && !m_autoCreateTopicEnable))
        return Status::notFound(
            QStringLiteral("reject create topic %1: default topic %2 has no inherit permission")
                .arg(QString::fromUtf8(topic), QString::fromUtf8(defaultTopic)));
    TopicConfig c(topic.toByteArray(),
        std::max(0, std::min(clientDefaultTopicQueueNums, tmpl->writeQueueNums)),
        tmpl->perm & ~Perm::Inherit);
    c.topicSysFlag = topicSysFlag;
    c.topicFilterType = tmpl->topicFilterType;
    TopicConfig existing;
    DataVersion version;
    if (!insert(c.topicName, c, false, &existing, nullptr, &version))
        return existing; // created meanwhile by another thread
    qCInfo(lcBrokerTopic).noquote()
        << "auto-created topic" << QString::fromUtf8(topic) << "from"
        << QString::fromUtf8(defaultTopic) << "for" << QString::fromUtf8(remoteAddress) << "with"
        << c.writeQueueNums << "queues, perm" << c.perm;
    changed(c.topicName, version);
    return c;
}

Result<TopicConfig> TopicConfigManager::createTopicInSendMessageBackMethod(
    QByteArrayView topic, int queueNums, int permission, int topicSysFlag)
{
    if (auto existing = find(topic))
        return *existing;
    if (Status st = topics::validateTopic(topic); !st)
        return st;
    TopicConfig c(topic.toByteArray(), queueNums, permission);
    c.topicSysFlag = topicSysFlag;
    TopicConfig existing;
    DataVersion version;
    if (!insert(c.topicName, c, false, &existing, nullptr, &version))
        return existing;
    qCInfo(lcBrokerTopic).noquote() << "created topic" << QString::fromUtf8(topic) << "with"
                                    << queueNums << "queues, perm" << permission;
    changed(c.topicName, version);
    return c;
}

Result<TopicConfig> TopicConfigManager::createRetryTopic(QByteArrayView group, int retryQueueNums)
{
    if (Status st = topics::validateGroup(group); !st)
        return st;
    return createTopicInSendMessageBackMethod(
        topics::retryTopic(group), retryQueueNums, Perm::Read | Perm::Write);
}

Result<TopicConfig> TopicConfigManager::createDlqTopic(QByteArrayView group)
{
    if (Status st = topics::validateGroup(group); !st)
        return st;
    return createTopicInSendMessageBackMethod(topics::dlqTopic(group), 1, Perm::Read | Perm::Write);
}

Status TopicConfigManager::checkUpdate(const TopicConfig &config)
{
    if (Status st = topics::validateTopic(config.topicName); !st)
        return st;
    if (config.readQueueNums < 0 || config.writeQueueNums < 0 || config.readQueueNums > 65535
        || config.writeQueueNums > 65535)
        return Status::invalidArgument(QStringLiteral("queue counts must be within 0..65535"));
    return {};
}

void TopicConfigManager::updateTopicConfigAsync(
    TopicConfig config, std::function<void(Status)> done)
{
    if (Status st = checkUpdate(config); !st) {
        done(st);
        return;
    }
    const QByteArray name = config.topicName;
    insertAsync(name, std::move(config), true,
        [this, name, done = std::move(done)](bool, DataVersion version, Status durable) {
            // No log line of its own: the caller (the admin processor) logs the change with its
            // config, and two lines per creation cost a burst more than the change itself.
            changed(name, version);
            done(std::move(durable));
        });
}

Status TopicConfigManager::updateTopicConfig(TopicConfig config)
{
    if (Status st = checkUpdate(config); !st)
        return st;
    const QByteArray name = config.topicName;
    Status durable;
    DataVersion version;
    insert(name, std::move(config), true, nullptr, &durable, &version);
    qCInfo(lcBrokerTopic).noquote() << "updated topic" << QString::fromUtf8(name);
    changed(name, version);
    return durable;
}

bool TopicConfigManager::deleteTopicConfig(QByteArrayView topic)
{
    DataVersion version;
    if (!erase(topic, nullptr, &version))
        return false;
    qCInfo(lcBrokerTopic).noquote() << "deleted topic" << QString::fromUtf8(topic);
    changed(topic.toByteArray(), version);
    return true;
}

bool TopicConfigManager::updateOrderTopics(const QList<QByteArray> &orderTopics)
{
    bool change = false;
    {
        std::unique_lock lock(m_mutex);
        for (auto &[name, config] : m_table) {
            const bool order = orderTopics.contains(name);
            if (config.order != order) {
                config.order = order;
                change = true;
            }
        }
        if (change) {
            m_dataVersion.next();
            touchedLocked();
        }
    }
    if (change) {
        qCInfo(lcBrokerTopic).noquote()
            << "order topics from the name server:" << QString::fromUtf8(orderTopics.join(' '));
        persist();
    }
    return change;
}

} // namespace qrocket::broker
