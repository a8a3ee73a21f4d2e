#include "tests/soak/soakload.h"

#include "clientlib/protocol/messageid.h"

#include <chrono>

namespace qrocket::soak {

std::int64_t steadyMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

namespace {

constexpr std::uint16_t kAckedBit = 0x8000;
constexpr std::uint16_t kCountMask = 0x7fff;

/// Parses "K<producer>:<seq>;" at the start of `body`.
bool parseKey(const QByteArray &body, int &producer, std::uint32_t &seq)
{
    if (body.size() < 4 || body[0] != 'K')
        return false;
    qsizetype i = 1;
    std::uint64_t p = 0;
    std::uint64_t s = 0;
    bool any = false;
    for (; i < body.size() && body[i] >= '0' && body[i] <= '9' && p < 100000; ++i, any = true)
        p = p * 10 + std::uint64_t(body[i] - '0');
    if (!any || i >= body.size() || body[i] != ':')
        return false;
    any = false;
    for (++i; i < body.size() && body[i] >= '0' && body[i] <= '9' && s <= 0xffffffffu;
         ++i, any = true)
        s = s * 10 + std::uint64_t(body[i] - '0');
    if (!any || i >= body.size() || body[i] != ';' || s > 0xffffffffu)
        return false;
    producer = int(p);
    seq = std::uint32_t(s);
    return true;
}

} // namespace

int Ledger::newProducer()
{
    std::lock_guard lock(m_mutex);
    m_keys.emplace_back();
    return int(m_keys.size()) - 1;
}

void Ledger::acked(int producer, std::uint32_t seq)
{
    std::lock_guard lock(m_mutex);
    auto &v = m_keys[std::size_t(producer)];
    if (v.size() <= seq)
        v.resize(std::size_t(seq) + 1, 0);
    v[seq] |= kAckedBit;
}

bool Ledger::received(const QByteArray &body)
{
    int producer = 0;
    std::uint32_t seq = 0;
    m_deliveries.fetch_add(1);
    std::lock_guard lock(m_mutex);
    if (!parseKey(body, producer, seq) || producer >= int(m_keys.size())) {
        m_foreign.fetch_add(1);
        return false;
    }
    auto &v = m_keys[std::size_t(producer)];
    if (v.size() <= seq)
        v.resize(std::size_t(seq) + 1, 0);
    if ((v[seq] & kCountMask) != kCountMask)
        ++v[seq];
    return true;
}

Ledger::Totals Ledger::totals() const
{
    Totals t;
    t.deliveries = m_deliveries.load();
    t.foreign = m_foreign.load();
    std::lock_guard lock(m_mutex);
    for (const auto &v : m_keys)
        for (std::uint16_t k : v) {
            const int count = k & kCountMask;
            if (k & kAckedBit) {
                ++t.acked;
                if (count == 0)
                    ++t.lost;
            } else if (count > 0) {
                ++t.unackedDelivered;
            }
            if (count > 1)
                t.duplicates += count - 1;
        }
    return t;
}

QList<QByteArray> Ledger::someLost(int n) const
{
    QList<QByteArray> out;
    std::lock_guard lock(m_mutex);
    for (std::size_t p = 0; p < m_keys.size(); ++p)
        for (std::size_t s = 0; s < m_keys[p].size() && out.size() < n; ++s)
            if ((m_keys[p][s] & kAckedBit) && (m_keys[p][s] & kCountMask) == 0)
                out.push_back("K" + QByteArray::number(qulonglong(p)) + ':'
                    + QByteArray::number(qulonglong(s)));
    return out;
}

int SendStats::replicaOfPort(int port) const
{
    for (int i = 0; i < kMaxReplicas; ++i)
        if (ports[std::size_t(i)].load() == port)
            return i;
    return -1;
}

LoadProducer::LoadProducer(QByteArray namesrv, QByteArray name, Ledger &ledger, SendStats &stats,
    double rate, int bodySize, int maxInFlight)
    : m_name(std::move(name))
    , m_ledger(ledger)
    , m_stats(stats)
    , m_rate(rate)
    , m_bodySize(bodySize)
    , m_maxInFlight(maxInFlight)
    , m_id(ledger.newProducer())
{
    client::ProducerOptions o;
    o.group = "SoakProducer-" + m_name;
    o.client.namesrvAddr = std::move(namesrv);
    o.client.clientIP = "127.0.0.1";
    o.client.instanceName = "soak-" + m_name;
    o.sendMsgTimeout = 3000;
    m_producer = std::make_unique<client::Producer>(o);
}

LoadProducer::~LoadProducer()
{
    stop();
}

Status LoadProducer::start(bool pacing)
{
    if (Status s = m_producer->start(); !s)
        return s;
    if (pacing)
        m_thread = std::thread([this] { pace(); });
    return {};
}

void LoadProducer::stop()
{
    m_stop = true;
    if (m_thread.joinable())
        m_thread.join();
    // The sends in flight end within sendMsgTimeout (with their retries); bounded anyway.
    const std::int64_t until = steadyMs() + 15000;
    while (m_inFlight.load() > 0 && steadyMs() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (m_producer)
        m_producer->shutdown();
}

QString LoadProducer::sendOneSync()
{
    const std::uint32_t seq = m_seq.fetch_add(1);
    const QByteArray key = "K" + QByteArray::number(m_id) + ':' + QByteArray::number(seq) + ';';
    auto r = m_producer->sendSync(client::Message(kTopic, "soak", key.chopped(1), key));
    if (!r)
        return r.error().toString();
    m_ledger.acked(m_id, seq);
    return {};
}

void LoadProducer::pace()
{
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    std::uint64_t ticks = 0;
    while (!m_stop.load()) {
        if (m_rate > 0) {
            const auto due
                = t0 + std::chrono::microseconds(std::int64_t(double(ticks) * 1e6 / m_rate));
            const auto now = clock::now();
            if (due > now) {
                std::this_thread::sleep_for(
                    std::min<clock::duration>(due - now, std::chrono::milliseconds(50)));
                continue;
            }
            ++ticks;
            if (now - due > std::chrono::seconds(1)) // far behind (a stall): do not burst
                ticks = std::uint64_t(std::chrono::duration<double>(now - t0).count() * m_rate);
        }
        if (m_inFlight.load() >= m_maxInFlight) {
            m_stats.throttled.fetch_add(1);
            if (m_rate <= 0)
                std::this_thread::sleep_for(std::chrono::microseconds(200));
            continue;
        }
        sendOne();
    }
}

void LoadProducer::sendOne()
{
    const std::uint32_t seq = m_seq.fetch_add(1);
    QByteArray body = "K" + QByteArray::number(m_id) + ':' + QByteArray::number(seq) + ';';
    const QByteArray key = body.chopped(1);
    if (body.size() < m_bodySize)
        body.append(m_bodySize - body.size(), 'x');
    m_inFlight.fetch_add(1);
    const std::int64_t startUs = std::chrono::duration_cast<std::chrono::microseconds>(
        std::chrono::steady_clock::now().time_since_epoch())
                                     .count();
    m_producer->sendAsync(client::Message(kTopic, "soak", key, std::move(body)),
        [this, seq, startUs](Result<client::SendResult> r) {
            const std::int64_t nowUs = std::chrono::duration_cast<std::chrono::microseconds>(
                std::chrono::steady_clock::now().time_since_epoch())
                                           .count();
            if (r && r->status == client::SendStatus::SendOk) {
                m_ledger.acked(m_id, seq);
                m_stats.ok.fetch_add(1);
                const std::uint64_t us = std::uint64_t(std::max<std::int64_t>(0, nowUs - startUs));
                m_stats.allLatency.record(us);
                int replica = -1;
                if (auto id = protocol::decodeOffsetMessageId(r->offsetMsgId))
                    replica = m_stats.replicaOfPort(id->storeHost.port);
                if (replica >= 0) {
                    m_stats.latency[std::size_t(replica)].record(us);
                    const int killed = m_stats.watchKilled.load();
                    std::int64_t none = 0;
                    if (killed >= 0 && replica != killed
                        && nowUs / 1000 >= m_stats.watchSinceMs.load())
                        m_stats.firstAckAfterMs.compare_exchange_strong(none, nowUs / 1000);
                }
            } else {
                m_stats.failed.fetch_add(1);
                std::lock_guard lock(m_stats.errorMutex);
                m_stats.lastError
                    = r ? QStringLiteral("status %1").arg(int(r->status)) : r.error().toString();
            }
            m_inFlight.fetch_sub(1);
        });
}

std::unique_ptr<client::PushConsumer> startConsumer(
    const QByteArray &namesrv, const QByteArray &instance, Ledger &ledger, QString *error)
{
    client::PushConsumerOptions o;
    o.group = kGroup;
    o.client.namesrvAddr = namesrv;
    o.client.clientIP = "127.0.0.1";
    o.client.instanceName = instance;
    o.consumeFromWhere = client::ConsumeFromWhere::ConsumeFromFirstOffset;
    o.consumeThreadMin = 4;
    o.consumeThreadMax = 4;
    o.consumeMessageBatchMaxSize = 32;
    auto c = std::make_unique<client::PushConsumer>(o);
    c->subscribe(kTopic, "*");
    c->registerMessageListener([&ledger](const std::vector<client::MessageExt> &msgs,
                                   client::ConsumeConcurrentlyContext &) {
        for (const auto &m : msgs)
            ledger.received(m.body());
        return client::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    if (Status s = c->start(); !s) {
        if (error)
            *error = s.toString();
        return nullptr;
    }
    return c;
}

} // namespace qrocket::soak
