#include "broker/grpc/grpctls.h"

#include "clientlib/remoting/tlsconfig.h"

#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslKey>

#include <grpcpp/security/server_credentials.h>

namespace qrocket::broker::v2 {

namespace {

std::string pemOf(const QList<QSslCertificate> &certs)
{
    std::string out;
    for (const QSslCertificate &c : certs)
        out += c.toPem().toStdString();
    return out;
}

} // namespace

Result<GrpcTlsSetup> grpcServerCredentials(const remoting::TlsSettings &settings)
{
    const Result<remoting::TlsMode> mode = settings.mode();
    if (!mode)
        return mode.error();
    GrpcTlsSetup setup;
    setup.mode = *mode;
    if (*mode == remoting::TlsMode::Disabled) {
        setup.credentials = grpc::InsecureServerCredentials();
        return setup;
    }
    // The remoting ports' loader: tls.config.file, the key's password, the same errors.
    Result<std::shared_ptr<remoting::TlsServerContext>> context
        = remoting::TlsServerContext::create(settings);
    if (!context)
        return context.error();
    const QSslConfiguration config = (*context)->configuration();
    grpc::SslServerCredentialsOptions options;
    grpc::SslServerCredentialsOptions::PemKeyCertPair pair;
    pair.private_key = config.privateKey().toPem().toStdString();
    pair.cert_chain = pemOf(config.localCertificateChain());
    options.pem_key_cert_pairs.push_back(std::move(pair));
    // The keys as tls.config.file leaves them (create() read it into its own copy).
    remoting::TlsSettings effective = settings;
    if (Status st = effective.loadConfigFile(); !st)
        return st;
    const QString auth = effective.serverNeedClientAuth.trimmed().toLower();
    if (!effective.serverTrustCertPath.isEmpty())
        options.pem_root_certs = pemOf(config.caCertificates());
    if (auth == QLatin1String("require"))
        options.client_certificate_request
            = GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
    else if (auth == QLatin1String("optional"))
        options.client_certificate_request = GRPC_SSL_REQUEST_CLIENT_CERTIFICATE_BUT_DONT_VERIFY;
    else
        options.client_certificate_request = GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE;
    setup.credentials = grpc::SslServerCredentials(options);
    return setup;
}

} // namespace qrocket::broker::v2
