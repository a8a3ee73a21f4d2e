// The QRocket explain extensions (protocol/extensioncode.h kExplainGroup, kExplainCleanup,
// kExplainSend on a broker, kExplainBroker on a name server): one request, one ExplainBody.

#include "clientlib/client/admin/adminops.h"
#include "clientlib/protocol/extensioncode.h"

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
    return explain(call, addr, std::move(cmd), "explainGroup", "broker");
}

Result<protocol::ExplainBody> doExplainCleanup(Call &call, const QByteArray &addr)
{
    if (Status s = requireName(addr, "broker address"); !s)
        return s;
    return explain(call, addr, call.api().request(protocol::extensioncode::kExplainCleanup),
        "explainCleanup", "broker");
}

Result<protocol::ExplainBody> doExplainSend(
    Call &call, const QByteArray &addr, const QByteArray &topic, const QByteArray &accessKey)
{
    if (Status s = requireName(addr, "broker address"); !s)
        return s;
    if (Status s = requireName(topic, "topic"); !s)
        return s;
    RemotingCommand cmd = call.api().request(protocol::extensioncode::kExplainSend);
    cmd.setExt("topic", topic);
    if (!accessKey.isEmpty())
        cmd.setExt("accessKey", accessKey);
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
