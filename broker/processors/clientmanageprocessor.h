#pragma once

// ClientManageProcessor: HEART_BEAT (34), UNREGISTER_CLIENT (35), GET_CONSUMER_LIST_BY_GROUP
// (38) and CHECK_CLIENT_CONFIG (46: does the broker take a SQL92 subscription?), protocol.md
// §4.3/§4.4. Heartbeats auto-create the subscription group and its
// %RETRY%<group> topic (which re-registers the broker so the retry route appears), record the
// channel and subscriptions, and tell the group's members when it changed with
// NOTIFY_CONSUMER_IDS_CHANGED (oneway: clients such as ali-ons never answer).
//
// Threads: runs on the client-manage executor (heartbeats may persist config files).

#include "clientlib/remoting/requestprocessor.h"

#include <QByteArrayView>

namespace qrocket::broker {

struct BrokerContext;

/// Sends NOTIFY_CONSUMER_IDS_CHANGED (40, oneway) to every member of `group`, when enabled in the
/// broker config and in the group's config. Any thread.
void notifyConsumerIdsChanged(BrokerContext &context, QByteArrayView group);

class ClientManageProcessor final : public remoting::RequestProcessor
{
public:
    explicit ClientManageProcessor(BrokerContext &context) : m_ctx(context) { }

    void processRequest(const remoting::ChannelPtr &channel, remoting::RemotingCommand request,
        remoting::Responder respond) override;

private:
    remoting::RemotingCommand heartbeat(
        const remoting::ChannelPtr &channel, const remoting::RemotingCommand &request);
    remoting::RemotingCommand unregisterClient(
        const remoting::ChannelPtr &channel, const remoting::RemotingCommand &request);
    remoting::RemotingCommand consumerList(const remoting::RemotingCommand &request);
    remoting::RemotingCommand checkClientConfig(const remoting::RemotingCommand &request);

    BrokerContext &m_ctx;
};

} // namespace qrocket::broker
