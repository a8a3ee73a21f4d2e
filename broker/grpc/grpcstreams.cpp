// The streaming RPCs of MessagingServiceImpl: ReceiveMessage (a POP_MESSAGE with long polling,
// answered as a status, the messages and a delivery timestamp, as RocketMQ 5's proxy writes
// it) and Telemetry (the settings exchange and the orphaned-transaction checks the broker
// pushes), plus the client settings they share.

#include "broker/common/brokercontext.h"
#include "broker/grpc/grpcservice.h"
#include "broker/grpc/grpctransaction.h"
#include "broker/managers/subscriptiongroupmanager.h"
#include "clientlib/protocol/bodies/clientbodies.h"
#include "clientlib/protocol/headers/popheaders.h"
#include "clientlib/protocol/messageproperties.h"
#include "clientlib/protocol/popcodes.h"
#include "clientlib/protocol/requestcode.h"

#include <QDateTime>

#include <algorithm>
#include <deque>
#include <memory>
#include <mutex>

namespace qrocket::broker::v2 {

namespace {

// RocketMQ 5.3 ProxyConfig defaults.
constexpr int kMaxBatchSize = 32;
constexpr std::int64_t kMaxLongPollingMs = 20000;
constexpr std::int64_t kDefaultInvisibleMs = 30000;
constexpr std::int64_t kNackInvisibleMs = 1000;
constexpr int kProducerMaxAttempts = 3;
constexpr std::int64_t kProducerBackoffInitialMs = 10;
constexpr std::int64_t kProducerBackoffMaxMs = 1000;
constexpr float kProducerBackoffMultiplier = 2.0f;

/// The decoded POP answer: each message with its receipt handle.
void popMessages(const RemotingCommand &r, const QByteArray &brokerName, const QByteArray &topic,
    std::vector<pb::ReceiveMessageResponse> &out)
{
    const auto h = protocol::PopMessageResponseHeader::decode(r);
    if (!h)
        return;
    std::map<std::pair<char, int>, std::int64_t> starts;
    if (auto infos = protocol::parseStartOffsetInfo(h->startOffsetInfo))
        for (const protocol::QueueOffsetInfo &i : *infos)
            starts[{i.retry, i.queueId}] = i.value;
    qsizetype at = 0;
    while (at < r.body.size()) {
        protocol::MessageRecordView v;
        const auto d = protocol::decodeRecord(QByteArrayView(r.body).sliced(at), v, false);
        if (d.status != protocol::RecordStatus::Ok)
            break;
        at += d.size;
        // The handle as RocketMQ's clients build it: the message's POP_CK property when the
        // broker set one, else from the answer's start offsets and the record's offset.
        QByteArray handle;
        if (protocol::findProperty(v.properties, "POP_CK").isEmpty()) {
            protocol::ExtraInfo e;
            e.retry = protocol::popRetryFlag(v.topic);
            e.ckQueueOffset = starts[{e.retry, v.queueId}];
            e.popTime = h->popTime;
            e.invisibleTime = h->invisibleTime;
            e.reviveQid = h->reviveQid;
            e.brokerName = brokerName;
            e.queueId = v.queueId;
            e.queueOffset = v.queueOffset;
            handle = e.toString();
        }
        pb::ReceiveMessageResponse m;
        fillMessage(m.mutable_message(), v, handle);
        // A redelivery comes from the group's POP retry topic: the client sees its own topic
        // (the handle's retry flag keeps where it came from, for the ack).
        if (protocol::popRetryFlag(v.topic) != '0')
            setResource(m.mutable_message()->mutable_topic(), topic);
        out.push_back(std::move(m));
    }
}

/// One ReceiveMessage stream: the POP goes out at once; its answer is written as a queue of
/// responses, one write in flight at a time (the callback API's rule; gRPC's buffer hint would
/// hold a write, and so its OnWriteDone, until a later one: with one in flight, forever); the
/// last one (the delivery timestamp) goes with the stream's status (StartWriteAndFinish). A
/// client that goes away cancels the stream: the reactor finishes at once and the POP answer,
/// when it comes, finds it gone (`state`).
class ReceiveReactor final : public grpc::ServerWriteReactor<pb::ReceiveMessageResponse>
{
public:
    struct State
    {
        std::mutex mutex;
        ReceiveReactor *reactor = nullptr; // null once done
    };

