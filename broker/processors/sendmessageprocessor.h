#pragma once

// SendMessageProcessor: SEND_MESSAGE (10), SEND_MESSAGE_V2 (310) and SEND_BATCH_MESSAGE (320, or
// 310/10 with batch=true), protocol.md §4.1 in RocketMQ 4.9's order: name and permission checks,
// system-topic refusal, auto-create from the default topic, queue choice, %RETRY% / %DLQ%
// redirection, delay levels, CLUSTER and WAIT properties, then the store; the reply goes out
// from the store's completion (never blocking an I/O thread on a flush).
//
// Threads: a send to an existing, non-retry topic runs inline on the connection's I/O thread
// (runsInline: the put only appends to the mapped commit log and never waits for the disk); the
// rest (auto-creating a topic, %RETRY% and %DLQ% handling, which write config files) goes to the
// send executor. Completions run on the putting thread (async flush) or on the store's
// group-commit thread (SYNC_FLUSH).

#include "broker/config/topicconfig.h"
#include "broker/dedup/senddeduptable.h"
#include "clientlib/remoting/requestprocessor.h"

#include <optional>
#include <vector>

namespace qrocket::protocol {
struct SendMessageRequestHeader;
}
namespace qrocket::storage {
struct MessageExtBrokerInner;
struct PutMessageResult;
} // namespace qrocket::storage

namespace qrocket::broker {

struct BrokerContext;

class SendMessageProcessor final : public remoting::RequestProcessor
{
public:
    explicit SendMessageProcessor(BrokerContext &context) : m_ctx(context) { }

    void processRequest(const remoting::ChannelPtr &channel, remoting::RemotingCommand request,
        remoting::Responder respond) override;
    bool runsInline(const remoting::RemotingCommand &request) const override;

    /// A send refused by msgCheck: the response code and remark.
    struct Refusal
    {
        int code = 0;
        QByteArray remark;
    };
    /// RocketMQ 4.9's checks before a message is stored (preSend's startAcceptSendRequestTimeStamp,
    /// then msgCheck): broker write permission for order topics, topic name, topics nobody may
    /// send to, auto-create (unit flags as msgCheck builds them), queue id. Fills `topicConfig`
    /// and turns a negative queue id into a random writable queue. Shared by sends and replies
    /// (ReplyMessageProcessor), which shape the refusal's reply each their own way.
    static std::optional<Refusal> msgCheck(BrokerContext &ctx, const remoting::ChannelPtr &channel,
        protocol::SendMessageRequestHeader &header, TopicConfig &topicConfig);

private:
    std::optional<remoting::RemotingCommand> handleRetryAndDlq(
        const remoting::RemotingCommand &request, protocol::SendMessageRequestHeader &header,
        TopicConfig &topicConfig);
    void sendOne(const remoting::ChannelPtr &channel, const remoting::RemotingCommand &request,
        protocol::SendMessageRequestHeader &header, const TopicConfig &topicConfig,
        remoting::Responder respond);
    void sendBatch(const remoting::ChannelPtr &channel, const remoting::RemotingCommand &request,
        protocol::SendMessageRequestHeader &header, const TopicConfig &topicConfig,
        remoting::Responder respond);

    // Exactly-once sends (sendDedupEnable, broker/dedup/senddeduptable.h).
    /// Claims one message's key: true when this attempt stores it (then the put's completion
    /// finishes the claim); false when it was answered (a duplicate) or will be answered when
    /// the attempt under way ends.
    /// Fills `ticket` when it returns true.
    bool claimOne(QByteArrayView topic, QByteArrayView key, const remoting::Responder &respond,
        SendDedupTable::Ticket &ticket);
    struct BatchDedup;
    void sendBatchDedup(const remoting::RemotingCommand &request, const QByteArray &topic,
        std::vector<storage::MessageExtBrokerInner> msgs, int replyQueueId,
        remoting::Responder respond);
    static remoting::RemotingCommand batchDedupReply(const BatchDedup &state,
        const storage::PutMessageResult &r, bool allDuplicates, const BrokerContext &ctx);

    BrokerContext &m_ctx;
};

} // namespace qrocket::broker
