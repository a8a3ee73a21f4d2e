// The users and ACL tab (see aclview.h).

#include "console/gui/aclview.h"

#include "console/gui/clustersession.h"
#include "console/gui/format.h"

#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

namespace qrocket::console {

namespace {

QTableWidget *makeList(const QStringList &headers, QWidget *parent)
{
    auto *t = new QTableWidget(0, static_cast<int>(headers.size()), parent);
    t->setHorizontalHeaderLabels(headers);
    t->horizontalHeader()->setStretchLastSection(true);
    t->verticalHeader()->setVisible(false);
    t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 6);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setSelectionMode(QAbstractItemView::SingleSelection);
    t->setWordWrap(false);
    return t;
}

QByteArray joined(const std::vector<QByteArray> &parts)
{
    QByteArray out;
    for (const QByteArray &p : parts) {
        if (!out.isEmpty())
            out += ", ";
        out += p;
    }
    return out;
}

std::vector<QByteArray> splitList(const QString &text)
{
    std::vector<QByteArray> out;
    for (const QString &part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const QString p = part.trimmed();
        if (!p.isEmpty())
            out.push_back(p.toUtf8());
    }
    return out;
}

} // namespace

AclView::AclView(ClusterSession *session, QWidget *parent) : QWidget(parent), m_session(session)
{
    auto *layout = new QVBoxLayout(this);
    m_note = makeNote(this);
    layout->addWidget(m_note);
    auto *splitter = new QSplitter(Qt::Vertical, this);

    auto *usersBox = new QWidget(splitter);
    auto *usersLayout = new QVBoxLayout(usersBox);
    usersLayout->setContentsMargins(0, 0, 0, 0);
    auto *userBar = new QHBoxLayout;
    userBar->addWidget(new QLabel(tr("<b>Users</b> (AUTH_LIST_USER)"), usersBox), 1);
    m_newUser = new QPushButton(tr("&New user…"), usersBox);
    m_editUser = new QPushButton(tr("&Edit user…"), usersBox);
    m_deleteUser = new QPushButton(tr("&Delete user…"), usersBox);
    auto *reload = new QPushButton(tr("&Reload"), usersBox);
    for (QPushButton *b : {m_newUser, m_editUser, m_deleteUser, reload})
        userBar->addWidget(b);
    usersLayout->addLayout(userBar);
    m_userTable = makeList({tr("User"), tr("Type"), tr("Status")}, usersBox);
    m_userTable->horizontalHeader()->resizeSection(0, 260);
    m_userTable->horizontalHeader()->resizeSection(1, 120);
    usersLayout->addWidget(m_userTable);

    auto *aclBox = new QWidget(splitter);
    auto *aclLayout = new QVBoxLayout(aclBox);
    aclLayout->setContentsMargins(0, 0, 0, 0);
    auto *aclBar = new QHBoxLayout;
    aclBar->addWidget(
        new QLabel(tr("<b>ACL policies</b> (AUTH_LIST_ACL; deny wins over allow)"), aclBox), 1);
    m_newAcl = new QPushButton(tr("&Add policy…"), aclBox);
    m_deleteAcl = new QPushButton(tr("Delete &policy…"), aclBox);
    aclBar->addWidget(m_newAcl);
    aclBar->addWidget(m_deleteAcl);
    aclLayout->addLayout(aclBar);
    m_aclTable = makeList({tr("Subject"), tr("Policy type"), tr("Resource"), tr("Actions"),
                              tr("Source IPs"), tr("Decision")},
        aclBox);
    m_aclTable->horizontalHeader()->resizeSection(0, 200);
    m_aclTable->horizontalHeader()->resizeSection(2, 220);
    m_aclTable->horizontalHeader()->resizeSection(3, 220);
    m_aclTable->horizontalHeader()->resizeSection(4, 180);
    aclLayout->addWidget(m_aclTable);
    splitter->addWidget(usersBox);
    splitter->addWidget(aclBox);
    layout->addWidget(splitter, 1);

    connect(m_newUser, &QPushButton::clicked, this, [this] { editUser(true); });
    connect(m_editUser, &QPushButton::clicked, this, [this] { editUser(false); });
    connect(m_deleteUser, &QPushButton::clicked, this, &AclView::confirmDeleteUser);
    connect(reload, &QPushButton::clicked, this, &AclView::refresh);
    connect(m_newAcl, &QPushButton::clicked, this, &AclView::editAcl);
    connect(m_deleteAcl, &QPushButton::clicked, this, &AclView::confirmDeleteAcl);
}

void AclView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    refresh();
}

