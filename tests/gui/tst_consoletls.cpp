// The console's per-cluster connection settings against real daemons (qrocket-namesrv and
// qrocket-broker with tls.server.mode=enforcing, the broker also with aclEnable=true): the
// connect dialog's TLS (trusted CA) and ACL keys reach that cluster, the cluster is remembered
// with its TLS settings and access key but never its secret, bad input is refused in the dialog,
// and a plain session to the same cluster gets nothing (the servers refuse it) while the TLS one
// keeps working.

#include "console/gui/clustersession.h"
#include "console/gui/clusterwidget.h"
#include "console/gui/connectdialog.h"
#include "console/gui/mainwindow.h"
#include "console/gui/screenshot.h"
#include "console/gui/style.h"
#include "guitestutil.h"
#include "tests/testlib/daemonprocess.h"
#include "tests/testlib/testcerts.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSslSocket>
#include <QTemporaryDir>
#include <QTest>

using namespace qrocket;
using namespace qrocket::console;

namespace {

const QByteArray kRules = R"(accounts:
  - accessKey: consoleadmin
    secretKey: console-secret
    admin: true
)";

} // namespace

class tst_ConsoleTls : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void dialogRefusesWhatCannotWork();
    void dialogConnectsWithTlsAndCredentials();
    void plainSessionGetsNothing();

private:
    QByteArray serverTls() const
    {
        return "tls.server.mode=enforcing\ntls.config.file=\ntls.server.certPath="
            + m_certs.serverCert.toUtf8() + "\ntls.server.keyPath=" + m_certs.serverKey.toUtf8()
            + "\n";
    }
    QString address() const { return QStringLiteral("127.0.0.1:%1").arg(m_namesrvPort); }
    /// Opens the window's connect dialog.
    ConnectDialog *openDialog()
    {
        m_window->openConnectDialog();
        auto *dialog = m_window->findChild<ConnectDialog *>();
        return dialog && QTest::qWaitForWindowExposed(dialog) ? dialog : nullptr;
    }
    static void clickConnect(ConnectDialog *dialog)
    {
        dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->click();
    }

    QTemporaryDir m_dir;
    testlib::TestCerts m_certs;
    testlib::DaemonProcess m_namesrv {QStringLiteral("qrocket-namesrv")};
    testlib::DaemonProcess m_broker {QStringLiteral("qrocket-broker")};
    quint16 m_namesrvPort = 0;
    std::unique_ptr<MainWindow> m_window;
};

void tst_ConsoleTls::initTestCase()
{
    guitest::isolateSettings("tst_consoletls");
    QSettings().clear();
    initConsoleResources();
    applyConsoleStyle(*qApp, true);
    QVERIFY(m_dir.isValid());
    QVERIFY2(QSslSocket::supportsSsl(), "Qt has no TLS backend (libssl3)");
    const QString error = testlib::generateTestCerts(m_dir.path(), m_certs);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    const QString dir = m_dir.path();
    QVERIFY(QDir().mkpath(dir + QStringLiteral("/home/conf")));
    QFile rules(dir + QStringLiteral("/home/conf/plain_acl.yml"));
    QVERIFY(rules.open(QIODevice::WriteOnly) && rules.write(kRules) == kRules.size());
    rules.close();
    QVERIFY2(
        testlib::startOnFreePort(m_namesrv, dir + QStringLiteral("/namesrv.conf"), m_namesrvPort,
            [&](quint16 port) {
                return "listenPort=" + QByteArray::number(port) + "\nkvConfigPath=" + dir.toUtf8()
                    + "/kvConfig.json\n" + serverTls();
            }),
        qPrintable(m_namesrv.error()));
    quint16 brokerPort = 0;
    QVERIFY2(testlib::startOnFreePort(m_broker, dir + QStringLiteral("/broker.conf"), brokerPort,
                 [&](quint16 port) {
                     return "brokerName=broker-tls\nbrokerIP1=127.0.0.1\nlistenPort="
                         + QByteArray::number(port) + "\nnamesrvAddr=" + address().toUtf8()
                         + "\nstorePathRootDir=" + dir.toUtf8()
                         + "/store\nmappedFileSizeCommitLog=16777216\n"
                           "mappedFileSizeConsumeQueue=60000\naclEnable=true\nrocketmqHome="
                         + dir.toUtf8() + "/home\ntls.enable=true\ntls.client.trustCertPath="
                         + m_certs.caCert.toUtf8() + "\n" + serverTls();
                 }),
        qPrintable(m_broker.error()));
    m_window = std::make_unique<MainWindow>();
    m_window->resize(1200, 600);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
}

void tst_ConsoleTls::cleanupTestCase()
{
    m_window.reset();
    for (testlib::DaemonProcess *daemon : {&m_broker, &m_namesrv})
        if (daemon->isRunning())
            QCOMPARE(daemon->stop(), 0);
}

