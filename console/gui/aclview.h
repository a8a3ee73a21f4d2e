#pragma once

// AclView: the "Users & ACL" tab: RocketMQ 5's ACL 2.0 users and policies of the cluster, through
// the Admin's AUTH_* calls (codes 3001-3010, as `qrocket-admin createUser / listAcl` and
// RocketMQ 5's `mqadmin` use them). Lists come from one master (AUTH_LIST_USER, AUTH_LIST_ACL:
// every broker keeps its own store and a slave follows its master); every change goes to every
// broker of the cluster(s) (masters and slaves, as `mqadmin -c` does), then the lists are read
// again. The session's credentials sign the requests: with aclEnable on, only a super user may
// manage them, and the broker's refusal is shown as it says it. A QRocket broker never answers
// a password.

#include "clientlib/protocol/bodies/authbodies.h"
#include "console/gui/tablesupport.h"

#include <QWidget>

#include <vector>

class QPushButton;
class QTableWidget;

namespace qrocket::console {

class ClusterSession;

class AclView : public QWidget
{
    Q_OBJECT

public:
    explicit AclView(ClusterSession *session, QWidget *parent = nullptr);

    /// Reads the users and ACLs again (AUTH_LIST_USER, AUTH_LIST_ACL from the first master).
    void refresh();
    /// What the dialogs do (also for tests): each change, then a refresh; done(ok) after it.
    void createUser(const protocol::UserInfo &user);
    void updateUser(const protocol::UserInfo &user);
    void deleteUser(const QByteArray &username);
    void createAcl(const protocol::AclInfo &acl);
    /// The subject's whole ACL (`resource` empty) or its entry of `resource`.
    void deleteAcl(const QByteArray &subject, const QByteArray &resource);

    const std::vector<protocol::UserInfo> &users() const { return m_users; }
    const std::vector<protocol::AclInfo> &acls() const { return m_acls; }
    /// The last refresh's error (empty when both lists answered).
    QString lastError() const { return m_lastError; }
    /// The last change's outcome in words ("create user bob: done on every broker", "delete
    /// user root failed: ...").
    QString lastChange() const { return m_lastChange; }
    /// A refresh answered (users and ACLs, with or without error) since the last change.
    bool loaded() const { return m_loaded; }
    bool hasData() const { return m_loaded; }
    QTableWidget *userTable() const { return m_userTable; }
    QTableWidget *aclTable() const { return m_aclTable; }
    QPushButton *newUserButton() const { return m_newUser; }

signals:
    void message(const QString &text);
    /// A change finished (after its refresh was asked).
    void changed(bool ok);

protected:
    void showEvent(QShowEvent *event) override;

private:
    void editUser(bool create);
    void editAcl();
    void confirmDeleteUser();
    void confirmDeleteAcl();
    void finishChange(const QString &what, const Status &s);
    void fillUsers();
    void fillAcls();
    QByteArray readBroker() const;

    ClusterSession *m_session;
    QLabel *m_note;
    QTableWidget *m_userTable;
    QTableWidget *m_aclTable;
    QPushButton *m_newUser;
    QPushButton *m_editUser;
    QPushButton *m_deleteUser;
    QPushButton *m_newAcl;
    QPushButton *m_deleteAcl;
    std::vector<protocol::UserInfo> m_users;
    std::vector<protocol::AclInfo> m_acls;
    QString m_lastError;
    QString m_lastChange;
    bool m_loaded = false;
    int m_query = 0;
};

} // namespace qrocket::console
