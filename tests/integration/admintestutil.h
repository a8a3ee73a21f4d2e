#pragma once

// tst_Admin's helpers: an async call's waiter and the request processors that play a consumer
// and a stock RocketMQ peer (tests/integration/tst_admin.cpp).

#include "clientlib/client/admin/admin.h"
#include "clientlib/protocol/bodies/clientbodies.h"
#include "clientlib/protocol/headers/consumerheaders.h"
#include "clientlib/protocol/requestcode.h"
#include "clientlib/protocol/responsecode.h"
#include "clientlib/remoting/remotingclient.h"
#include "clientlib/remoting/remotingserver.h"

#include <QThread>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>

namespace admintest {

using namespace qrocket;
using namespace std::chrono_literals;
using protocol::RemotingCommand;
using protocol::RequestCode;
using protocol::ResponseCode;
using protocol::toInt;

/// Waits for an async call's outcome (bounded).
template<typename T>
class Waiter
{
public:
    std::function<void(T)> callback()
    {
        return [this](T v) {
            std::lock_guard lock(m_mutex);
            m_calls++;
            m_value.emplace(std::move(v));
            m_thread = QThread::currentThread();
            m_done.notify_all();
        };
    }
    bool wait(std::chrono::milliseconds timeout = 10s)
    {
        std::unique_lock lock(m_mutex);
        return m_done.wait_for(lock, timeout, [&] { return m_value.has_value(); });
    }
    T &value() { return *m_value; }
    int calls() const
    {
        std::lock_guard lock(m_mutex);
        return m_calls;
    }
    QThread *thread() const { return m_thread; }

private:
    mutable std::mutex m_mutex;
    std::condition_variable m_done;
    std::optional<T> m_value;
    int m_calls = 0;
    QThread *m_thread = nullptr;
};

/// Answers GET_CONSUMER_RUNNING_INFO as a consumer would.
class RunningInfoProcessor final : public remoting::RequestProcessor
{
public:
    void processRequest(
        const remoting::ChannelPtr &, RemotingCommand request, remoting::Responder respond) override
    {
        RemotingCommand response = RemotingCommand::createResponse(request, 0);
        response.body = QByteArrayLiteral(
            "{\"jstack\":\"\",\"mqTable\":{{\"brokerName\":\"broker-0\",\"queueId\":0,\"topic\":"
            "\"AdminTopic\"}:"
            "{\"cachedMsgCount\":2,\"commitOffset\":5,\"locked\":false}},"
            "\"properties\":{\"PROP_CONSUME_TYPE\":\"CONSUME_PASSIVELY\",\"PROP_CONSUMEORDERLY\":"
            "\"false\"},"
            "\"statusTable\":{\"AdminTopic\":{\"consumeOKTPS\":1.5}},"
            "\"subscriptionSet\":[{\"subString\":\"*\",\"topic\":\"AdminTopic\"}]}");
        respond(std::move(response));
    }
};

/// Takes the oneway requests a broker pushes to a consumer (and does nothing).
class IgnoreProcessor final : public remoting::RequestProcessor
{
public:
    void processRequest(const remoting::ChannelPtr &, RemotingCommand, remoting::Responder) override
    { }
};

/// A "stock RocketMQ" peer: answers GET_BROKER_CLUSTER_INFO, REQUEST_CODE_NOT_SUPPORTED to a
/// QRocket store-files request, and never answers the liveness extension (as a Java name
/// server ignores codes it does not know).
class StockPeerProcessor final : public remoting::RequestProcessor
{
public:
    void processRequest(
        const remoting::ChannelPtr &, RemotingCommand request, remoting::Responder respond) override
    {
        if (request.code == 9001)
            return; // silence
        if (request.code == toInt(RequestCode::GetBrokerClusterInfo)) {
            RemotingCommand response = RemotingCommand::createResponse(request, 0);
            response.body = QByteArrayLiteral("{\"brokerAddrTable\":{},\"clusterAddrTable\":{}}");
            respond(std::move(response));
            return;
        }
        respond(
            RemotingCommand::createResponse(request, toInt(ResponseCode::RequestCodeNotSupported),
                QByteArrayLiteral(" request type ") + QByteArray::number(request.code)
                    + " not supported"));
    }
};

inline client::AdminOptions adminOptions(const QString &namesrv)
{
    client::AdminOptions o;
    o.client.namesrvAddr = namesrv.toUtf8();
    // Generous: the machine running the tests may be loaded; what is tested is the semantics
    // (the tests that are about timeouts pass their own).
    o.timeoutMs = 10000;
    // The default instance name is unique per object: each Admin here gets its own
    // ClientInstance (objects with equal client ids share one, name servers included).
    return o;
}

} // namespace admintest
