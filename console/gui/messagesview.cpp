// The messages tab (see messagesview.h).

#include "console/gui/messagesview.h"

#include "clientlib/protocol/systemtopics.h"
#include "console/gui/clustersession.h"
#include "console/gui/format.h"
#include "console/gui/messagemodel.h"
#include "console/gui/topicmodel.h"
#include "console/gui/tracetimeline.h"

#include <QComboBox>
#include <QCompleter>
#include <QDateTimeEdit>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

namespace qrocket::console {

namespace {

/// The group previewResetOffset is asked for: it only reads (QUERY_CONSUMER_OFFSET of a group
/// that has none answers "none"), so no group is created.
const QByteArray kSearchGroup = QByteArrayLiteral("QROCKET_CONSOLE_TIME_SEARCH");

} // namespace

MessagesView::MessagesView(ClusterSession *session, TopicModel *topics, QWidget *parent)
    : QWidget(parent), m_session(session), m_model(new MessageModel(this))
{
    auto *layout = new QVBoxLayout(this);
    auto *bar = new QHBoxLayout;
    m_mode = new QComboBox(this);
    m_mode->addItem(tr("By key"));
    m_mode->addItem(tr("By message id"));
    m_mode->addItem(tr("By time range"));
    m_topic = new QLineEdit(this);
    m_topic->setPlaceholderText(tr("Topic"));
    auto *completer = new QCompleter(topics, m_topic);
    completer->setCaseSensitivity(Qt::CaseInsensitive);
    completer->setFilterMode(Qt::MatchContains);
    m_topic->setCompleter(completer);
    m_fields = new QStackedWidget(this);
    m_key = new QLineEdit(this);
    m_key->setPlaceholderText(tr("Key (the KEYS property)"));
    m_id = new QLineEdit(this);
    m_id->setPlaceholderText(tr("Offset msgId (32 / 56 hex) or unique key"));
    auto *timeBox = new QWidget(this);
    auto *timeLayout = new QHBoxLayout(timeBox);
    timeLayout->setContentsMargins(0, 0, 0, 0);
    m_begin = new QDateTimeEdit(QDateTime::currentDateTime().addSecs(-3600), timeBox);
    m_end = new QDateTimeEdit(QDateTime::currentDateTime().addSecs(3600), timeBox);
    for (QDateTimeEdit *e : {m_begin, m_end}) {
        e->setDisplayFormat(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
        e->setCalendarPopup(true);
    }
    m_pageSize = new QSpinBox(timeBox);
    m_pageSize->setRange(1, 200);
    m_pageSize->setValue(20);
    m_pageSize->setSuffix(tr(" / page"));
    timeLayout->addWidget(m_begin);
    timeLayout->addWidget(new QLabel(QStringLiteral("–"), timeBox));
    timeLayout->addWidget(m_end);
    timeLayout->addWidget(m_pageSize);
    m_fields->addWidget(m_key);
    m_fields->addWidget(m_id);
    m_fields->addWidget(timeBox);
    m_search = new QPushButton(tr("&Search"), this);
    m_prev = new QPushButton(tr("◀"), this);
    m_next = new QPushButton(tr("▶"), this);
    m_prev->setToolTip(tr("Previous page"));
    m_next->setToolTip(tr("Next page"));
    m_pageLabel = new QLabel(this);
    bar->addWidget(m_mode);
    bar->addWidget(m_topic, 1);
    bar->addWidget(m_fields, 2);
    bar->addWidget(m_search);
    bar->addWidget(m_prev);
    bar->addWidget(m_pageLabel);
    bar->addWidget(m_next);
    layout->addLayout(bar);
    m_note = makeNote(this);
    layout->addWidget(m_note);

    auto *splitter = new QSplitter(Qt::Vertical, this);
    m_table = makeTable(m_model, QStringLiteral("messages"), splitter);
    m_table.view->horizontalHeader()->resizeSection(0, 260);
    m_table.view->horizontalHeader()->resizeSection(MessageModel::StoreTime, 150);
    splitter->addWidget(m_table.view);
    auto *detail = new QTabWidget(splitter);
    m_properties = new QTableWidget(0, 2, detail);
    m_properties->setHorizontalHeaderLabels({tr("Property"), tr("Value")});
    m_properties->horizontalHeader()->setStretchLastSection(true);
    m_properties->horizontalHeader()->resizeSection(0, 200);
    m_properties->setWordWrap(false);
    m_properties->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    m_properties->verticalHeader()->setVisible(false);
    m_properties->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_bodyText = new QPlainTextEdit(detail);
    m_bodyHex = new QPlainTextEdit(detail);
    for (QPlainTextEdit *e : {m_bodyText, m_bodyHex}) {
        e->setReadOnly(true);
        e->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    }
    m_bodyHex->setLineWrapMode(QPlainTextEdit::NoWrap);
    detail->addTab(m_properties, tr("&Properties"));
    detail->addTab(m_bodyText, tr("Body (&text)"));
    detail->addTab(m_bodyHex, tr("Body (&hex)"));
    m_consumedTable = new QTableWidget(0, 3, detail);
    m_consumedTable->setHorizontalHeaderLabels({tr("Group"), tr("State"), tr("Why")});
    m_consumedTable->horizontalHeader()->setStretchLastSection(true);
    m_consumedTable->horizontalHeader()->resizeSection(0, 220);
    m_consumedTable->horizontalHeader()->resizeSection(1, 130);
    m_consumedTable->verticalHeader()->setVisible(false);
    m_consumedTable->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    m_consumedTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_consumedTable->setToolTip(
        tr("Per group subscribed to the topic (QUERY_TOPIC_CONSUME_BY_WHO): "
           "consumed when its committed offset of the message's queue "
           "(GET_CONSUME_STATS) is past the message's queue offset"));
    detail->addTab(m_consumedTable, tr("&Consumed by"));
    m_trace = new TraceTimeline(detail);
    detail->addTab(m_trace, tr("T&race"));
    m_detail = detail;
    splitter->addWidget(detail);
    layout->addWidget(splitter, 1);

    connect(m_mode, &QComboBox::currentIndexChanged, m_fields, &QStackedWidget::setCurrentIndex);
    connect(m_mode, &QComboBox::currentIndexChanged, this, [this] { setBusy(false); });
    connect(m_search, &QPushButton::clicked, this, &MessagesView::search);
    for (QLineEdit *e : {m_topic, m_key, m_id})
        connect(e, &QLineEdit::returnPressed, this, &MessagesView::search);
    connect(m_prev, &QPushButton::clicked, this, [this] { loadPage(m_page - 1); });
    connect(m_next, &QPushButton::clicked, this, [this] { loadPage(m_page + 1); });
    connect(m_table.view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
        &MessagesView::showDetail);
    setBusy(false);
}

void MessagesView::setTopic(const QByteArray &topic)
{
    m_topic->setText(QString::fromUtf8(topic));
}

bool MessagesView::hasData() const
{
    return m_model->rowCount() > 0;
}

void MessagesView::setBusy(bool busy)
{
    m_search->setEnabled(!busy);
    const bool paged = m_mode->currentIndex() == static_cast<int>(Mode::Time) && m_rangeTotal > 0;
    const int size = m_pageSize->value();
    const int pages = static_cast<int>((m_rangeTotal + size - 1) / size);
    m_prev->setVisible(paged);
    m_next->setVisible(paged);
    m_pageLabel->setVisible(paged);
    m_prev->setEnabled(!busy && m_page > 0);
    m_next->setEnabled(!busy && m_page + 1 < pages);
    m_pageLabel->setText(tr("page %1 of %2").arg(m_page + 1).arg(std::max(1, pages)));
}

void MessagesView::report(const QString &text, bool error)
{
    setNote(m_note,
        QStringLiteral("<span style='color:%1'>%2</span>")
            .arg(error ? QStringLiteral("#ff6b6b") : QStringLiteral("#a0a4aa"),
                text.toHtmlEscaped()));
    if (error)
        emit message(text);
}

void MessagesView::search()
{
    const QByteArray topic = m_topic->text().trimmed().toUtf8();
    switch (static_cast<Mode>(m_mode->currentIndex())) {
    case Mode::Key:
        queryByKey(topic, m_key->text().trimmed().toUtf8());
        break;
    case Mode::Id:
        queryById(topic, m_id->text().trimmed().toUtf8());
        break;
    case Mode::Time:
        queryByTime(
            topic, m_begin->dateTime().toMSecsSinceEpoch(), m_end->dateTime().toMSecsSinceEpoch());
        break;
    }
}

void MessagesView::queryByKey(const QByteArray &topic, const QByteArray &key)
{
    m_mode->setCurrentIndex(static_cast<int>(Mode::Key));
    m_topic->setText(QString::fromUtf8(topic));
    m_key->setText(QString::fromUtf8(key));
    if (topic.isEmpty() || key.isEmpty()) {
        report(tr("A key query needs a topic and a key"), true);
        return;
    }
    const int id = ++m_queryId;
    setBusy(true);
    report(
        tr("Querying %1 for key %2…").arg(QString::fromUtf8(topic), QString::fromUtf8(key)), false);
    m_session->admin().queryMessageByKeyAsync(topic, key, 64, 0,
        std::numeric_limits<std::int64_t>::max(),
        m_session->deliver<client::QueryMessageResult>(
            this, [this, id](Result<client::QueryMessageResult> r) {
                if (id != m_queryId)
                    return;
                m_rangeTotal = 0;
                setBusy(false);
                if (!r) {
                    report(tr("Query failed: %1").arg(r.error().toString()), true);
                    return;
                }
                report(tr("%1 message(s); index updated %2")
                           .arg(r->messages.size())
                           .arg(formatTimestamp(r->indexLastUpdateTimestamp)),
                    false);
                m_model->setMessages(std::move(r->messages));
            }));
}

void MessagesView::queryById(const QByteArray &topic, const QByteArray &msgId)
{
    m_mode->setCurrentIndex(static_cast<int>(Mode::Id));
    m_topic->setText(QString::fromUtf8(topic));
    m_id->setText(QString::fromUtf8(msgId));
    if (msgId.isEmpty()) {
        report(tr("Enter a message id"), true);
        return;
    }
    const int id = ++m_queryId;
    setBusy(true);
    m_session->admin().messageByIdAsync(topic, msgId,
        m_session->deliver<client::MessageExt>(this, [this, id](Result<client::MessageExt> r) {
            if (id != m_queryId)
                return;
            m_rangeTotal = 0;
            setBusy(false);
            if (!r) {
                report(tr("Not found: %1").arg(r.error().toString()), true);
                m_model->setMessages({});
                return;
            }
            report(tr("Found at %1").arg(QString::fromUtf8(r->storeHost().toString())), false);
            m_model->setMessages({std::move(r).value()});
            m_table.view->setCurrentIndex(m_table.proxy->index(0, 0));
        }));
}

void MessagesView::queryByTime(const QByteArray &topic, std::int64_t beginMs, std::int64_t endMs)
{
    m_mode->setCurrentIndex(static_cast<int>(Mode::Time));
    m_topic->setText(QString::fromUtf8(topic));
    m_begin->setDateTime(QDateTime::fromMSecsSinceEpoch(beginMs));
    m_end->setDateTime(QDateTime::fromMSecsSinceEpoch(endMs));
    if (topic.isEmpty() || endMs <= beginMs) {
        report(tr("A time query needs a topic and a begin before the end"), true);
        return;
    }
    const int id = ++m_queryId;
    setBusy(true);
    report(tr("Looking up the offsets of %1 between %2 and %3…")
               .arg(QString::fromUtf8(topic), formatTimestamp(beginMs), formatTimestamp(endMs)),
        false);
    struct Gather
    {
        int pending = 2;
        std::vector<client::ResetOffsetPreview> begin;
        std::vector<client::ResetOffsetPreview> end;
        QString error;
    };
    auto g = std::make_shared<Gather>();
    auto done = [this, g, id] {
        if (--g->pending > 0 || id != m_queryId)
            return;
        if (!g->error.isEmpty()) {
            setBusy(false);
            report(tr("Time search failed: %1").arg(g->error), true);
            return;
        }
        m_ranges.clear();
        m_rangeTotal = 0;
        for (const client::ResetOffsetPreview &b : g->begin) {
            for (const client::ResetOffsetPreview &e : g->end) {
                if (e.queue == b.queue && e.timestampOffset > b.timestampOffset) {
                    m_ranges.push_back({b.queue, b.timestampOffset, e.timestampOffset});
                    m_rangeTotal += e.timestampOffset - b.timestampOffset;
                }
            }
        }
        loadPage(0);
    };
    auto ask = [this, topic, g, done](std::int64_t ts, bool isBegin) {
        m_session->admin().previewResetOffsetAsync(topic, kSearchGroup, ts, true,
            m_session->deliver<std::vector<client::ResetOffsetPreview>>(
                this, [g, done, isBegin](Result<std::vector<client::ResetOffsetPreview>> r) {
                    if (!r)
                        g->error = r.error().toString();
                    else
                        (isBegin ? g->begin : g->end) = std::move(r).value();
                    done();
                }));
    };
    ask(beginMs, true);
    ask(endMs, false);
}

void MessagesView::loadPage(int page)
{
    const int size = m_pageSize->value();
    const int pages = static_cast<int>((m_rangeTotal + size - 1) / size);
    if (m_rangeTotal == 0) {
        m_page = 0;
        m_model->setMessages({});
        setBusy(false);
        report(tr("No message stored in that time range"), false);
        return;
    }
    m_page = std::clamp(page, 0, std::max(0, pages - 1));
    // The page's offsets: the ranges laid end to end, queue by queue.
    std::vector<std::pair<protocol::MessageQueue, std::int64_t>> wanted;
    std::int64_t skip = static_cast<std::int64_t>(m_page) * size;
    for (const QueueRange &r : m_ranges) {
        const std::int64_t n = r.to - r.from;
        if (skip >= n) {
            skip -= n;
            continue;
        }
        for (std::int64_t o = r.from + skip; o < r.to && static_cast<int>(wanted.size()) < size;
             ++o)
            wanted.emplace_back(r.queue, o);
        skip = 0;
        if (static_cast<int>(wanted.size()) >= size)
            break;
    }
    const int id = ++m_queryId;
    setBusy(true);
    struct Gather
    {
        int pending = 0;
        std::vector<client::MessageExt> messages;
        int failed = 0;
        QString lastError;
    };
    auto g = std::make_shared<Gather>();
    g->pending = static_cast<int>(wanted.size());
    for (const auto &[queue, offset] : wanted) {
        m_session->admin().messageAtAsync(queue, offset,
            m_session->deliver<client::MessageExt>(
                this, [this, g, id](Result<client::MessageExt> r) {
                    if (r)
                        g->messages.push_back(std::move(r).value());
                    else {
                        ++g->failed;
                        g->lastError = r.error().toString();
                    }
                    if (--g->pending > 0 || id != m_queryId)
                        return;
                    std::sort(g->messages.begin(), g->messages.end(),
                        [](const client::MessageExt &a, const client::MessageExt &b) {
                            return a.storeTimestamp() < b.storeTimestamp();
                        });
                    setBusy(false);
                    report(tr("%1 message(s) in range, showing %2%3")
                               .arg(formatCount(m_rangeTotal))
                               .arg(g->messages.size())
                               .arg(g->failed ? tr("; %1 could not be read (%2)")
                                                    .arg(g->failed)
                                                    .arg(g->lastError)
                                              : QString()),
                        g->failed > 0);
                    m_model->setMessages(std::move(g->messages));
                }));
    }
}

void MessagesView::showDetail()
{
    const QModelIndex i = currentSourceRow(m_table);
    const client::MessageExt *m = i.isValid() ? m_model->messageAt(i.row()) : nullptr;
    m_properties->setRowCount(0);
    ++m_consumedQuery;
    m_consumedBy.clear();
    m_consumedByReady = false;
    m_consumedTable->setRowCount(0);
    m_trace->clear();
    m_traceReady = false;
    if (!m) {
        m_bodyText->clear();
        m_bodyHex->clear();
        return;
    }
    askConsumedBy(*m);
    askTrace(*m);
    std::vector<std::pair<QString, QString>> rows = {
        {tr("msgId (UNIQ_KEY)"), QString::fromUtf8(m->msgId())},
        {tr("offset msgId"), QString::fromUtf8(m->offsetMsgId())},
        {tr("topic"), QString::fromUtf8(m->topic())},
        {tr("queue"),
            QStringLiteral("%1:%2").arg(QString::fromUtf8(m->brokerName())).arg(m->queueId())},
        {tr("queue offset"), formatCount(m->queueOffset())},
        {tr("commit-log offset"), formatCount(m->commitLogOffset())},
        {tr("born"),
            formatTimestamp(m->bornTimestamp()) + QStringLiteral(" @ ")
                + QString::fromUtf8(m->bornHost().toString())},
        {tr("stored"),
            formatTimestamp(m->storeTimestamp()) + QStringLiteral(" @ ")
                + QString::fromUtf8(m->storeHost().toString())},
        {tr("store size"), formatBytes(m->storeSize())},
        {tr("reconsume times"), QString::number(m->reconsumeTimes())},
        {tr("sys flag"), QStringLiteral("0x%1").arg(m->sysFlag(), 0, 16)},
        {tr("body CRC"), QString::number(m->bodyCrc())},
    };
    for (const auto &entry : m->properties().entries())
        rows.emplace_back(QString::fromUtf8(entry.first), QString::fromUtf8(entry.second));
    m_properties->setRowCount(static_cast<int>(rows.size()));
    for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
        m_properties->setItem(r, 0, new QTableWidgetItem(rows[static_cast<std::size_t>(r)].first));
        m_properties->setItem(r, 1, new QTableWidgetItem(rows[static_cast<std::size_t>(r)].second));
    }
    m_bodyText->setPlainText(QString::fromUtf8(m->body()));
    m_bodyHex->setPlainText(hexDump(m->body()));
}

void MessagesView::askTrace(const client::MessageExt &m)
{
    const int id = m_consumedQuery; // a new selection asks again
    m_trace->setNote(tr("Asking the trace of %1…").arg(QString::fromUtf8(m.msgId())));
    m_session->admin().queryMessageTraceAsync(m.msgId(), {},
        m_session->deliver<std::vector<client::MessageTraceView>>(
            this, [this, id, m](Result<std::vector<client::MessageTraceView>> r) {
                if (id != m_consumedQuery)
                    return;
                if (!r) {
                    m_trace->setNote(tr("No trace: %1").arg(r.error().toString()));
                    m_traceReady = true;
                    return;
                }
                m_trace->setTrace(&m, *r);
                askDeadLetters(m, TraceTimeline::failedGroups(*r));
            }));
}

void MessagesView::askDeadLetters(
    const client::MessageExt &m, const std::vector<TraceTimeline::FailedGroup> &failed)
{
    // The trace has no DLQ record: look the message up in each failed group's %DLQ% topic.
    const int id = m_consumedQuery;
    if (failed.empty()) {
        m_traceReady = true;
        return;
    }
    struct Gather
    {
        int pending = 0;
        std::vector<TraceTimeline::DeadLetter> found;
    };
    auto gather = std::make_shared<Gather>();
    gather->pending = static_cast<int>(failed.size());
    for (const TraceTimeline::FailedGroup &f : failed) {
        TraceTimeline::DeadLetter d;
        d.failed = f;
        if (const GroupInfo *g = m_session->group(f.group))
            d.maxReconsumeTimes = g->retryMaxTimes;
        m_session->admin().queryMessageByUniqueKeyAsync(
            QByteArray(protocol::topics::kDlqPrefix) + f.group, m.msgId(),
            m_session->deliver<client::MessageExt>(this,
                [this, id, gather, d](Result<client::MessageExt> r) mutable {
                    if (id != m_consumedQuery)
                        return;
                    if (r) {
                        d.found = true;
                        d.storeTimestamp = r->storeTimestamp();
                        d.where = r->brokerName().isEmpty() ? r->storeHost().toString()
                                                            : r->brokerName();
                    } else {
                        d.lookupError = r.error().code() == Status::Code::NotFound
                            ? tr("not in %DLQ%")
                            : r.error().toString();
                    }
                    gather->found.push_back(std::move(d));
                    if (--gather->pending == 0) {
                        m_trace->setDeadLetters(gather->found);
                        m_traceReady = true;
                    }
                }),
            5000);
    }
}

void MessagesView::showTraceTab()
{
    m_detail->setCurrentWidget(m_trace);
}

void MessagesView::askConsumedBy(const client::MessageExt &m)
{
    const int id = m_consumedQuery;
    const QByteArray topic = m.topic();
    // The broker that stored it: the message's own name, else the master at its store host.
    QByteArray brokerName = m.brokerName();
    const QByteArray storeHost = m.storeHost().toString();
    if (brokerName.isEmpty()) {
        for (const BrokerInfo &b : m_session->brokers()) {
            if (b.address == storeHost && b.brokerId == protocol::kMasterBrokerId)
                brokerName = b.brokerName;
        }
    }
    const int queueId = m.queueId();
    const std::int64_t queueOffset = m.queueOffset();
    m_consumedByNote = tr("Asking who consumes %1…").arg(QString::fromUtf8(topic));
    showConsumedBy();
    m_session->admin().topicConsumedByAsync(topic,
        m_session->deliver<std::vector<QByteArray>>(this,
            [this, id, topic, brokerName, queueId, queueOffset](
                Result<std::vector<QByteArray>> groups) {
                if (id != m_consumedQuery)
                    return;
                if (!groups) {
                    m_consumedByNote = tr("QUERY_TOPIC_CONSUME_BY_WHO failed: %1")
                                           .arg(groups.error().toString());
                    m_consumedByReady = true;
                    showConsumedBy();
                    return;
                }
                std::vector<QByteArray> names;
                for (const QByteArray &g : *groups) {
                    if (g != kSearchGroup)
                        names.push_back(g);
                }
                if (names.empty()) {
                    m_consumedByNote = tr("No group subscribes to or has offsets of %1")
                                           .arg(QString::fromUtf8(topic));
                    m_consumedByReady = true;
                    showConsumedBy();
                    return;
                }
                m_consumedByNote.clear();
                m_consumedBy.resize(names.size());
                auto pending = std::make_shared<int>(static_cast<int>(names.size()));
                for (std::size_t i = 0; i < names.size(); ++i) {
                    m_consumedBy[i].group = names[i];
                    m_session->admin().consumeStatsAsync(names[i], topic,
                        m_session->deliver<client::admin::ConsumeStats>(this,
                            [this, id, i, pending, topic, brokerName, queueId, queueOffset](
                                Result<client::admin::ConsumeStats> r) {
                                if (id != m_consumedQuery)
                                    return;
                                ConsumedBy &row = m_consumedBy[i];
                                if (!r) {
                                    // 206: no offset of the topic anywhere.
                                    const bool none = r.error().remoteCode() == 206;
                                    row.state = none ? ConsumedBy::State::NoOffset
                                                     : ConsumedBy::State::Error;
                                    row.text = r.error().toString();
                                } else {
                                    const auto it = r->offsetTable.find(
                                        protocol::MessageQueue {topic, brokerName, queueId});
                                    if (it == r->offsetTable.end()) {
                                        row.state = ConsumedBy::State::NoOffset;
                                        row.text = tr("no committed offset of %1:%2")
                                                       .arg(QString::fromUtf8(brokerName))
                                                       .arg(queueId);
                                    } else {
                                        row.committedOffset = it->second.consumerOffset;
                                        const bool done = row.committedOffset > queueOffset;
                                        row.state = done ? ConsumedBy::State::Consumed
                                                         : ConsumedBy::State::NotYet;
                                        row.text = tr("committed offset %1 %2 message offset %3")
                                                       .arg(formatCount(row.committedOffset),
                                                           done ? QStringLiteral(">")
                                                                : QStringLiteral("≤"),
                                                           formatCount(queueOffset));
                                    }
                                }
                                if (--*pending == 0)
                                    m_consumedByReady = true;
                                showConsumedBy();
                            }));
                }
                showConsumedBy();
            }));
}

void MessagesView::showConsumedByTab()
{
    for (QWidget *p = m_consumedTable->parentWidget(); p; p = p->parentWidget()) {
        if (auto *tabs = qobject_cast<QTabWidget *>(p)) {
            tabs->setCurrentWidget(m_consumedTable);
            return;
        }
    }
}

void MessagesView::showConsumedBy()
{
    const bool note = !m_consumedByNote.isEmpty();
    m_consumedTable->setRowCount(static_cast<int>(m_consumedBy.size()) + (note ? 1 : 0));
    int r = 0;
    if (note) {
        m_consumedTable->setItem(r, 0, new QTableWidgetItem(QStringLiteral("-")));
        m_consumedTable->setItem(r, 1, new QTableWidgetItem(QString()));
        m_consumedTable->setItem(r++, 2, new QTableWidgetItem(m_consumedByNote));
    }
    for (const ConsumedBy &c : m_consumedBy) {
        QString state = tr("asking…");
        QColor color = m_consumedTable->palette().color(QPalette::Text);
        if (!c.text.isEmpty()) {
            switch (c.state) {
            case ConsumedBy::State::Consumed:
                state = tr("✔ consumed");
                color = QColor(0x4c, 0xc3, 0x6a);
                break;
            case ConsumedBy::State::NotYet:
                state = tr("not consumed yet");
                color = QColor(0xf0, 0xb4, 0x29);
                break;
            case ConsumedBy::State::NoOffset:
                state = tr("not consumed (no offset)");
                color = QColor(0xf0, 0xb4, 0x29);
                break;
            case ConsumedBy::State::Error:
                state = tr("unknown (error)");
                color = QColor(0xff, 0x6b, 0x6b);
                break;
            }
        }
        auto *stateItem = new QTableWidgetItem(state);
        stateItem->setForeground(color);
        m_consumedTable->setItem(r, 0, new QTableWidgetItem(QString::fromUtf8(c.group)));
        m_consumedTable->setItem(r, 1, stateItem);
        m_consumedTable->setItem(r++, 2, new QTableWidgetItem(c.text));
    }
}

} // namespace qrocket::console
