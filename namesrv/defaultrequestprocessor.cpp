#include "namesrv/defaultrequestprocessor.h"

#include "clientlib/common/hash.h"
#include "clientlib/protocol/bodies/runtimebodies.h"
#include "clientlib/protocol/extensioncode.h"
#include "clientlib/remoting/logging.h"
#include "clientlib/remoting/metricswriter.h"
#include "namesrv/kvconfigmanager.h"
#include "namesrv/logging.h"
#include "namesrv/namesrvconfig.h"
#include "namesrv/routeinfomanager.h"

#include <QDateTime>

#include <algorithm>
#include <initializer_list>

namespace qrocket::namesrv {

namespace {

using remoting::RemotingCommand;
namespace rc = requestcode;

RemotingCommand reply(const RemotingCommand &request, int code, QByteArray remark = {})
{
    return RemotingCommand::createResponse(request, code, std::move(remark));
}

RemotingCommand success(const RemotingCommand &request, QByteArray body = {})
{
    RemotingCommand r = reply(request, responsecode::kSuccess);
    r.body = std::move(body);
    return r;
}

/// The first required ext field that is absent, as RocketMQ's header decoder reports it; or an
/// empty array when all are present.
QByteArray missingField(const RemotingCommand &request, std::initializer_list<const char *> names)
{
    for (const char *name : names) {
        if (!request.hasExt(QByteArrayView(name)))
            return QByteArrayLiteral("the custom field <") + name + QByteArrayLiteral("> is null");
    }
    return {};
}

QByteArray extBytes(const RemotingCommand &request, const char *name)
{
    return request.extString(QByteArrayView(name)).toByteArray();
}

/// QRocket's REGISTER_BROKER extension "grpcPort": the broker's gRPC port given back with its
/// routes. 0 (no gRPC endpoint, as when absent) for anything that is not an integer in 1..65535,
/// which is logged: rate-limited, since any connection can send it, and with the value cut short
/// and escaped.
int registeredGrpcPort(const remoting::ChannelPtr &channel, const RemotingCommand &request)
{
    const QByteArray *raw = request.ext("grpcPort");
    if (!raw)
        return 0;
    if (const auto port = request.extLong("grpcPort"); port && *port >= 1 && *port <= 65535)
        return static_cast<int>(*port);
    static remoting::LogRateLimiter limiter;
    if (limiter.allow()) {
        qCWarning(lcNamesrvRoute,
            "REGISTER_BROKER from %s (%s): grpcPort \"%s\" is not a port "
            "(1..65535); ignored, its routes carry no gRPC endpoint",
            channel ? channel->remoteAddress().constData() : "?",
            extBytes(request, "brokerAddr").left(64).toPercentEncoding(":").constData(),
            raw->left(32).toPercentEncoding("+-").constData());
    }
    return 0;
}

/// REGISTER_BROKER body: RegisterBrokerBody JSON (version >= 37) or its zlib form, or the bare
/// TopicConfigSerializeWrapper of older brokers.
Result<RegisterBrokerBody> parseRegisterBody(const RemotingCommand &request)
{
    const bool compressed = request.extBool("compressed").value_or(false);
    if (compressed || request.version >= kVersionRegisterBrokerBody)
        return RegisterBrokerBody::decode(request.body, compressed);
    auto wrapper = TopicConfigSerializeWrapper::fromJson(request.body);
    if (!wrapper)
        return wrapper.error();
    RegisterBrokerBody body;
    body.topicConfigSerializeWrapper = std::move(*wrapper);
    return body;
}

protocol::BrokerLiveness livenessBody(const QList<BrokerLiveness> &brokers, std::int64_t expiredMs)
{
    protocol::BrokerLiveness body;
    body.brokerChannelExpiredTime = expiredMs;
    body.brokers.reserve(static_cast<std::size_t>(brokers.size()));
    for (const BrokerLiveness &b : brokers) {
        body.brokers.push_back({b.clusterName, b.brokerName, b.brokerId, b.brokerAddr,
            b.haServerAddr, b.dataVersion, b.lastUpdateEpochMs, b.ageMs});
    }
    body.now = QDateTime::currentMSecsSinceEpoch();
    return body;
}

} // namespace

DefaultRequestProcessor::DefaultRequestProcessor(
    RouteInfoManager &routes, KvConfigManager &kv, NamesrvConfigStore &config)
    : m_routes(routes)
    , m_kv(kv)
    , m_config(config)
    , m_bootTimestamp(QDateTime::currentMSecsSinceEpoch())
{ }

QList<int> DefaultRequestProcessor::requestCodes()
{
    return {rc::kPutKvConfig, rc::kGetKvConfig, rc::kDeleteKvConfig, rc::kRegisterBroker,
        rc::kUnregisterBroker, rc::kGetRouteInfoByTopic, rc::kGetBrokerClusterInfo,
        rc::kWipeWritePermOfBroker, rc::kGetAllTopicListFromNameServer, rc::kDeleteTopicInNamesrv,
        rc::kGetKvListByNamespace, rc::kGetTopicsByCluster, rc::kGetSystemTopicListFromNs,
        rc::kGetUnitTopicList, rc::kGetHasUnitSubTopicList, rc::kGetHasUnitSubUnUnitTopicList,
        rc::kUpdateNamesrvConfig, rc::kGetNamesrvConfig, rc::kQueryDataVersion,
        rc::kAddWritePermOfBroker, protocol::extensioncode::kGetBrokerLiveness,
        protocol::extensioncode::kGetNamesrvRuntimeInfo, protocol::extensioncode::kExplainBroker};
}

bool DefaultRequestProcessor::isWriteCode(int code)
{
    switch (code) {
    case rc::kPutKvConfig:
    case rc::kDeleteKvConfig:
    case rc::kRegisterBroker:
    case rc::kUnregisterBroker:
    case rc::kWipeWritePermOfBroker:
    case rc::kDeleteTopicInNamesrv:
    case rc::kUpdateNamesrvConfig:
    case rc::kAddWritePermOfBroker:
        return true;
    default:
        return false;
    }
}

void DefaultRequestProcessor::processRequest(const remoting::ChannelPtr &channel,
    remoting::RemotingCommand request, remoting::Responder respond)
{
    RemotingCommand response = process(channel, request);
    if (!request.isOneway())
        respond(std::move(response));
}

RemotingCommand DefaultRequestProcessor::process(
    const remoting::ChannelPtr &channel, const RemotingCommand &request)
{
    switch (request.code) {
    case rc::kRegisterBroker:
        return registerBroker(channel, request);
    case rc::kUnregisterBroker:
        return unregisterBroker(request);
    case rc::kQueryDataVersion:
        return queryDataVersion(request);
    case rc::kGetRouteInfoByTopic:
        return routeInfoByTopic(request);
    case rc::kGetBrokerClusterInfo:
        return success(request, m_routes.clusterInfoJson());
    case rc::kPutKvConfig:
    case rc::kGetKvConfig:
    case rc::kDeleteKvConfig:
    case rc::kGetKvListByNamespace:
        return kvRequest(channel, request);
    case rc::kGetAllTopicListFromNameServer:
    case rc::kGetTopicsByCluster:
    case rc::kGetSystemTopicListFromNs:
    case rc::kGetUnitTopicList:
    case rc::kGetHasUnitSubTopicList:
    case rc::kGetHasUnitSubUnUnitTopicList:
        return topicList(request);
    case rc::kDeleteTopicInNamesrv:
    case rc::kWipeWritePermOfBroker:
    case rc::kAddWritePermOfBroker:
        return adminRequest(request);
    case rc::kUpdateNamesrvConfig:
    case rc::kGetNamesrvConfig:
        return configRequest(request);
    case protocol::extensioncode::kGetBrokerLiveness:
        return brokerLiveness(request);
    case protocol::extensioncode::kGetNamesrvRuntimeInfo:
        return runtimeInfo(request);
    case protocol::extensioncode::kExplainBroker:
        return explainBroker(request);
    default:
        return reply(
            request, 3, " request type " + QByteArray::number(request.code) + " not supported");
    }
}

RemotingCommand DefaultRequestProcessor::registerBroker(
    const remoting::ChannelPtr &channel, const RemotingCommand &request)
{
    if (QByteArray missing = missingField(
            request, {"brokerName", "brokerAddr", "clusterName", "haServerAddr", "brokerId"});
        !missing.isEmpty()) {
        m_routes.noteRegistrationError(
            extBytes(request, "brokerName"), extBytes(request, "brokerAddr"), missing);
        return reply(request, responsecode::kSystemError, missing);
    }
    const auto brokerId = request.extLong("brokerId");
    if (!brokerId) {
        m_routes.noteRegistrationError(extBytes(request, "brokerName"),
            extBytes(request, "brokerAddr"), "brokerId is not a number");
        return reply(request, responsecode::kSystemError, "brokerId is not a number");
    }

    const std::int32_t crc = request.extInt("bodyCrc32").value_or(0);
    if (crc != 0 && crc32Masked(request.body) != crc) {
        qCWarning(lcNamesrvRoute).noquote()
            << "register broker" << request.extString("brokerAddr") << ": crc32 not match";
        m_routes.noteRegistrationError(extBytes(request, "brokerName"),
            extBytes(request, "brokerAddr"), "crc32 not match (bodyCrc32)");
        return reply(request, responsecode::kSystemError, "crc32 not match");
    }

    RegisterBrokerBody body;
    if (!request.body.isEmpty()) {
        Result<RegisterBrokerBody> parsed = parseRegisterBody(request);
        if (!parsed) {
            qCWarning(lcNamesrvRoute).noquote()
                << "register broker" << request.extString("brokerAddr")
                << ": bad body:" << parsed.error().message();
            m_routes.noteRegistrationError(extBytes(request, "brokerName"),
                extBytes(request, "brokerAddr"),
                "bad register body: " + parsed.error().message().toUtf8());
            return reply(request, responsecode::kSystemError,
                "bad register body: " + parsed.error().message().toUtf8());
        }
        body = std::move(*parsed);
    }

    const RegisterBrokerResult result = m_routes.registerBroker(extBytes(request, "clusterName"),
        extBytes(request, "brokerAddr"), extBytes(request, "brokerName"), *brokerId,
        extBytes(request, "haServerAddr"), body, channel,
        request.extBool("incremental").value_or(false), registeredGrpcPort(channel, request));

    RemotingCommand response = success(request);
    if (!result.haServerAddr.isEmpty())
        response.setExt("haServerAddr", result.haServerAddr);
    if (!result.masterAddr.isEmpty())
        response.setExt("masterAddr", result.masterAddr);
    if (auto order = m_kv.list(kNamespaceOrderTopicConfig))
        response.body = kvTableJson(*order);
    return response;
}

RemotingCommand DefaultRequestProcessor::unregisterBroker(const RemotingCommand &request)
{
    if (QByteArray missing
        = missingField(request, {"brokerName", "brokerAddr", "clusterName", "brokerId"});
        !missing.isEmpty())
        return reply(request, responsecode::kSystemError, missing);
    const auto brokerId = request.extLong("brokerId");
    if (!brokerId)
        return reply(request, responsecode::kSystemError, "brokerId is not a number");
    m_routes.unregisterBroker(extBytes(request, "clusterName"), extBytes(request, "brokerAddr"),
        extBytes(request, "brokerName"), *brokerId);
    return success(request);
}

RemotingCommand DefaultRequestProcessor::queryDataVersion(const RemotingCommand &request)
{
    if (QByteArray missing
        = missingField(request, {"brokerName", "brokerAddr", "clusterName", "brokerId"});
        !missing.isEmpty())
        return reply(request, responsecode::kSystemError, missing);
    auto version = DataVersion::fromJson(request.body);
    if (!version)
        return reply(request, responsecode::kSystemError,
            "bad DataVersion body: " + version.error().message().toUtf8());
    const QByteArray addr = extBytes(request, "brokerAddr");
    const bool changed = m_routes.isBrokerTopicConfigChanged(addr, *version);
    if (!changed)
        m_routes.updateBrokerInfoUpdateTimestamp(addr);
    RemotingCommand response = success(request);
    response.setExtBool("changed", changed);
    if (auto mine = m_routes.queryBrokerTopicConfig(addr))
        response.body = mine->toJson();
    return response;
}

RemotingCommand DefaultRequestProcessor::routeInfoByTopic(const RemotingCommand &request)
{
    if (QByteArray missing = missingField(request, {"topic"}); !missing.isEmpty())
        return reply(request, responsecode::kSystemError, missing);
    const QByteArray topic = extBytes(request, "topic");
    QByteArray orderTopicConf;
    if (m_config.orderMessageEnable())
        orderTopicConf = m_kv.value(kNamespaceOrderTopicConfig, topic).value_or(QByteArray());
    // Standard JSON with quoted keys for every requester: Java >= 4.9.4 asks for it, and Java,
    // Go, cpp and ali-ons clients all read it (protocol.md §3.4, §3.9).
    std::optional<QByteArray> body = m_routes.topicRouteJson(topic, orderTopicConf);
    if (!body) {
        return reply(request, responsecode::kTopicNotExist,
            "No topic route info in name server for the topic: " + topic
                + "\nSee http://rocketmq.apache.org/docs/faq/ for further details.");
    }
    return success(request, std::move(*body));
}

RemotingCommand DefaultRequestProcessor::kvRequest(
    const remoting::ChannelPtr &channel, const RemotingCommand &request)
{
    const QByteArray ns = extBytes(request, "namespace");
    const QByteArray key = extBytes(request, "key");
    switch (request.code) {
    case rc::kPutKvConfig: {
        if (QByteArray missing = missingField(request, {"namespace", "key", "value"});
            !missing.isEmpty())
            return reply(request, responsecode::kSystemError, missing);
        const NamesrvConfig config = m_config.snapshot(); // rare request: a copy is fine
        KvConfigManager::Limits limits;
        limits.maxNamespaces = config.kvConfigMaxNamespaces;
        limits.maxEntries = config.kvConfigMaxEntries;
        limits.maxKeyBytes = config.kvConfigMaxKeyBytes;
        limits.maxValueBytes = config.kvConfigMaxValueBytes;
        limits.maxTotalBytes = config.kvConfigMaxTotalBytes;
        if (Status st = m_kv.put(ns, key, extBytes(request, "value"), limits); !st.isOk()) {
            if (st.code() == Status::Code::InvalidArgument) {
                static remoting::LogRateLimiter limiter;
                if (limiter.allow()) {
                    qCWarning(lcNamesrvKv, "PUT_KV_CONFIG from %s: %s",
                        channel ? channel->remoteAddress().constData() : "?",
                        qPrintable(st.message()));
                }
            }
            return reply(request, responsecode::kSystemError, st.message().toUtf8());
        }
        return success(request);
    }
    case rc::kGetKvConfig: {
        if (QByteArray missing = missingField(request, {"namespace", "key"}); !missing.isEmpty())
            return reply(request, responsecode::kSystemError, missing);
        if (auto v = m_kv.value(ns, key)) {
            RemotingCommand response = success(request);
            response.setExt("value", *v);
            return response;
        }
        return reply(request, responsecode::kQueryNotFound,
            "No config item, Namespace: " + ns + " Key: " + key);
    }
    case rc::kDeleteKvConfig: {
        if (QByteArray missing = missingField(request, {"namespace", "key"}); !missing.isEmpty())
            return reply(request, responsecode::kSystemError, missing);
        if (Status st = m_kv.remove(ns, key); !st.isOk())
            return reply(request, responsecode::kSystemError, st.message().toUtf8());
        return success(request);
    }
    default: { // GET_KVLIST_BY_NAMESPACE
        if (QByteArray missing = missingField(request, {"namespace"}); !missing.isEmpty())
            return reply(request, responsecode::kSystemError, missing);
        if (auto table = m_kv.list(ns))
            return success(request, kvTableJson(*table));
        return reply(request, responsecode::kQueryNotFound, "No config item, Namespace: " + ns);
    }
    }
}

RemotingCommand DefaultRequestProcessor::topicList(const RemotingCommand &request)
{
    switch (request.code) {
    case rc::kGetAllTopicListFromNameServer:
        return success(request, m_routes.allTopicListJson());
    case rc::kGetTopicsByCluster:
        if (QByteArray missing = missingField(request, {"cluster"}); !missing.isEmpty())
            return reply(request, responsecode::kSystemError, missing);
        return success(
            request, topicListJson(m_routes.topicsByCluster(extBytes(request, "cluster"))));
    case rc::kGetSystemTopicListFromNs: {
        QByteArray addr;
        const QList<QByteArray> names = m_routes.systemTopicList(&addr);
        return success(request, topicListJson(names, addr));
    }
    case rc::kGetUnitTopicList:
        return success(request, topicListJson(m_routes.unitTopics()));
    case rc::kGetHasUnitSubTopicList:
        return success(request, topicListJson(m_routes.hasUnitSubTopics()));
    default:
        return success(request, topicListJson(m_routes.hasUnitSubUnUnitTopics()));
    }
}

RemotingCommand DefaultRequestProcessor::adminRequest(const RemotingCommand &request)
{
    if (request.code == rc::kDeleteTopicInNamesrv) {
        if (QByteArray missing = missingField(request, {"topic"}); !missing.isEmpty())
            return reply(request, responsecode::kSystemError, missing);
        const QByteArray topic = extBytes(request, "topic");
        const QByteArray cluster = extBytes(request, "clusterName");
        m_routes.deleteTopic(topic, cluster);
        qCInfo(lcNamesrvRoute).noquote()
            << "deleted topic" << topic << (cluster.isEmpty() ? QByteArray() : "in " + cluster);
        return success(request);
    }
    if (QByteArray missing = missingField(request, {"brokerName"}); !missing.isEmpty())
        return reply(request, responsecode::kSystemError, missing);
    const QByteArray brokerName = extBytes(request, "brokerName");
    RemotingCommand response = success(request);
    if (request.code == rc::kWipeWritePermOfBroker) {
        const int count = m_routes.wipeWritePermOfBroker(brokerName);
        qCInfo(lcNamesrvRoute).noquote()
            << "wiped write permission of" << brokerName << "on" << count << "topics";
        response.setExt("wipeTopicCount", count);
    } else {
        const int count = m_routes.addWritePermOfBroker(brokerName);
        qCInfo(lcNamesrvRoute).noquote()
            << "added write permission of" << brokerName << "on" << count << "topics";
        response.setExt("addTopicCount", count);
    }
    return response;
}

RemotingCommand DefaultRequestProcessor::configRequest(const RemotingCommand &request)
{
    if (request.code == rc::kGetNamesrvConfig)
        return success(request, m_config.propertiesText());
    QString error;
    switch (m_config.update(request.body, &error)) {
    case NamesrvConfigStore::UpdateError::None:
        qCInfo(lcNamesrv).noquote()
            << "config updated:" << QString::fromUtf8(request.body).simplified();
        return success(request);
    case NamesrvConfigStore::UpdateError::BlackListed:
        return reply(request, responsecode::kNoPermission, error.toUtf8());
    case NamesrvConfigStore::UpdateError::Invalid:
    case NamesrvConfigStore::UpdateError::Persist:
        break;
    }
    qCWarning(lcNamesrv).noquote() << "config update refused:" << error;
    return reply(request, responsecode::kSystemError, error.toUtf8());
}

RemotingCommand DefaultRequestProcessor::brokerLiveness(const RemotingCommand &request)
{
    return success(request,
        livenessBody(m_routes.brokerLiveness(), m_config.brokerChannelExpiredTime()).toJson());
}

RemotingCommand DefaultRequestProcessor::runtimeInfo(const RemotingCommand &request)
{
    const std::int64_t s
        = std::max<std::int64_t>(QDateTime::currentMSecsSinceEpoch() - m_bootTimestamp, 0) / 1000;
    const remoting::ProcessMemory memory = remoting::readProcessMemory();
    const std::vector<std::pair<QByteArray, QByteArray>> t {
        {"bootTimestamp", QByteArray::number(m_bootTimestamp)},
        {"runtime",
            "[ " + QByteArray::number(s / 86400) + " days, " + QByteArray::number(s / 3600 % 24)
                + " hours, " + QByteArray::number(s / 60 % 60) + " minutes, "
                + QByteArray::number(s % 60) + " seconds ]"},
        {"processRssBytes", QByteArray::number(memory.rssBytes)},
        {"processPeakRssBytes", QByteArray::number(memory.peakRssBytes)},
        {"topicCount", QByteArray::number(m_routes.topicCount())},
        {"brokersLive", QByteArray::number(m_routes.liveBrokerCount())},
        {"registrationsTotal", QByteArray::number(m_routes.registrations())},
    };
    return success(request, protocol::KVTable::toJson(t));
}

} // namespace qrocket::namesrv
