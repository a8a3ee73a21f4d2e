#pragma once

// A RocketMQ 5 gRPC client for the broker's MessagingService tests (tst_grpcservice): the
// generated stub with a client id, bounded deadlines on every call, and the messages the tests
// build (a message to send, a receive request) and read (a whole ReceiveMessage stream).

#include <QByteArray>

#include <apache/rocketmq/v2/service.grpc.pb.h>
#include <chrono>
#include <grpcpp/grpcpp.h>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace qrocket::grpctest {

namespace pb = ::apache::rocketmq::v2;

struct Received
{
    grpc::Status rpc; // the stream's gRPC status
    pb::Code code = pb::CODE_UNSPECIFIED; // the first response's v2 status
    std::string message; // its text
    std::vector<pb::Message> messages;
    bool deliveryTimestamp = false; // the stream ended with one, as the proxy's does
};

class GrpcTestClient
{
public:
    GrpcTestClient(quint16 port, std::string clientId)
        : m_stub(pb::MessagingService::NewStub(grpc::CreateChannel(
            "127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials())))
        , m_clientId(std::move(clientId))
    { }
    /// Over `channel` (TLS tests).
    GrpcTestClient(std::shared_ptr<grpc::Channel> channel, std::string clientId)
        : m_stub(pb::MessagingService::NewStub(std::move(channel))), m_clientId(std::move(clientId))
    { }

    /// Metadata every later call carries besides the client id (authorization: tst_grpcauth).
    void setExtraMetadata(std::vector<std::pair<std::string, std::string>> metadata)
    {
        m_extra = std::move(metadata);
    }

    pb::MessagingService::Stub &stub() { return *m_stub; }
    const std::string &clientId() const { return m_clientId; }

    /// A context with the client id and a deadline `ms` from now.
    std::unique_ptr<grpc::ClientContext> context(int ms = 15000) const
    {
        auto c = std::make_unique<grpc::ClientContext>();
        c->AddMetadata("x-mq-client-id", m_clientId);
        c->AddMetadata("x-mq-language", "CPP");
        for (const auto &[key, value] : m_extra)
            c->AddMetadata(key, value);
        c->set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(ms));
        return c;
    }

    /// Reads a whole ReceiveMessage stream; `pollMs` is the long polling time asked for.
    Received receive(const std::string &group, const std::string &topic, int batch,
        std::int64_t invisibleMs, std::int64_t pollMs, const std::string &tagExpression = "*")
    {
        pb::ReceiveMessageRequest req;
        req.mutable_group()->set_name(group);
        req.mutable_message_queue()->mutable_topic()->set_name(topic);
        req.mutable_message_queue()->set_id(-1);
        req.mutable_filter_expression()->set_type(pb::TAG);
        req.mutable_filter_expression()->set_expression(tagExpression);
        req.set_batch_size(batch);
        setMs(req.mutable_invisible_duration(), invisibleMs);
        setMs(req.mutable_long_polling_timeout(), pollMs);
        auto ctx = context(static_cast<int>(pollMs) + 15000);
        auto reader = m_stub->ReceiveMessage(ctx.get(), req);
        Received out;
        pb::ReceiveMessageResponse r;
        bool first = true;
        while (reader->Read(&r)) {
            if (r.has_status() && first) {
                out.code = r.status().code();
                out.message = r.status().message();
            } else if (r.has_message()) {
                out.messages.push_back(r.message());
            } else if (r.has_delivery_timestamp()) {
                out.deliveryTimestamp = true;
            }
            first = false;
        }
        out.rpc = reader->Finish();
        return out;
    }

    /// Receives until `count` messages came or `timeoutMs` passed (1 s polls).
    std::vector<pb::Message> receiveUntil(const std::string &group, const std::string &topic,
        std::size_t count, std::int64_t invisibleMs, int timeoutMs)
    {
        std::vector<pb::Message> out;
        const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
        while (out.size() < count && std::chrono::steady_clock::now() < end) {
            Received r = receive(group, topic, 32, invisibleMs, 1000);
            for (pb::Message &m : r.messages)
                out.push_back(std::move(m));
        }
        return out;
    }

    pb::SendMessageResponse send(const std::vector<pb::Message> &messages)
    {
        pb::SendMessageRequest req;
        for (const pb::Message &m : messages)
            *req.add_messages() = m;
        pb::SendMessageResponse resp;
        auto ctx = context();
        const grpc::Status st = m_stub->SendMessage(ctx.get(), req, &resp);
        if (!st.ok())
            resp.mutable_status()->set_message("rpc failed: " + st.error_message());
        return resp;
    }

    pb::AckMessageResponse ack(const std::string &group, const std::string &topic,
        const std::string &messageId, const std::string &handle)
    {
        pb::AckMessageRequest req;
        req.mutable_group()->set_name(group);
        req.mutable_topic()->set_name(topic);
        pb::AckMessageEntry *e = req.add_entries();
        e->set_message_id(messageId);
        e->set_receipt_handle(handle);
        pb::AckMessageResponse resp;
        auto ctx = context();
        m_stub->AckMessage(ctx.get(), req, &resp);
        return resp;
    }

    pb::ChangeInvisibleDurationResponse changeInvisible(const std::string &group,
        const std::string &topic, const std::string &messageId, const std::string &handle,
        std::int64_t ms)
    {
        pb::ChangeInvisibleDurationRequest req;
        req.mutable_group()->set_name(group);
        req.mutable_topic()->set_name(topic);
        req.set_message_id(messageId);
        req.set_receipt_handle(handle);
        setMs(req.mutable_invisible_duration(), ms);
        pb::ChangeInvisibleDurationResponse resp;
        auto ctx = context();
        m_stub->ChangeInvisibleDuration(ctx.get(), req, &resp);
        return resp;
    }

    static void setMs(google::protobuf::Duration *d, std::int64_t ms)
    {
        d->set_seconds(ms / 1000);
        d->set_nanos(static_cast<std::int32_t>((ms % 1000) * 1000000));
    }

    /// A message for `topic` with an id, a tag, keys and user properties.
    static pb::Message message(const std::string &topic, const std::string &id,
        const std::string &body, const std::string &tag = {},
        const std::vector<std::string> &keys = {},
        const std::map<std::string, std::string> &properties = {})
    {
        pb::Message m;
        m.mutable_topic()->set_name(topic);
        m.set_body(body);
        pb::SystemProperties *s = m.mutable_system_properties();
        s->set_message_id(id);
        s->set_message_type(pb::NORMAL);
        s->set_body_encoding(pb::IDENTITY);
        if (!tag.empty())
            s->set_tag(tag);
        for (const std::string &k : keys)
            s->add_keys(k);
        for (const auto &[k, v] : properties)
            (*m.mutable_user_properties())[k] = v;
        const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
            std::chrono::system_clock::now().time_since_epoch())
                             .count();
        s->mutable_born_timestamp()->set_seconds(now / 1000);
        return m;
    }

private:
    std::unique_ptr<pb::MessagingService::Stub> m_stub;
    std::string m_clientId;
    std::vector<std::pair<std::string, std::string>> m_extra;
};

} // namespace qrocket::grpctest
