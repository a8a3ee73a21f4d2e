#include "clientlib/remoting/tlsconfig.h"

#include "clientlib/common/properties.h"
#include "clientlib/remoting/logging.h"

#include <QFile>
#include <QFileInfo>
#include <QSslCertificate>
#include <QSslKey>
#include <QSslSocket>

namespace qrocket::remoting {

namespace {

constexpr const char *kDefaultConfigFile = "/etc/rocketmq/tls.properties";
constexpr qint64 kReloadCheckMs = 1000;

/// PEM certificates of `path` (at least one), or an error naming `key`.
Result<QList<QSslCertificate>> loadCertificates(const char *key, const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        return Status::ioError(
            QStringLiteral("%1=%2: %3").arg(QLatin1String(key), path, file.errorString()));
    }
    QList<QSslCertificate> certs = QSslCertificate::fromData(file.readAll(), QSsl::Pem);
    if (certs.isEmpty()) {
        return Status::invalidArgument(
            QStringLiteral("%1=%2: no PEM certificate in the file").arg(QLatin1String(key), path));
    }
    return certs;
}

/// A PEM private key (RSA, EC or DSA; PKCS#8 or traditional; encrypted with `password`).
Result<QSslKey> loadKey(const char *key, const QString &path, const QString &password)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        return Status::ioError(
            QStringLiteral("%1=%2: %3").arg(QLatin1String(key), path, file.errorString()));
    }
    const QByteArray pem = file.readAll();
    for (QSsl::KeyAlgorithm algorithm : {QSsl::Rsa, QSsl::Ec, QSsl::Dsa}) {
        QSslKey k(pem, algorithm, QSsl::Pem, QSsl::PrivateKey, password.toUtf8());
        if (!k.isNull())
            return k;
    }
    return Status::invalidArgument(
        QStringLiteral("%1=%2: not a PEM private key (RSA, EC or DSA)%3")
            .arg(QLatin1String(key), path,
                password.isEmpty() ? QStringLiteral(", or encrypted and no password set")
                                   : QStringLiteral(", or the password is wrong")));
}

QSslConfiguration baseConfiguration()
{
    QSslConfiguration config = QSslConfiguration::defaultConfiguration();
    config.setProtocol(QSsl::TlsV1_2OrLater);
    return config;
}

} // namespace

Result<TlsMode> parseTlsMode(const QString &text)
{
    const QString t = text.trimmed().toLower();
    if (t == QLatin1String("disabled"))
        return TlsMode::Disabled;
    if (t == QLatin1String("permissive"))
        return TlsMode::Permissive;
    if (t == QLatin1String("enforcing"))
        return TlsMode::Enforcing;
    return Status::invalidArgument(
        QStringLiteral("tls.server.mode=%1: expected disabled, permissive or enforcing").arg(text));
}

const char *tlsModeName(TlsMode mode)
{
    switch (mode) {
    case TlsMode::Disabled:
        return "disabled";
    case TlsMode::Permissive:
        return "permissive";
    case TlsMode::Enforcing:
        return "enforcing";
    }
    return "?";
}

void TlsSettings::bind(ConfigSchema &schema)
{
    schema.add("tls.server.mode", &serverMode, true);
    schema.add("tls.config.file", &configFile);
    schema.add("tls.test.mode.enable", &testModeEnable);
    schema.add("tls.server.need.client.auth", &serverNeedClientAuth);
    schema.add("tls.server.certPath", &serverCertPath);
    schema.add("tls.server.keyPath", &serverKeyPath);
    schema.add("tls.server.keyPassword", &serverKeyPassword);
    schema.add("tls.server.trustCertPath", &serverTrustCertPath);
    schema.add("tls.server.authClient", &serverAuthClient);
    schema.add("tls.enable", &enable);
    schema.add("tls.client.certPath", &clientCertPath);
    schema.add("tls.client.keyPath", &clientKeyPath);
    schema.add("tls.client.keyPassword", &clientKeyPassword);
    schema.add("tls.client.trustCertPath", &clientTrustCertPath);
    schema.add("tls.client.authServer", &clientAuthServer);
}

