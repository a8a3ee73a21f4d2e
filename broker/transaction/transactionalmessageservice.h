#pragma once

// TransactionalMessageService: the broker side of transactional messages (protocol.md §4.6,
// §8.5), RocketMQ 4.9's TransactionalMessageServiceImpl + TransactionalMessageBridge +
// TransactionalMessageCheckService + DefaultTransactionalMessageCheckListener.
//
// - endTransaction(): COMMIT (8) or ROLLBACK (12) of the half message at a commit-log offset,
//   with EndTransactionProcessor's checks (producer group, half queue offset, commit-log offset)
//   and answers. A commit stores the message in its real topic (committedMessage()) and then the
//   op record; a rollback stores only the op record.
// - check(): one pass of the check-back over every half queue. Progress is the consumer offset
//   of group CID_RMQ_SYS_TRANS on the half queue and on its op queue (so it survives a restart
//   with consumerOffset.json). A half message with no op record that is older than
//   transactionTimeOut (or its CHECK_IMMUNITY_TIME_IN_SECONDS) is re-appended to the half queue
//   with TRANSACTION_CHECK_TIMES incremented and CHECK_TRANSACTION_STATE (39) goes oneway to a
//   live channel of its producer group; one checked transactionCheckMax times already, or older
//   than the store's fileReservedTime, is moved to TRANS_CHECK_MAX_TIME_TOPIC instead.
// - start()/stop(): a thread running check() every transactionCheckInterval (read at each wait,
//   so UPDATE_BROKER_CONFIG applies). Only a master checks: start() does nothing on a slave.
//
// Ownership: the controller owns the service; the BrokerContext members it uses (config, store,
// topics, consumerOffsets, producers) must outlive it. Thread-safety: endTransaction() from any
// thread; check() is serialised internally; start()/stop() from the owning thread.

#include "storage/core/servicethread.h"
#include "storage/core/storetypes.h"

#include <QByteArray>

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>

namespace qrocket::broker {

struct BrokerContext;

namespace transaction {
struct HalfMessage;
}

/// END_TRANSACTION's header (EndTransactionRequestHeader).
struct EndTransactionHeader
{
    QByteArray producerGroup;
    std::int64_t tranStateTableOffset = 0;
    std::int64_t commitLogOffset = 0;
    std::int32_t commitOrRollback = 0; // 0 NOT, 8 COMMIT, 12 ROLLBACK
    bool fromTransactionCheck = false;
    QByteArray msgId;
    QByteArray transactionId;
};

class TransactionalMessageService
{
public:
    using Clock = std::function<std::int64_t()>; // ms since the epoch

    /// RocketMQ's MAX_PROCESS_TIME_LIMIT: one queue's pass stops after this long.
    static constexpr std::int64_t kMaxProcessTimeLimitMs = 60000;

    explicit TransactionalMessageService(BrokerContext &ctx, Clock clock = {});
    ~TransactionalMessageService();
    TransactionalMessageService(const TransactionalMessageService &) = delete;
    TransactionalMessageService &operator=(const TransactionalMessageService &) = delete;

    struct Answer
    {
        int code = 0;
        QByteArray remark;
    };
    /// COMMIT or ROLLBACK (other types: the caller answers nothing, as RocketMQ).
    Answer endTransaction(const EndTransactionHeader &header);

    /// One check pass with the configured timeout and maximum.
    void check();

    void start();
    void stop();
    /// From the owning thread, like start()/stop().
    bool isRunning() const;

    /// CHECK_TRANSACTION_STATE requests sent / half messages discarded, since construction.
    std::int64_t checksSent() const { return m_checksSent.load(); }
    std::int64_t discarded() const { return m_discarded.load(); }

private:
    void checkQueue(int halfQueueId, std::int64_t transactionTimeout, int transactionCheckMax);
    /// fetchConsumeOffset: the CID_RMQ_SYS_TRANS offset, else the queue's min offset.
    std::int64_t progress(QByteArrayView topic, int queueId) const;
    bool putOpRecord(const transaction::HalfMessage &half);
    /// putBackHalfMsgQueue: re-appends; updates the half's queue/commit-log offsets.
    bool putBack(transaction::HalfMessage &half);
    void sendCheck(transaction::HalfMessage &half);
    void discard(const transaction::HalfMessage &half, bool tooOld);
    protocol::HostAddress storeHost() const;
    std::int64_t now() const { return m_clock(); }
    void run();

    BrokerContext &m_ctx;
    Clock m_clock;
    std::mutex m_checkMutex; // serialises check()
    std::atomic<std::int64_t> m_checksSent {0};
    std::atomic<std::int64_t> m_discarded {0};

    storage::ServiceThread m_service;
};

} // namespace qrocket::broker