    ReceiveReactor() : m_state(std::make_shared<State>()) { m_state->reactor = this; }

    std::shared_ptr<State> state() const { return m_state; }

    /// Writes `responses` (moved from) then a delivery timestamp, then finishes. Called once.
    /// false: the stream has ended (the client went away), nothing was written or moved.
    bool deliver(std::vector<pb::ReceiveMessageResponse> &responses)
    {
        std::unique_lock lock(m_mutex);
        if (m_finished || m_cancelled)
            return false;
        for (auto &r : responses)
            m_queue.push_back(std::move(r));
        pb::ReceiveMessageResponse ts;
        setMillis(ts.mutable_delivery_timestamp(), QDateTime::currentMSecsSinceEpoch());
        m_queue.push_back(std::move(ts));
        m_complete = true;
        writeNextLocked();
        return true;
    }

    void finishWith(pb::Code code, std::string message)
    {
        pb::ReceiveMessageResponse r;
        setStatus(r.mutable_status(), code, std::move(message));
        std::vector<pb::ReceiveMessageResponse> v;
        v.push_back(std::move(r));
        deliver(v);
    }

    void OnWriteDone(bool ok) override
    {
        std::unique_lock lock(m_mutex);
        m_writing = false;
        if (!ok) {
            finishLocked(grpc::Status(grpc::StatusCode::CANCELLED, "write failed"));
            return;
        }
        writeNextLocked();
    }

    void OnCancel() override
    {
        std::unique_lock lock(m_mutex);
        if (!m_writing)
            finishLocked(grpc::Status::CANCELLED);
        m_cancelled = true;
    }

    void OnDone() override
    {
        {
            std::lock_guard lock(m_state->mutex);
            m_state->reactor = nullptr;
        }
        delete this;
    }

private:
    void writeNextLocked()
    {
        if (m_writing || m_finished)
            return;
        if (m_cancelled) {
            finishLocked(grpc::Status::CANCELLED);
            return;
        }
        if (!m_queue.empty()) {
            m_current = std::move(m_queue.front());
            m_queue.pop_front();
            if (m_queue.empty() && m_complete) {
                // The last one: written with the status, no OnWriteDone.
                m_finished = true;
                StartWriteAndFinish(&m_current, grpc::WriteOptions(), grpc::Status::OK);
                return;
            }
            m_writing = true;
            StartWrite(&m_current);
            return;
        }
        if (m_complete)
            finishLocked(grpc::Status::OK);
    }

    void finishLocked(const grpc::Status &status)
    {
        if (m_finished)
            return;
        m_finished = true;
        Finish(status);
    }

