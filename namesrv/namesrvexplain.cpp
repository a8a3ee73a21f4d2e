// The name server's explain extension (extensioncode.h kExplainBroker): why a broker is late or
// gone, from the route tables and the departures RouteInfoManager keeps. An admin request, read
// only; never on a hot path.

#include "clientlib/protocol/bodies/explainbodies.h"
#include "clientlib/protocol/extensioncode.h"
#include "namesrv/defaultrequestprocessor.h"
#include "namesrv/namesrvconfig.h"
#include "namesrv/routeinfomanager.h"

#include <QDateTime>

#include <set>

namespace qrocket::namesrv {

using protocol::ExplainBody;
using remoting::RemotingCommand;
namespace verdict = protocol::explainverdict;

RemotingCommand DefaultRequestProcessor::explainBroker(const RemotingCommand &request)
{
    const QByteArray brokerName = request.extString("brokerName").toByteArray();
    if (brokerName.isEmpty())
        return RemotingCommand::createResponse(
            request, responsecode::kSystemError, "the custom field <brokerName> is null");
    const std::int64_t expiry = m_config.brokerChannelExpiredTime();
    const QByteArray expiryText = QByteArray::number(expiry);
    ExplainBody body;
    body.question = "broker";
    body.subject = brokerName;
    body.now = QDateTime::currentMSecsSinceEpoch();

    // A broker re-registers every registerNameServerPeriod (30 s by default); past half the
    // expiry it has missed at least one.
    std::set<QByteArray> liveAddrs;
    for (const BrokerLiveness &b : m_routes.brokerLiveness()) {
        if (b.brokerName != brokerName)
            continue;
        liveAddrs.insert(b.brokerAddr);
        const QByteArray value = "last registration " + QByteArray::number(b.ageMs) + " ms ago of "
            + expiryText + " ms";
        const QByteArray who = b.brokerAddr + " (brokerId " + QByteArray::number(b.brokerId) + ')';
        if (b.ageMs * 2 > expiry)
            body.add(verdict::kWarning, "late", who,
                "the broker has not registered for more than half of brokerChannelExpiredTime; "
                "it is removed when the age passes it",
                "brokerChannelExpiredTime", value);
        else
            body.add(verdict::kOk, "live", who, "registered recently", "brokerChannelExpiredTime",
                value);
    }
    for (const BrokerDeparture &d : m_routes.departures(brokerName)) {
        const QByteArray who = d.brokerAddr + " (brokerId " + QByteArray::number(d.brokerId) + ')';
        const QByteArray when = "removed " + QByteArray::number(d.ageMs) + " ms ago (at "
            + QByteArray::number(d.epochMs) + ')';
        const bool back = liveAddrs.contains(d.brokerAddr);
        body.add(back ? verdict::kInfo : verdict::kBlocking, d.kind, who,
            d.reason + (back ? QByteArray("; it has registered again since") : QByteArray()),
            d.kind == "expired" ? QByteArray("brokerChannelExpiredTime") : QByteArray(),
            d.kind == "expired" ? expiryText + " ms; " + when : when);
    }
    if (const std::optional<BrokerDeparture> e = m_routes.lastRegistrationError(brokerName))
        body.add(verdict::kWarning, "registrationRefused", e->brokerAddr,
            "the last refused REGISTER_BROKER: " + e->reason, {},
            QByteArray::number(e->ageMs) + " ms ago (at " + QByteArray::number(e->epochMs) + ')');
    if (body.findings.empty())
        body.add(verdict::kBlocking, "neverRegistered", brokerName,
            "no broker of this name has registered with this name server since it started "
            "(check the broker's namesrvAddr)",
            "namesrvAddr", {});
    RemotingCommand response = RemotingCommand::createResponse(request, responsecode::kSuccess, {});
    response.body = body.toJson();
    return response;
}

} // namespace qrocket::namesrv
