#pragma once

// ConnectDialog: asks for a name-server list ("host:port;host:port"), offering the recent
// clusters. Checks the form of each address before it accepts.

#include <QDialog>

class QComboBox;
class QLabel;

namespace qrocket::console {

class ConnectDialog : public QDialog
{
    Q_OBJECT

public:
    explicit ConnectDialog(const QStringList &recent, QWidget *parent = nullptr);
    QString address() const;
    /// Empty when `text` is a ';'-separated list of host:port, else why not.
    static QString checkAddress(const QString &text);

private:
    QComboBox *m_address;
    QLabel *m_error;
};

} // namespace qrocket::console
