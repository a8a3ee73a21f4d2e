#pragma once

// Shared fixture of the broker-extras unit tests (schedule, send-back, admin): a real
// MessageStore in a QTemporaryDir with small files, the managers, a BrokerContext over them and
// the ScheduleMessageService, plus helpers to put messages and call processors synchronously.

#include "broker/common/brokercontext.h"
#include "broker/config/brokerconfig.h"
#include "broker/config/brokerconfiguration.h"
#include "broker/managers/brokerstats.h"
#include "broker/managers/consumermanager.h"
#include "broker/managers/consumeroffsetmanager.h"
#include "broker/managers/delayoffsetmanager.h"
#include "broker/managers/producermanager.h"
#include "broker/managers/subscriptiongroupmanager.h"
#include "broker/managers/topicconfigmanager.h"
#include "broker/schedule/schedulemessageservice.h"
#include "clientlib/protocol/messageproperties.h"
#include "clientlib/remoting/requestprocessor.h"
#include "storage/messagestore.h"

#include <QDateTime>
#include <QDebug>
#include <QTemporaryDir>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>

namespace qrocket::testing {

struct ExtrasFixture
{
    QTemporaryDir dir;
    broker::BrokerConfig config;
    std::unique_ptr<storage::MessageStore> store;
    std::unique_ptr<broker::TopicConfigManager> topics;
    std::unique_ptr<broker::SubscriptionGroupManager> groups;
    std::unique_ptr<broker::ConsumerOffsetManager> offsets;
    std::unique_ptr<broker::DelayOffsetManager> delays;
    std::unique_ptr<broker::ConsumerManager> consumers;
    std::unique_ptr<broker::ProducerManager> producers;
    std::unique_ptr<broker::ScheduleMessageService> schedule;
    std::unique_ptr<broker::BrokerConfiguration> configuration;
    broker::BrokerStats stats;
    broker::BrokerContext ctx;
    std::atomic<int> registerCalls {0};
    /// Wall clock of the store and the schedule; real time unless set.
    std::atomic<std::int64_t> fakeNow {0};
    /// The store's disk probe when set before open() (else statvfs).
    storage::DiskSpaceProbe disk;

    std::int64_t now() const
    {
        const std::int64_t f = fakeNow.load();
        return f ? f : QDateTime::currentMSecsSinceEpoch();
    }

    /// Opens everything under `root` (default: the temporary dir).
    bool open(const QString &delayLevels
        = QStringLiteral("1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h"),
        QString root = {})
    {
        if (root.isEmpty())
            root = dir.path();
        config.brokerName = QStringLiteral("broker-a");
        config.brokerClusterName = QStringLiteral("DefaultCluster");
        config.storePathRootDir = root;
        config.messageDelayLevel = delayLevels;
        config.namesrvAddr.clear();
        (void)config.validate();

        storage::MessageStoreConfig sc;
        sc.storePathRootDir = root;
        sc.mappedFileSizeCommitLog = 4 * 1024 * 1024;
        sc.maxMessageSize = 1024 * 1024;
        sc.mappedFileSizeConsumeQueue = 20 * 1000;
        sc.maxHashSlotNum = 1000;
        sc.maxIndexNum = 4000;
        sc.messageDelayLevel = delayLevels;
        storage::StoreOptions options;
        options.clock = [this] { return now(); };
        options.runCleanService = false;
        options.diskSpace = disk;
        store = std::make_unique<storage::MessageStore>(sc, options);

        topics = std::make_unique<broker::TopicConfigManager>(
            config, broker::TopicConfigManager::filePath(root));
        groups = std::make_unique<broker::SubscriptionGroupManager>(
            true, broker::SubscriptionGroupManager::filePath(root));
        offsets = std::make_unique<broker::ConsumerOffsetManager>(
            broker::ConsumerOffsetManager::filePath(root));
        delays = std::make_unique<broker::DelayOffsetManager>(
            broker::DelayOffsetManager::filePath(root));
        consumers = std::make_unique<broker::ConsumerManager>();
        producers = std::make_unique<broker::ProducerManager>();
        (void)topics->load();
        (void)groups->load();
        (void)offsets->load();
        (void)delays->load();

        configuration = std::make_unique<broker::BrokerConfiguration>(config, sc, QString());
        ctx.config = &config;
        ctx.configuration = configuration.get();
        ctx.stats = &stats;
        ctx.store = store.get();
        ctx.topics = topics.get();
        ctx.subscriptionGroups = groups.get();
        ctx.consumerOffsets = offsets.get();
        ctx.delayOffsets = delays.get();
        ctx.consumers = consumers.get();
        ctx.producers = producers.get();
        ctx.storeHost = QByteArrayLiteral("127.0.0.1:10911");
        ctx.registerBrokerAllNow = [this] { ++registerCalls; };
        // A created topic reaches the name servers through the topic manager's listener (an
        // incremental registration, wired by the controller): counted as a registration too.
        topics->setChangeListener([this](const QByteArray &) { ++registerCalls; });
        schedule = std::make_unique<broker::ScheduleMessageService>(ctx, [this] { return now(); });
        ctx.schedule = schedule.get();
        schedule->installTagsCodeResolver(*store);
        const Status st = store->open();
        if (!st)
            qWarning().noquote() << "store open failed:" << st.message();
        return bool(st);
    }

