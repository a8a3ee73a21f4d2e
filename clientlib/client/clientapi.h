#pragma once

// ClientApi: the typed requests of a RocketMQ client (RocketMQ's MQClientAPIImpl) over one
// RemotingClient. Every method exists in an asynchronous form (the callback runs on the remoting
// I/O thread: keep it short, hand real work to a pool) and, where callers need one, a blocking
// form (never on the I/O thread: RemotingClient refuses it there).
//
// Errors: a transport failure is Timeout / Unavailable from RemotingClient; an error response
// is Status::remote(code, "CODE_NAME(n): remark") so callers can both print it and decide on
// the code (retries, "not found" that is not an error). Thread-safe.

#include "clientlib/client/sendresult.h"
#include "clientlib/protocol/bodies/clientbodies.h"
#include "clientlib/protocol/bodies/popbodies.h"
#include "clientlib/protocol/bodies/routebodies.h"
#include "clientlib/protocol/headers/consumerheaders.h"
#include "clientlib/protocol/headers/pullheaders.h"
#include "clientlib/protocol/headers/sendheaders.h"
#include "clientlib/protocol/headers/transactionheaders.h"
#include "clientlib/remoting/remotingclient.h"

#include <functional>
#include <set>

namespace qrocket::client {

using protocol::RemotingCommand;

class ClientApi
{
public:
    ClientApi(remoting::RemotingClient &remoting, protocol::LanguageCode language);

    remoting::RemotingClient &remoting() { return m_remoting; }

    /// A request with this client's language and version.
    RemotingCommand request(int code) const;
    template<typename Header>
    RemotingCommand request(int code, const Header &header) const
    {
        RemotingCommand cmd = request(code);
        header.encode(cmd);
        return cmd;
    }

    /// The response's error as a Status (OK for SUCCESS).
    static Status responseStatus(const RemotingCommand &response);
    /// The response as is when its code is SUCCESS (or one of `alsoOk`), else its error.
    static Result<RemotingCommand> expectSuccess(
        Result<RemotingCommand> response, std::initializer_list<int> alsoOk = {});

    // -- generic ---------------------------------------------------------------------------
    Result<RemotingCommand> invokeSync(const QByteArray &addr, RemotingCommand cmd, int timeoutMs);
    void invokeAsync(const QByteArray &addr, RemotingCommand cmd, int timeoutMs,
        remoting::InvokeCallback callback);
    void invokeOneway(const QByteArray &addr, RemotingCommand cmd);
    Result<RemotingCommand> invokeNameServerSync(RemotingCommand cmd, int timeoutMs);

    // -- name server -----------------------------------------------------------------------
    /// TOPIC_NOT_EXIST is an error with remoteCode() 17.
    Result<protocol::TopicRouteData> getTopicRoute(const QByteArray &topic, int timeoutMs);
    Result<protocol::ClusterInfo> getBrokerClusterInfo(int timeoutMs);

    // -- sending ---------------------------------------------------------------------------
    /// SEND_MESSAGE_V2 (or SEND_BATCH_MESSAGE when `batch`, SEND_REPLY_MESSAGE_V2 when
    /// `reply`). `uniqueIds` is what SendResult::msgId reports.
    RemotingCommand sendRequest(
        const protocol::SendMessageRequestHeader &header, QByteArray body, bool reply) const;
    static Result<SendResult> parseSendResponse(
        Result<RemotingCommand> response, const MessageQueue &queue, const QByteArray &uniqueIds);

    // -- consuming -------------------------------------------------------------------------
    /// PULL_MESSAGE; the callback gets FOUND/NO_NEW_MSG/NO_MATCHED_MSG/OFFSET_ILLEGAL or an
    /// error. Messages are decoded (not tag-filtered) for `brokerName`.
    void pullMessageAsync(const QByteArray &addr, const QByteArray &brokerName,
        const protocol::PullMessageRequestHeader &header, int timeoutMs,
        std::function<void(Result<PullResult>)> callback);
    static Result<PullResult> parsePullResponse(
        Result<RemotingCommand> response, const QByteArray &brokerName);
    /// -1 when the broker has no offset for it (QUERY_NOT_FOUND).
    Result<std::int64_t> queryConsumerOffset(const QByteArray &addr,
        const protocol::QueryConsumerOffsetRequestHeader &header, int timeoutMs,
        const QByteArray &brokerName = {});
    Status updateConsumerOffset(const QByteArray &addr,
        const protocol::UpdateConsumerOffsetRequestHeader &header, int timeoutMs,
        const QByteArray &brokerName = {});
    void updateConsumerOffsetOneway(const QByteArray &addr,
        const protocol::UpdateConsumerOffsetRequestHeader &header,
        const QByteArray &brokerName = {});
    /// Adds 4.9.x's "bname" ext field (the target broker's name) when `brokerName` is set.
    static void setBrokerName(RemotingCommand &cmd, const QByteArray &brokerName);
    Result<std::vector<QByteArray>> getConsumerIdList(
        const QByteArray &addr, const QByteArray &group, int timeoutMs);
    Result<std::int64_t> getMaxOffset(
        const QByteArray &addr, const QByteArray &topic, int queueId, int timeoutMs);
    Result<std::int64_t> getMinOffset(
        const QByteArray &addr, const QByteArray &topic, int queueId, int timeoutMs);
    Result<std::int64_t> searchOffset(const QByteArray &addr, const QByteArray &topic, int queueId,
        std::int64_t timestamp, int timeoutMs);
    Result<std::int64_t> earliestMsgStoreTime(
        const QByteArray &addr, const QByteArray &topic, int queueId, int timeoutMs);
    Status consumerSendMessageBack(const QByteArray &addr, const MessageExt &msg,
        const QByteArray &group, int delayLevel, int maxReconsumeTimes, int timeoutMs);
    Result<std::set<MessageQueue>> lockBatchMQ(
        const QByteArray &addr, const protocol::LockBatchRequestBody &body, int timeoutMs);
    void unlockBatchMQ(const QByteArray &addr, const protocol::LockBatchRequestBody &body,
        int timeoutMs, bool oneway);
    /// QUERY_ASSIGNMENT (400, RocketMQ 5): the queues the broker assigns this client, each with
    /// its mode (PULL or POP).
    Result<std::vector<protocol::MessageQueueAssignment>> queryAssignment(
        const QByteArray &addr, const protocol::QueryAssignmentRequestBody &body, int timeoutMs);

    // -- client registration ---------------------------------------------------------------
    Status sendHeartbeat(
        const QByteArray &addr, const protocol::HeartbeatData &data, int timeoutMs);
    Status unregisterClient(const QByteArray &addr, const QByteArray &clientId,
        const QByteArray &producerGroup, const QByteArray &consumerGroup, int timeoutMs);
    /// CHECK_CLIENT_CONFIG: does the broker accept this (SQL92) subscription?
    Status checkClientInBroker(const QByteArray &addr, const QByteArray &group,
        const QByteArray &clientId, const protocol::SubscriptionData &subscription, int timeoutMs);
    void endTransactionOneway(const QByteArray &addr,
        const protocol::EndTransactionRequestHeader &header, const QByteArray &remark);

private:
    remoting::RemotingClient &m_remoting;
    const protocol::LanguageCode m_language;
};

} // namespace qrocket::client
