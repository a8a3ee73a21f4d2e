// ClusterSession's catalogue polls: topics (topicList + GET_ALL_TOPIC_CONFIG of every master),
// groups (GET_ALL_SUBSCRIPTIONGROUP_CONFIG of every master), the round-robin consumeStats of
// the groups, and the focus topic / group (see clustersession.h).

#include "clientlib/protocol/systemtopics.h"
#include "console/gui/clustersession.h"

#include <QDateTime>
#include <QTimer>

#include <algorithm>
#include <mutex>
#include <set>

namespace qrocket::console {

namespace {

constexpr int kCatalogTimeoutMs = 8000;
constexpr int kFastTimeoutMs = 2500;

/// A group no consumer ever connected to has no %RETRY% topic (the broker creates it at the first
/// heartbeat): the name server answers TOPIC_NOT_EXIST for it. Expected, not a failure.
bool neverConsumed(const Status &e)
{
    return e.remoteCode() == 17 && e.toString().contains(QLatin1String("%RETRY%"));
}
/// A group's stats younger than this are not asked again by the round-robin.
constexpr std::int64_t kGroupStatsMinAgeMs = 3000;

/// Answers of one catalogue round, gathered on the Admin's callback threads until every call is
/// in; the last one prepares the rows there (off the GUI thread).
struct TopicRound
{
    std::mutex mutex;
    int pending = 0;
    std::optional<std::vector<QByteArray>> names;
    std::optional<std::vector<QByteArray>> systemTopics; // sorted
    std::vector<QByteArray> previousSystemTopics;
    std::map<QByteArray, TopicInfo> configs;
    QStringList errors;
};

struct GroupRound
{
    int pending = 0;
    bool anyOk = false;
    std::map<QByteArray, GroupInfo> groups;
    QStringList errors;
    // kGetPopStats of the masters that have it: group -> modes seen, in flight, backlog
    std::map<QByteArray, std::set<QByteArray>> modes;
    std::map<QByteArray, std::pair<std::int64_t, std::int64_t>> pop;
    bool popKnown = false;
};

/// The topics of a group's offset table, without its %RETRY% topic, sorted.
std::vector<QByteArray> topicsOf(const client::admin::ConsumeStats &stats)
{
    std::vector<QByteArray> out;
    for (const auto &entry : stats.offsetTable) {
        const QByteArray &t = entry.first.topic;
        if (!t.startsWith(protocol::topics::kRetryPrefix) && (out.empty() || out.back() != t)
            && std::find(out.begin(), out.end(), t) == out.end())
            out.push_back(t);
    }
    std::sort(out.begin(), out.end());
    return out;
}

/// One per-topic round's answers, summed on the GUI thread until every call is in.
struct RatesRound
{
    int pending = 0;
    std::map<QByteArray, std::pair<double, double>> rates; // topic -> put, get
    std::map<QByteArray, bool> answered; // topic -> some call about it succeeded
};

} // namespace

QByteArray ClusterSession::defaultTopic() const
{
    for (const TopicInfo &t : m_topics) { // sorted by name
        if (t.type == TopicType::Normal)
            return t.name;
    }
    return QByteArrayLiteral("TBW102");
}

const GroupInfo *ClusterSession::group(const QByteArray &name) const
{
    auto it = m_groupIndex.constFind(name);
    return it == m_groupIndex.constEnd() ? nullptr : &m_groups[static_cast<std::size_t>(*it)];
}

void ClusterSession::pollTopics()
{
    if (m_inFlight.contains(QStringLiteral("topics"))) {
        m_catalogDue = true; // asked while a round runs (a new master): once it is in
        return;
    }
    const std::vector<QByteArray> masters = masterAddresses();
    auto round = std::make_shared<TopicRound>();
    round->pending = 1 + static_cast<int>(masters.size()) + 1;
    round->previousSystemTopics = m_systemTopics;
    m_inFlight.insert(QStringLiteral("topics"));
    // Runs on an Admin callback thread (or this one when a call fails at once). The last answer
    // in builds and sorts the rows there: at 100,000 topics that is a merge of every master's
    // table and a sort, which the GUI thread never waits for. It only takes the result.
    auto done = [this, round] {
        {
            std::lock_guard lock(round->mutex);
            if (--round->pending > 0)
                return;
        }
        // Every answer is in: nothing else touches the round any more.
        std::optional<std::vector<TopicInfo>> rows;
        if (round->names) {
            rows = prepareTopics(*round->names, round->configs,
                round->systemTopics ? *round->systemTopics : round->previousSystemTopics);
        }
        QMetaObject::invokeMethod(
            this,
            [this, round, rows = std::move(rows)]() mutable {
                m_inFlight.remove(QStringLiteral("topics"));
                if (round->systemTopics)
                    m_systemTopics = std::move(*round->systemTopics);
                qCDebug(lcConsole) << "topic round:" << (rows ? rows->size() : 0) << "rows,"
                                   << round->configs.size() << "configs, errors" << round->errors;
                if (!rows) {
                    m_topicsPart.error = round->errors.join(QStringLiteral("; "));
                    emit topicsUpdated();
                    updateProblems();
                    return;
                }
                applyPreparedTopics(std::move(*rows), round->errors);
            },
            Qt::QueuedConnection);
    };
    m_admin->topicListAsync(
        [round, done](Result<std::vector<QByteArray>> r) {
            {
                std::lock_guard lock(round->mutex);
                if (r)
                    round->names = std::move(r).value();
                else
                    round->errors << QStringLiteral("topic list: ") + r.error().toString();
            }
            done();
        },
        kCatalogTimeoutMs);
    m_admin->systemTopicListAsync(
        [round, done](Result<std::vector<QByteArray>> r) {
            if (r) {
                std::vector<QByteArray> system = std::move(r).value();
                std::sort(system.begin(), system.end());
                std::lock_guard lock(round->mutex);
                round->systemTopics = std::move(system);
            }
            done();
        },
        kCatalogTimeoutMs);
    for (const QByteArray &address : masters) {
        m_admin->allTopicConfigAsync(
            address,
            [round, done, address](Result<protocol::TopicConfigSerializeWrapper> r) {
                {
                    std::lock_guard lock(round->mutex);
                    if (!r) {
                        round->errors << QString::fromUtf8(address) + QStringLiteral(": ")
                                + r.error().toString();
                    } else {
                        for (const auto &[name, config] : r->topicConfigTable) {
                            TopicInfo &t = round->configs[name];
                            t.brokers += 1;
                            t.readQueues += config.readQueueNums;
                            t.writeQueues += config.writeQueueNums;
                            t.perm |= config.perm;
                            t.order = t.order || config.order;
                        }
                    }
                }
                done();
            },
            kCatalogTimeoutMs);
    }
}

std::vector<TopicInfo> ClusterSession::prepareTopics(const std::vector<QByteArray> &names,
    const std::map<QByteArray, TopicInfo> &configs, const std::vector<QByteArray> &systemTopics)
{
    std::vector<TopicInfo> topics;
    topics.reserve(names.size());
    for (const QByteArray &name : names) {
        TopicInfo t;
        if (auto it = configs.find(name); it != configs.end())
            t = it->second;
        t.name = name;
        t.type = classifyTopic(name, systemTopics);
        topics.push_back(std::move(t));
    }
    std::sort(topics.begin(), topics.end(),
        [](const TopicInfo &a, const TopicInfo &b) { return a.name < b.name; });
    return topics;
}

void ClusterSession::applyTopics(const std::vector<QByteArray> &names,
    const std::map<QByteArray, TopicInfo> &configs, const QStringList &errors)
{
    applyPreparedTopics(prepareTopics(names, configs, m_systemTopics), errors);
}

void ClusterSession::applyPreparedTopics(std::vector<TopicInfo> topics, const QStringList &errors)
{
    m_topics.swap(topics);
    m_topicsPart.lastOkMono = nowMono();
    m_topicsPart.error = errors.join(QStringLiteral("; "));
    emit topicsUpdated();
    updateProblems();
}

void ClusterSession::pollGroups()
{
    if (m_inFlight.contains(QStringLiteral("groups"))) {
        m_catalogDue = true;
        return;
    }
    const std::vector<QByteArray> masters = masterAddresses();
    if (masters.empty())
        return;
    auto round = std::make_shared<GroupRound>();
    round->pending = 2 * static_cast<int>(masters.size());
    m_inFlight.insert(QStringLiteral("groups"));
    const auto finish = [this, round] {
        if (--round->pending > 0)
            return;
        m_inFlight.remove(QStringLiteral("groups"));
        qCDebug(lcConsole) << "group round:" << round->groups.size() << "groups, errors"
                           << round->errors;
        for (auto &[name, g] : round->groups) {
            if (!round->popKnown)
                continue;
            const auto m = round->modes.find(name);
            g.mode = m == round->modes.end() || !m->second.count("POP") ? QByteArray("PULL")
                : m->second.count("PULL")                               ? QByteArray("PULL+POP")
                                                                        : QByteArray("POP");
            if (const auto p = round->pop.find(name); p != round->pop.end()) {
                g.popInFlight = p->second.first;
                g.reviveBacklog = p->second.second;
            }
        }
        applyGroups(round->groups, round->errors, round->anyOk);
    };
    for (const QByteArray &address : masters) {
        // A stock RocketMQ broker answers NotSupported: its groups pull (4.x) as far as we know.
        m_admin->popStatsAsync(address, {},
            onGui<protocol::PopStatsBody>([round, finish](Result<protocol::PopStatsBody> r) {
                if (r) {
                    round->popKnown = true;
                    for (const protocol::PopGroupStats &g : r->groups) {
                        round->modes[g.group].insert(g.mode);
                        auto &[inFlight, backlog] = round->pop[g.group];
                        inFlight += g.inFlight;
                        backlog += g.reviveBacklog;
                    }
                }
                finish();
            }),
            kCatalogTimeoutMs);
    }
    for (const QByteArray &address : masters) {
        m_admin->allSubscriptionGroupsAsync(address,
            onGui<client::admin::SubscriptionGroupWrapper>(
                [round, address, finish](Result<client::admin::SubscriptionGroupWrapper> r) {
                    if (!r) {
                        round->errors << QString::fromUtf8(address) + QStringLiteral(": ")
                                + r.error().toString();
                    } else {
                        round->anyOk = true;
                        for (const auto &[name, config] : r->subscriptionGroupTable) {
                            GroupInfo &g = round->groups[name];
                            g.name = name;
                            g.brokers += 1;
                            g.consumeEnable = g.consumeEnable && config.consumeEnable;
                            g.retryMaxTimes = g.retryMaxTimes < 0
                                ? config.retryMaxTimes
                                : std::min(g.retryMaxTimes, config.retryMaxTimes);
                        }
                    }
                    finish();
                }),
            kCatalogTimeoutMs);
    }
}

void ClusterSession::applyGroups(
    const std::map<QByteArray, GroupInfo> &groups, const QStringList &errors, bool anyOk)
{
    m_groupsPart.error = errors.join(QStringLiteral("; "));
    if (!anyOk) {
        emit groupsUpdated();
        updateProblems();
        return;
    }
    // Keep the stats already known; the map is sorted, so is m_groups.
    std::vector<GroupInfo> next;
    next.reserve(groups.size());
    for (const auto &[name, fresh] : groups) {
        GroupInfo g = fresh;
        if (auto it = m_groupIndex.constFind(name); it != m_groupIndex.constEnd()) {
            const GroupInfo &old = m_groups[static_cast<std::size_t>(*it)];
            g.statsKnown = old.statsKnown;
            g.statsError = old.statsError;
            g.statsOkMono = old.statsOkMono;
            g.lag = old.lag;
            g.consumeTps = old.consumeTps;
            g.queues = old.queues;
            g.topics = old.topics;
            g.topicNames = old.topicNames;
        }
        next.push_back(std::move(g));
    }
    m_groups = std::move(next);
    m_groupIndex.clear();
    m_groupIndex.reserve(static_cast<qsizetype>(m_groups.size()));
    for (std::size_t i = 0; i < m_groups.size(); ++i)
        m_groupIndex.insert(m_groups[i].name, static_cast<int>(i));
    if (m_groupCursor >= m_groups.size())
        m_groupCursor = 0;
    m_groupsPart.lastOkMono = nowMono();
    emit groupsUpdated();
    updateProblems();
}

void ClusterSession::markGroupsDirty()
{
    if (m_groupsDirty)
        return;
    m_groupsDirty = true;
    // One groupsUpdated for every answer of the same event-loop pass.
    QTimer::singleShot(0, this, [this] {
        m_groupsDirty = false;
        emit groupsUpdated();
    });
}

void ClusterSession::applyGroupStats(
    const QByteArray &name, const Result<client::admin::ConsumeStats> &r)
{
    auto it = m_groupIndex.constFind(name);
    if (it == m_groupIndex.constEnd())
        return;
    GroupInfo &row = m_groups[static_cast<std::size_t>(*it)];
    if (!r) {
        row.statsError = r.error().toString();
        // Never consumed / nobody online: a known state, not a failure.
        const int code = r.error().remoteCode();
        if (code == 17 || code == 206) {
            row.statsKnown = true;
            row.statsOkMono = nowMono();
            row.lag = 0;
            row.consumeTps = 0;
            row.queues = 0;
            row.topics = 0;
            row.topicNames.clear();
        }
    } else {
        row.statsKnown = true;
        row.statsError.clear();
        row.statsOkMono = nowMono();
        row.lag = r->totalLag();
        row.consumeTps = r->consumeTps;
        row.queues = static_cast<int>(r->offsetTable.size());
        row.topicNames = topicsOf(*r);
        row.topics = static_cast<int>(row.topicNames.size());
    }
    markGroupsDirty();
}

void ClusterSession::pollGroupStats()
{
    const std::int64_t now = nowMono();
    const std::size_t n = m_groups.size();
    std::size_t visited = 0;
    while (m_groupStatsInFlight < kGroupStatsBudget && visited < n) {
        const std::size_t i = (m_groupCursor + visited) % n;
        ++visited;
        GroupInfo &g = m_groups[i];
        if (g.statsOkMono && now - g.statsOkMono < kGroupStatsMinAgeMs)
            continue;
        const QString key = QStringLiteral("gs:") + QString::fromUtf8(g.name);
        if (m_inFlight.contains(key))
            continue;
        m_inFlight.insert(key);
        ++m_groupStatsInFlight;
        const QByteArray name = g.name;
        m_admin->consumeStatsAsync(name, {},
            onGui<client::admin::ConsumeStats>(
                [this, name, key](Result<client::admin::ConsumeStats> r) {
                    m_inFlight.remove(key);
                    --m_groupStatsInFlight;
                    applyGroupStats(name, r);
                }),
            kFastTimeoutMs);
    }
    if (n)
        m_groupCursor = (m_groupCursor + visited) % n;
}

// -- focus ----------------------------------------------------------------------------------

void ClusterSession::setFocusTopic(const QByteArray &topic)
{
    if (topic == m_focusTopic)
        return;
    m_focusTopic = topic;
    m_focusRoute.reset();
    m_focusStats.reset();
    m_focusTopicPart = {};
    emit focusTopicUpdated();
    pollFocusTopic();
}

void ClusterSession::pollFocusTopic()
{
    if (m_focusTopic.isEmpty() || m_inFlight.contains(QStringLiteral("focusTopic")))
        return;
    m_inFlight.insert(QStringLiteral("focusTopic"));
    const QByteArray topic = m_focusTopic;
    auto pending = std::make_shared<int>(2);
    auto errors = std::make_shared<QStringList>();
    auto done = [this, pending, errors, topic] {
        if (--*pending > 0)
            return;
        m_inFlight.remove(QStringLiteral("focusTopic"));
        if (topic != m_focusTopic)
            return;
        if (errors->isEmpty())
            m_focusTopicPart = {nowMono(), {}, false};
        else
            m_focusTopicPart.error = errors->join(QStringLiteral("; "));
        emit focusTopicUpdated();
    };
    m_admin->topicRouteAsync(topic,
        onGui<protocol::TopicRouteData>(
            [this, topic, errors, done](Result<protocol::TopicRouteData> r) {
                if (topic == m_focusTopic) {
                    if (r)
                        m_focusRoute = std::move(r).value();
                    else
                        *errors << QStringLiteral("route: ") + r.error().toString();
                }
                done();
            }),
        kFastTimeoutMs);
    m_admin->topicStatsAsync(topic,
        onGui<client::admin::TopicStatsTable>(
            [this, topic, errors, done](Result<client::admin::TopicStatsTable> r) {
                if (topic == m_focusTopic) {
                    if (r)
                        m_focusStats = std::move(r).value();
                    else
                        *errors << QStringLiteral("stats: ") + r.error().toString();
                }
                done();
            }),
        kFastTimeoutMs);
}

void ClusterSession::setFocusGroup(const QByteArray &group)
{
    if (group == m_focusGroup)
        return;
    m_focusGroup = group;
    m_focusConsume.reset();
    m_focusConnection.reset();
    m_focusConnectionError.clear();
    m_focusGroupPart = {};
    m_focusGroupNote.clear();
    emit focusGroupUpdated();
    pollFocusGroup();
}

void ClusterSession::pollFocusGroup()
{
    if (m_focusGroup.isEmpty() || m_inFlight.contains(QStringLiteral("focusGroup")))
        return;
    m_inFlight.insert(QStringLiteral("focusGroup"));
    const QByteArray group = m_focusGroup;
    auto pending = std::make_shared<int>(2);
    auto done = [this, pending, group] {
        if (--*pending > 0)
            return;
        m_inFlight.remove(QStringLiteral("focusGroup"));
        if (group == m_focusGroup)
            emit focusGroupUpdated();
    };
    m_admin->consumeStatsAsync(group, {},
        onGui<client::admin::ConsumeStats>([this, group, done](
                                               Result<client::admin::ConsumeStats> r) {
            if (group == m_focusGroup) {
                if (r) {
                    m_focusConsume = std::move(r).value();
                    m_focusGroupPart = {nowMono(), {}, false};
                    m_focusGroupNote.clear();
                    // Keep the catalogue's row in step with what the detail shows.
                    if (auto it = m_groupIndex.constFind(group); it != m_groupIndex.constEnd()) {
                        GroupInfo &g = m_groups[static_cast<std::size_t>(*it)];
                        g.statsKnown = true;
                        g.statsError.clear();
                        g.statsOkMono = nowMono();
                        g.lag = m_focusConsume->totalLag();
                        g.consumeTps = m_focusConsume->consumeTps;
                        g.queues = static_cast<int>(m_focusConsume->offsetTable.size());
                        g.topicNames = topicsOf(*m_focusConsume);
                        g.topics = static_cast<int>(g.topicNames.size());
                        markGroupsDirty();
                    }
                } else if (neverConsumed(r.error())) {
                    // No %RETRY% topic: no consumer of the group has ever connected (the
                    // broker creates it at the first heartbeat). Expected, not a failure.
                    m_focusConsume.reset();
                    m_focusGroupPart = {nowMono(), {}, false};
                    m_focusGroupNote = tr("No consume progress yet: no consumer of this group "
                                          "has connected (its %RETRY% topic does not exist).");
                } else {
                    m_focusGroupPart.error = r.error().toString();
                    m_focusGroupNote.clear();
                    if (r.error().remoteCode() == 17 || r.error().remoteCode() == 206)
                        m_focusConsume.reset();
                }
            }
            done();
        }),
        kFastTimeoutMs);
    m_admin->consumerConnectionAsync(group,
        onGui<client::admin::ConsumerConnection>(
            [this, group, done](Result<client::admin::ConsumerConnection> r) {
                if (group == m_focusGroup) {
                    if (r) {
                        m_focusConnection = std::move(r).value();
                        m_focusConnectionError.clear();
                    } else if (neverConsumed(r.error())) {
                        m_focusConnection = client::admin::ConsumerConnection {};
                        m_focusConnectionError.clear();
                    } else {
                        m_focusConnection.reset();
                        m_focusConnectionError = r.error().toString();
                    }
                }
                done();
            }),
        kFastTimeoutMs);
}

// -- per-topic rates ------------------------------------------------------------------------

void ClusterSession::pollTopicRates()
{
    const std::int64_t now = nowMono();
    if (m_inFlight.contains(QStringLiteral("topicRates"))
        || (m_topicRatesMono && now - m_topicRatesMono < kTopicRatesPeriodMs))
        return;
    const std::vector<QByteArray> masters = masterAddresses();
    std::vector<QByteArray> topics;
    for (const TopicInfo &t : m_topics) {
        if (t.type == TopicType::Normal)
            topics.push_back(t.name);
    }
    if (masters.empty() || topics.empty())
        return;
    m_topicRatesMono = now;
    // Who consumes what, from the groups' offset tables (the round-robin's).
    std::map<QByteArray, std::vector<QByteArray>> consumers;
    for (const GroupInfo &g : m_groups) {
        for (const QByteArray &t : g.topicNames)
            consumers[t].push_back(g.name);
    }
    // As many topics as the budget holds, from the cursor on (all of them, usually).
    struct Call
    {
        QByteArray broker, statsName, key, topic;
        bool put;
    };
    std::vector<Call> calls;
    std::size_t taken = 0;
    const std::size_t n = topics.size();
    if (m_topicRatesCursor >= n)
        m_topicRatesCursor = 0;
    while (taken < n) {
        const QByteArray &topic = topics[(m_topicRatesCursor + taken) % n];
        const auto it = consumers.find(topic);
        const std::size_t groups = it == consumers.end() ? 0 : it->second.size();
        const std::size_t cost = masters.size() * (1 + groups);
        if (taken > 0 && calls.size() + cost > static_cast<std::size_t>(kTopicRatesBudget))
            break;
        for (const QByteArray &broker : masters) {
            calls.push_back({broker, "TOPIC_PUT_NUMS", topic, topic, true});
            if (it != consumers.end()) {
                for (const QByteArray &group : it->second)
                    calls.push_back({broker, "GROUP_GET_NUMS", topic + '@' + group, topic, false});
            }
        }
        ++taken;
    }
    m_topicRatesCursor = (m_topicRatesCursor + taken) % n;
    auto round = std::make_shared<RatesRound>();
    round->pending = static_cast<int>(calls.size());
    m_inFlight.insert(QStringLiteral("topicRates"));
    const std::int64_t epochNow = QDateTime::currentMSecsSinceEpoch();
    for (const Call &c : calls) {
        round->rates[c.topic];
        m_admin->brokerStatsDataAsync(c.broker, c.statsName, c.key,
            onGui<client::admin::BrokerStatsData>(
                [this, round, c, epochNow](Result<client::admin::BrokerStatsData> r) {
                    // No such item (never put / never pulled): the broker says "not exist".
                    if (r) {
                        auto &[put, get] = round->rates[c.topic];
                        (c.put ? put : get) += r->statsMinute.tps;
                        round->answered[c.topic] = true;
                    } else if (r.error().code() == Status::Code::RemoteError) {
                        round->answered[c.topic] = true;
                    }
                    if (--round->pending > 0)
                        return;
                    m_inFlight.remove(QStringLiteral("topicRates"));
                    std::map<QByteArray, std::pair<double, double>> answered;
                    for (const auto &[topic, rates] : round->rates) {
                        if (round->answered[topic])
                            answered.emplace(topic, rates);
                    }
                    applyTopicRates(answered, epochNow);
                }),
            kFastTimeoutMs);
    }
}

void ClusterSession::applyTopicRates(
    const std::map<QByteArray, std::pair<double, double>> &rates, std::int64_t epochMs)
{
    const std::int64_t okMono = nowMono();
    for (const auto &[topic, r] : rates) {
        TopicRates &t = m_topicRates[topic];
        t.putTps = r.first;
        t.getTps = r.second;
        t.okMono = okMono;
        t.history.push_back({epochMs, r.first, r.second});
        while (t.history.size() > kHistorySamples)
            t.history.pop_front();
    }
    // Topics that are gone leave the charts: one merge pass, both are sorted by name.
    auto t = m_topics.begin();
    for (auto it = m_topicRates.begin(); it != m_topicRates.end();) {
        while (t != m_topics.end() && t->name < it->first)
            ++t;
        const bool known = t != m_topics.end() && t->name == it->first;
        it = known ? std::next(it) : m_topicRates.erase(it);
    }
    emit topicRatesUpdated();
}

} // namespace qrocket::console
