#pragma once

// MainWindow: one top-level tab per cluster (ClusterWidget), a status bar with the current
// cluster's problems and alerts, the connection dialog, and the remembered window layout
// (QSettings "window/geometry", "window/state") and recent clusters ("recent", newest first).

#include "clientlib/common/status.h"
#include "console/common/credentials.h"
#include "console/gui/clustersession.h"

#include <QMainWindow>

class QLabel;
class QTabWidget;

namespace qrocket::console {

class ClusterWidget;
class ElidedLabel;

class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    /// Opens a tab for `namesrvAddr` ("host:port;host:port") with the console's credentials and
    /// TLS, and remembers it; the error when the address is unusable (shown in the status bar).
    Status addCluster(const QString &namesrvAddr, ClusterWidget **out = nullptr);
    /// The same with the cluster's own credentials and TLS (the connect dialog).
    Status addCluster(const ConnectionSettings &settings, ClusterWidget **out = nullptr);
    /// ACL credentials every cluster added from now on signs with (qrocket-console --aclConfig).
    void setCredentials(const Credentials &credentials) { m_credentials = credentials; }
    ClusterWidget *currentCluster() const;
    int clusterCount() const;
    ClusterWidget *cluster(int index) const;

    static QStringList recentClusters();
    /// Puts the address first in "recent" and keeps, under "connections/", its TLS settings
    /// and access key (never the secret key).
    static void rememberCluster(const ConnectionSettings &settings);
    /// What rememberCluster kept for `namesrvAddr` (no secret key); nullopt when nothing.
    static std::optional<ConnectionSettings> rememberedConnection(const QString &namesrvAddr);

public slots:
    void openConnectDialog();

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void updateStatus();
    void closeCluster(int index);

    QTabWidget *m_clusters;
    Credentials m_credentials;
    ElidedLabel *m_problems; // stretches; a long text is cut with "…", whole in its tooltip
    ElidedLabel *m_alerts;
};

} // namespace qrocket::console
