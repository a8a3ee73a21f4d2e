// The topics tab (see topicsview.h).

#include "console/gui/topicsview.h"

#include "clientlib/client/producer.h"
#include "console/gui/clustersession.h"
#include "console/gui/explainpanel.h"
#include "console/gui/format.h"
#include "console/gui/topicdialog.h"
#include "console/gui/topicmodel.h"

#include <QCheckBox>
#include <QDateTime>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QShortcut>
#include <QVBoxLayout>

namespace qrocket::console {

TopicsView::TopicsView(ClusterSession *session, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_model(new TopicModel(session, this))
    , m_filter(new TopicFilter(this))
{
    auto *layout = new QVBoxLayout(this);
    auto *bar = new QHBoxLayout;
    m_search = new QLineEdit(this);
    m_search->setPlaceholderText(tr("Search topics (Ctrl+F)"));
    m_search->setClearButtonEnabled(true);
    m_search->setObjectName(QStringLiteral("topicSearch"));
    bar->addWidget(m_search, 1);
    const TopicType types[]
        = {TopicType::Normal, TopicType::Retry, TopicType::Dlq, TopicType::System};
    for (int i = 0; i < 4; ++i) {
        m_types[i] = new QCheckBox(topicTypeText(types[i]), this);
        m_types[i]->setChecked(types[i] == TopicType::Normal);
        connect(m_types[i], &QCheckBox::toggled, this, &TopicsView::applyTypeMask);
        bar->addWidget(m_types[i]);
    }
    m_create = new QPushButton(tr("&New…"), this);
    m_update = new QPushButton(tr("&Edit…"), this);
    m_delete = new QPushButton(tr("&Delete…"), this);
    m_send = new QPushButton(tr("Send &test message…"), this);
    m_route = new QPushButton(tr("&Route"), this);
    for (QPushButton *b : {m_create, m_update, m_delete, m_send, m_route})
        bar->addWidget(b);
    layout->addLayout(bar);
    m_note = makeNote(this);
    layout->addWidget(m_note);
    m_table = makeTable(m_model, QStringLiteral("topics"), this, m_filter);
    m_table.view->horizontalHeader()->resizeSection(0, 320);
    m_table.view->horizontalHeader()->setStretchLastSection(true);
    m_explain = ExplainPanel::addBelow(m_table.view, session,
        tr("Select a topic to ask the brokers why its sends are refused"), layout);
    connect(m_table.view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] {
        if (currentTopic() != m_explainedTopic)
            askWhySendsFail();
    });
    m_count = new QLabel(this);
    layout->addWidget(m_count);

    connect(m_search, &QLineEdit::textChanged, m_filter, &TopicFilter::setSearch);
    auto *find = new QShortcut(QKeySequence::Find, this);
    connect(find, &QShortcut::activated, m_search, [this] {
        m_search->setFocus();
        m_search->selectAll();
    });
    connect(m_create, &QPushButton::clicked, this, &TopicsView::openCreateDialog);
    connect(m_update, &QPushButton::clicked, this, &TopicsView::openUpdateDialog);
    connect(m_delete, &QPushButton::clicked, this, &TopicsView::deleteCurrent);
    connect(m_send, &QPushButton::clicked, this, &TopicsView::sendTestMessage);
    connect(m_route, &QPushButton::clicked, this, [this] {
        if (!currentTopic().isEmpty())
            emit routeRequested(currentTopic());
    });
    connect(m_table.view, &QTableView::activated, this,
        [this] { emit routeRequested(currentTopic()); });
    connect(m_filter, &QAbstractItemModel::rowsInserted, this, &TopicsView::updateCount);
    connect(m_filter, &QAbstractItemModel::rowsRemoved, this, &TopicsView::updateCount);
    connect(m_filter, &QAbstractItemModel::modelReset, this, &TopicsView::updateCount);
    connect(m_filter, &QAbstractItemModel::layoutChanged, this, &TopicsView::updateCount);
    connect(session, &ClusterSession::topicsUpdated, this, &TopicsView::updateCount);
    applyTypeMask();
}

TopicsView::~TopicsView()
{
    if (m_producer)
        m_producer->shutdown();
}

bool TopicsView::hasData() const
{
    return m_model->rowCount() > 0;
}

QByteArray TopicsView::currentTopic() const
{
    const QModelIndex i = currentSourceRow(m_table);
    return i.isValid() ? i.data(TopicModel::KeyRole).toByteArray() : QByteArray();
}

void TopicsView::selectTopic(const QByteArray &topic)
{
    // Found by name in the model, then mapped: no walk over 100,000 rows.
    const QModelIndex i = m_filter->mapFromSource(m_model->index(m_model->rowOf(topic), 0));
    if (i.isValid()) {
        m_table.view->setCurrentIndex(i);
        m_table.view->scrollTo(i);
    }
}

void TopicsView::applyTypeMask()
{
    int mask = 0;
    for (int i = 0; i < 4; ++i)
        mask |= m_types[i]->isChecked() ? (1 << i) : 0;
    m_filter->setTypeMask(mask);
    updateCount();
}

void TopicsView::updateCount()
{
    const PartState &part = m_session->topicsPart();
    QString text = tr("%1 of %2 topics")
                       .arg(formatCount(m_filter->rowCount()), formatCount(m_model->rowCount()));
    if (part.lastOkMono)
        text += tr(" · listed %1").arg(formatAgo(ClusterSession::nowMono() - part.lastOkMono));
    m_count->setText(text);
    if (!part.error.isEmpty() && m_note->property("error").toBool() == false)
        setNote(m_note,
            tr("<span style='color:#f0b429'>&#9888; %1</span>").arg(part.error.toHtmlEscaped()));
}

void TopicsView::report(const QString &text, bool error)
{
    setNote(m_note,
        QStringLiteral("<span style='color:%1'>%2 %3</span>")
            .arg(error ? QStringLiteral("#ff6b6b") : QStringLiteral("#4cc36a"),
                error ? QStringLiteral("&#10007;") : QStringLiteral("&#10003;"),
                text.toHtmlEscaped()));
    emit message(text);
}

void TopicsView::openCreateDialog()
{
    auto *dialog = new TopicDialog(m_session->clusterNames(), nullptr, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        const protocol::TopicConfig config = dialog->config();
        const QByteArray cluster = dialog->cluster();
        report(tr("Creating %1 in %2…")
                   .arg(QString::fromUtf8(config.topicName), QString::fromUtf8(cluster)),
            false);
        m_session->admin().createOrUpdateTopicInClusterAsync(cluster, config,
            m_session->deliver<client::FanOutResult>(
                this, [this, name = config.topicName](Result<client::FanOutResult> r) {
                    const Status s = r ? r->status() : r.error();
                    if (s) {
                        report(tr("Topic %1 created or updated on %2 broker(s)")
                                   .arg(QString::fromUtf8(name))
                                   .arg(r->outcomes.size()),
                            false);
                        m_session->refreshCatalog();
                    } else {
                        report(
                            tr("Create %1 failed: %2").arg(QString::fromUtf8(name), s.toString()),
                            true);
                    }
                }));
    });
    dialog->open();
}

