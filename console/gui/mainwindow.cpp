// The main window (see mainwindow.h).

#include "console/gui/mainwindow.h"

#include "console/gui/alerts.h"
#include "console/gui/clustersession.h"
#include "console/gui/clusterwidget.h"
#include "console/gui/connectdialog.h"
#include "console/gui/format.h"
#include "console/gui/style.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QLabel>
#include <QMenuBar>
#include <QResizeEvent>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>

#include <algorithm>

namespace qrocket::console {

/// A one-line status text that never widens the window: what does not fit is cut with "…" and
/// the whole text is its tooltip (a QLabel's size hint is its whole text, so a long error once
/// pushed the status bar past the window's edge).
class ElidedLabel : public QLabel
{
public:
    ElidedLabel(QWidget *parent, QSizePolicy::Policy horizontal) : QLabel(parent)
    {
        setTextFormat(Qt::PlainText);
        setSizePolicy(horizontal, QSizePolicy::Preferred);
        if (horizontal == QSizePolicy::Ignored)
            setMinimumWidth(1);
    }
    /// `colour` empty: the palette's text colour.
    void setFullText(const QString &text, const QString &colour = QString())
    {
        m_text = text;
        setStyleSheet(colour.isEmpty() ? QString() : QStringLiteral("color: %1").arg(colour));
        setToolTip(plainToolTip(text));
        updateGeometry();
        elide();
    }
    QSize sizeHint() const override
    {
        // The whole text's room, up to 60 characters (the stretch may give more).
        const QSize whole
            = QSize(fontMetrics().horizontalAdvance(m_text), QLabel::sizeHint().height());
        return {std::min(whole.width(), fontMetrics().averageCharWidth() * 60), whole.height()};
    }
    QSize minimumSizeHint() const override { return sizeHint(); }

protected:
    void resizeEvent(QResizeEvent *event) override
    {
        QLabel::resizeEvent(event);
        elide();
    }

private:
    void elide()
    {
        const QString shown
            = fontMetrics().elidedText(m_text, Qt::ElideRight, std::max(0, width()));
        if (shown != text())
            setText(shown);
    }
    QString m_text;
};

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent)
{
    setObjectName(QStringLiteral("mainWindow"));
    setWindowTitle(tr("QRocket Console"));
    setWindowIcon(appIcon());
    m_clusters = new QTabWidget(this);
    m_clusters->setTabsClosable(true);
    m_clusters->setMovable(true);
    setCentralWidget(m_clusters);
    m_problems = new ElidedLabel(this, QSizePolicy::Ignored);
    m_alerts = new ElidedLabel(this, QSizePolicy::Minimum); // its hint: up to 60 characters
    statusBar()->addPermanentWidget(m_problems, 1);
    statusBar()->addPermanentWidget(m_alerts);

    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *connectAction
        = file->addAction(tr("&Connect to cluster…"), this, &MainWindow::openConnectDialog);
    connectAction->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_N), QKeySequence::New});
    QAction *closeAction = file->addAction(
        tr("C&lose cluster"), this, [this] { closeCluster(m_clusters->currentIndex()); });
    // The platform's Close may be Ctrl+F4 only: Ctrl+W as well, everywhere.
    closeAction->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_W), QKeySequence::Close});
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Q), QKeySequence::Quit});
    QMenu *view = menuBar()->addMenu(tr("&View"));
    const QStringList names = viewNames();
    for (int i = 0; i < names.size(); ++i) {
        QAction *a = view->addAction(names[i].left(1).toUpper() + names[i].mid(1), this, [this, i] {
            if (ClusterWidget *c = currentCluster())
                c->showView(static_cast<ViewName>(i));
        });
        a->setShortcut(QKeySequence(Qt::CTRL | static_cast<Qt::Key>(Qt::Key_1 + i)));
    }
    connect(m_clusters, &QTabWidget::tabCloseRequested, this, &MainWindow::closeCluster);
    connect(m_clusters, &QTabWidget::currentChanged, this, &MainWindow::updateStatus);

    QSettings settings;
    if (!restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray()))
        resize(1280, 800);
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
}

MainWindow::~MainWindow()
{
    while (m_clusters->count() > 0) {
        QWidget *w = m_clusters->widget(0);
        m_clusters->removeTab(0);
        delete w;
    }
}

QStringList MainWindow::recentClusters()
{
    return QSettings().value(QStringLiteral("recent")).toStringList();
}

namespace {

/// The QSettings group of one address (';' and ':' kept out of the key).
QString connectionGroup(const QString &namesrvAddr)
{
    return QStringLiteral("connections/")
        + QString::fromLatin1(namesrvAddr.toUtf8().toBase64(QByteArray::Base64UrlEncoding));
}

} // namespace