Status TlsSettings::loadConfigFile()
{
    if (configFile.isEmpty())
        return Status::ok();
    if (!QFileInfo::exists(configFile)) {
        if (configFile == QLatin1String(kDefaultConfigFile))
            return Status::ok(); // RocketMQ's default: read only when present
        return Status::ioError(QStringLiteral("tls.config.file=%1: no such file").arg(configFile));
    }
    Result<Properties> props = loadPropertiesFile(configFile);
    if (!props)
        return Status::ioError(QStringLiteral("tls.config.file: ") + props.error().message());
    // As RocketMQ's TlsHelper: the mode, tls.enable and the file's own name come from elsewhere.
    Properties applied;
    for (const PropertyEntry &entry : *props) {
        if (entry.key != QLatin1String("tls.server.mode")
            && entry.key != QLatin1String("tls.enable")
            && entry.key != QLatin1String("tls.config.file"))
            applied.append(entry);
    }
    const QString file = configFile;
    ConfigSchema schema;
    bind(schema);
    QStringList unknown;
    if (Status st = schema.apply(applied, &unknown); !st)
        return Status::invalidArgument(file + QStringLiteral(": ") + st.message());
    if (!unknown.isEmpty()) {
        qCWarning(lcRemoting, "%s: unknown keys ignored: %s", qPrintable(file),
            qPrintable(unknown.join(QStringLiteral(", "))));
    }
    return validate();
}

Status TlsSettings::validate() const
{
    if (Result<TlsMode> m = mode(); !m)
        return m.error();
    const QString auth = serverNeedClientAuth.trimmed().toLower();
    if (!auth.isEmpty() && auth != QLatin1String("none") && auth != QLatin1String("optional")
        && auth != QLatin1String("require")) {
        return Status::invalidArgument(
            QStringLiteral("tls.server.need.client.auth=%1: expected none, optional or require")
                .arg(serverNeedClientAuth));
    }
    return Status::ok();
}

bool tlsAvailable(QString *why)
{
    if (QSslSocket::supportsSsl())
        return true;
    if (why) {
        *why = QStringLiteral(
            "TLS is configured but Qt has no working TLS backend (QSslSocket::supportsSsl() "
            "is false; backends: %1; Debian's libqt6network6 needs libssl3)")
                   .arg(QSslSocket::availableBackends().join(QStringLiteral(", ")));
    }
    return false;
}

TlsServerContext::TlsServerContext(TlsSettings settings, TlsMode mode)
    : m_settings(std::move(settings)), m_mode(mode)
{ }

Result<std::shared_ptr<TlsServerContext>> TlsServerContext::create(TlsSettings settings)
{
    Result<TlsMode> mode = settings.mode();
    if (!mode)
        return mode.error();
    if (*mode == TlsMode::Disabled)
        return std::shared_ptr<TlsServerContext>(new TlsServerContext(settings, *mode));
    if (Status st = settings.loadConfigFile(); !st)
        return st;
    QString why;
    if (!tlsAvailable(&why))
        return Status::notSupported(why);
    if (settings.serverCertPath.isEmpty() || settings.serverKeyPath.isEmpty()) {
        return Status::invalidArgument(
            QStringLiteral("tls.server.mode=%1 needs tls.server.certPath and tls.server.keyPath "
                           "(QRocket makes up no test certificate)")
                .arg(QLatin1String(tlsModeName(*mode))));
    }
    std::shared_ptr<TlsServerContext> context(new TlsServerContext(std::move(settings), *mode));
    Result<QSslConfiguration> config = context->load();
    if (!config)
        return config.error();
    context->m_config = *config;
    context->m_stamps = context->stamps();
    context->m_lastCheck.start();
    qCInfo(lcRemotingServer, "TLS %s: certificate %s, client certificates %s",
        tlsModeName(context->m_mode), qPrintable(context->m_settings.serverCertPath),
        qPrintable(context->m_settings.serverNeedClientAuth));
    return context;
}

