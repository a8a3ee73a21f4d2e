// The connection dialog (see connectdialog.h).

#include "console/gui/connectdialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace qrocket::console {

QString ConnectDialog::checkAddress(const QString &text)
{
    const QStringList parts = text.split(QLatin1Char(';'), Qt::SkipEmptyParts);
    if (parts.isEmpty())
        return tr("Enter at least one name server, host:port");
    for (const QString &raw : parts) {
        const QString p = raw.trimmed();
        const int colon = p.lastIndexOf(QLatin1Char(':'));
        bool ok = false;
        const int port = colon > 0 ? p.mid(colon + 1).toInt(&ok) : 0;
        if (colon <= 0 || !ok || port <= 0 || port > 65535)
            return tr("\"%1\" is not host:port").arg(p);
    }
    return {};
}

ConnectDialog::ConnectDialog(const QStringList &recent, QWidget *parent) : QDialog(parent)
{
    setWindowTitle(tr("Connect to a cluster"));
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(new QLabel(tr("Name servers (host:port;host:port):"), this));
    m_address = new QComboBox(this);
    m_address->setEditable(true);
    m_address->addItems(recent);
    if (recent.isEmpty())
        m_address->setEditText(QStringLiteral("127.0.0.1:9876"));
    m_address->setMinimumContentsLength(36);
    layout->addWidget(m_address);
    m_error = new QLabel(this);
    m_error->setStyleSheet(QStringLiteral("color: #ff6b6b"));
    m_error->setTextFormat(Qt::PlainText);
    layout->addWidget(m_error);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Connect"));
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        const QString why = checkAddress(address());
        if (why.isEmpty())
            accept();
        else
            m_error->setText(why);
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
}

QString ConnectDialog::address() const
{
    return m_address->currentText().trimmed();
}

} // namespace qrocket::console
