#pragma once

// TopicDialog: create or update a topic in a cluster (name, read / write queue counts,
// permission, order), the arguments of Admin::createOrUpdateTopicInCluster. Opened with open()
// (window-modal, never a nested event loop), it emits accepted() and the caller reads config().

#include "clientlib/protocol/bodies/routebodies.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QLineEdit;
class QSpinBox;

namespace qrocket::console {

class TopicDialog : public QDialog
{
    Q_OBJECT

public:
    /// `existing` set: an update of that topic (its name is fixed).
    TopicDialog(const std::vector<QByteArray> &clusters, const protocol::TopicConfig *existing,
        QWidget *parent = nullptr);

    QByteArray cluster() const;
    protocol::TopicConfig config() const;
    QLineEdit *nameEdit() const { return m_name; }

private:
    void validate();

    QComboBox *m_cluster;
    QLineEdit *m_name;
    QSpinBox *m_read;
    QSpinBox *m_write;
    QComboBox *m_perm;
    QCheckBox *m_order;
    QPushButton *m_ok = nullptr;
};

} // namespace qrocket::console