QByteArray AclView::readBroker() const
{
    for (const BrokerInfo &b : m_session->brokers()) {
        if (b.registered && b.brokerId == protocol::kMasterBrokerId)
            return b.address;
    }
    return {};
}

void AclView::refresh()
{
    const QByteArray broker = readBroker();
    if (broker.isEmpty()) {
        setNote(m_note, tr("No master broker known yet: the lists are read from one."));
        return;
    }
    const int id = ++m_query;
    auto pending = std::make_shared<int>(2);
    auto errors = std::make_shared<QStringList>();
    auto done = [this, id, pending, errors] {
        if (--*pending > 0 || id != m_query)
            return;
        m_lastError = errors->join(QStringLiteral("; "));
        m_loaded = true;
        if (!m_lastError.isEmpty())
            setNote(m_note,
                QStringLiteral("<span style='color:#ff6b6b'>%1</span>")
                    .arg(m_lastError.toHtmlEscaped()));
    };
    m_session->admin().listUsersAsync(broker, {},
        m_session->deliver<std::vector<protocol::UserInfo>>(
            this, [this, id, errors, done](Result<std::vector<protocol::UserInfo>> r) {
                if (id != m_query)
                    return;
                if (r) {
                    m_users = std::move(r).value();
                    fillUsers();
                } else {
                    *errors << tr("users: %1").arg(r.error().toString());
                }
                done();
            }));
    m_session->admin().listAclsAsync(broker, {}, {},
        m_session->deliver<std::vector<protocol::AclInfo>>(
            this, [this, id, errors, done](Result<std::vector<protocol::AclInfo>> r) {
                if (id != m_query)
                    return;
                if (r) {
                    m_acls = std::move(r).value();
                    fillAcls();
                } else {
                    *errors << tr("ACLs: %1").arg(r.error().toString());
                }
                done();
            }));
}

void AclView::fillUsers()
{
    std::sort(m_users.begin(), m_users.end(),
        [](const auto &a, const auto &b) { return a.username < b.username; });
    m_userTable->setRowCount(static_cast<int>(m_users.size()));
    for (int r = 0; r < static_cast<int>(m_users.size()); ++r) {
        const protocol::UserInfo &u = m_users[static_cast<std::size_t>(r)];
        m_userTable->setItem(r, 0, new QTableWidgetItem(QString::fromUtf8(u.username)));
        m_userTable->setItem(r, 1, new QTableWidgetItem(QString::fromUtf8(u.userType)));
        m_userTable->setItem(r, 2, new QTableWidgetItem(QString::fromUtf8(u.userStatus)));
    }
}

void AclView::fillAcls()
{
    std::sort(m_acls.begin(), m_acls.end(),
        [](const auto &a, const auto &b) { return a.subject < b.subject; });
    int rows = 0;
    for (const protocol::AclInfo &a : m_acls) {
        for (const protocol::PolicyInfo &p : a.policies)
            rows += static_cast<int>(p.entries.size());
    }
    m_aclTable->setRowCount(rows);
    int r = 0;
    for (const protocol::AclInfo &a : m_acls) {
        for (const protocol::PolicyInfo &p : a.policies) {
            for (const protocol::PolicyEntryInfo &e : p.entries) {
                const QStringList cells {QString::fromUtf8(a.subject),
                    QString::fromUtf8(p.policyType.isEmpty() ? "Custom" : p.policyType),
                    QString::fromUtf8(e.resource), QString::fromUtf8(joined(e.actions)),
                    e.sourceIps.empty() ? tr("any") : QString::fromUtf8(joined(e.sourceIps)),
                    QString::fromUtf8(e.decision)};
                for (int c = 0; c < cells.size(); ++c) {
                    auto *item = new QTableWidgetItem(cells[c]);
                    if (c == 5)
                        item->setForeground(e.decision.compare("Deny", Qt::CaseInsensitive) == 0
                                ? QColor(0xff, 0x6b, 0x6b)
                                : QColor(0x4c, 0xc3, 0x6a));
                    m_aclTable->setItem(r, c, item);
                }
                ++r;
            }
        }
    }
}

void AclView::finishChange(const QString &what, const Status &s)
{
    const QString text = s ? tr("%1: done on every broker").arg(what)
                           : tr("%1 failed: %2").arg(what, s.toString());
    m_lastChange = text;
    setNote(m_note,
        QStringLiteral("<span style='color:%1'>%2</span>")
            .arg(s ? QStringLiteral("#4cc36a") : QStringLiteral("#ff6b6b"), text.toHtmlEscaped()));
    emit message(text);
    m_loaded = false;
    refresh();
    emit changed(s.isOk());
}