Result<QSslConfiguration> TlsServerContext::load() const
{
    auto certs = loadCertificates("tls.server.certPath", m_settings.serverCertPath);
    if (!certs)
        return certs.error();
    auto key
        = loadKey("tls.server.keyPath", m_settings.serverKeyPath, m_settings.serverKeyPassword);
    if (!key)
        return key.error();
    QSslConfiguration config = baseConfiguration();
    config.setLocalCertificateChain(*certs);
    config.setPrivateKey(*key);
    const QString auth = m_settings.serverNeedClientAuth.trimmed().toLower();
    if (auth == QLatin1String("require"))
        config.setPeerVerifyMode(QSslSocket::VerifyPeer);
    else if (auth == QLatin1String("optional"))
        config.setPeerVerifyMode(QSslSocket::QueryPeer);
    else
        config.setPeerVerifyMode(QSslSocket::VerifyNone);
    if (!m_settings.serverTrustCertPath.isEmpty()) {
        auto trusted = loadCertificates("tls.server.trustCertPath", m_settings.serverTrustCertPath);
        if (!trusted)
            return trusted.error();
        config.setCaCertificates(*trusted);
    }
    return config;
}

std::array<TlsServerContext::Stamp, 3> TlsServerContext::stamps() const
{
    std::array<Stamp, 3> result;
    const QString paths[3]
        = {m_settings.serverCertPath, m_settings.serverKeyPath, m_settings.serverTrustCertPath};
    for (std::size_t i = 0; i < 3; ++i) {
        if (paths[i].isEmpty())
            continue;
        const QFileInfo info(paths[i]);
        if (info.exists())
            result[i] = Stamp {info.lastModified(), info.size()};
    }
    return result;
}

QSslConfiguration TlsServerContext::configuration()
{
    std::lock_guard lock(m_mutex);
    if (m_mode == TlsMode::Disabled || m_lastCheck.elapsed() < kReloadCheckMs)
        return m_config;
    m_lastCheck.start();
    const std::array<Stamp, 3> now = stamps();
    if (now == m_stamps)
        return m_config;
    m_stamps = now; // one attempt per change: a broken file is not re-read every second
    Result<QSslConfiguration> reloaded = load();
    if (!reloaded) {
        qCWarning(lcRemotingServer,
            "TLS certificate files changed but do not load, keeping the "
            "last good ones: %s",
            qPrintable(reloaded.error().message()));
        return m_config;
    }
    m_config = *reloaded;
    m_reloads.fetch_add(1, std::memory_order_relaxed);
    qCInfo(lcRemotingServer, "TLS certificate files reloaded (%s)",
        qPrintable(m_settings.serverCertPath));
    return m_config;
}

Result<QSslConfiguration> clientTlsConfiguration(const TlsSettings &input)
{
    TlsSettings settings = input;
    if (Status st = settings.loadConfigFile(); !st)
        return st;
    QString why;
    if (!tlsAvailable(&why))
        return Status::notSupported(why);
    QSslConfiguration config = baseConfiguration();
    const bool verify = settings.clientAuthServer && !settings.testModeEnable;
    config.setPeerVerifyMode(verify ? QSslSocket::VerifyPeer : QSslSocket::VerifyNone);
    if (!settings.clientTrustCertPath.isEmpty()) {
        auto trusted = loadCertificates("tls.client.trustCertPath", settings.clientTrustCertPath);
        if (!trusted)
            return trusted.error();
        config.setCaCertificates(*trusted);
    }
    if (settings.clientCertPath.isEmpty() != settings.clientKeyPath.isEmpty()) {
        return Status::invalidArgument(
            QStringLiteral("tls.client.certPath and tls.client.keyPath go together"));
    }
    if (!settings.clientCertPath.isEmpty()) {
        auto certs = loadCertificates("tls.client.certPath", settings.clientCertPath);
        if (!certs)
            return certs.error();
        auto key
            = loadKey("tls.client.keyPath", settings.clientKeyPath, settings.clientKeyPassword);
        if (!key)
            return key.error();
        config.setLocalCertificateChain(*certs);
        config.setPrivateKey(*key);
    }
    return config;
}

} // namespace qrocket::remoting
