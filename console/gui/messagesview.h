#pragma once

// MessagesView: the "Messages" tab: query by topic + key (QUERY_MESSAGE over the topic's brokers),
// by message id (an offset id is viewed at its store host, anything else is looked up as a
// UNIQ_KEY), or by topic + store-time range, paged: the range's first and last offset per queue
// come from previewResetOffset's SEARCH_OFFSET_BY_TIMESTAMP answers (the Admin has no bare
// searchOffset), then a page's messages are read with messageAt, in parallel. The detail shows
// the properties, the body as text and as hex, and which groups consumed it:
// QUERY_TOPIC_CONSUME_BY_WHO of its topic, then GET_CONSUME_STATS of each group for that topic; a
// group consumed it when its committed offset of the message's queue (on the broker that stored it)
// is past the message's queue offset, as RocketMQ's DefaultMQAdminExt.consumed() decides. Its
// "Trace" tab draws the message's path from its trace records (RMQ_SYS_TRACE_TOPIC, QUERY_MESSAGE
// by msgId: tracetimeline.h), with the step to %DLQ%<group> from a QUERY_MESSAGE by UNIQ_KEY in
// the DLQ topic of each group whose last delivery failed. Standard requests only, so it works
// against QRocket's and Apache RocketMQ's brokers alike.

#include "clientlib/client/message.h"
#include "console/gui/tablesupport.h"
#include "console/gui/tracetimeline.h"

#include <QWidget>

class QComboBox;
class QDateTimeEdit;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QStackedWidget;
class QTableWidget;

namespace qrocket::console {

class ClusterSession;
class MessageModel;
class TopicModel;

class MessagesView : public QWidget
{
    Q_OBJECT

public:
    enum class Mode { Key, Id, Time };

    /// One subscribed group of the message in the detail's "Consumed by" tab.
    struct ConsumedBy
    {
        enum class State { Consumed, NotYet, NoOffset, Error };
        QByteArray group;
        State state = State::Error;
        /// The group's committed offset of the message's queue (-1 when it has none).
        std::int64_t committedOffset = -1;
        QString text;
    };

    MessagesView(ClusterSession *session, TopicModel *topics, QWidget *parent = nullptr);
    MessageModel *model() const { return m_model; }
    QTableView *table() const { return m_table.view; }
    void setTopic(const QByteArray &topic);
    /// Runs a query as the form would (tests, screenshot mode).
    void queryByKey(const QByteArray &topic, const QByteArray &key);
    void queryById(const QByteArray &topic, const QByteArray &msgId);
    void queryByTime(const QByteArray &topic, std::int64_t beginMs, std::int64_t endMs);
    bool hasData() const;
    QPlainTextEdit *bodyText() const { return m_bodyText; }
    QPlainTextEdit *bodyHex() const { return m_bodyHex; }
    /// The selected message's groups, once every answer is in (consumedByReady()).
    const std::vector<ConsumedBy> &consumedBy() const { return m_consumedBy; }
    bool consumedByReady() const { return m_consumedByReady; }
    QTableWidget *consumedByTable() const { return m_consumedTable; }
    /// Brings the detail's "Consumed by" tab to the front (screenshot mode).
    void showConsumedByTab();
    /// The detail's "Trace" tab; traceReady() once the selected message's trace is in.
    TraceTimeline *traceTimeline() const { return m_trace; }
    bool traceReady() const { return m_traceReady; }
    void showTraceTab();

signals:
    void message(const QString &text);

private:
    struct QueueRange
    {
        protocol::MessageQueue queue;
        std::int64_t from = 0;
        std::int64_t to = 0;
    };
    void search();
    void loadPage(int page);
    void showDetail();
    void askConsumedBy(const client::MessageExt &m);
    void askTrace(const client::MessageExt &m);
    void askDeadLetters(
        const client::MessageExt &m, const std::vector<TraceTimeline::FailedGroup> &failed);
    void showConsumedBy();
    void report(const QString &text, bool error);
    void setBusy(bool busy);

    ClusterSession *m_session;
    MessageModel *m_model;
    QComboBox *m_mode;
    QLineEdit *m_topic;
    QLineEdit *m_key;
    QLineEdit *m_id;
    QDateTimeEdit *m_begin;
    QDateTimeEdit *m_end;
    QSpinBox *m_pageSize;
    QStackedWidget *m_fields;
    QPushButton *m_search;
    QPushButton *m_prev;
    QPushButton *m_next;
    QLabel *m_pageLabel;
    QLabel *m_note;
    Table m_table;
    QTableWidget *m_properties;
    QPlainTextEdit *m_bodyText;
    QPlainTextEdit *m_bodyHex;
    QTableWidget *m_consumedTable;
    QTabWidget *m_detail = nullptr;
    TraceTimeline *m_trace = nullptr;
    bool m_traceReady = false;
    std::vector<ConsumedBy> m_consumedBy;
    bool m_consumedByReady = false;
    QString m_consumedByNote;
    int m_consumedQuery = 0;
    std::vector<QueueRange> m_ranges;
    std::int64_t m_rangeTotal = 0;
    int m_page = 0;
    int m_queryId = 0;
};

} // namespace qrocket::console