    std::shared_ptr<State> m_state;
    std::mutex m_mutex;
    std::deque<pb::ReceiveMessageResponse> m_queue; // guarded by m_mutex
    pb::ReceiveMessageResponse m_current; // the write in flight
    bool m_writing = false;
    bool m_complete = false;
    bool m_cancelled = false;
    bool m_finished = false;
};

} // namespace

grpc::ServerWriteReactor<pb::ReceiveMessageResponse> *MessagingServiceImpl::ReceiveMessage(
    grpc::CallbackServerContext *context, const pb::ReceiveMessageRequest *request)
{
    auto *reactor = new ReceiveReactor();
    const QByteArray group = fromStd(request->group().name());
    const QByteArray topic = fromStd(request->message_queue().topic().name());
    if (group.isEmpty()) {
        reactor->finishWith(pb::ILLEGAL_CONSUMER_GROUP, "group name cannot be empty");
        return reactor;
    }
    if (!topicExists(topic)) {
        reactor->finishWith(pb::TOPIC_NOT_FOUND, "topic not found: " + toStd(topic));
        return reactor;
    }
    const std::int64_t invisibleMs = request->has_invisible_duration()
        ? millisOf(request->invisible_duration())
        : kDefaultInvisibleMs;
    if (invisibleMs <= 0) {
        reactor->finishWith(pb::ILLEGAL_INVISIBLE_TIME, "the invisible time must be positive");
        return reactor;
    }
    // Long polling: the request's time (the client's settings otherwise), at most the proxy's
    // maximum, and never past the call's deadline.
    std::int64_t pollMs = request->has_long_polling_timeout()
        ? millisOf(request->long_polling_timeout())
        : kMaxLongPollingMs;
    pollMs = std::clamp<std::int64_t>(pollMs, 0, kMaxLongPollingMs);
    const auto deadline = context->deadline();
    if (deadline != std::chrono::system_clock::time_point::max()) {
        const auto remaining = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::system_clock::now())
                                   .count();
        if (remaining <= 0) {
            reactor->finishWith(pb::ILLEGAL_POLLING_TIME, "the call's deadline has passed");
            return reactor;
        }
        pollMs = std::min<std::int64_t>(pollMs, std::max<std::int64_t>(remaining - 500, 0));
    }
    protocol::PopMessageRequestHeader h;
    h.consumerGroup = group;
    h.topic = topic;
    h.queueId = -1; // every queue of this broker, as the proxy pops
    h.maxMsgNums = std::clamp(request->batch_size(), 1, kMaxBatchSize);
    h.invisibleTime = invisibleMs;
    h.pollTime = pollMs;
    h.bornTime = QDateTime::currentMSecsSinceEpoch();
    // As the proxy: MAX (a new group starts at the end, unless the queue still starts at 0 in
    // memory: initPopOffsetByCheckMsgInMem).
    h.initMode = protocol::ConsumeInitMode::Max;
    // A FIFO group pops in order: from each queue, the next messages only once the ones handed
    // out before were acknowledged (or, not acknowledged in time, again before them).
    if (fifoGroup(group))
        h.order = true;
    if (request->has_filter_expression() && !request->filter_expression().expression().empty()) {
        h.expType = request->filter_expression().type() == pb::SQL ? QByteArrayLiteral("SQL92")
                                                                   : QByteArrayLiteral("TAG");
        h.exp = fromStd(request->filter_expression().expression());
    }
    if (request->has_attempt_id())
        h.attemptId = fromStd(request->attempt_id());
    RemotingCommand req = RemotingCommand::createRequest(protocol::popcode::PopMessage);
    h.encode(req);
    const Caller caller = callerOf(context);
    invoke(caller, std::move(req), m_options.requestTimeoutMs + int(pollMs),
        [this, caller, group, state = reactor->state(), brokerName = m_options.brokerName, topic](
            RemotingCommand r) {
            // The status first, then the messages.
            std::vector<pb::ReceiveMessageResponse> out(1);
            if (r.code == 0)
                popMessages(r, brokerName, topic, out);
            pb::Status *status = out.front().mutable_status(); // after popMessages' appends
            if (r.code == 0) {
                if (out.size() == 1)
                    setStatus(status, pb::MESSAGE_NOT_FOUND, "no match message");
                else
                    setStatus(status, pb::OK, "OK");
            } else {
                const pb::Code code = codeOfRemoting(r.code);
                setStatus(status, code,
                    code == pb::MESSAGE_NOT_FOUND ? std::string("no new message")
                                                  : toStd(r.remark));
            }
            {
                std::lock_guard lock(state->mutex);
                if (state->reactor && state->reactor->deliver(out))
                    return;
            }
            // The client went away while its poll was held: what was popped for it is made
            // visible again in a second (the proxy's NACK), not after its whole invisible time.
            for (const pb::ReceiveMessageResponse &m : out)
                if (m.has_message())
                    nack(caller, group, topic, m.message().system_properties().receipt_handle());
        });
    return reactor;
}

void MessagingServiceImpl::nack(const Caller &caller, const QByteArray &group,
    const QByteArray &topic, const std::string &handle)
{
    const std::optional<protocol::ExtraInfo> info = protocol::ExtraInfo::parse(fromStd(handle));
    if (!info || info->queueOffset < 0)
        return;
    const std::optional<QByteArray> realTopic = protocol::popRealTopic(topic, group, info->retry);
    if (!realTopic)
        return;
    protocol::ChangeInvisibleTimeRequestHeader h;
    h.consumerGroup = group;
    h.topic = topic; // the broker finds the retry topic from the handle's flag
    h.queueId = info->queueId;
    h.extraInfo = fromStd(handle);
    h.offset = info->queueOffset;
    h.invisibleTime = kNackInvisibleMs;
    RemotingCommand req
        = RemotingCommand::createRequest(protocol::popcode::ChangeMessageInvisibleTime);
    h.encode(req);
    invoke(caller, std::move(req), m_options.requestTimeoutMs, [](RemotingCommand) {});
}

// --- settings and Telemetry ----------------------------------------------------------------

