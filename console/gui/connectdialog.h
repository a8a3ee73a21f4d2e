#pragma once

// ConnectDialog: asks for a name-server list ("host:port;host:port") and how to reach that
// cluster: TLS (RocketMQ's tls.enable with tls.client.trustCertPath, and a client certificate
// for servers that require one) and the ACL access key / secret key to sign with. Offers the
// recent clusters; picking one restores what was used for it (never its secret key: that is
// not stored). Checks the address and the files before it accepts.

#include "console/gui/clustersession.h"

#include <QDialog>

#include <functional>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;

namespace qrocket::console {

class ConnectDialog : public QDialog
{
    Q_OBJECT

public:
    /// What a recent address was last connected with (nullopt: nothing remembered).
    using Remembered = std::function<std::optional<ConnectionSettings>(const QString &address)>;

    /// `defaults`: the console's command-line credentials and TLS, for a new address.
    ConnectDialog(const QStringList &recent, ConnectionSettings defaults, Remembered remembered,
        QWidget *parent = nullptr);
    QString address() const;
    /// The address, credentials and TLS as filled in.
    ConnectionSettings settings() const;
    /// Empty when `text` is a ';'-separated list of host:port, else why not.
    static QString checkAddress(const QString &text);
    /// Empty when the credentials and TLS files of `settings` are usable, else why not.
    static QString checkSecurity(const ConnectionSettings &settings);

    QCheckBox *tlsBox() const { return m_tls; }
    QLineEdit *trustCertEdit() const { return m_trustCert; }
    QLineEdit *accessKeyEdit() const { return m_accessKey; }
    QLineEdit *secretKeyEdit() const { return m_secretKey; }

private:
    void fill(const ConnectionSettings &s);
    void updateEnabled();

    ConnectionSettings m_defaults;
    Remembered m_remembered;
    QComboBox *m_address;
    QCheckBox *m_tls;
    QLineEdit *m_trustCert;
    QLineEdit *m_clientCert;
    QLineEdit *m_clientKey;
    QLineEdit *m_accessKey;
    QLineEdit *m_secretKey;
    QLabel *m_error;
};

} // namespace qrocket::console
