#pragma once

// Throwaway TLS material for the TLS tests, made at test time with the openssl CLI (Debian's
// `openssl`, installed by resources/scripts/install-deps.sh): a CA, a server certificate for
// 127.0.0.1 and localhost signed by it (its key also PKCS#8-encrypted with kKeyPassword), a client
// certificate signed by it, and a self-signed "rogue" server certificate no test trusts. EC P-256
// keys, valid for two days. Nothing is committed: no private key lives in the repository and
// nothing expires between runs.

#include <QString>

namespace qrocket::testlib {

struct TestCerts
{
    static constexpr const char *kKeyPassword = "qrocket-test-pass";
    QString caCert;
    QString serverCert;
    QString serverKey;
    QString serverKeyEncrypted;
    QString clientCert;
    QString clientKey;
    QString rogueCert;
    QString rogueKey;
};

/// Writes the files into `dir` (which must exist). Empty on success, else what failed (the
/// openssl command and its output).
QString generateTestCerts(const QString &dir, TestCerts &out);

} // namespace qrocket::testlib