std::optional<pb::Settings> MessagingServiceImpl::settingsOf(const QByteArray &clientId) const
{
    std::lock_guard lock(m_settingsMutex);
    const auto it = m_settings.find(clientId);
    if (it == m_settings.end())
        return std::nullopt;
    return it->second;
}

pb::Settings MessagingServiceImpl::applySettings(
    const QByteArray &clientId, const pb::Settings &reported)
{
    {
        std::lock_guard lock(m_settingsMutex);
        m_settings[clientId] = reported;
    }
    pb::Settings s = reported;
    pb::RetryPolicy *backoff = s.mutable_backoff_policy();
    if (reported.has_publishing()) {
        backoff->set_max_attempts(kProducerMaxAttempts);
        pb::ExponentialBackoff *e = backoff->mutable_exponential_backoff();
        setMillis(e->mutable_initial(), kProducerBackoffInitialMs);
        setMillis(e->mutable_max(), kProducerBackoffMaxMs);
        e->set_multiplier(kProducerBackoffMultiplier);
        s.mutable_publishing()->set_max_body_size(m_options.maxBodySize);
        // No message.type topic attribute yet: nothing for the client to check against.
        s.mutable_publishing()->set_validate_message_type(false);
    } else if (reported.has_subscription()) {
        pb::Subscription *sub = s.mutable_subscription();
        sub->set_receive_batch_size(kMaxBatchSize);
        setMillis(sub->mutable_long_polling_timeout(), kMaxLongPollingMs);
        sub->set_fifo(sub->has_group() && fifoGroup(fromStd(sub->group().name())));
        int retryMaxTimes = 16;
        if (sub->has_group() && !sub->group().name().empty() && m_ctx.subscriptionGroups) {
            if (auto g = m_ctx.subscriptionGroups->find(fromStd(sub->group().name())))
                retryMaxTimes = g->retryMaxTimes;
        }
        backoff->set_max_attempts(retryMaxTimes + 1);
        pb::CustomizedBackoff *c = backoff->mutable_customized_backoff();
        // The group's CUSTOMIZED policy as RocketMQ 5.3's proxy sends it: every delay level
        // from the first (its default list is the default delay levels), next[n-1] being the
        // invisible time a client sets when the n-th delivery fails.
        for (std::size_t i = 0; i < m_options.retryDelaysMs.size(); ++i)
            setMillis(c->add_next(), m_options.retryDelaysMs[i]);
    }
    s.mutable_metric()->set_on(false);
    return s;
}

void MessagingServiceImpl::registerPublisher(const Caller &caller, const pb::Settings &settings)
{
    // As the proxy: a client reporting publishing settings is a producer of each topic (the
    // producer group of a gRPC send is its topic), so the transaction check finds its channel.
    if (caller.clientId.isEmpty() || !settings.has_publishing()
        || settings.publishing().topics_size() == 0)
        return;
    protocol::HeartbeatData hb;
    hb.clientID = caller.clientId;
    for (const pb::Resource &t : settings.publishing().topics())
        hb.producerDataSet.push_back(protocol::ProducerData {fromStd(t.name())});
    RemotingCommand req = RemotingCommand::createRequest(toInt(protocol::RequestCode::HeartBeat));
    req.body = hb.toJson();
    invoke(caller, std::move(req), m_options.requestTimeoutMs, [](RemotingCommand) {});
}

namespace {

/// Commands the broker pushes (orphan checks) that one stream holds unwritten at most; more
/// are dropped (the broker checks those transactions again later).
constexpr std::size_t kMaxPushedCommands = 256;

class TelemetryReactor;

/// The broker-to-client side of one Telemetry stream, as the client's GrpcChannel holds it.
class TelemetryOutlet final : public ClientStream
{
public:
    bool push(const RemotingCommand &request) override;

