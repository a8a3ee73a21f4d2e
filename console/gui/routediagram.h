#pragma once

// RouteDiagram: the focus topic's route as a picture, drawn in paintEvent: the topic on the
// left, a box per broker (name, master address, permission, read / write queue counts) in the
// middle, and per broker a row of queue cells on the right (R / W letters for what each queue
// allows, the message count below when the stats are in). Colours follow the palette and every
// state is also written as text.

#include <QWidget>

namespace qrocket::console {

class ClusterSession;

class RouteDiagram : public QWidget
{
    Q_OBJECT

public:
    explicit RouteDiagram(ClusterSession *session, QWidget *parent = nullptr);
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    ClusterSession *m_session;
};

} // namespace qrocket::console