    void close()
    {
        if (schedule)
            schedule->stop();
        schedule.reset();
        if (store)
            store->shutdown();
        store.reset();
    }

    ~ExtrasFixture() { close(); }

    static storage::MessageExtBrokerInner message(const QByteArray &topic, int queueId,
        const QByteArray &body, const protocol::MessageProperties &props)
    {
        storage::MessageExtBrokerInner m;
        m.topic = topic;
        m.queueId = queueId;
        m.body = body;
        m.properties = props.encode();
        m.bornTimestamp = QDateTime::currentMSecsSinceEpoch();
        protocol::HostAddress::parse("127.0.0.1:50000", m.bornHost);
        protocol::HostAddress::parse("127.0.0.1:10911", m.storeHost);
        return m;
    }

    storage::PutMessageResult put(storage::MessageExtBrokerInner m)
    {
        const storage::PutMessageResult r = store->putMessageAndWait(m);
        store->waitForDispatch(5000);
        return r;
    }

    /// The stored record at a queue offset, decoded (record bytes kept alive in `keep`).
    std::optional<protocol::MessageRecordView> recordAt(QByteArrayView topic, int queueId,
        std::int64_t queueOffset, storage::GetMessageResult &keep) const
    {
        keep = store->getMessage("test", topic, queueId, queueOffset, 1);
        if (keep.messages.empty())
            return std::nullopt;
        protocol::MessageRecordView v;
        if (protocol::decodeRecord(keep.messages.front(), v, true).status
            != protocol::RecordStatus::Ok)
            return std::nullopt;
        return v;
    }

    /// Calls a processor and returns its (synchronous or inline-completed) response. A topic or
    /// subscription group change (UPDATE_AND_CREATE_TOPIC, UPDATE_AND_CREATE_SUBSCRIPTIONGROUP)
    /// is answered once it is durable, maybe from the config journal's sync thread: its answer is
    /// waited for (bounded).
    static std::optional<protocol::RemotingCommand> call(remoting::RequestProcessor &p,
        const protocol::RemotingCommand &request, const remoting::ChannelPtr &channel = {})
    {
        struct Answer
        {
            std::mutex mutex;
            std::condition_variable cv;
            std::optional<protocol::RemotingCommand> response; // guarded by mutex
        };
        auto out = std::make_shared<Answer>();
        p.processRequest(channel, request, [out](protocol::RemotingCommand r) {
            std::lock_guard lock(out->mutex);
            out->response = std::move(r);
            out->cv.notify_all();
        });
        std::unique_lock lock(out->mutex);
        if (request.code == 17 || request.code == 200)
            out->cv.wait_for(
                lock, std::chrono::seconds(10), [&] { return out->response.has_value(); });
        return out->response;
    }

    static protocol::RemotingCommand request(
        int code, std::initializer_list<std::pair<const char *, QByteArray>> ext = {})
    {
        protocol::RemotingCommand r = protocol::RemotingCommand::createRequest(code);
        for (const auto &[k, v] : ext)
            r.setExt(QByteArray(k), v);
        return r;
    }
};

} // namespace qrocket::testing
