#pragma once

// MessagesView: the "Messages" tab: query by topic + key (QUERY_MESSAGE over the topic's brokers),
// by message id (an offset id is viewed at its store host, anything else is looked up as a
// UNIQ_KEY), or by topic + store-time range, paged: the range's first and last offset per queue
// come from previewResetOffset's SEARCH_OFFSET_BY_TIMESTAMP answers (the Admin has no bare
// searchOffset), then a page's messages are read with messageAt, in parallel. The detail shows
// the properties and the body as text and as hex.

#include "clientlib/client/message.h"
#include "console/gui/tablesupport.h"

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
    std::vector<QueueRange> m_ranges;
    std::int64_t m_rangeTotal = 0;
    int m_page = 0;
    int m_queryId = 0;
};

} // namespace qrocket::console