void AclView::createUser(const protocol::UserInfo &user)
{
    const QString what = tr("create user %1").arg(QString::fromUtf8(user.username));
    m_session->admin().createUserAsync({}, user,
        m_session->deliver<client::FanOutResult>(
            this, [this, what](Result<client::FanOutResult> r) {
                finishChange(what, r ? r->status() : r.error());
            }));
}

void AclView::updateUser(const protocol::UserInfo &user)
{
    const QString what = tr("update user %1").arg(QString::fromUtf8(user.username));
    m_session->admin().updateUserAsync({}, user,
        m_session->deliver<client::FanOutResult>(
            this, [this, what](Result<client::FanOutResult> r) {
                finishChange(what, r ? r->status() : r.error());
            }));
}

void AclView::deleteUser(const QByteArray &username)
{
    const QString what = tr("delete user %1").arg(QString::fromUtf8(username));
    m_session->admin().deleteUserAsync({}, username,
        m_session->deliver<client::FanOutResult>(
            this, [this, what](Result<client::FanOutResult> r) {
                finishChange(what, r ? r->status() : r.error());
            }));
}

void AclView::createAcl(const protocol::AclInfo &acl)
{
    const QString what = tr("add policy of %1").arg(QString::fromUtf8(acl.subject));
    m_session->admin().createAclAsync({}, acl,
        m_session->deliver<client::FanOutResult>(
            this, [this, what](Result<client::FanOutResult> r) {
                finishChange(what, r ? r->status() : r.error());
            }));
}

void AclView::deleteAcl(const QByteArray &subject, const QByteArray &resource)
{
    const QString what = resource.isEmpty()
        ? tr("delete the ACL of %1").arg(QString::fromUtf8(subject))
        : tr("delete the policy of %1 on %2")
              .arg(QString::fromUtf8(subject), QString::fromUtf8(resource));
    m_session->admin().deleteAclAsync({}, subject, resource, {},
        m_session->deliver<client::FanOutResult>(
            this, [this, what](Result<client::FanOutResult> r) {
                finishChange(what, r ? r->status() : r.error());
            }));
}

void AclView::editUser(bool create)
{
    const int row = m_userTable->currentRow();
    if (!create && (row < 0 || row >= static_cast<int>(m_users.size()))) {
        emit message(tr("Select a user to edit"));
        return;
    }
    auto *dialog = new QDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(create ? tr("New user") : tr("Edit user"));
    auto *form = new QFormLayout(dialog);
    auto *name = new QLineEdit(dialog);
    name->setObjectName(QStringLiteral("username"));
    auto *password = new QLineEdit(dialog);
    password->setObjectName(QStringLiteral("password"));
    password->setEchoMode(QLineEdit::Password);
    password->setPlaceholderText(create ? QString() : tr("blank: keep the password"));
    auto *type = new QComboBox(dialog);
    type->setObjectName(QStringLiteral("userType"));
    type->addItems({QStringLiteral("Normal"), QStringLiteral("Super")});
    auto *status = new QComboBox(dialog);
    status->setObjectName(QStringLiteral("userStatus"));
    status->addItems({QStringLiteral("enable"), QStringLiteral("disable")});
    if (!create) {
        const protocol::UserInfo &u = m_users[static_cast<std::size_t>(row)];
        name->setText(QString::fromUtf8(u.username));
        name->setReadOnly(true);
        const int t = type->findText(QString::fromUtf8(u.userType), Qt::MatchFixedString);
        type->setCurrentIndex(std::max(0, t));
        const int st = status->findText(QString::fromUtf8(u.userStatus), Qt::MatchFixedString);
        status->setCurrentIndex(std::max(0, st));
    }
    form->addRow(tr("&Username"), name);
    form->addRow(tr("&Password"), password);
    form->addRow(tr("&Type"), type);
    form->addRow(tr("&Status"), status);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, dialog);
    form->addRow(buttons);
    auto validate = [=] {
        buttons->button(QDialogButtonBox::Ok)
            ->setEnabled(
                !name->text().trimmed().isEmpty() && (!create || !password->text().isEmpty()));
    };
    connect(name, &QLineEdit::textChanged, dialog, validate);
    connect(password, &QLineEdit::textChanged, dialog, validate);
    validate();
    connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    connect(buttons, &QDialogButtonBox::accepted, dialog, [=, this] {
        protocol::UserInfo u;
        u.username = name->text().trimmed().toUtf8();
        u.password = password->text().toUtf8();
        u.userType = type->currentText().toUtf8();
        u.userStatus = status->currentText().toUtf8();
        if (create)
            createUser(u);
        else
            updateUser(u);
        dialog->accept();
    });
    dialog->open();
}