void MainWindow::rememberCluster(const ConnectionSettings &settings)
{
    QStringList recent = recentClusters();
    recent.removeAll(settings.namesrvAddr);
    recent.prepend(settings.namesrvAddr);
    while (recent.size() > 10)
        recent.removeLast();
    QSettings store;
    store.setValue(QStringLiteral("recent"), recent);
    store.beginGroup(connectionGroup(settings.namesrvAddr));
    store.remove(QString());
    const remoting::TlsSettings tls = settings.tls.value_or(ClusterSession::clientTls());
    store.setValue(QStringLiteral("tls"), tls.enable);
    store.setValue(QStringLiteral("trustCertPath"), tls.clientTrustCertPath);
    store.setValue(QStringLiteral("certPath"), tls.clientCertPath);
    store.setValue(QStringLiteral("keyPath"), tls.clientKeyPath);
    store.setValue(QStringLiteral("accessKey"), QString::fromUtf8(settings.credentials.accessKey));
    store.endGroup();
}

std::optional<ConnectionSettings> MainWindow::rememberedConnection(const QString &namesrvAddr)
{
    QSettings store;
    store.beginGroup(connectionGroup(namesrvAddr));
    if (!store.contains(QStringLiteral("tls")))
        return std::nullopt;
    ConnectionSettings s;
    s.namesrvAddr = namesrvAddr;
    remoting::TlsSettings tls = ClusterSession::clientTls();
    tls.enable = store.value(QStringLiteral("tls")).toBool();
    tls.clientTrustCertPath = store.value(QStringLiteral("trustCertPath")).toString();
    tls.clientCertPath = store.value(QStringLiteral("certPath")).toString();
    tls.clientKeyPath = store.value(QStringLiteral("keyPath")).toString();
    s.tls = tls;
    s.credentials.accessKey = store.value(QStringLiteral("accessKey")).toString().toUtf8();
    return s;
}

Status MainWindow::addCluster(const QString &namesrvAddr, ClusterWidget **out)
{
    return addCluster(ConnectionSettings {namesrvAddr, m_credentials, std::nullopt}, out);
}

Status MainWindow::addCluster(const ConnectionSettings &settings, ClusterWidget **out)
{
    ConnectionSettings s = settings;
    s.namesrvAddr = s.namesrvAddr.trimmed();
    const QString addr = s.namesrvAddr;
    auto *w = new ClusterWidget(s);
    if (Status st = w->start(); !st) {
        delete w;
        statusBar()->showMessage(tr("Cannot connect to %1: %2").arg(addr, st.toString()));
        return st;
    }
    connect(w, &ClusterWidget::statusMessage, this,
        [this](const QString &text) { statusBar()->showMessage(text, 15000); });
    connect(w, &ClusterWidget::problemsChanged, this, &MainWindow::updateStatus);
    connect(w, &ClusterWidget::alertsChanged, this, &MainWindow::updateStatus);
    const int index = m_clusters->addTab(w, addr);
    if (w->session()->usesTls())
        m_clusters->setTabToolTip(index, tr("%1, with TLS").arg(addr));
    m_clusters->setCurrentIndex(index);
    rememberCluster(s);
    if (out)
        *out = w;
    updateStatus();
    return {};
}

ClusterWidget *MainWindow::currentCluster() const
{
    return qobject_cast<ClusterWidget *>(m_clusters->currentWidget());
}

int MainWindow::clusterCount() const
{
    return m_clusters->count();
}

ClusterWidget *MainWindow::cluster(int index) const
{
    return qobject_cast<ClusterWidget *>(m_clusters->widget(index));
}

void MainWindow::closeCluster(int index)
{
    QWidget *w = m_clusters->widget(index);
    if (!w)
        return;
    m_clusters->removeTab(index);
    delete w;
    updateStatus();
}

void MainWindow::openConnectDialog()
{
    auto *dialog = new ConnectDialog(recentClusters(),
        ConnectionSettings {QString(), m_credentials, ClusterSession::clientTls()},
        &MainWindow::rememberedConnection, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] { addCluster(dialog->settings()); });
    dialog->open();
}

void MainWindow::updateStatus()
{
    ClusterWidget *c = currentCluster();
    if (!c) {
        m_problems->setFullText(tr("Not connected: File > Connect (Ctrl+N)"));
        m_alerts->setFullText(QString());
        return;
    }
    const QString problems = c->session()->problemSummary();
    m_problems->setFullText(problems.isEmpty() ? QString() : QStringLiteral("\u26A0 ") + problems,
        QStringLiteral("#f0b429"));
    const auto &active = c->alerts()->active();
    if (active.empty())
        m_alerts->setFullText(tr("no alerts"));
    else
        m_alerts->setFullText(QStringLiteral("\u26A0 ")
                + tr("%1 alert(s): %2").arg(active.size()).arg(active.back().text),
            QStringLiteral("#ff6b6b"));
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    event->accept();
}

} // namespace qrocket::console
