#pragma once

// ExplainPanel: the console's "why" answers (QRocket's explain extensions, clientlib's
// Admin::explain*Async; protocol/bodies/explainbodies.h). One question ("Why is group G not
// consuming?") asked of one or more peers (the masters, or the name servers), each peer's
// findings in one table, worst first: the verdict (colour + word), the peer, the finding in words,
// what decides it (the setting and its current value, or the client id) and what it is about.
// The calls run on the Admin's pool threads and their answers come back queued to the GUI thread
// (ClusterSession::deliver); a newer question or "Ask again" drops the answers of the older one.
// Asked when the question is set and on demand (the button), never on a timer: an explain answer
// is a diagnosis, not a gauge. A stock RocketMQ daemon answers NotSupported, shown as such.
//
// Used by the consumers tab (explainGroup), the cluster tab (explainBroker), the storage tab
// (explainCleanup) and the topics tab (explainSend).

#include "clientlib/client/admin/admin.h"

#include <QBoxLayout>
#include <QWidget>

#include <functional>
#include <vector>

class QLabel;
class QPushButton;
class QTableWidget;

namespace qrocket::console {

class ClusterSession;

class ExplainPanel : public QWidget
{
    Q_OBJECT

public:
    /// One peer asked: a label ("broker-a", "127.0.0.1:9876") and its address.
    struct Peer
    {
        QString label;
        QByteArray address;
    };
    using Callback = client::Admin::Callback<protocol::ExplainBody>;
    /// Sends the question to one peer's `address`; `done` is called once, on any thread.
    using Ask = std::function<void(client::Admin &, const QByteArray &address, Callback done)>;

    /// One row of the table.
    struct Row
    {
        QString peer;
        protocol::ExplainFinding finding;
        /// The peer did not answer: `finding.reason` holds the error, `finding.verdict` "error".
        bool error = false;
    };

    ExplainPanel(ClusterSession *session, QWidget *parent = nullptr);
    /// `above` and a new panel under it in a vertical splitter (60/40 to start, not the table's
    /// size hint), added to `layout`; the panel shows `prompt` until asked.
    static ExplainPanel *addBelow(
        QWidget *above, ClusterSession *session, const QString &prompt, QBoxLayout *layout);

    /// Keeps only the findings `keep` accepts (the storage tab: one file's and the broker-wide).
    using Filter = std::function<bool(const protocol::ExplainFinding &)>;
    /// Asks `question` (a heading, plain text) of `peers` with `ask`, at once.
    /// Who to ask, evaluated at each ask (the masters known then).
    using Peers = std::function<std::vector<Peer>()>;
    void setQuestion(const QString &question, Peers peers, Ask ask, Filter keep = {});
    /// No question: shows `hint` ("Select a group") instead.
    void clearQuestion(const QString &hint);
    /// Asks the current question again.
    void refresh();

    /// Every peer answered (or failed) since the last ask.
    bool ready() const { return m_pending == 0 && m_asked; }
    /// The worst verdict of the answers ("ok" when none is worse; "error" when no peer answered).
    QByteArray verdict() const;
    const std::vector<Row> &rows() const { return m_rows; }
    QString question() const { return m_question; }
    QString summary() const;
    QTableWidget *table() const { return m_table; }
    QPushButton *askButton() const { return m_ask; }

signals:
    /// All answers of the current question are in.
    void answered();

private:
    void ask();
    void fillTable();

    ClusterSession *m_session;
    QLabel *m_heading;
    QLabel *m_summary;
    QPushButton *m_ask;
    QTableWidget *m_table;
    QString m_question;
    Peers m_peersOf;
    std::vector<Peer> m_peers;
    Ask m_askOne;
    Filter m_keep;
    std::vector<Row> m_rows;
    int m_generation = 0;
    int m_pending = 0;
    int m_answeredPeers = 0;
    bool m_asked = false;
};

/// The registered masters of `session` (label: broker name), for ExplainPanel::setQuestion.
std::vector<ExplainPanel::Peer> explainMasters(const ClusterSession &session);

} // namespace qrocket::console
