// Screenshot mode (see screenshot.h).

#include "console/gui/screenshot.h"

#include "console/gui/aclview.h"
#include "console/gui/alertsview.h"
#include "console/gui/chartsview.h"
#include "console/gui/clustersession.h"
#include "console/gui/clusterview.h"
#include "console/gui/consumersview.h"
#include "console/gui/messagemodel.h"
#include "console/gui/messagesview.h"
#include "console/gui/routeview.h"
#include "console/gui/storageview.h"
#include "console/gui/timechart.h"
#include "console/gui/topicsview.h"

#include <QDateTime>
#include <QDeadlineTimer>
#include <QDir>
#include <QEventLoop>
#include <QFileInfo>
#include <QTableView>
#include <QTimer>

namespace qrocket::console {

bool waitUntil(const std::function<bool()> &ready, int timeoutMs)
{
    QDeadlineTimer deadline(timeoutMs);
    while (!ready()) {
        if (deadline.hasExpired())
            return false;
        QEventLoop loop;
        QTimer::singleShot(50, &loop, &QEventLoop::quit);
        loop.exec();
    }
    return true;
}

namespace {

bool clusterReady(ClusterSession *s)
{
    if (s->brokers().empty())
        return false;
    for (const BrokerInfo &b : s->brokers()) {
        if (b.registered && !b.runtimeOk)
            return false;
        if (b.registered && s->livenessSupported() && !b.livenessKnown)
            return false;
    }
    return s->livenessPart().lastOkMono || s->livenessPart().notSupported;
}

bool topicsReady(ClusterSession *s)
{
    if (s->topics().empty())
        return false;
    for (const TopicInfo &t : s->topics()) {
        if (t.brokers > 0)
            return true;
    }
    return false;
}

QByteArray pickTopic(ClusterSession *s, const QByteArray &topic)
{
    return topic.isEmpty() ? s->defaultTopic() : topic;
}

} // namespace

Status prepareView(ClusterWidget *w, ViewName view, const QByteArray &topic, int timeoutMs)
{
    ClusterSession *s = w->session();
    QDeadlineTimer deadline(timeoutMs);
    auto left = [&] { return static_cast<int>(std::max<qint64>(0, deadline.remainingTime())); };
    auto fail = [&](const QString &what) {
        QString why = what;
        const QString problems = s->problemSummary();
        if (!problems.isEmpty())
            why += QStringLiteral(" (") + problems + QLatin1Char(')');
        return Status::timeout(
            QStringLiteral("view %1: %2 within %3 ms").arg(viewNameText(view), why).arg(timeoutMs));
    };
    w->showView(view);
    switch (view) {
    case ViewName::Cluster:
        if (!waitUntil([&] { return clusterReady(s); }, left()))
            return fail(QStringLiteral("no broker answered"));
        break;
    case ViewName::Topics:
        if (!waitUntil([&] { return topicsReady(s); }, left()))
            return fail(QStringLiteral("no topic listed"));
        w->topicsView()->table()->setFocus();
        break;
    case ViewName::Route: {
        if (topic.isEmpty() && !waitUntil([&] { return topicsReady(s); }, left()))
            return fail(QStringLiteral("no topic listed"));
        w->routeView()->showTopic(pickTopic(s, topic));
        if (!waitUntil([&] { return w->routeView()->hasData(); }, left()))
            return fail(QStringLiteral("no route / stats for topic %1")
                            .arg(QString::fromUtf8(pickTopic(s, topic))));
        break;
    }
    case ViewName::Consumers: {
        // Groups, then the stats of (most of) them, so the group picked is a busy one.
        if (!waitUntil([&] { return !s->groups().empty(); }, left()))
            return fail(QStringLiteral("no subscription group listed"));
        waitUntil(
            [&] {
                for (const GroupInfo &g : s->groups()) {
                    if (!g.statsKnown)
                        return false;
                }
                return true;
            },
            std::min(left(), 5000));
        QByteArray best;
        int queues = -1;
        for (const GroupInfo &g : s->groups()) {
            if (g.statsKnown && g.queues > queues) {
                queues = g.queues;
                best = g.name;
            }
        }
        if (best.isEmpty())
            best = s->groups().front().name;
        w->consumersView()->selectGroup(best);
        if (!waitUntil(
                [&] {
                    return s->focusGroup() == best
                        && (s->focusGroupPart().lastOkMono || !s->focusGroupPart().error.isEmpty())
                        && (s->focusConnection() || !s->focusConnectionError().isEmpty());
                },
                left()))
            return fail(
                QStringLiteral("no consume stats for group %1").arg(QString::fromUtf8(best)));
        break;
    }
    case ViewName::Messages: {
        if (topic.isEmpty() && !waitUntil([&] { return topicsReady(s); }, left()))
            return fail(QStringLiteral("no topic listed"));
        const QByteArray t = pickTopic(s, topic);
        const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
        w->messagesView()->queryByTime(t, now - 24LL * 3600 * 1000, now + 60 * 1000);
        if (!waitUntil([&] { return w->messagesView()->hasData(); }, left()))
            return fail(QStringLiteral("no message of topic %1 stored in the last 24 h")
                            .arg(QString::fromUtf8(t)));
        QTableView *table = w->messagesView()->table();
        table->setCurrentIndex(table->model()->index(0, 0));
        // The first message's detail: which groups consumed it, once every group answered.
        if (waitUntil([&] { return w->messagesView()->consumedByReady(); }, std::min(left(), 5000))
            && !w->messagesView()->consumedBy().empty())
            w->messagesView()->showConsumedByTab();
        break;
    }
    case ViewName::Storage:
        if (!waitUntil([&] { return w->storageView()->hasData(); }, left()))
            return fail(QStringLiteral("no broker's storage known"));
        break;
    case ViewName::Charts:
        if (!waitUntil(
                [&] {
                    w->chartsView()->refresh();
                    return w->chartsView()->hasData()
                        && w->chartsView()->putChart()->pointCount() >= 3;
                },
                left()))
            return fail(QStringLiteral("fewer than 3 samples"));
        break;
    case ViewName::Acl:
        // The lists as the broker answers them (a refusal without ACL rights is an answer).
        w->aclView()->refresh();
        if (!waitUntil([&] { return w->aclView()->hasData(); }, left()))
            return fail(QStringLiteral("no answer to AUTH_LIST_USER / AUTH_LIST_ACL"));
        break;
    case ViewName::Alerts:
        if (!waitUntil([&] { return clusterReady(s) && w->alertsView()->hasData(); }, left()))
            return fail(QStringLiteral("no cluster data to check the rules against"));
        break;
    }
    // One more pass so that the last answers are painted.
    waitUntil([] { return false; }, 200);
    return {};
}

Status writeScreenshot(QWidget *window, const QString &file)
{
    const QFileInfo info(file);
    if (!QDir().mkpath(info.absolutePath()))
        return Status::ioError(QStringLiteral("cannot create the folder of %1").arg(file));
    const QPixmap pixmap = window->grab();
    if (pixmap.isNull() || !pixmap.save(file, "PNG"))
        return Status::ioError(QStringLiteral("cannot write %1").arg(file));
    return {};
}

} // namespace qrocket::console