void tst_ConsoleTls::dialogRefusesWhatCannotWork()
{
    ConnectDialog *dialog = openDialog();
    QVERIFY(dialog);
    dialog->findChild<QComboBox *>()->setEditText(address());
    auto *error = dialog->findChildren<QLabel *>().back();
    // An access key without its secret signs nothing a broker accepts.
    dialog->accessKeyEdit()->setText(QStringLiteral("consoleadmin"));
    dialog->secretKeyEdit()->clear();
    clickConnect(dialog);
    QVERIFY(dialog->isVisible());
    QVERIFY2(error->text().contains(QStringLiteral("secret key")), qPrintable(error->text()));
    // A trusted-certificates file that is not there.
    dialog->secretKeyEdit()->setText(QStringLiteral("console-secret"));
    dialog->tlsBox()->setChecked(true);
    dialog->trustCertEdit()->setText(m_dir.filePath(QStringLiteral("missing.pem")));
    clickConnect(dialog);
    QVERIFY(dialog->isVisible());
    QVERIFY2(error->text().contains(QStringLiteral("missing.pem")), qPrintable(error->text()));
    QCOMPARE(m_window->clusterCount(), 0);
    dialog->reject();
    QTRY_VERIFY_WITH_TIMEOUT(!m_window->findChild<ConnectDialog *>(), 5000);
}

void tst_ConsoleTls::dialogConnectsWithTlsAndCredentials()
{
    ConnectDialog *dialog = openDialog();
    QVERIFY(dialog);
    dialog->findChild<QComboBox *>()->setEditText(address());
    dialog->tlsBox()->setChecked(true);
    dialog->trustCertEdit()->setText(m_certs.caCert);
    dialog->accessKeyEdit()->setText(QStringLiteral("consoleadmin"));
    dialog->secretKeyEdit()->setText(QStringLiteral("console-secret"));
    QVERIFY(writeScreenshot(dialog, guitest::screenshotDir() + QStringLiteral("/connect-tls.png"))
                .isOk());
    clickConnect(dialog);
    QTRY_COMPARE_WITH_TIMEOUT(m_window->clusterCount(), 1, 5000);
    ClusterWidget *cw = m_window->cluster(0);
    QVERIFY(cw->session()->usesTls());
    cw->session()->setPollInterval(200);
    // Over TLS, signed by the admin account: the broker's runtime info answers.
    QTRY_VERIFY_WITH_TIMEOUT(
        !cw->session()->brokers().empty() && cw->session()->brokers().front().runtimeOk, 20000);

    // Remembered with its TLS settings and access key, never the secret.
    const auto remembered = MainWindow::rememberedConnection(address());
    QVERIFY(remembered && remembered->tls);
    QVERIFY(remembered->tls->enable);
    QCOMPARE(remembered->tls->clientTrustCertPath, m_certs.caCert);
    QCOMPARE(remembered->credentials.accessKey, QByteArray("consoleadmin"));
    QVERIFY(remembered->credentials.secretKey.isEmpty());
    QSettings().sync();
    QFile stored(QSettings().fileName());
    QVERIFY(stored.open(QIODevice::ReadOnly));
    QVERIFY(!stored.readAll().contains("console-secret"));

    // The next dialog offers that cluster with its TLS settings (the secret must be typed).
    ConnectDialog *again = openDialog();
    QVERIFY(again);
    QVERIFY(again->tlsBox()->isChecked());
    QCOMPARE(again->trustCertEdit()->text(), m_certs.caCert);
    QCOMPARE(again->accessKeyEdit()->text(), QStringLiteral("consoleadmin"));
    QVERIFY(again->secretKeyEdit()->text().isEmpty());
    again->reject();
    QTRY_VERIFY_WITH_TIMEOUT(!m_window->findChild<ConnectDialog *>(), 5000);
}

void tst_ConsoleTls::plainSessionGetsNothing()
{
    // The console's default (no --tls): the enforcing name server refuses it.
    ClusterWidget *plain = nullptr;
    QVERIFY(m_window->addCluster(address(), &plain).isOk());
    QVERIFY(!plain->session()->usesTls());
    plain->session()->setPollInterval(200);
    QTRY_VERIFY_WITH_TIMEOUT(!plain->session()->clusterPart().error.isEmpty(), 20000);
    QVERIFY(plain->session()->brokers().empty());
    // The TLS session to the same cluster keeps its answers.
    ClusterSession *tls = m_window->cluster(0)->session();
    const std::int64_t before = tls->clusterPart().lastOkMono;
    QTRY_VERIFY_WITH_TIMEOUT(tls->clusterPart().lastOkMono > before, 10000);
    QVERIFY(tls->clusterPart().error.isEmpty());
}

QTEST_MAIN(tst_ConsoleTls)
#include "tst_consoletls.moc"
