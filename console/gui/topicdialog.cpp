// The create / update topic dialog (see topicdialog.h).

#include "console/gui/topicdialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpressionValidator>
#include <QSpinBox>

namespace qrocket::console {

TopicDialog::TopicDialog(
    const std::vector<QByteArray> &clusters, const protocol::TopicConfig *existing, QWidget *parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("topicDialog"));
    setWindowTitle(existing ? tr("Update topic") : tr("Create topic"));
    auto *form = new QFormLayout(this);
    m_cluster = new QComboBox(this);
    for (const QByteArray &c : clusters)
        m_cluster->addItem(QString::fromUtf8(c));
    m_name = new QLineEdit(this);
    m_name->setObjectName(QStringLiteral("topicName"));
    // RocketMQ's topic name rule: [%|a-zA-Z0-9_-]+, at most 127 characters.
    m_name->setValidator(new QRegularExpressionValidator(
        QRegularExpression(QStringLiteral("[%|a-zA-Z0-9_-]{1,127}")), m_name));
    m_read = new QSpinBox(this);
    m_write = new QSpinBox(this);
    for (QSpinBox *s : {m_read, m_write}) {
        s->setRange(1, 1024);
        s->setValue(8);
    }
    m_perm = new QComboBox(this);
    m_perm->addItem(tr("read + write (6)"), protocol::Perm::Read | protocol::Perm::Write);
    m_perm->addItem(tr("read only (4)"), protocol::Perm::Read);
    m_perm->addItem(tr("write only (2)"), protocol::Perm::Write);
    m_perm->addItem(tr("none (0)"), 0);
    m_order = new QCheckBox(tr("ordered (ORDER_TOPIC_CONFIG on the name servers)"), this);
    if (existing) {
        m_name->setText(QString::fromUtf8(existing->topicName));
        m_name->setReadOnly(true);
        m_read->setValue(existing->readQueueNums);
        m_write->setValue(existing->writeQueueNums);
        const int i
            = m_perm->findData(existing->perm & (protocol::Perm::Read | protocol::Perm::Write));
        m_perm->setCurrentIndex(i < 0 ? 0 : i);
        m_order->setChecked(existing->order);
    }
    form->addRow(tr("Cluster"), m_cluster);
    form->addRow(tr("Topic"), m_name);
    form->addRow(tr("Read queues (per broker)"), m_read);
    form->addRow(tr("Write queues (per broker)"), m_write);
    form->addRow(tr("Permission"), m_perm);
    form->addRow(QString(), m_order);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_ok = buttons->button(QDialogButtonBox::Ok);
    m_ok->setText(existing ? tr("Update") : tr("Create"));
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_name, &QLineEdit::textChanged, this, &TopicDialog::validate);
    connect(m_cluster, &QComboBox::currentIndexChanged, this, &TopicDialog::validate);
    validate();
}

void TopicDialog::validate()
{
    m_ok->setEnabled(
        !m_name->text().isEmpty() && m_cluster->count() > 0 && m_name->hasAcceptableInput());
}

QByteArray TopicDialog::cluster() const
{
    return m_cluster->currentText().toUtf8();
}

protocol::TopicConfig TopicDialog::config() const
{
    protocol::TopicConfig c;
    c.topicName = m_name->text().toUtf8();
    c.readQueueNums = m_read->value();
    c.writeQueueNums = m_write->value();
    c.perm = m_perm->currentData().toInt();
    c.order = m_order->isChecked();
    return c;
}

} // namespace qrocket::console
