// AdminProcessor: subscription groups, offsets tables and the broker config (200, 207, 201, 43,
// 45, 26, 25), protocol.md §4.4, §4.9.

#include "broker/brokercontext.h"
#include "broker/config/brokerconfig.h"
#include "broker/logging.h"
#include "broker/managers/consumeroffsetmanager.h"
#include "broker/managers/delayoffsetmanager.h"
#include "broker/managers/subscriptiongroupmanager.h"
#include "broker/managers/topicconfig.h"
#include "broker/processors/admincommon.h"
#include "broker/processors/adminprocessor.h"
#include "clientlib/common/properties.h"
#include "storage/messagestore.h"

#include <QSet>

#include <mutex>

namespace qrocket::broker {

using protocol::RemotingCommand;

namespace {

/// The broker configuration's DataVersion (RocketMQ's Configuration): bumped by every
/// UPDATE_BROKER_CONFIG, sent as ext "version" with GET_BROKER_CONFIG.
std::mutex g_configVersionMutex;
DataVersion g_configVersion = DataVersion::now(); // guarded by g_configVersionMutex

} // namespace

RemotingCommand AdminProcessor::updateSubscriptionGroup(const RemotingCommand &request)
{
    Result<SubscriptionGroupConfig> config = SubscriptionGroupConfig::fromJson(request.body);
    if (!config.has_value())
        return makeResponse(
            request, toInt(ResponseCode::SystemError), utf8(config.error().message()));
    if (!m_ctx.config->isMaster())
        return makeResponse(request, toInt(ResponseCode::SystemError),
            QByteArrayLiteral("Can't modify topic or subscription group from slave broker"));
    const QByteArray name = config.value().groupName;
    if (Status s = m_ctx.subscriptionGroups->update(std::move(config.value())); !s)
        return makeResponse(request, toInt(ResponseCode::SystemError), utf8(s.message()));
    qCInfo(lcBroker).noquote() << "subscription group" << name << "created/updated by admin";
    return makeResponse(request, toInt(ResponseCode::Success));
}

RemotingCommand AdminProcessor::deleteSubscriptionGroup(const RemotingCommand &request)
{
    const QByteArray group = request.extString("groupName").toByteArray();
    if (group.isEmpty())
        return makeResponse(
            request, toInt(ResponseCode::SystemError), missingFieldRemark("groupName"));
    m_ctx.subscriptionGroups->remove(group);
    if (request.extBool("removeOffset").value_or(false))
        m_ctx.consumerOffsets->removeGroup(group);
    qCInfo(lcBroker).noquote() << "subscription group" << group << "deleted by admin";
    return makeResponse(request, toInt(ResponseCode::Success));
}

RemotingCommand AdminProcessor::allSubscriptionGroups(const RemotingCommand &request)
{
    RemotingCommand response = makeResponse(request, toInt(ResponseCode::Success));
    response.body = m_ctx.subscriptionGroups->encode();
    return response;
}

RemotingCommand AdminProcessor::allConsumerOffsets(const RemotingCommand &request)
{
    RemotingCommand response = makeResponse(request, toInt(ResponseCode::Success));
    response.body = m_ctx.consumerOffsets->encode();
    return response;
}

RemotingCommand AdminProcessor::allDelayOffsets(const RemotingCommand &request)
{
    if (!m_ctx.delayOffsets)
        return makeResponse(request, toInt(ResponseCode::SystemError),
            QByteArrayLiteral("No delay offset in this broker"));
    RemotingCommand response = makeResponse(request, toInt(ResponseCode::Success));
    response.body = m_ctx.delayOffsets->encode();
    return response;
}

RemotingCommand AdminProcessor::brokerConfig(const RemotingCommand &request)
{
    QByteArray text = m_ctx.config->toProperties();
    QSet<QString> keys;
    for (const PropertyEntry &e : parseProperties(text))
        keys.insert(e.key);
    // The store's keys too, as RocketMQ's merged Configuration prints them.
    storage::MessageStoreConfig storeConfig = m_ctx.store->config();
    ConfigSchema storeSchema;
    storeConfig.bind(storeSchema);
    QList<std::pair<QString, QString>> storeEntries;
    for (const auto &entry : storeSchema.entries()) {
        if (!keys.contains(entry.first))
            storeEntries.append(entry);
    }
    if (!text.isEmpty() && !text.endsWith('\n'))
        text.append('\n');
    text.append(formatProperties(storeEntries));

    RemotingCommand response = makeResponse(request, toInt(ResponseCode::Success));
    {
        std::lock_guard lock(g_configVersionMutex);
        response.setExt(QByteArrayLiteral("version"), g_configVersion.toJson());
    }
    response.body = text;
    return response;
}

RemotingCommand AdminProcessor::updateBrokerConfig(const RemotingCommand &request)
{
    const Properties props = parseProperties(request.body);
    if (props.isEmpty())
        return makeResponse(request, toInt(ResponseCode::SystemError),
            QByteArrayLiteral("string2Properties error"));
    // Applied in memory to numeric and boolean settings only: other threads read the config
    // without a lock, and swapping a string under them is not safe. Text settings (names,
    // addresses, paths) and store keys take effect at the next start, from the -c file.
    QStringList notApplied;
    ConfigSchema live = m_ctx.config->schema();
    for (const PropertyEntry &e : props) {
        const QString current = live.value(e.key);
        bool numeric = false;
        current.toLongLong(&numeric);
        const bool scalar
            = numeric || current == QLatin1String("true") || current == QLatin1String("false");
        if (current.isNull() || !scalar) {
            notApplied.append(e.key);
            continue;
        }
        if (Status s = live.set(e.key, e.value); !s)
            return makeResponse(request, toInt(ResponseCode::SystemError), utf8(s.message()));
    }
    const QStringList &unknown = notApplied;
    {
        std::lock_guard lock(g_configVersionMutex);
        g_configVersion.next();
    }
    qCInfo(lcBrokerConfig).noquote()
        << "broker config updated by admin:" << QString::fromUtf8(request.body).trimmed()
        << (unknown.isEmpty() ? QString()
                              : QStringLiteral("(not applied: ") + unknown.join(QLatin1Char(','))
                       + QLatin1Char(')'));
    RemotingCommand response = makeResponse(request, toInt(ResponseCode::Success));
    if (!unknown.isEmpty())
        response.remark = QByteArrayLiteral("not applied at runtime: ")
            + unknown.join(QLatin1Char(',')).toUtf8();
    return response;
}

} // namespace qrocket::broker
