// The connection dialog (see connectdialog.h).

#include "console/gui/connectdialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QToolButton>
#include <QVBoxLayout>

namespace qrocket::console {

namespace {

/// A line edit for a PEM file with a "…" button that opens a file chooser.
QLineEdit *fileRow(QFormLayout *form, const QString &label, const QString &placeholder)
{
    auto *row = new QWidget(form->parentWidget());
    auto *h = new QHBoxLayout(row);
    h->setContentsMargins(0, 0, 0, 0);
    auto *edit = new QLineEdit(row);
    edit->setPlaceholderText(placeholder);
    auto *browse = new QToolButton(row);
    browse->setText(QStringLiteral("…"));
    QObject::connect(browse, &QToolButton::clicked, edit, [edit] {
        const QString f = QFileDialog::getOpenFileName(edit, QObject::tr("PEM file"), edit->text(),
            QObject::tr("PEM files (*.pem *.crt *.key);;All files (*)"));
        if (!f.isEmpty())
            edit->setText(f);
    });
    h->addWidget(edit, 1);
    h->addWidget(browse);
    form->addRow(label, row);
    return edit;
}

QString unreadable(const QString &what, const QString &path)
{
    if (path.isEmpty())
        return {};
    const QFileInfo f(path);
    if (!f.isFile() || !f.isReadable())
        return QObject::tr("%1 \"%2\" is not a readable file").arg(what, path);
    return {};
}

} // namespace

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

QString ConnectDialog::checkSecurity(const ConnectionSettings &settings)
{
    if (Status st = settings.credentials.check(); !st)
        return st.message();
    if (!settings.tls || !settings.tls->enable)
        return {};
    const remoting::TlsSettings &t = *settings.tls;
    if (t.clientCertPath.isEmpty() != t.clientKeyPath.isEmpty())
        return tr("A client certificate needs its key, and a key its certificate");
    for (const auto &[what, path] :
        {std::pair {tr("The trusted certificates"), t.clientTrustCertPath},
            std::pair {tr("The client certificate"), t.clientCertPath},
            std::pair {tr("The client key"), t.clientKeyPath}})
        if (QString why = unreadable(what, path); !why.isEmpty())
            return why;
    return {};
}

ConnectDialog::ConnectDialog(
    const QStringList &recent, ConnectionSettings defaults, Remembered remembered, QWidget *parent)
    : QDialog(parent), m_defaults(std::move(defaults)), m_remembered(std::move(remembered))
{
    setWindowTitle(tr("Connect to a cluster"));
    setMinimumWidth(560);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(new QLabel(tr("Name servers (host:port;host:port):"), this));
    m_address = new QComboBox(this);
    m_address->setEditable(true);
    m_address->addItems(recent);
    if (recent.isEmpty())
        m_address->setEditText(QStringLiteral("127.0.0.1:9876"));
    m_address->setMinimumContentsLength(36);
    layout->addWidget(m_address);

    auto *tlsGroup = new QGroupBox(tr("TLS"), this);
    auto *tlsForm = new QFormLayout(tlsGroup);
    m_tls = new QCheckBox(tr("Connect with TLS (tls.enable)"), tlsGroup);
    tlsForm->addRow(m_tls);
    m_trustCert = fileRow(
        tlsForm, tr("Trusted certificates:"), tr("the system's (tls.client.trustCertPath)"));
    m_clientCert = fileRow(tlsForm, tr("Client certificate:"), tr("none (tls.client.certPath)"));
    m_clientKey = fileRow(tlsForm, tr("Client key:"), tr("none (tls.client.keyPath)"));
    layout->addWidget(tlsGroup);

    auto *aclGroup = new QGroupBox(tr("ACL"), this);
    auto *aclForm = new QFormLayout(aclGroup);
    m_accessKey = new QLineEdit(aclGroup);
    m_accessKey->setPlaceholderText(tr("none: requests are not signed"));
    m_secretKey = new QLineEdit(aclGroup);
    m_secretKey->setEchoMode(QLineEdit::Password);
    aclForm->addRow(tr("Access key:"), m_accessKey);
    aclForm->addRow(tr("Secret key:"), m_secretKey);
    layout->addWidget(aclGroup);

    m_error = new QLabel(this);
    m_error->setStyleSheet(QStringLiteral("color: #ff6b6b"));
    m_error->setTextFormat(Qt::PlainText);
    m_error->setWordWrap(true);
    layout->addWidget(m_error);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Connect"));
    layout->addWidget(buttons);

    fill(m_defaults);
    if (m_remembered && !recent.isEmpty())
        if (auto r = m_remembered(recent.front()))
            fill(*r);
    connect(m_address, &QComboBox::textActivated, this, [this](const QString &text) {
        if (!m_remembered)
            return;
        if (auto r = m_remembered(text.trimmed()))
            fill(*r);
    });
    connect(m_tls, &QCheckBox::toggled, this, &ConnectDialog::updateEnabled);
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        QString why = checkAddress(address());
        if (why.isEmpty())
            why = checkSecurity(settings());
        if (why.isEmpty())
            accept();
        else
            m_error->setText(why);
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    updateEnabled();
}

void ConnectDialog::fill(const ConnectionSettings &s)
{
    const remoting::TlsSettings tls
        = s.tls.value_or(m_defaults.tls.value_or(remoting::TlsSettings {}));
    m_tls->setChecked(tls.enable);
    m_trustCert->setText(tls.clientTrustCertPath);
    m_clientCert->setText(tls.clientCertPath);
    m_clientKey->setText(tls.clientKeyPath);
    m_accessKey->setText(QString::fromUtf8(s.credentials.accessKey));
    // The default account's secret is known (its tools.yml); a remembered one never is.
    m_secretKey->setText(s.credentials.accessKey == m_defaults.credentials.accessKey
            ? QString::fromUtf8(m_defaults.credentials.secretKey)
            : QString());
}

void ConnectDialog::updateEnabled()
{
    for (QLineEdit *e : {m_trustCert, m_clientCert, m_clientKey})
        e->parentWidget()->setEnabled(m_tls->isChecked());
}

QString ConnectDialog::address() const
{
    return m_address->currentText().trimmed();
}

ConnectionSettings ConnectDialog::settings() const
{
    ConnectionSettings s;
    s.namesrvAddr = address();
    s.credentials.accessKey = m_accessKey->text().trimmed().toUtf8();
    s.credentials.secretKey = m_secretKey->text().toUtf8();
    remoting::TlsSettings tls = m_defaults.tls.value_or(remoting::TlsSettings {});
    tls.configFile.clear(); // only what the dialog says
    tls.enable = m_tls->isChecked();
    tls.clientTrustCertPath = m_trustCert->text().trimmed();
    tls.clientCertPath = m_clientCert->text().trimmed();
    tls.clientKeyPath = m_clientKey->text().trimmed();
    s.tls = tls;
    return s;
}

} // namespace qrocket::console
