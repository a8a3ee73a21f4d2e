#include "broker/grpc/grpctls.h"

#include "broker/common/logging.h"
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

Result<std::shared_ptr<grpc::ServerCredentials>> grpcServerCredentials(
    const remoting::TlsSettings &settings, bool *tls)
{
    *tls = false;
    const Result<remoting::TlsMode> mode = settings.mode();
    if (!mode)
        return mode.error();
    if (*mode == remoting::TlsMode::Permissive)
        qCInfo(lcBroker,
            "tls.server.mode=permissive: the gRPC port stays plain (one gRPC port "
            "cannot serve both); tls.server.mode=enforcing makes it TLS only");
    if (*mode != remoting::TlsMode::Enforcing)
        return grpc::InsecureServerCredentials();
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
    *tls = true;
    return grpc::SslServerCredentials(options);
}

} // namespace qrocket::broker::v2
