#pragma once

// TraceTimeline: the message detail's "Trace" tab. A message's path from its trace records
// (Admin::queryMessageTrace over RMQ_SYS_TRACE_TOPIC, written by clients with enableMsgTrace)
// and the stored message itself, drawn as a timeline: one lane for the producer (sent, with its
// send cost; a transaction's end), one for the broker (stored at its store host, broker and
// queue), and one per consumer group (each delivery with its retry count and the client that
// took it, then consumed or failed with the listener's time). A failed delivery is followed by
// the redelivery through %RETRY%<group>; when the retries reach the group's maximum the message
// goes to %DLQ%<group>, which the trace shows as the last failed delivery.

#include "clientlib/client/admin/admin.h"

#include <QWidget>

#include <vector>

namespace qrocket::console {

class TraceTimeline : public QWidget
{
    Q_OBJECT

public:
    struct Event
    {
        std::int64_t timestamp = 0;
        /// "producer <group>", "broker <name>" or "consumer <group>".
        QString lane;
        /// One line: what happened ("sent", "delivered (retry 1) to 127.0.0.1", ...).
        QString label;
        bool failed = false;
    };

    explicit TraceTimeline(QWidget *parent = nullptr);

    /// The events of `message` (may be null: traces only) and its trace `views`, oldest first.
    void setTrace(
        const client::MessageExt *message, const std::vector<client::MessageTraceView> &views);
    /// A line shown instead of the timeline ("Asking…", "No trace…", an error).
    void setNote(const QString &note);
    void clear();

    const std::vector<Event> &events() const { return m_events; }
    const std::vector<QString> &lanes() const { return m_lanes; }
    QString note() const { return m_note; }

    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    std::vector<Event> m_events;
    std::vector<QString> m_lanes;
    QString m_note;
};

} // namespace qrocket::console
