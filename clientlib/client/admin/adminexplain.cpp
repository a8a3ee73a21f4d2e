// The QRocket explain extensions (protocol/extensioncode.h kExplainGroup, kExplainCleanup,
// kExplainSend on a broker, kExplainBroker on a name server): one request, one ExplainBody.

#include "clientlib/client/admin/adminops.h"
#include "clientlib/protocol/extensioncode.h"
#include "clientlib/protocol/headers/adminheaders.h"

namespace qrocket::client::adminimpl {

namespace {

Result<protocol::ExplainBody> explain(
    Call &call, const QByteArray &addr, RemotingCommand cmd, const char *what, const char *peer)
{
    auto r = call.api().invokeSync(addr, std::move(cmd), call.remaining());
    if (r && r->code == toInt(ResponseCode::RequestCodeNotSupported))
        return Status::notSupported(
            QStringLiteral("%1: %2 is not supported by this %3 (a QRocket extension; a stock "
                           "RocketMQ %3 does not have it)")
                .arg(QString::fromUtf8(addr), QLatin1String(what), QLatin1String(peer)));
    auto ok = expect(std::move(r), {{}, addr});
    if (!ok)
        return ok.error();
    auto body = protocol::ExplainBody::fromJson(ok->body);
    if (!body)
        return corrupt(what, body.error());
    return body;
}

QByteArray queueName(const protocol::MessageQueue &mq)
{
    return mq.topic + ':' + QByteArray::number(mq.queueId);
}

/// A consumer's own flow control, from its running info: queues whose cached messages (count or
/// MiB) are over pullThresholdForQueue / pullThresholdSizeForQueue, where it stops pulling.
void clientFlowControl(const QByteArray &clientId, const protocol::ConsumerRunningInfo &info,
    protocol::ExplainBody &body)
{
    namespace verdict = protocol::explainverdict;
    const auto setting = [&](const char *key) -> std::int64_t {
        const auto it = info.properties.find(key);
        bool ok = false;
        const std::int64_t v = it == info.properties.end() ? -1 : it->second.toLongLong(&ok);
        return ok ? v : -1;
    };
    const std::int64_t countMark = setting("pullThresholdForQueue");
    const std::int64_t sizeMark = setting("pullThresholdSizeForQueue");
    bool limited = false;
    for (const auto &[mq, pq] : info.mqTable) {
        if (pq.dropped)
            continue;
        if (countMark > 0 && pq.cachedMsgCount > countMark) {
            limited = true;
            body.add(verdict::kWarning, "clientFlowControl", queueName(mq),
                "the consumer holds more messages of this queue than it may: it stops pulling "
                "until its listener consumes them (a slow or stuck listener)",
                "pullThresholdForQueue",
                QByteArray::number(pq.cachedMsgCount) + " cached > "
                    + QByteArray::number(countMark),
                clientId);
        } else if (sizeMark > 0 && pq.cachedMsgSizeInMiB > sizeMark) {
            limited = true;
            body.add(verdict::kWarning, "clientFlowControl", queueName(mq),
                "the consumer holds more MiB of this queue than it may: it stops pulling until "
                "its listener consumes them",
                "pullThresholdSizeForQueue",
                QByteArray::number(pq.cachedMsgSizeInMiB) + " MiB cached > "
                    + QByteArray::number(sizeMark) + " MiB",
                clientId);
        }
    }
    if (!limited)
        body.add(verdict::kOk, "clientNoFlowControl", {},
            "no queue of this consumer is over its cache thresholds", "pullThresholdForQueue",
            countMark < 0 ? QByteArray("unknown") : QByteArray::number(countMark), clientId);
}

} // namespace

Result<protocol::ExplainBody> doExplainGroup(
    Call &call, const QByteArray &addr, const QByteArray &group, const QByteArray &topic)
{
    if (Status s = requireName(addr, "broker address"); !s)
        return s;
    if (Status s = requireName(group, "consumer group"); !s)
        return s;
    RemotingCommand cmd = call.api().request(protocol::extensioncode::kExplainGroup);
    cmd.setExt("consumerGroup", group);
    if (!topic.isEmpty())
        cmd.setExt("topic", topic);
    auto body = explain(call, addr, std::move(cmd), "explainGroup", "broker");
    if (!body)
        return body;
    // The members' own flow control: each one's running info (GET_CONSUMER_RUNNING_INFO,
    // forwarded by the broker), all asked at once within the call's deadline.
    std::vector<QByteArray> members;
    std::vector<Request> requests;
    for (const protocol::ExplainFinding &f : body->findings) {
        if (f.kind != "member" || f.client.isEmpty())
            continue;
        protocol::GetConsumerRunningInfoRequestHeader h;
        h.consumerGroup = group;
        h.clientId = f.client;
        h.jstackEnable = false;
        members.push_back(f.client);
        requests.push_back(
            {{{}, addr}, call.api().request(toInt(RequestCode::GetConsumerRunningInfo), h)});
    }
    if (requests.empty())
        return body;
    std::vector<Result<RemotingCommand>> answers = invokeAll(call, std::move(requests));
    for (std::size_t i = 0; i < answers.size(); ++i) {
        auto ok = expect(std::move(answers[i]), {{}, addr});
        auto info = ok ? protocol::ConsumerRunningInfo::fromJson(ok->body)
                       : Result<protocol::ConsumerRunningInfo>(ok.error());
        if (!info) {
            body->add(protocol::explainverdict::kInfo, "clientRunningInfoUnavailable", {},
                "the consumer did not give its running info, so its own flow control is "
                "unknown: "
                    + info.error().toString().toUtf8(),
                {}, {}, members[i]);
            continue;
        }
        clientFlowControl(members[i], *info, *body);
    }
    return body;
}

Result<protocol::ExplainBody> doExplainCleanup(Call &call, const QByteArray &addr)
{
    if (Status s = requireName(addr, "broker address"); !s)
        return s;
    return explain(call, addr, call.api().request(protocol::extensioncode::kExplainCleanup),
        "explainCleanup", "broker");
}

Result<protocol::ExplainBody> doExplainSend(Call &call, const QByteArray &addr,
    const QByteArray &topic, const QByteArray &accessKey, const QByteArray &sourceIp)
{
    if (Status s = requireName(addr, "broker address"); !s)
        return s;
    if (Status s = requireName(topic, "topic"); !s)
        return s;
    RemotingCommand cmd = call.api().request(protocol::extensioncode::kExplainSend);
    cmd.setExt("topic", topic);
    if (!accessKey.isEmpty())
        cmd.setExt("accessKey", accessKey);
    if (!sourceIp.isEmpty())
        cmd.setExt("sourceIp", sourceIp);
    return explain(call, addr, std::move(cmd), "explainSend", "broker");
}

Result<protocol::ExplainBody> doExplainBroker(
    Call &call, const QByteArray &namesrvAddr, const QByteArray &brokerName)
{
    const QByteArray addr
        = namesrvAddr.isEmpty() ? call.instance().remoting().currentNameServer() : namesrvAddr;
    if (addr.isEmpty())
        return Status::invalidArgument(
            QStringLiteral("no name server address (set namesrvAddr or NAMESRV_ADDR)"));
    if (Status s = requireName(brokerName, "broker name"); !s)
        return s;
    RemotingCommand cmd = call.api().request(protocol::extensioncode::kExplainBroker);
    cmd.setExt("brokerName", brokerName);
    return explain(call, addr, std::move(cmd), "explainBroker", "name server");
}

} // namespace qrocket::client::adminimpl
