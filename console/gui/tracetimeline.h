#pragma once

// TraceTimeline: the message detail's "Trace" tab. A message's path from its trace records
// (Admin::queryMessageTrace over RMQ_SYS_TRACE_TOPIC, written by clients with enableMsgTrace)
// and the stored message itself, drawn as a timeline: one lane for the producer (sent, with its
// send cost; a transaction's end), one for the broker (stored at its store host, broker and
// queue), and one per consumer group (each delivery with its retry count and the client that
// took it, then consumed or failed with the listener's time). A failed delivery is followed by
// the redelivery through %RETRY%<group>; when the retries reach the group's maximum the message
// goes to %DLQ%<group>.
//
// The DLQ step: RocketMQ's trace records (Pub, SubBefore, SubAfter, EndTransaction) carry no
// dead-letter record, and the broker writes none when it moves a message to %DLQ%<group>. So the
// caller (the Messages view) looks the message up in %DLQ%<group> (QUERY_MESSAGE by its UNIQ_KEY,
// which the DLQ copy keeps) for each group whose last delivery failed, and hands the result to
// setDeadLetters: found, the step sits at the DLQ copy's store time on that group's lane; not
// found, it is derived from the last delivery's retry count against the group's retryMaxTimes
// (drawn only when the retries reached it, and labelled "derived"; a client's maxReconsumeTimes,
// which overrides retryMaxTimes at the broker, is not visible to the console, hence the lookup
// comes first).

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
        /// The step to %DLQ%<group> (drawn as a purple square).
        bool deadLetter = false;
    };

    /// A consumer group whose last delivery in the trace failed.
    struct FailedGroup
    {
        QByteArray group;
        int lastRetry = 0; // the last delivery's retry count (SubBefore retryTimes)
        std::int64_t failedAt = 0; // the last failed SubAfter's time
    };
    /// What the %DLQ%<group> lookup found for one FailedGroup.
    struct DeadLetter
    {
        FailedGroup failed;
        /// The group's retryMaxTimes (subscription group config), -1 unknown (16 assumed).
        int maxReconsumeTimes = -1;
        bool found = false;
        std::int64_t storeTimestamp = 0; // the DLQ copy's, when found
        QByteArray where; // the DLQ copy's broker (or store host), when found
        QString lookupError; // why not found
    };
    /// The groups of `views` whose last delivery failed, by group name.
    static std::vector<FailedGroup> failedGroups(
        const std::vector<client::MessageTraceView> &views);

    explicit TraceTimeline(QWidget *parent = nullptr);

    /// The events of `message` (may be null: traces only) and its trace `views`, oldest first.
    void setTrace(
        const client::MessageExt *message, const std::vector<client::MessageTraceView> &views);
    /// Adds the DLQ steps (replacing earlier ones); after setTrace.
    void setDeadLetters(const std::vector<DeadLetter> &deadLetters);
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
