#include "broker/processors/sendmessageprocessor.h"

#include "broker/common/brokercodes.h"
#include "broker/common/brokercontext.h"
#include "broker/config/brokerconfig.h"
#include "broker/dedup/senddeduprebuild.h"
#include "broker/dedup/senddeduptable.h"
#include "broker/managers/subscriptiongroupmanager.h"
#include "broker/managers/topicconfigmanager.h"
#include "broker/managers/topicvalidator.h"
#include "broker/processors/sendproperties.h"
#include "broker/schedule/scheduletransform.h"
#include "broker/stats/brokerstatsmanager.h"
#include "broker/timer/timertransform.h"
#include "broker/transaction/transactionalmessage.h"
#include "clientlib/protocol/framecodec.h"
#include "clientlib/protocol/headers/sendheaders.h"
#include "clientlib/protocol/messagebatch.h"
#include "clientlib/protocol/messageid.h"
#include "clientlib/protocol/messageproperties.h"
#include "clientlib/protocol/sharedbytes.h"
#include "storage/messagestore.h"

#include <QDateTime>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <random>

namespace qrocket::broker {

using protocol::RemotingCommand;
using protocol::SendMessageRequestHeader;
using storage::MessageExtBrokerInner;
using storage::PutMessageResult;
using storage::PutMessageStatus;
namespace mc = protocol::MessageConst;

namespace {

constexpr int kTopicSysFlagUnit = 1; // TopicSysFlag.FLAG_UNIT
constexpr int kTopicSysFlagUnitSub = 2; // TopicSysFlag.FLAG_UNIT_SUB

int randomInt()
{
    thread_local std::minstd_rand rng {std::random_device {}()};
    return static_cast<int>(rng() % 99999999u);
}

int responseCodeFor(PutMessageStatus status)
{
    switch (status) {
    case PutMessageStatus::PutOk:
        return toInt(ResponseCode::Success);
    case PutMessageStatus::FlushDiskTimeout:
        return toInt(ResponseCode::FlushDiskTimeout);
    case PutMessageStatus::FlushSlaveTimeout:
        return toInt(ResponseCode::FlushSlaveTimeout);
    case PutMessageStatus::SlaveNotAvailable:
        return toInt(ResponseCode::SlaveNotAvailable);
    case PutMessageStatus::MessageIllegal:
    case PutMessageStatus::PropertiesSizeExceeded:
        return toInt(ResponseCode::MessageIllegal);
    case PutMessageStatus::ServiceNotAvailable:
        return toInt(ResponseCode::ServiceNotAvailable);
    case PutMessageStatus::CreateMappedFileFailed:
    case PutMessageStatus::OsPageCacheBusy:
    case PutMessageStatus::UnknownError:
        return toInt(ResponseCode::SystemError);
    }
    return toInt(ResponseCode::SystemError);
}

bool statusHasResult(PutMessageStatus s)
{
    return s == PutMessageStatus::PutOk || s == PutMessageStatus::FlushDiskTimeout
        || s == PutMessageStatus::FlushSlaveTimeout || s == PutMessageStatus::SlaveNotAvailable;
}

/// RocketMQ's send statistics for a put that stored (sendOK): the topic it went to (the
/// schedule topic for a delayed message), the messages of a batch and its bytes as one call.
void countPut(BrokerContext &ctx, const QByteArray &topic, const PutMessageResult &r,
    std::chrono::steady_clock::time_point started)
{
    if (!ctx.statsManager)
        return;
    if (statusHasResult(r.status))
        ctx.statsManager->onPut(topic, r.msgNum, r.wroteBytes);
    static_assert(
        std::size_t(PutMessageStatus::UnknownError) + 1 == BrokerStatsManager::kPutResults);
    ctx.statsManager->onPutLatency(static_cast<std::size_t>(r.status),
        std::chrono::duration_cast<std::chrono::microseconds>(
            std::chrono::steady_clock::now() - started)
            .count());
}

constexpr qsizetype kDecimalMax = 20; // "-9223372036854775808"

/// Decimal text of `v` in `texts` (std::to_chars: a fraction of QByteArray::number's cost, on
/// every reply).
QByteArray decimal(protocol::SharedBytes &texts, std::int64_t v)
{
    char *at = texts.room(kDecimalMax);
    return texts.commit(std::to_chars(at, at + kDecimalMax, v).ptr - at);
}

/// A config string's UTF-8 form, converted again only when the setting changes. One per thread
/// (the send path runs on several threads; the settings change rarely, through admin requests).
class Utf8Cache
{
public:
    /// `prefix` + UTF-8 of `source`.
    const QByteArray &get(const QString &source, QByteArrayView prefix = {})
    {
        // The setting's text is usually the very one cached (shared, not just equal).
        if (m_utf8.isNull() || (!source.isSharedWith(m_source) && source != m_source)) {
            m_source = source;
            m_utf8 = prefix.toByteArray() + source.toUtf8();
        }
        return m_utf8;
    }

private:
    QString m_source;
    QByteArray m_utf8;
};

/// "CLUSTER\x01<brokerClusterName>"
const QByteArray &clusterProperty(const BrokerConfig &config)
{
    thread_local Utf8Cache cache;
    return cache.get(config.brokerClusterName, QByteArrayLiteral("CLUSTER\x01"));
}

const QByteArray &regionId(const BrokerConfig &config)
{
    thread_local Utf8Cache cache;
    return cache.get(config.regionId);
}

/// The stored properties: WAIT dropped, CLUSTER set; plus what the send path reads from them.
SendProperties prepareProperties(QByteArray &props, const BrokerConfig &config)
{
    return prepareSendProperties(props, clusterProperty(config));
}

/// RocketMQ 4.9's remark for a put the store refused (SERVICE_NOT_AVAILABLE: disk full, a
/// slave, a closed store), with the partitions' ratios as the clean service last measured them
/// (RocketMQ measures them here; the send path never calls statvfs). The store's own reason is
/// in the broker's log, the runtime info (diskFull) and storeFiles (refuseReason).
QByteArray serviceNotAvailableRemark(const storage::MessageStore &store)
{
    const storage::DiskMeasure m = store.diskMeasure();
    char ratios[64];
    std::snprintf(ratios, sizeof ratios, "CL: %5.2f CQ: %5.2f INDEX: %5.2f", m.commitLogRatio(),
        m.consumeQueueRatio(), m.indexRatio());
    return QByteArrayLiteral("service not available now. It may be caused by one of the "
                             "following reasons: the broker's disk is full [")
        + QByteArray(ratios)
        + QByteArrayLiteral("], messages are put to the slave, message store has been shut "
                            "down, etc.");
}

/// The reply for a finished put: code, remark, msgId(s), queueId, queueOffset, region, trace.
/// Opaque and serialize type are the responder's.
RemotingCommand sendReply(const PutMessageResult &r, int queueId, const BrokerContext &ctx,
    QByteArray recallHandle = {}, QByteArray msgIdOverride = {})
{
    const protocol::HostAddress &storeHost = ctx.storeHostAddress;
    const BrokerConfig &config = *ctx.config;
    RemotingCommand response;
    response.markResponse();
    const int code = responseCodeFor(r.status);
    response.code = code;
    if (r.status == PutMessageStatus::OsPageCacheBusy)
        response.remark
            = QByteArrayLiteral("[PC_SYNCHRONIZED]broker busy, start flow control for a while");
    else if (r.status == PutMessageStatus::ServiceNotAvailable)
        response.remark = serviceNotAvailableRemark(*ctx.store);
    else if (code != toInt(ResponseCode::Success))
        response.remark = r.remark.toUtf8();
    if (!statusHasResult(r.status))
        return response;
    // msgId, queueId and queueOffset share one allocation (protocol::SharedBytes); literal keys
    // and the cached region share static or cached bytes.
    protocol::SharedBytes texts(protocol::kOffsetMessageIdMaxSize + 1 + 2 * (kDecimalMax + 1));
    QByteArray msgId = std::move(msgIdOverride);
    if (!msgId.isEmpty()) {
        // a duplicate, or a batch with duplicates: each message's first placement
    } else if (r.batchOffsets.size() > 1) {
        for (std::size_t i = 0; i < r.batchOffsets.size(); ++i) {
            if (i)
                msgId += ',';
            msgId += protocol::encodeOffsetMessageId(storeHost, r.batchOffsets[i]);
        }
    } else {
        char *at = texts.room(protocol::kOffsetMessageIdMaxSize);
        msgId = texts.commit(protocol::writeOffsetMessageId(at, storeHost, r.wroteOffset) - at);
    }
    response.extFields.reserve(5);
    response.extFields.emplace_back(QByteArrayLiteral("msgId"), std::move(msgId));
    response.extFields.emplace_back(QByteArrayLiteral("queueId"), decimal(texts, queueId));
    response.extFields.emplace_back(
        QByteArrayLiteral("queueOffset"), decimal(texts, r.queueOffset));
    response.extFields.emplace_back(QByteArrayLiteral("MSG_REGION"), regionId(config));
    response.extFields.emplace_back(QByteArrayLiteral("TRACE_ON"),
        config.traceOn ? QByteArrayLiteral("true") : QByteArrayLiteral("false"));
    if (!recallHandle.isEmpty())
        response.extFields.emplace_back(QByteArrayLiteral("recallHandle"), std::move(recallHandle));
    return response;
}

/// The common case of sendReply() (PUT_OK of one message, no recall handle) written straight
/// into the reply frame (protocol::appendSendOkFrame, the same bytes), without a RemotingCommand
/// and its ext fields; false where that does not apply or the responder cannot (then answer with
/// sendReply()).
bool answerSendOk(const remoting::Responder &respond, const PutMessageResult &r, int queueId,
    const BrokerContext &ctx, const QByteArray &recallHandle)
{
    if (r.status != PutMessageStatus::PutOk || r.batchOffsets.size() > 1 || !recallHandle.isEmpty())
        return false;
    return respond.answerEncoded([&](int opaque, QByteArray &out) {
        char msgId[protocol::kOffsetMessageIdMaxSize];
        const char *end
            = protocol::writeOffsetMessageId(msgId, ctx.storeHostAddress, r.wroteOffset);
        protocol::appendSendOkFrame(out, opaque, QByteArrayView(msgId, end - msgId), queueId,
            r.queueOffset, regionId(*ctx.config), ctx.config->traceOn);
    });
}

std::int64_t dedupNowMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

SendDedupTable::Limits dedupLimits(const BrokerConfig &config)
{
    return {std::int64_t(config.sendDedupWindowSeconds) * 1000, config.sendDedupMaxKeysPerTopic};
}

/// Whether sends to `topic` are deduplicated now.
bool dedupOn(const BrokerContext &ctx, QByteArrayView topic)
{
    return ctx.config->sendDedupEnable && ctx.sendDedup && isDedupTopic(topic);
}

QByteArray offsetMsgId(const DedupPlacement &p)
{
    return protocol::encodeOffsetMessageId(p.storeHost, p.commitLogOffset);
}

/// SEND_OK for a message stored before: the first attempt's msgId, queue id and queue offset.
RemotingCommand duplicateReply(const DedupPlacement &p, const BrokerContext &ctx)
{
    PutMessageResult r;
    r.status = PutMessageStatus::PutOk;
    r.wroteOffset = p.commitLogOffset;
    r.queueOffset = p.queueOffset;
    return sendReply(r, p.queueId, ctx, {}, offsetMsgId(p));
}

/// The answer to an attempt that waited for another attempt of the same message which then
/// stored nothing: SYSTEM_ERROR, which every RocketMQ producer retries.
RemotingCommand firstAttemptFailedReply()
{
    RemotingCommand response;
    response.markResponse();
    response.code = toInt(ResponseCode::SystemError);
    response.remark = QByteArrayLiteral(
        "another attempt of this message (same UNIQ_KEY) was not stored; send it again");
    return response;
}

/// Where message `index` of a finished put went (nullopt when the put stored nothing).
std::optional<DedupPlacement> placementOf(
    const PutMessageResult &r, std::size_t index, int queueId, const BrokerContext &ctx)
{
    if (!statusHasResult(r.status))
        return std::nullopt;
    DedupPlacement p;
    p.storeHost = ctx.storeHostAddress;
    p.commitLogOffset = index < r.batchOffsets.size() ? r.batchOffsets[index] : r.wroteOffset;
    p.queueId = queueId;
    p.queueOffset = r.queueOffset + static_cast<std::int64_t>(index);
    return p;
}

std::int64_t storedAt(const PutMessageResult &r)
{
    return r.storeTimestamp > 0 ? r.storeTimestamp : dedupNowMs();
}

/// Timer messages (broker/timer/timertransform.h) on a send path: parks `msg`, or the refusal.
std::optional<timer::Refusal> applyTimerRules(
    const BrokerContext &ctx, MessageExtBrokerInner &msg, std::int64_t *slot)
{
    if (!timer::mayCarryTimer(msg.properties))
        return std::nullopt;
    return timer::applyOnSend(ctx.store->config(), msg, QDateTime::currentMSecsSinceEpoch(), slot);
}

} // namespace

bool SendMessageProcessor::runsInline(const RemotingCommand &request) const
{
    // SEND_MESSAGE (10) names the topic "topic"; V2 (310) and batch (320) use the short "b".
    const QByteArray *topic
        = request.ext(request.code == toInt(RequestCode::SendMessage) ? QByteArrayView("topic")
                                                                      : QByteArrayView("b"));
    return topic && !topic->isEmpty() && !topics::isRetryTopic(*topic)
        && m_ctx.topics->contains(*topic);
}

void SendMessageProcessor::processRequest(
    const remoting::ChannelPtr &channel, RemotingCommand request, remoting::Responder respond)
{
    QByteArray error;
    std::optional<SendMessageRequestHeader> header
        = SendMessageRequestHeader::decodeSend(request, &error);
    if (!header) {
        respond(makeReply(request, toInt(ResponseCode::SystemError), error));
        return;
    }
    TopicConfig topicConfig;
    if (auto refusal = msgCheck(m_ctx, channel, *header, topicConfig)) {
        respond(makeReply(request, refusal->code, std::move(refusal->remark)));
        return;
    }
    if (auto refusal = handleRetryAndDlq(request, *header, topicConfig)) {
        respond(std::move(*refusal));
        return;
    }
    // SEND_BATCH_MESSAGE is a batch whatever its `m` flag says.
    if (header->batch || request.code == toInt(RequestCode::SendBatchMessage))
        sendBatch(channel, request, *header, topicConfig, std::move(respond));
    else
        sendOne(channel, request, *header, topicConfig, std::move(respond));
}

std::optional<SendMessageProcessor::Refusal> SendMessageProcessor::msgCheck(BrokerContext &ctx,
    const remoting::ChannelPtr &channel, SendMessageRequestHeader &header, TopicConfig &topicConfig)
{
    const BrokerConfig &config = *ctx.config;
    if (const std::int64_t from = config.startAcceptSendRequestTimeStamp;
        from > 0 && QDateTime::currentMSecsSinceEpoch() < from) {
        return Refusal {toInt(ResponseCode::SystemError),
            "broker unable to service, until "
                + QDateTime::fromMSecsSinceEpoch(from)
                      .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss,zzz"))
                      .toUtf8()};
    }
    // Without write permission the broker refuses only order topics (their queues are fixed, so
    // a producer cannot move to another broker); other producers stop choosing it from the
    // routes, which carry the permission, and sends already under way are still stored.
    std::optional<TopicConfig> found = ctx.topics->find(header.topic);
    if (!Perm::isWriteable(config.brokerPermission) && found && found->order)
        return Refusal {toInt(ResponseCode::NoPermission),
            "the broker[" + config.brokerIP1.toUtf8() + "] sending message is forbidden"};
    if (Status st = topics::validateTopic(header.topic); !st)
        return Refusal {toInt(ResponseCode::SystemError), st.message().toUtf8()};
    if (topics::isNotAllowedSendTopic(header.topic))
        return Refusal {toInt(ResponseCode::NoPermission),
            "Sending message to topic[" + header.topic + "] is forbidden."};

    if (!found) {
        const bool retry = topics::isRetryTopic(header.topic);
        const int topicSysFlag
            = header.unitMode ? (retry ? kTopicSysFlagUnitSub : kTopicSysFlagUnit) : 0;
        auto created = ctx.topics->createTopicInSendMessageMethod(header.topic, header.defaultTopic,
            channel->remoteAddress(), header.defaultTopicQueueNums, topicSysFlag);
        if (created) {
            found = std::move(*created);
            // (TopicConfigManager logs the creation)
        } else if (retry) {
            if (auto back = ctx.topics->createTopicInSendMessageBackMethod(
                    header.topic, 1, Perm::Read | Perm::Write, topicSysFlag))
                found = std::move(*back);
        }
    }
    if (!found)
        return Refusal {toInt(ResponseCode::TopicNotExist),
            "topic[" + header.topic + "] not exist, apply first please!"};
    topicConfig = std::move(*found); // (4.9 checks no topic permission on sends)
    const int queueNums = std::max(topicConfig.writeQueueNums, topicConfig.readQueueNums);
    if (header.queueId >= queueNums)
        return Refusal {toInt(ResponseCode::SystemError),
            "request queueId[" + QByteArray::number(header.queueId) + "] is illegal, "
                + "Producer: " + channel->remoteAddress()};
    if (header.queueId < 0)
        header.queueId
            = topicConfig.writeQueueNums > 0 ? randomInt() % topicConfig.writeQueueNums : 0;
    return std::nullopt;
}

std::optional<RemotingCommand> SendMessageProcessor::handleRetryAndDlq(
    const RemotingCommand &request, SendMessageRequestHeader &header, TopicConfig &topicConfig)
{
    if (!topics::isRetryTopic(header.topic))
        return std::nullopt;
    const QByteArrayView group = QByteArrayView(header.topic).sliced(7); // "%RETRY%"
    const auto groupConfig = m_ctx.subscriptionGroups->findOrCreate(group);
    if (!groupConfig)
        return makeReply(request, toInt(ResponseCode::SubscriptionGroupNotExist),
            "subscription group not exist, " + group.toByteArray());
    int maxReconsumeTimes = groupConfig->retryMaxTimes;
    if (request.version >= kVersionMaxReconsumeTimes && header.maxReconsumeTimes)
        maxReconsumeTimes = *header.maxReconsumeTimes;
    if (header.reconsumeTimes.value_or(0) < maxReconsumeTimes)
        return std::nullopt;
    Result<TopicConfig> dlq = m_ctx.topics->createDlqTopic(group);
    if (!dlq)
        return makeReply(request, toInt(ResponseCode::SystemError), dlq.error().message().toUtf8());
    topicConfig = std::move(*dlq);
    header.topic = topicConfig.topicName;
    header.queueId = 0;
    if (!protocol::findProperty(header.properties, mc::DelayTimeLevel).isNull())
        header.properties = protocol::removeProperty(header.properties, mc::DelayTimeLevel);
    return std::nullopt;
}

void SendMessageProcessor::sendOne(const remoting::ChannelPtr &channel,
    const RemotingCommand &request, SendMessageRequestHeader &header,
    const TopicConfig &topicConfig, remoting::Responder respond)
{
    const BrokerConfig &config = *m_ctx.config;
    MessageExtBrokerInner msg;
    msg.topic = header.topic;
    msg.queueId = header.queueId;
    msg.flag = header.flag;
    msg.sysFlag = header.sysFlag;
    if (topicConfig.topicFilterType == TopicFilterType::MultiTag)
        msg.sysFlag |= protocol::SysFlag::MultiTags;
    msg.bornTimestamp = header.bornTimestamp;
    channel->remoteHost(msg.bornHost);
    msg.storeHost = m_ctx.storeHostAddress;
    msg.reconsumeTimes = header.reconsumeTimes.value_or(0);
    msg.body = request.body;
    const SendProperties sent = prepareProperties(header.properties, config);
    msg.waitStoreMsgOk = sent.waitStoreMsgOk;
    msg.properties = std::move(header.properties);

    const bool halfMessage = sent.transactionPrepared;
    if (halfMessage && config.rejectTransactionMessage) {
        respond(makeReply(request, toInt(ResponseCode::NoPermission),
            "the broker[" + config.brokerAddr() + "] sending transaction message is forbidden"));
        return;
    }
    if (halfMessage) // parked in RMQ_SYS_TRANS_HALF_TOPIC until END_TRANSACTION (§8.5)
        transaction::toHalfMessage(msg);
    const std::int32_t txType = msg.sysFlag & protocol::SysFlag::TransactionMask;
    if (!halfMessage && sent.hasDelay
        && (txType == protocol::SysFlag::TransactionNot
            || txType == protocol::SysFlag::TransactionCommit)) {
        if (sent.delayLevel > 0)
            schedule::applyDelayLevel(msg, config.delayLevelMillis());
    }
    // Timer messages (TIMER_DELIVER_MS / TIMER_DELAY_SEC / TIMER_DELAY_MS): parked in
    // rmq_sys_wheel_timer; the reply carries the recall handle (RocketMQ 5.3).
    QByteArray recallHandle;
    if (!halfMessage) {
        const QByteArray realTopic = msg.topic;
        std::int64_t slot = 0;
        if (auto refusal = applyTimerRules(m_ctx, msg, &slot)) {
            respond(makeReply(request, refusal->code, std::move(refusal->remark)));
            return;
        }
        if (slot > 0 && !topics::isRetryTopic(realTopic)) {
            const QByteArrayView uniq
                = protocol::findProperty(msg.properties, mc::UniqClientMessageIdKeyIdx);
            if (!uniq.isEmpty())
                recallHandle
                    = timer::encodeRecallHandle(realTopic, config.brokerName.toUtf8(), slot, uniq);
        }
    }

    const int replyQueueId = header.queueId; // the requested queue, even for delayed messages
    SendDedupTable::Ticket dedup; // valid() when this send claimed its UNIQ_KEY
    if (dedupOn(m_ctx, header.topic)) {
        const QByteArrayView key
            = protocol::findProperty(msg.properties, mc::UniqClientMessageIdKeyIdx);
        if (!key.isEmpty() && !claimOne(header.topic, key, respond, dedup))
            return; // answered (a duplicate), or to be answered by the attempt under way
    }
    m_ctx.store->putMessage(msg,
        [respond = std::move(respond), ctx = &m_ctx, replyQueueId, topic = msg.topic,
            recallHandle = std::move(recallHandle), dedup = std::move(dedup),
            started = std::chrono::steady_clock::now()](const PutMessageResult &r) mutable {
            if (dedup.valid()) // before the answer: a retry that follows it finds the key stored
                ctx->sendDedup->finish(dedup, placementOf(r, 0, replyQueueId, *ctx), storedAt(r),
                    dedupLimits(*ctx->config));
            countPut(*ctx, topic, r, started);
            if (!answerSendOk(respond, r, replyQueueId, *ctx, recallHandle))
                respond(sendReply(r, replyQueueId, *ctx, std::move(recallHandle)));
        });
}

bool SendMessageProcessor::claimOne(QByteArrayView topic, QByteArrayView key,
    const remoting::Responder &respond, SendDedupTable::Ticket &ticket)
{
    const SendDedupTable::Limits limits = dedupLimits(*m_ctx.config);
    DedupPlacement first;
    SendDedupTable::Claim claim
        = m_ctx.sendDedup->claim(topic, key, dedupNowMs(), limits, &first, nullptr, &ticket);
    if (claim == SendDedupTable::Claim::Pending) {
        // Another attempt of this message is being stored (another connection, or a retry that
        // overtook its timed-out predecessor): answer when it ends, as it ends.
        SendDedupTable::Waiter waiter
            = [respond, ctx = &m_ctx](const std::optional<DedupPlacement> &p) {
                  respond(p ? duplicateReply(*p, *ctx) : firstAttemptFailedReply());
              };
        claim = m_ctx.sendDedup->claim(topic, key, dedupNowMs(), limits, &first, &waiter, &ticket);
    }
    switch (claim) {
    case SendDedupTable::Claim::Fresh:
        return true;
    case SendDedupTable::Claim::Stored:
        respond(duplicateReply(first, m_ctx));
        return false;
    case SendDedupTable::Claim::Pending:
        return false;
    }
    return false;
}

void SendMessageProcessor::sendBatch(const remoting::ChannelPtr &channel,
    const RemotingCommand &request, SendMessageRequestHeader &header,
    const TopicConfig &topicConfig, remoting::Responder respond)
{
    const BrokerConfig &config = *m_ctx.config;
    if (header.topic.size() > topics::kTopicMaxLength) {
        respond(makeReply(request, toInt(ResponseCode::MessageIllegal),
            "message topic length too long " + QByteArray::number(header.topic.size())));
        return;
    }
    if (!protocol::findProperty(header.properties, mc::DelayTimeLevel).isNull()
        || !protocol::findProperty(header.properties, mc::TransactionPrepared).isNull()) {
        respond(makeReply(request, toInt(ResponseCode::MessageIllegal),
            "batch request does not support delay or transaction messages"));
        return;
    }
    auto items = protocol::decodeBatch(request.body);
    if (!items || items->empty()) {
        respond(makeReply(request, toInt(ResponseCode::MessageIllegal),
            items ? QByteArrayLiteral("the batch is empty") : items.error().message().toUtf8()));
        return;
    }
    const bool wait = prepareProperties(header.properties, config).waitStoreMsgOk;
    protocol::HostAddress bornHost;
    channel->remoteHost(bornHost);
    std::int32_t sysFlag = header.sysFlag;
    if (topicConfig.topicFilterType == TopicFilterType::MultiTag)
        sysFlag |= protocol::SysFlag::MultiTags;

    std::vector<MessageExtBrokerInner> msgs(items->size());
    for (std::size_t i = 0; i < items->size(); ++i) {
        const protocol::BatchItemView &item = (*items)[i];
        MessageExtBrokerInner &m = msgs[i];
        m.topic = header.topic;
        m.queueId = header.queueId;
        m.flag = item.flag;
        m.sysFlag = sysFlag;
        m.bornTimestamp = header.bornTimestamp;
        m.bornHost = bornHost;
        m.storeHost = m_ctx.storeHostAddress;
        m.reconsumeTimes = header.reconsumeTimes.value_or(0);
        m.body = item.body.toByteArray();
        m.properties = protocol::appendProperties(item.properties, header.properties);
        m.waitStoreMsgOk = wait;
        // Timer messages in a batch: each item by the rules; the batch must stay one queue's.
        if (auto refusal = applyTimerRules(m_ctx, m, nullptr)) {
            respond(makeReply(request, refusal->code, std::move(refusal->remark)));
            return;
        }
        if (m.topic != msgs.front().topic) {
            respond(makeReply(request, toInt(ResponseCode::MessageIllegal),
                "a batch must not mix timer messages with messages delivered at once"));
            return;
        }
    }
    const int replyQueueId = header.queueId;
    if (dedupOn(m_ctx, header.topic)) {
        sendBatchDedup(request, header.topic, std::move(msgs), replyQueueId, std::move(respond));
        return;
    }
    m_ctx.store->putMessages(msgs,
        [respond = std::move(respond), ctx = &m_ctx, replyQueueId, topic = msgs.front().topic,
            started = std::chrono::steady_clock::now()](const PutMessageResult &r) {
            countPut(*ctx, topic, r, started);
            respond(sendReply(r, replyQueueId, *ctx));
        });
}

/// A batch's messages while their keys are claimed and stored (shared with the completion).
struct SendMessageProcessor::BatchDedup
{
    QByteArray topic;
    std::vector<QByteArray> keys; // each message's UNIQ_KEY (empty: none, always stored)
    std::vector<std::optional<DedupPlacement>> placements; // first attempts' and new ones
    std::vector<int> alias; // a key repeated in the batch: the index of its first occurrence
    std::vector<std::size_t> owned; // claimed by this batch (finish() each)
    std::vector<std::size_t> fresh; // stored now, in order
};

void SendMessageProcessor::sendBatchDedup(const RemotingCommand &request, const QByteArray &topic,
    std::vector<MessageExtBrokerInner> msgs, int replyQueueId, remoting::Responder respond)
{
    // Per message: a message whose key was stored before is not stored again, and its msgId in
    // the reply is the first attempt's; a key repeated inside the batch is stored once. The
    // reply's queueId/queueOffset are the first message's placement (its first attempt's when
    // it is a duplicate): in a partly duplicated batch the later messages' offsets do not
    // follow from it (their msgIds are each message's own). A key that another attempt is
    // storing right now refuses the whole batch with a retriable SYSTEM_ERROR (a batch does not
    // wait: it would have to store its other messages from that attempt's completion).
    const SendDedupTable::Limits limits = dedupLimits(*m_ctx.config);
    const std::int64_t now = dedupNowMs();
    const std::size_t n = msgs.size();
    auto state = std::make_shared<BatchDedup>();
    state->topic = topic;
    state->placements.resize(n);
    state->alias.assign(n, -1);
    state->keys.resize(n);
    std::vector<std::size_t> fresh;
    for (std::size_t i = 0; i < n; ++i) {
        const QByteArrayView key
            = protocol::findProperty(msgs[i].properties, mc::UniqClientMessageIdKeyIdx);
        if (key.isEmpty()) {
            fresh.push_back(i);
            continue;
        }
        state->keys[i] = key.toByteArray();
        for (std::size_t j = 0; j < i && state->alias[i] < 0; ++j) {
            if (state->keys[j] == key)
                state->alias[i] = state->alias[j] >= 0 ? state->alias[j] : static_cast<int>(j);
        }
        if (state->alias[i] >= 0)
            continue;
        DedupPlacement first;
        switch (m_ctx.sendDedup->claim(topic, key, now, limits, &first)) {
        case SendDedupTable::Claim::Fresh:
            state->owned.push_back(i);
            fresh.push_back(i);
            break;
        case SendDedupTable::Claim::Stored:
            state->placements[i] = first;
            break;
        case SendDedupTable::Claim::Pending:
            for (std::size_t o : state->owned)
                m_ctx.sendDedup->finish(topic, state->keys[o], std::nullopt, now, limits);
            respond(makeReply(request, toInt(ResponseCode::SystemError),
                "a message of this batch (UNIQ_KEY " + key.toByteArray()
                    + ") is being stored by another attempt now; send the batch again"));
            return;
        }
    }
    if (fresh.empty()) { // every message stored before: store nothing
        respond(batchDedupReply(*state, PutMessageResult {}, true, m_ctx));
        return;
    }
    state->fresh = fresh;
    std::vector<MessageExtBrokerInner> toStore;
    if (fresh.size() == n) {
        toStore = std::move(msgs);
    } else {
        toStore.reserve(fresh.size());
        for (std::size_t i : fresh)
            toStore.push_back(std::move(msgs[i]));
    }
    m_ctx.store->putMessages(toStore,
        [respond = std::move(respond), ctx = &m_ctx, replyQueueId, state,
            topic = toStore.front().topic,
            started = std::chrono::steady_clock::now()](const PutMessageResult &r) {
            const SendDedupTable::Limits limitsNow = dedupLimits(*ctx->config);
            for (std::size_t j = 0; j < state->fresh.size(); ++j)
                state->placements[state->fresh[j]] = placementOf(r, j, replyQueueId, *ctx);
            for (std::size_t o : state->owned)
                ctx->sendDedup->finish(
                    state->topic, state->keys[o], state->placements[o], storedAt(r), limitsNow);
            countPut(*ctx, topic, r, started);
            respond(batchDedupReply(*state, r, false, *ctx));
        });
}

RemotingCommand SendMessageProcessor::batchDedupReply(const BatchDedup &state,
    const PutMessageResult &r, bool allDuplicates, const BrokerContext &ctx)
{
    if (!allDuplicates && !statusHasResult(r.status))
        return sendReply(r, 0, ctx); // stored nothing: the store's refusal
    QByteArray msgIds;
    const DedupPlacement *head = nullptr;
    for (std::size_t i = 0; i < state.placements.size(); ++i) {
        const int from = state.alias[i];
        const std::optional<DedupPlacement> &p
            = state.placements[from >= 0 ? static_cast<std::size_t>(from) : i];
        if (!p)
            continue; // (cannot happen: every message was stored or found)
        if (!head)
            head = &*p;
        if (!msgIds.isEmpty())
            msgIds += ',';
        msgIds += offsetMsgId(*p);
    }
    PutMessageResult reply = allDuplicates ? PutMessageResult {} : r;
    if (allDuplicates)
        reply.status = PutMessageStatus::PutOk;
    reply.wroteOffset = head ? head->commitLogOffset : 0;
    reply.queueOffset = head ? head->queueOffset : 0;
    return sendReply(reply, head ? head->queueId : 0, ctx, {}, std::move(msgIds));
}

} // namespace qrocket::broker