void TopicsView::openUpdateDialog()
{
    const QModelIndex i = currentSourceRow(m_table);
    const TopicInfo *t = i.isValid() ? m_model->topicAt(i.row()) : nullptr;
    if (!t) {
        report(tr("Select a topic to edit"), true);
        return;
    }
    protocol::TopicConfig existing;
    existing.topicName = t->name;
    const int brokers = std::max(1, t->brokers);
    existing.readQueueNums = std::max(1, t->readQueues / brokers);
    existing.writeQueueNums = std::max(1, t->writeQueues / brokers);
    existing.perm = t->perm ? t->perm : (protocol::Perm::Read | protocol::Perm::Write);
    existing.order = t->order;
    auto *dialog = new TopicDialog(m_session->clusterNames(), &existing, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        const protocol::TopicConfig config = dialog->config();
        m_session->admin().createOrUpdateTopicInClusterAsync(dialog->cluster(), config,
            m_session->deliver<client::FanOutResult>(
                this, [this, name = config.topicName](Result<client::FanOutResult> r) {
                    const Status s = r ? r->status() : r.error();
                    report(s
                            ? tr("Topic %1 updated").arg(QString::fromUtf8(name))
                            : tr("Update %1 failed: %2").arg(QString::fromUtf8(name), s.toString()),
                        !s);
                    m_session->refreshCatalog();
                }));
    });
    dialog->open();
}

