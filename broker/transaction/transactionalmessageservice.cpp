#include "broker/transaction/transactionalmessageservice.h"

#include "broker/common/brokercodes.h"
#include "broker/common/brokercontext.h"
#include "broker/common/logging.h"
#include "broker/config/brokerconfig.h"
#include "broker/dedup/senddeduprebuild.h"
#include "broker/dedup/senddeduptable.h"
#include "broker/managers/consumeroffsetmanager.h"
#include "broker/managers/producermanager.h"
#include "broker/managers/topicconfigmanager.h"
#include "broker/schedule/scheduletransform.h"
#include "broker/timer/timertransform.h"
#include "broker/transaction/transactionalmessage.h"
#include "clientlib/remoting/requestprocessor.h"
#include "storage/core/storeconfig.h"
#include "storage/messagestore.h"

#include <QDateTime>

#include <algorithm>
#include <chrono>
#include <exception>
#include <optional>
#include <unordered_map>
#include <vector>

namespace qrocket::broker {

namespace mc = protocol::MessageConst;
using storage::GetMessageStatus;
using storage::PutMessageStatus;
using transaction::HalfMessage;

namespace {

constexpr int kOpPullBatch = 32; // fillOpRemoveMap's pull size
constexpr int kMaxRetryCountWhenHalfNull = 1;

enum class PullStatus : std::uint8_t { Found, NoNewMsg, NoMatchedMsg, OffsetIllegal };

PullStatus pullStatusOf(GetMessageStatus s)
{
    switch (s) {
    case GetMessageStatus::Found:
        return PullStatus::Found;
    case GetMessageStatus::NoMatchedMessage:
        return PullStatus::NoMatchedMsg;
    case GetMessageStatus::NoMessageInQueue:
    case GetMessageStatus::OffsetOverflowOne:
        return PullStatus::NoNewMsg;
    case GetMessageStatus::MessageWasRemoving:
    case GetMessageStatus::NoMatchedLogicQueue:
    case GetMessageStatus::OffsetFoundNull:
    case GetMessageStatus::OffsetOverflowBadly:
    case GetMessageStatus::OffsetTooSmall:
        return PullStatus::OffsetIllegal;
    }
    return PullStatus::OffsetIllegal;
}

/// What the check loop keeps of the last op pull (RocketMQ's PullResult of the op queue).
struct OpPull
{
    PullStatus status = PullStatus::NoNewMsg;
    std::int64_t nextBeginOffset = 0;
    bool hasMessages = false; // msgFoundList != null
    std::int64_t lastBornTimestamp = 0;
};

std::int64_t parseLong(QByteArrayView s)
{
    bool ok = false;
    const qlonglong v = s.toByteArray().toLongLong(&ok);
    return ok ? v : -1;
}

TransactionalMessageService::Answer finalPutAnswer(
    const storage::PutMessageResult &r, int maxMessageSize)
{
    using A = TransactionalMessageService::Answer;
    switch (r.status) {
    case PutMessageStatus::PutOk:
    case PutMessageStatus::FlushDiskTimeout:
    case PutMessageStatus::FlushSlaveTimeout:
    case PutMessageStatus::SlaveNotAvailable:
        return A {toInt(ResponseCode::Success), {}};
    case PutMessageStatus::CreateMappedFileFailed:
        return A {toInt(ResponseCode::SystemError), "Create mapped file failed."};
    case PutMessageStatus::MessageIllegal:
    case PutMessageStatus::PropertiesSizeExceeded:
        return A {toInt(ResponseCode::MessageIllegal),
            "The message is illegal, maybe msg body or properties length not matched. msg body "
            "length limit "
                + QByteArray::number(maxMessageSize) + "B, msg properties length limit 32KB."};
    case PutMessageStatus::ServiceNotAvailable:
        return A {toInt(ResponseCode::ServiceNotAvailable), "Service not available now."};
    case PutMessageStatus::OsPageCacheBusy:
        return A {
            toInt(ResponseCode::SystemError), "OS page cache busy, please try another machine"};
    case PutMessageStatus::UnknownError:
        return A {toInt(ResponseCode::SystemError), "UNKNOWN_ERROR"};
    }
    return A {toInt(ResponseCode::SystemError), "UNKNOWN_ERROR DEFAULT"};
}

} // namespace

TransactionalMessageService::TransactionalMessageService(BrokerContext &ctx, Clock clock)
    : m_ctx(ctx), m_clock(std::move(clock))
{
    if (!m_clock)
        m_clock = [] { return QDateTime::currentMSecsSinceEpoch(); };
}

TransactionalMessageService::~TransactionalMessageService()
{
    stop();
}

protocol::HostAddress TransactionalMessageService::storeHost() const
{
    if (m_ctx.storeHostAddress.port != 0)
        return m_ctx.storeHostAddress;
    protocol::HostAddress parsed;
    protocol::HostAddress::parse(m_ctx.storeHost, parsed);
    return parsed;
}

TransactionalMessageService::Answer TransactionalMessageService::endTransaction(
    const EndTransactionHeader &header)
{
    const std::int32_t type = header.commitOrRollback;
    if (type != protocol::SysFlag::TransactionCommit
        && type != protocol::SysFlag::TransactionRollback)
        return {toInt(ResponseCode::SystemError), {}};
    const storage::SelectedRecord sel = m_ctx.store->lookMessageByOffset(header.commitLogOffset);
    std::optional<HalfMessage> half
        = sel.isValid() ? HalfMessage::decode(sel.bytes) : std::optional<HalfMessage> {};
    if (!half)
        return {toInt(ResponseCode::SystemError), "Find prepared transaction message failed"};
    // checkPrepareMessage
    const QByteArray *group = half->properties.find(mc::ProducerGroup);
    if (!group || *group != header.producerGroup)
        return {toInt(ResponseCode::SystemError), "The producer group wrong"};
    if (half->queueOffset != header.tranStateTableOffset)
        return {toInt(ResponseCode::SystemError), "The transaction state table offset wrong"};
    if (half->commitLogOffset != header.commitLogOffset)
        return {toInt(ResponseCode::SystemError), "The commit log offset wrong"};

    if (type == protocol::SysFlag::TransactionRollback) {
        putOpRecord(*half);
        return {toInt(ResponseCode::Success), {}};
    }
    auto committed = transaction::committedMessage(*half);
    if (!committed)
        return {toInt(ResponseCode::SystemError), committed.error().message().toUtf8()};
    // Exactly-once sends: a COMMIT repeated for one half (the producer's and a check's answer,
    // a client that sends END_TRANSACTION again) stores the message once.
    SendDedupTable::Ticket dedup;
    const SendDedupTable::Limits limits = m_ctx.config
        ? SendDedupTable::Limits {std::int64_t(m_ctx.config->sendDedupWindowSeconds) * 1000,
            m_ctx.config->sendDedupMaxKeysPerTopic}
        : SendDedupTable::Limits {};
    if (m_ctx.config && m_ctx.config->sendDedupEnable && m_ctx.sendDedup) {
        const QByteArrayView key
            = protocol::findProperty(committed->properties, mc::UniqClientMessageIdKeyIdx);
        DedupPlacement first;
        switch (m_ctx.sendDedup->claim(
            commitDedupTopic(committed->topic), key, now(), limits, &first, nullptr, &dedup)) {
        case SendDedupTable::Claim::Fresh:
            break;
        case SendDedupTable::Claim::Stored:
            putOpRecord(*half); // (again: harmless, the half is done either way)
            return {toInt(ResponseCode::Success), {}};
        case SendDedupTable::Claim::Pending:
            return {toInt(ResponseCode::SystemError), "this transaction is being committed now"};
        }
    }
    const int realQueueId = committed->queueId;
    // The commit log applies delay levels to COMMIT records as to plain ones.
    if (m_ctx.config)
        schedule::applyDelayLevel(*committed, m_ctx.config->delayLevelMillis());
    // ... and parks a timer message's COMMIT record in rmq_sys_wheel_timer.
    if (auto refusal = timer::applyOnSend(m_ctx.store->config(), *committed, now()))
        return {refusal->code, std::move(refusal->remark)};
    const storage::PutMessageResult put = m_ctx.store->putMessageAndWait(*committed);
    if (dedup.valid()) {
        std::optional<DedupPlacement> placed;
        if (put.isOk() || put.status == storage::PutMessageStatus::FlushDiskTimeout
            || put.status == storage::PutMessageStatus::FlushSlaveTimeout
            || put.status == storage::PutMessageStatus::SlaveNotAvailable)
            placed = DedupPlacement {storeHost(), put.wroteOffset, realQueueId, put.queueOffset};
        m_ctx.sendDedup->finish(
            dedup, placed, put.storeTimestamp > 0 ? put.storeTimestamp : now(), limits);
    }
    Answer answer = finalPutAnswer(put, m_ctx.store->config().maxMessageSize);
    if (answer.code == toInt(ResponseCode::Success))
        putOpRecord(*half);
    return answer;
}

bool TransactionalMessageService::putOpRecord(const HalfMessage &half)
{
    const storage::PutMessageResult r = m_ctx.store->putMessageAndWait(
        transaction::opMessage(half.inner.queueId, half.queueOffset, storeHost(), now()));
    if (!r.isOk()) {
        qCWarning(lcBroker).noquote()
            << "transaction: op record for half offset" << half.queueOffset
            << "failed:" << storage::putMessageStatusName(r.status) << r.remark;
        return false;
    }
    return true;
}

std::int64_t TransactionalMessageService::progress(QByteArrayView topic, int queueId) const
{
    const std::int64_t offset
        = m_ctx.consumerOffsets->query(transaction::kConsumerGroup, topic, queueId);
    return offset == -1 ? m_ctx.store->minOffsetInQueue(topic, queueId) : offset;
}

bool TransactionalMessageService::putBack(HalfMessage &half)
{
    const storage::PutMessageResult r
        = m_ctx.store->putMessageAndWait(transaction::renewedHalfMessage(half));
    if (!r.isOk()) {
        qCWarning(lcBroker).noquote()
            << "transaction: re-putting half message" << half.offsetMsgId()
            << "failed:" << storage::putMessageStatusName(r.status) << r.remark;
        return false;
    }
    half.queueOffset = r.queueOffset;
    half.commitLogOffset = r.wroteOffset;
    return true;
}

void TransactionalMessageService::sendCheck(HalfMessage &half)
{
    const QByteArray group = half.properties.value(mc::ProducerGroup);
    remoting::ChannelPtr channel
        = m_ctx.producers ? m_ctx.producers->availableChannel(group) : remoting::ChannelPtr {};
    if (!channel) {
        qCWarning(lcBroker).noquote()
            << "transaction: check failed, no channel of producer group" << group;
        return;
    }
    protocol::RemotingCommand request
        = protocol::RemotingCommand::createRequest(toInt(RequestCode::CheckTransactionState));
    request.setExt(QByteArrayLiteral("tranStateTableOffset"), half.queueOffset);
    request.setExt(QByteArrayLiteral("commitLogOffset"), half.commitLogOffset);
    if (const QByteArray *uniq = half.properties.find(mc::UniqClientMessageIdKeyIdx)) {
        request.setExt(QByteArrayLiteral("msgId"), *uniq);
        request.setExt(QByteArrayLiteral("transactionId"), *uniq);
    }
    request.setExt(QByteArrayLiteral("offsetMsgId"), half.offsetMsgId());
    request.body = transaction::checkStateBody(half);
    channel->invokeOneway(std::move(request));
    ++m_checksSent;
}

void TransactionalMessageService::discard(const HalfMessage &half, bool tooOld)
{
    qCWarning(lcBroker).noquote() << "transaction: half message" << half.offsetMsgId()
                                  << (tooOld ? "is older than fileReservedTime"
                                             : "has been checked too many times")
                                  << "- moving it to TRANS_CHECK_MAX_TIME_TOPIC";
    // A fixed, valid system topic name: the creation cannot fail.
    const TopicConfig tc = m_ctx.topics
                               ->createTopicInSendMessageBackMethod(
                                   transaction::kCheckMaxTimeTopic, 1, Perm::Read | Perm::Write)
                               .value();
    storage::MessageExtBrokerInner m = half.inner;
    m.topic = tc.topicName;
    m.queueId = 0;
    m.properties = half.properties.encode();
    m.preparedTransactionOffset = 0;
    m.waitStoreMsgOk = false;
    const storage::PutMessageResult r = m_ctx.store->putMessageAndWait(m);
    if (!r.isOk())
        qCWarning(lcBroker).noquote()
            << "transaction: putting to TRANS_CHECK_MAX_TIME_TOPIC failed:"
            << storage::putMessageStatusName(r.status) << r.remark;
    ++m_discarded;
}

void TransactionalMessageService::check()
{
    if (!m_ctx.store || !m_ctx.consumerOffsets || !m_ctx.topics || !m_ctx.config)
        return;
    std::lock_guard lock(m_checkMutex);
    const TopicConfig half = m_ctx.topics
                                 ->createTopicInSendMessageBackMethod(
                                     transaction::kHalfTopic, 1, Perm::Read | Perm::Write)
                                 .value();
    for (int queueId = 0; queueId < std::max(1, half.readQueueNums); ++queueId) {
        try {
            checkQueue(
                queueId, m_ctx.config->transactionTimeOut, m_ctx.config->transactionCheckMax);
        } catch (const std::exception &e) {
            qCWarning(lcBroker) << "transaction: check of half queue" << queueId
                                << "failed:" << e.what();
        }
    }
}

void TransactionalMessageService::checkQueue(
    int queueId, std::int64_t transactionTimeout, int transactionCheckMax)
{
    const QByteArrayView halfTopic = transaction::kHalfTopic;
    const QByteArrayView opTopic = transaction::kOpHalfTopic;
    const QByteArrayView group = transaction::kConsumerGroup;
    const std::int64_t startTime = now();
    const std::int64_t halfOffset = progress(halfTopic, queueId);
    const std::int64_t opOffset = progress(opTopic, queueId);
    if (halfOffset < 0 || opOffset < 0)
        return;

    std::vector<std::int64_t> doneOpOffset;
    std::unordered_map<std::int64_t, std::int64_t> removeMap; // half offset -> op offset

    // fillOpRemoveMap
    const auto fillOpRemoveMap = [&](std::int64_t pullOffset) {
        const storage::GetMessageResult got
            = m_ctx.store->getMessage(group, opTopic, queueId, pullOffset, kOpPullBatch);
        OpPull pull;
        pull.status = pullStatusOf(got.status);
        pull.nextBeginOffset = got.nextBeginOffset;
        if (pull.status == PullStatus::OffsetIllegal || pull.status == PullStatus::NoMatchedMsg) {
            m_ctx.consumerOffsets->commit(group, opTopic, queueId, got.nextBeginOffset);
            return pull;
        }
        if (pull.status != PullStatus::Found || got.messages.empty())
            return pull;
        pull.hasMessages = true;
        for (std::size_t k = 0; k < got.messages.size(); ++k) {
            protocol::MessageRecordView op;
            if (protocol::decodeRecord(got.messages[k], op, false).status
                != protocol::RecordStatus::Ok)
                continue;
            pull.lastBornTimestamp = op.bornTimestamp;
            const std::int64_t halfQueueOffset = parseLong(op.body);
            if (protocol::findProperty(op.properties, mc::Tags) != transaction::kRemoveTag) {
                qCWarning(lcBroker)
                    << "transaction: op record at" << op.queueOffset << "has an unknown tag";
                continue;
            }
            if (halfQueueOffset < halfOffset)
                doneOpOffset.push_back(op.queueOffset);
            else
                removeMap[halfQueueOffset] = op.queueOffset;
        }
        return pull;
    };

    OpPull pullResult = fillOpRemoveMap(opOffset);
    int getMessageNullCount = 1;
    std::int64_t newOffset = halfOffset;
    std::int64_t i = halfOffset;
    while (true) {
        if (now() - startTime > kMaxProcessTimeLimitMs)
            break;
        if (m_service.isStopping())
            break;
        if (auto it = removeMap.find(i); it != removeMap.end()) {
            doneOpOffset.push_back(it->second);
            removeMap.erase(it);
        } else {
            const storage::GetMessageResult got
                = m_ctx.store->getMessage(group, halfTopic, queueId, i, 1);
            std::optional<HalfMessage> msg;
            if (got.status == GetMessageStatus::Found && !got.messages.empty())
                msg = HalfMessage::decode(got.messages.front());
            if (!msg && got.status == GetMessageStatus::Found) {
                qCWarning(lcBroker) << "transaction: half queue" << queueId << "offset" << i
                                    << "holds no readable record, skipped";
                newOffset = ++i;
                continue;
            }
            if (!msg) {
                if (getMessageNullCount++ > kMaxRetryCountWhenHalfNull)
                    break;
                if (pullStatusOf(got.status) == PullStatus::NoNewMsg)
                    break;
                i = got.nextBeginOffset;
                newOffset = i;
                continue;
            }
            // needDiscard (also counts the check) || needSkip
            bool discardIt = false;
            if (const QByteArray *times = msg->properties.find(mc::TransactionCheckTimes)) {
                bool ok = false;
                const int checkTime = times->toInt(&ok);
                if ((ok ? checkTime : -1) >= transactionCheckMax)
                    discardIt = true;
                else
                    msg->properties.set(mc::TransactionCheckTimes.toByteArray(),
                        QByteArray::number((ok ? checkTime : -1) + 1));
            } else {
                msg->properties.set(
                    mc::TransactionCheckTimes.toByteArray(), QByteArrayLiteral("1"));
            }
            const bool tooOld = !discardIt
                && now() - msg->inner.bornTimestamp
                    > std::int64_t(m_ctx.store->config().fileReservedTime) * 3600 * 1000;
            if (discardIt || tooOld) {
                discard(*msg, tooOld);
                newOffset = i + 1;
                ++i;
                continue;
            }
            if (msg->storeTimestamp >= startTime)
                break; // stored after this pass began
            const std::int64_t valueOfCurrentMinusBorn = now() - msg->inner.bornTimestamp;
            std::int64_t checkImmunityTime = transactionTimeout;
            if (const QByteArray *immunity = msg->properties.find(mc::CheckImmunityTimeInSeconds)) {
                const std::int64_t seconds = parseLong(*immunity);
                checkImmunityTime = seconds == -1 ? transactionTimeout : seconds * 1000;
                if (valueOfCurrentMinusBorn < checkImmunityTime) {
                    // checkPrepareQueueOffset
                    bool skip = false;
                    const QByteArray *prepared
                        = msg->properties.find(mc::TransactionPreparedQueueOffset);
                    const std::int64_t preparedOffset = prepared ? parseLong(*prepared) : 0;
                    if (prepared && preparedOffset != -1) {
                        if (auto found = removeMap.find(preparedOffset); found != removeMap.end()) {
                            doneOpOffset.push_back(found->second);
                            removeMap.erase(found);
                            skip = true;
                        }
                    }
                    if (!skip && (!prepared || preparedOffset != -1)) {
                        // putImmunityMsgBackToHalfQueue
                        HalfMessage immune = *msg;
                        if (!prepared)
                            immune.properties.set(mc::TransactionPreparedQueueOffset.toByteArray(),
                                QByteArray::number(msg->queueOffset));
                        skip = m_ctx.store
                                   ->putMessageAndWait(transaction::renewedHalfMessage(immune))
                                   .isOk();
                    }
                    if (skip) {
                        newOffset = i + 1;
                        ++i;
                        continue;
                    }
                }
            } else if (0 <= valueOfCurrentMinusBorn
                && valueOfCurrentMinusBorn < checkImmunityTime) {
                break; // not old enough yet; neither is anything after it
            }
            const bool isNeedCheck
                = (!pullResult.hasMessages && valueOfCurrentMinusBorn > checkImmunityTime)
                || (pullResult.hasMessages
                    && pullResult.lastBornTimestamp - startTime > transactionTimeout)
                || valueOfCurrentMinusBorn <= -1;
            if (isNeedCheck) {
                if (!putBack(*msg))
                    continue;
                sendCheck(*msg);
            } else {
                pullResult = fillOpRemoveMap(pullResult.nextBeginOffset);
                continue;
            }
        }
        newOffset = i + 1;
        ++i;
    }
    if (newOffset != halfOffset)
        m_ctx.consumerOffsets->commit(group, halfTopic, queueId, newOffset);
    // calculateOpOffset
    std::sort(doneOpOffset.begin(), doneOpOffset.end());
    std::int64_t newOpOffset = opOffset;
    for (std::int64_t done : doneOpOffset) {
        if (done != newOpOffset)
            break;
        ++newOpOffset;
    }
    if (newOpOffset != opOffset)
        m_ctx.consumerOffsets->commit(group, opTopic, queueId, newOpOffset);
}

void TransactionalMessageService::start()
{
    if (m_ctx.config
        && (!m_ctx.config->isMaster() || m_ctx.config->brokerRole == QLatin1String("SLAVE"))) {
        qCInfo(lcBroker) << "transaction: slave broker, no transaction check-back here";
        return;
    }
    if (m_service.isRunning())
        return;
    m_service.start([this] { run(); }, "qr-txcheck");
}

void TransactionalMessageService::stop()
{
    // A stop() with no thread leaves check() usable, as before start().
    if (m_service.isRunning())
        m_service.stop();
}

bool TransactionalMessageService::isRunning() const
{
    return m_service.isRunning() && !m_service.isStopping();
}

void TransactionalMessageService::run()
{
    while (!m_service.isStopping()) {
        const std::int64_t interval = m_ctx.config && m_ctx.config->transactionCheckInterval > 0
            ? m_ctx.config->transactionCheckInterval
            : 60000;
        m_service.waitFor(std::chrono::milliseconds(interval));
        if (m_service.isStopping())
            break;
        try {
            check();
        } catch (const std::exception &e) {
            qCWarning(lcBroker) << "transaction: check failed:" << e.what();
        }
    }
}

} // namespace qrocket::broker
