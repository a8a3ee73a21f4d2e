#include "broker/ha/slavesynchronize.h"

#include "broker/auth/authstore.h"
#include "broker/common/brokercodes.h"
#include "broker/common/brokercontext.h"
#include "broker/common/logging.h"
#include "broker/config/brokerconfig.h"
#include "broker/managers/consumeroffsetmanager.h"
#include "broker/managers/delayoffsetmanager.h"
#include "broker/managers/subscriptiongroupmanager.h"
#include "broker/managers/topicconfigmanager.h"
#include "broker/timer/timersuccession.h"
#include "broker/timer/timertransform.h"
#include "clientlib/protocol/extensioncode.h"
#include "clientlib/protocol/json.h"
#include "clientlib/remoting/remotingclient.h"
#include "storage/messagestore.h"

namespace qrocket::broker::ha {

namespace {
constexpr int kTimeoutMs = 3000;

const char *tableName(int t)
{
    static const char *const names[] = {"topic config", "consumer offsets", "delay offsets",
        "subscription groups", "ACL 2.0 users and ACLs", "timer checkpoint"};
    return names[t];
}

/// Whether `body`'s DataVersion is `current` (then the table is the master's already).
bool sameVersion(const QByteArray &body, const DataVersion &current)
{
    auto parsed = protocol::parseJson(body);
    if (!parsed)
        return false;
    auto version = DataVersion::fromJsonValue((*parsed)["dataVersion"]);
    return version && *version == current;
}
} // namespace

SlaveSynchronize::SlaveSynchronize(BrokerContext &context, AddressProvider masterAddress)
    : m_ctx(context)
    , m_masterAddress(std::move(masterAddress))
    , m_client(std::make_unique<remoting::RemotingClient>([&context] {
        remoting::RemotingClientOptions o;
        o.threadName = QStringLiteral("qrocket-slavesync-io");
        if (context.config) {
            o.requestHook = context.config->innerRequestSigner();
            o.tls = context.config->tls; // tls.enable: TLS to the master's main port
        }
        return o;
    }()))
{ }

SlaveSynchronize::~SlaveSynchronize()
{
    shutdown();
}

void SlaveSynchronize::shutdown()
{
    if (m_client)
        m_client->shutdown();
}

void SlaveSynchronize::syncAll()
{
    const QByteArray master = m_masterAddress ? m_masterAddress() : QByteArray();
    if (master.isEmpty())
        return;
    for (int t = 0; t < TableCount; ++t)
        sync(static_cast<Table>(t), master);
}

void SlaveSynchronize::sync(Table table, const QByteArray &master)
{
    static const int codes[] = {toInt(RequestCode::GetAllTopicConfig),
        toInt(RequestCode::GetAllConsumerOffset), toInt(RequestCode::GetAllDelayOffset),
        toInt(RequestCode::GetAllSubscriptionGroupConfig),
        protocol::extensioncode::kGetAuthMetadata, timer::kGetTimerCheckPoint};
    if (table == Auth && !m_ctx.authStore)
        return; // aclEnable=false here: no store to fill
    if (table == TimerCheckpoint && (!m_ctx.store || !m_ctx.store->config().timerWheelEnable))
        return;
    m_client->invokeAsync(master, protocol::RemotingCommand::createRequest(codes[table]),
        kTimeoutMs, [this, table, master](Result<protocol::RemotingCommand> r) {
            if (!r)
                failed(table, master, r.error().message());
            else if (r->code != toInt(ResponseCode::Success) && table == TimerCheckpoint)
                return; // the master keeps no timer store: nothing to take over
            else if (r->code != toInt(ResponseCode::Success))
                failed(table, master,
                    QStringLiteral("code %1 %2").arg(r->code).arg(QString::fromUtf8(r->remark)));
            else
                apply(table, master, r->body);
        });
}

void SlaveSynchronize::failed(Table table, const QByteArray &master, const QString &why)
{
    if (!m_failing[table].exchange(true))
        qCWarning(lcBrokerHa).noquote()
            << "slave sync of the" << tableName(table) << "from master" << master
            << "failed:" << why << "- retrying at the next round";
}

void SlaveSynchronize::apply(Table table, const QByteArray &master, const QByteArray &body)
{
    Status st;
    bool changed = true;
    switch (table) {
    case Topics:
        if (sameVersion(body, m_ctx.topics->dataVersion()))
            changed = false;
        else
            st = m_ctx.topics->replaceFrom(body);
        break;
    case SubscriptionGroups:
        if (sameVersion(body, m_ctx.subscriptionGroups->dataVersion()))
            changed = false;
        else
            st = m_ctx.subscriptionGroups->replaceFrom(body);
        break;
    case ConsumerOffsets:
        st = m_ctx.consumerOffsets->mergeFrom(body);
        if (st)
            st = m_ctx.consumerOffsets->persist();
        break;
    case DelayOffsets:
        // No body: the master runs no delay schedule yet; nothing to copy.
        if (body.isEmpty())
            break;
        st = m_ctx.delayOffsets->decode(body);
        if (st)
            st = m_ctx.delayOffsets->persist();
        break;
    case Auth: {
        auto replaced = m_ctx.authStore->replaceFrom(body);
        if (!replaced)
            st = replaced.error();
        else
            changed = *replaced;
        break;
    }
    case TimerCheckpoint:
        // Only a body with a fire mark replaces the saved one (a master just restarted has none
        // until its next slot: the older mark stays true).
        changed = timer::parseFireMark(body).has_value();
        if (changed
            && !timer::saveMasterCheckpoint(
                m_ctx.store->config().storePathRootDir + QStringLiteral("/timer"), body))
            st = Status::ioError(QStringLiteral("cannot save the master's timer checkpoint"));
        break;
    case TableCount:
        break;
    }
    if (!st) {
        failed(table, master, st.message());
        return;
    }
    if (m_failing[table].exchange(false))
        qCInfo(lcBrokerHa).noquote()
            << "slave sync of the" << tableName(table) << "from master" << master << "works again";
    if (changed && (table == Topics || table == SubscriptionGroups || table == Auth))
        qCInfo(lcBrokerHa).noquote()
            << "updated the slave's" << tableName(table) << "from master" << master;
    m_applied.fetch_add(1);
}

} // namespace qrocket::broker::ha