void TopicsView::deleteCurrent()
{
    const QByteArray topic = currentTopic();
    if (topic.isEmpty()) {
        report(tr("Select a topic to delete"), true);
        return;
    }
    const std::vector<QByteArray> clusters = m_session->clusterNames();
    if (clusters.empty()) {
        report(tr("No cluster known yet"), true);
        return;
    }
    auto *box = new QMessageBox(QMessageBox::Warning, tr("Delete topic"),
        tr("Delete topic %1 from every master of cluster %2 and from the name servers?\n"
           "Its messages become unreachable.")
            .arg(QString::fromUtf8(topic), QString::fromUtf8(clusters.front())),
        QMessageBox::Yes | QMessageBox::Cancel, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setDefaultButton(QMessageBox::Cancel);
    connect(
        box, &QMessageBox::finished, this, [this, topic, cluster = clusters.front()](int button) {
            if (button != QMessageBox::Yes)
                return;
            m_session->admin().deleteTopicAsync(topic, cluster,
                m_session->deliver<client::FanOutResult>(
                    this, [this, topic](Result<client::FanOutResult> r) {
                        const Status s = r ? r->status() : r.error();
                        report(s ? tr("Topic %1 deleted").arg(QString::fromUtf8(topic))
                                 : tr("Delete %1 failed: %2")
                                       .arg(QString::fromUtf8(topic), s.toString()),
                            !s);
                        m_session->refreshCatalog();
                    }));
        });
    box->open();
}

void TopicsView::sendTestMessage()
{
    const QByteArray topic = currentTopic();
    if (topic.isEmpty()) {
        report(tr("Select a topic to send to"), true);
        return;
    }
    if (!m_producer) {
        client::ProducerOptions options;
        options.group = QByteArrayLiteral("QROCKET_CONSOLE_PRODUCER");
        options.client = m_session->clientConfig();
        m_producer = std::make_unique<client::Producer>(options);
        if (Status s = m_producer->start(); !s) {
            report(tr("Producer did not start: %1").arg(s.toString()), true);
            m_producer.reset();
            return;
        }
    }
    auto *input = new QInputDialog(this);
    input->setAttribute(Qt::WA_DeleteOnClose);
    input->setWindowTitle(tr("Send test message to %1").arg(QString::fromUtf8(topic)));
    input->setLabelText(tr("Body (key \"qrocket-console-test\", tag \"console\"):"));
    input->setTextValue(QStringLiteral("qrocket-console test message at %1")
                            .arg(QDateTime::currentDateTime().toString(Qt::ISODate)));
    connect(input, &QInputDialog::textValueSelected, this, [this, topic](const QString &body) {
        client::Message msg(topic, QByteArrayLiteral("console"),
            QByteArrayLiteral("qrocket-console-test"), body.toUtf8());
        m_producer->sendAsync(std::move(msg), this, [this, topic](Result<client::SendResult> r) {
            if (r) {
                report(tr("Sent to %1: msgId %2, queue %3:%4, offset %5")
                           .arg(QString::fromUtf8(topic), QString::fromUtf8(r->msgId),
                               QString::fromUtf8(r->messageQueue.brokerName))
                           .arg(r->messageQueue.queueId)
                           .arg(r->queueOffset),
                    false);
            } else {
                report(
                    tr("Send to %1 failed: %2").arg(QString::fromUtf8(topic), r.error().toString()),
                    true);
                if (topic == currentTopic())
                    askWhySendsFail();
            }
        });
    });
    input->open();
}

void TopicsView::askWhySendsFail()
{
    const QByteArray topic = currentTopic();
    m_explainedTopic = topic;
    if (topic.isEmpty()) {
        m_explain->clearQuestion(tr("Select a topic to ask the brokers why its sends are refused"));
        return;
    }
    const QByteArray account = m_session->credentials().accessKey;
    m_explain->setQuestion(
        account.isEmpty() ? tr("Why are sends to %1 refused?").arg(QString::fromUtf8(topic))
                          : tr("Why are sends to %1 by %2 refused?")
                                .arg(QString::fromUtf8(topic), QString::fromUtf8(account)),
        [this] { return explainMasters(*m_session); },
        [topic, account](
            client::Admin &admin, const QByteArray &address, ExplainPanel::Callback done) {
            admin.explainSendAsync(address, topic, account, {}, std::move(done), 5000);
        });
}

} // namespace qrocket::console