    std::mutex mutex;
    TelemetryReactor *reactor = nullptr; // guarded by mutex; null once the stream is done
};

/// One Telemetry stream: every Settings the client sends is stored and answered with the
/// broker's settings (publishing settings register the client as a producer of the topics);
/// orphaned-transaction checks the broker pushes are written to it; other commands the client
/// sends are read and dropped.
class TelemetryReactor final
    : public grpc::ServerBidiReactor<pb::TelemetryCommand, pb::TelemetryCommand>
{
public:
    TelemetryReactor(MessagingServiceImpl &service, Caller caller)
        : m_service(service)
        , m_caller(std::move(caller))
        , m_outlet(std::make_shared<TelemetryOutlet>())
    {
        m_outlet->reactor = this;
        if (!m_caller.clientId.isEmpty())
            m_caller.channel->attachStream(m_outlet);
        StartRead(&m_in);
    }

    /// Queues a command the broker pushes; false once the stream has ended or is full.
    bool pushCommand(pb::TelemetryCommand cmd)
    {
        std::unique_lock lock(m_mutex);
        if (m_finished || m_cancelled || m_readsDone || m_pushed >= kMaxPushedCommands)
            return false;
        ++m_pushed;
        m_queue.push_back(Outbound {std::move(cmd), true});
        writeNextLocked();
        return true;
    }

    void OnReadDone(bool ok) override
    {
        // Reads are sequential: m_in is this callback's until the next StartRead.
        if (ok && m_in.has_settings())
            m_service.registerPublisher(m_caller, m_in.settings());
        std::unique_lock lock(m_mutex);
        if (!ok) {
            m_readsDone = true;
            if (!m_writing)
                finishLocked(grpc::Status::OK);
            return;
        }
        if (m_in.has_settings() && !m_finished) {
            pb::TelemetryCommand out;
            if (m_caller.clientId.isEmpty()) {
                setStatus(
                    out.mutable_status(), pb::CLIENT_ID_REQUIRED, "x-mq-client-id is missing");
            } else {
                *out.mutable_settings()
                    = m_service.applySettings(m_caller.clientId, m_in.settings());
                setStatus(out.mutable_status(), pb::OK, "OK");
            }
            m_queue.push_back(Outbound {std::move(out), false});
            writeNextLocked();
        }
        if (!m_finished && !m_cancelled) // no operation may start after Finish()
            StartRead(&m_in);
    }

    void OnWriteDone(bool ok) override
    {
        std::unique_lock lock(m_mutex);
        m_writing = false;
        if (!ok) {
            finishLocked(grpc::Status(grpc::StatusCode::CANCELLED, "write failed"));
            return;
        }
        writeNextLocked();
        if (!m_writing && (m_readsDone || m_cancelled))
            finishLocked(m_cancelled ? grpc::Status::CANCELLED : grpc::Status::OK);
    }

    void OnCancel() override
    {
        std::unique_lock lock(m_mutex);
        m_cancelled = true;
        if (!m_writing)
            finishLocked(grpc::Status::CANCELLED);
    }

    void OnDone() override
    {
        {
            std::lock_guard lock(m_outlet->mutex);
            m_outlet->reactor = nullptr;
        }
        delete this;
    }

private:
    struct Outbound
    {
        pb::TelemetryCommand command;
        bool pushed = false; // counts against kMaxPushedCommands
    };

    void writeNextLocked()
    {
        if (m_writing || m_finished || m_cancelled || m_queue.empty())
            return;
        m_out = std::move(m_queue.front().command);
        if (m_queue.front().pushed)
            --m_pushed;
        m_queue.pop_front();
        m_writing = true;
        StartWrite(&m_out);
    }

    void finishLocked(const grpc::Status &status)
    {
        if (m_finished)
            return;
        m_finished = true;
        m_queue.clear();
        m_pushed = 0;
        Finish(status);
    }

    MessagingServiceImpl &m_service;
    const Caller m_caller;
    const std::shared_ptr<TelemetryOutlet> m_outlet;
    std::mutex m_mutex;
    pb::TelemetryCommand m_in;
    pb::TelemetryCommand m_out;
    std::deque<Outbound> m_queue; // guarded by m_mutex
    std::size_t m_pushed = 0; // pushed commands in m_queue; guarded by m_mutex
    bool m_writing = false;
    bool m_readsDone = false;
    bool m_cancelled = false;
    bool m_finished = false;
};

bool TelemetryOutlet::push(const RemotingCommand &request)
{
    pb::TelemetryCommand cmd;
    if (!recoverCommandOf(request, cmd))
        return false;
    std::lock_guard lock(mutex);
    return reactor && reactor->pushCommand(std::move(cmd));
}

} // namespace

grpc::ServerBidiReactor<pb::TelemetryCommand, pb::TelemetryCommand> *
MessagingServiceImpl::Telemetry(grpc::CallbackServerContext *context)
{
    return new TelemetryReactor(*this, callerOf(context));
}

} // namespace qrocket::broker::v2
