#pragma once

// DefaultRequestProcessor: answers every request the name server serves (protocol.md §3,
// RocketMQ's namesrv DefaultRequestProcessor) plus the QRocket liveness extension
// (clientlib/protocol/extensioncode.h). Codes it does not know are never registered, so the
// remoting server answers them with 3 REQUEST_CODE_NOT_SUPPORTED.
//
// Thread safety: stateless apart from the managers it points to, which are thread-safe; may run
// on any thread, concurrently. The referenced objects must outlive it.

#include "clientlib/remoting/requestprocessor.h"

#include <QList>

namespace qrocket::namesrv {

class KvConfigManager;
class NamesrvConfigStore;
class RouteInfoManager;

/// RocketMQ request codes the name server serves (protocol.md §2.2).
namespace requestcode {
inline constexpr int kPutKvConfig = 100;
inline constexpr int kGetKvConfig = 101;
inline constexpr int kDeleteKvConfig = 102;
inline constexpr int kRegisterBroker = 103;
inline constexpr int kUnregisterBroker = 104;
inline constexpr int kGetRouteInfoByTopic = 105;
inline constexpr int kGetBrokerClusterInfo = 106;
inline constexpr int kWipeWritePermOfBroker = 205;
inline constexpr int kGetAllTopicListFromNameServer = 206;
inline constexpr int kDeleteTopicInNamesrv = 216;
inline constexpr int kGetKvListByNamespace = 219;
inline constexpr int kGetTopicsByCluster = 224;
inline constexpr int kGetSystemTopicListFromNs = 304;
inline constexpr int kGetUnitTopicList = 311;
inline constexpr int kGetHasUnitSubTopicList = 312;
inline constexpr int kGetHasUnitSubUnUnitTopicList = 313;
inline constexpr int kUpdateNamesrvConfig = 318;
inline constexpr int kGetNamesrvConfig = 319;
inline constexpr int kQueryDataVersion = 322;
inline constexpr int kAddWritePermOfBroker = 327;
} // namespace requestcode

namespace responsecode {
inline constexpr int kSuccess = 0;
inline constexpr int kSystemError = 1;
inline constexpr int kNoPermission = 16;
inline constexpr int kTopicNotExist = 17;
inline constexpr int kQueryNotFound = 22;
} // namespace responsecode

/// MQVersion ordinal from which REGISTER_BROKER carries a RegisterBrokerBody (V3_0_11).
inline constexpr int kVersionRegisterBrokerBody = 37;
/// KV namespace of ordered-topic configs (NamesrvUtil.NAMESPACE_ORDER_TOPIC_CONFIG).
inline constexpr char kNamespaceOrderTopicConfig[] = "ORDER_TOPIC_CONFIG";

class DefaultRequestProcessor final : public remoting::RequestProcessor
{
public:
    DefaultRequestProcessor(
        RouteInfoManager &routes, KvConfigManager &kv, NamesrvConfigStore &config);

    /// Every request code this processor answers.
    static QList<int> requestCodes();
    /// Codes that write state (registrations, admin changes, KV, config): the controller runs
    /// them on one ordered executor; the rest may run inline on the I/O threads.
    static bool isWriteCode(int code);

    void processRequest(const remoting::ChannelPtr &channel, remoting::RemotingCommand request,
        remoting::Responder respond) override;

    /// Synchronous form used by processRequest and by tests.
    remoting::RemotingCommand process(
        const remoting::ChannelPtr &channel, const remoting::RemotingCommand &request);

private:
    using Cmd = remoting::RemotingCommand;
    Cmd registerBroker(const remoting::ChannelPtr &channel, const Cmd &request);
    Cmd unregisterBroker(const Cmd &request);
    Cmd queryDataVersion(const Cmd &request);
    Cmd routeInfoByTopic(const Cmd &request);
    Cmd kvRequest(const Cmd &request);
    Cmd topicList(const Cmd &request);
    Cmd adminRequest(const Cmd &request);
    Cmd configRequest(const Cmd &request);
    Cmd brokerLiveness(const Cmd &request);

    RouteInfoManager &m_routes;
    KvConfigManager &m_kv;
    NamesrvConfigStore &m_config;
};

} // namespace qrocket::namesrv
