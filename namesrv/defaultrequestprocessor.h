#pragma once

// DefaultRequestProcessor: answers every request the name server serves (protocol.md §3,
// RocketMQ's namesrv DefaultRequestProcessor) plus the QRocket liveness extension
// runtime info and explain-broker extensions (clientlib/protocol/extensioncode.h). Codes it does
// not know are never registered, so the remoting server answers them with 3
// REQUEST_CODE_NOT_SUPPORTED.
//
// Thread safety: stateless apart from the managers it points to, which are thread-safe; may run
// on any thread, concurrently. The referenced objects must outlive it.

#include "clientlib/protocol/requestcode.h"
#include "clientlib/protocol/responsecode.h"
#include "clientlib/remoting/requestprocessor.h"

#include <QList>

namespace qrocket::namesrv {

class KvConfigManager;
class NamesrvConfigStore;
class RouteInfoManager;

/// The request codes the name server serves (protocol.md §2.2), as ints for switch statements.
namespace requestcode {
using protocol::RequestCode;
inline constexpr int kPutKvConfig = protocol::toInt(RequestCode::PutKvConfig);
inline constexpr int kGetKvConfig = protocol::toInt(RequestCode::GetKvConfig);
inline constexpr int kDeleteKvConfig = protocol::toInt(RequestCode::DeleteKvConfig);
inline constexpr int kRegisterBroker = protocol::toInt(RequestCode::RegisterBroker);
inline constexpr int kUnregisterBroker = protocol::toInt(RequestCode::UnregisterBroker);
inline constexpr int kGetRouteInfoByTopic = protocol::toInt(RequestCode::GetRouteInfoByTopic);
inline constexpr int kGetBrokerClusterInfo = protocol::toInt(RequestCode::GetBrokerClusterInfo);
inline constexpr int kWipeWritePermOfBroker = protocol::toInt(RequestCode::WipeWritePermOfBroker);
inline constexpr int kGetAllTopicListFromNameServer
    = protocol::toInt(RequestCode::GetAllTopicListFromNameServer);
inline constexpr int kDeleteTopicInNamesrv = protocol::toInt(RequestCode::DeleteTopicInNamesrv);
inline constexpr int kGetKvListByNamespace = protocol::toInt(RequestCode::GetKvListByNamespace);
inline constexpr int kGetTopicsByCluster = protocol::toInt(RequestCode::GetTopicsByCluster);
inline constexpr int kGetSystemTopicListFromNs
    = protocol::toInt(RequestCode::GetSystemTopicListFromNs);
inline constexpr int kGetUnitTopicList = protocol::toInt(RequestCode::GetUnitTopicList);
inline constexpr int kGetHasUnitSubTopicList = protocol::toInt(RequestCode::GetHasUnitSubTopicList);
inline constexpr int kGetHasUnitSubUnUnitTopicList
    = protocol::toInt(RequestCode::GetHasUnitSubUnUnitTopicList);
inline constexpr int kUpdateNamesrvConfig = protocol::toInt(RequestCode::UpdateNamesrvConfig);
inline constexpr int kGetNamesrvConfig = protocol::toInt(RequestCode::GetNamesrvConfig);
inline constexpr int kQueryDataVersion = protocol::toInt(RequestCode::QueryDataVersion);
inline constexpr int kAddWritePermOfBroker = protocol::toInt(RequestCode::AddWritePermOfBroker);
} // namespace requestcode

namespace responsecode {
using protocol::ResponseCode;
inline constexpr int kSuccess = static_cast<int>(ResponseCode::Success);
inline constexpr int kSystemError = static_cast<int>(ResponseCode::SystemError);
inline constexpr int kRequestCodeNotSupported
    = static_cast<int>(ResponseCode::RequestCodeNotSupported);
inline constexpr int kNoPermission = static_cast<int>(ResponseCode::NoPermission);
inline constexpr int kTopicNotExist = static_cast<int>(ResponseCode::TopicNotExist);
inline constexpr int kQueryNotFound = static_cast<int>(ResponseCode::QueryNotFound);
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
    Cmd kvRequest(const remoting::ChannelPtr &channel, const Cmd &request);
    Cmd topicList(const Cmd &request);
    Cmd adminRequest(const Cmd &request);
    Cmd configRequest(const Cmd &request);
    Cmd brokerLiveness(const Cmd &request);
    Cmd runtimeInfo(const Cmd &request);
    /// kExplainBroker (namesrvexplain.cpp).
    Cmd explainBroker(const Cmd &request);

    RouteInfoManager &m_routes;
    KvConfigManager &m_kv;
    NamesrvConfigStore &m_config;
    const std::int64_t m_bootTimestamp; // epoch ms, for the runtime info
};

} // namespace qrocket::namesrv