void AclView::editAcl()
{
    auto *dialog = new QDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("Add ACL policy"));
    auto *form = new QFormLayout(dialog);
    auto *subject = new QComboBox(dialog);
    subject->setObjectName(QStringLiteral("subject"));
    subject->setEditable(true);
    for (const protocol::UserInfo &u : m_users)
        subject->addItem(QStringLiteral("User:") + QString::fromUtf8(u.username));
    if (const int row = m_userTable->currentRow(); row >= 0)
        subject->setCurrentIndex(row);
    auto *resource = new QLineEdit(dialog);
    resource->setObjectName(QStringLiteral("resource"));
    resource->setPlaceholderText(tr("Topic:orders, Group:g*, Cluster:*, *"));
    auto *actions = new QLineEdit(QStringLiteral("Pub, Sub"), dialog);
    actions->setObjectName(QStringLiteral("actions"));
    actions->setToolTip(tr("Pub, Sub, Create, Update, Delete, Get, List, All"));
    auto *ips = new QLineEdit(dialog);
    ips->setObjectName(QStringLiteral("sourceIps"));
    ips->setPlaceholderText(tr("IPs or CIDR ranges, comma-separated; blank: from anywhere"));
    auto *decision = new QComboBox(dialog);
    decision->setObjectName(QStringLiteral("decision"));
    decision->addItems({QStringLiteral("Allow"), QStringLiteral("Deny")});
    form->addRow(tr("S&ubject"), subject);
    form->addRow(tr("&Resource"), resource);
    form->addRow(tr("&Actions"), actions);
    form->addRow(tr("Source &IPs"), ips);
    form->addRow(tr("&Decision"), decision);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, dialog);
    form->addRow(buttons);
    auto validate = [=] {
        buttons->button(QDialogButtonBox::Ok)
            ->setEnabled(!subject->currentText().trimmed().isEmpty()
                && !resource->text().trimmed().isEmpty() && !splitList(actions->text()).empty());
    };
    connect(subject, &QComboBox::currentTextChanged, dialog, validate);
    connect(resource, &QLineEdit::textChanged, dialog, validate);
    connect(actions, &QLineEdit::textChanged, dialog, validate);
    validate();
    connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    connect(buttons, &QDialogButtonBox::accepted, dialog, [=, this] {
        protocol::PolicyEntryInfo e;
        e.resource = resource->text().trimmed().toUtf8();
        e.actions = splitList(actions->text());
        e.sourceIps = splitList(ips->text());
        e.decision = decision->currentText().toUtf8();
        protocol::AclInfo acl;
        acl.subject = subject->currentText().trimmed().toUtf8();
        acl.policies.push_back({QByteArrayLiteral("Custom"), {e}});
        createAcl(acl);
        dialog->accept();
    });
    dialog->open();
}

void AclView::confirmDeleteUser()
{
    const int row = m_userTable->currentRow();
    if (row < 0 || row >= static_cast<int>(m_users.size())) {
        emit message(tr("Select a user to delete"));
        return;
    }
    const QByteArray name = m_users[static_cast<std::size_t>(row)].username;
    auto *box = new QMessageBox(QMessageBox::Warning, tr("Delete user"),
        tr("Delete user %1 (and its ACL) on every broker?").arg(QString::fromUtf8(name)),
        QMessageBox::Yes | QMessageBox::Cancel, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setDefaultButton(QMessageBox::Cancel);
    connect(box, &QMessageBox::finished, this, [this, name](int button) {
        if (button == QMessageBox::Yes)
            deleteUser(name);
    });
    box->open();
}

void AclView::confirmDeleteAcl()
{
    const int row = m_aclTable->currentRow();
    if (row < 0 || !m_aclTable->item(row, 0)) {
        emit message(tr("Select a policy to delete"));
        return;
    }
    const QByteArray subject = m_aclTable->item(row, 0)->text().toUtf8();
    const QByteArray resource = m_aclTable->item(row, 2)->text().toUtf8();
    auto *box = new QMessageBox(QMessageBox::Warning, tr("Delete policy"),
        tr("Delete the policy of %1 on %2 on every broker?")
            .arg(QString::fromUtf8(subject), QString::fromUtf8(resource)),
        QMessageBox::Yes | QMessageBox::Cancel, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setDefaultButton(QMessageBox::Cancel);
    connect(box, &QMessageBox::finished, this, [this, subject, resource](int button) {
        if (button == QMessageBox::Yes)
            deleteAcl(subject, resource);
    });
    box->open();
}

} // namespace qrocket::console
