#pragma once

// ACL credentials for the operator tools (qrocket-admin, qrocket-console): mqadmin's tools.yml
// format (`accessKey: ...`, `secretKey: ...`), read with yaml-cpp. mqadmin signs with
// ${ROCKETMQ_HOME}/conf/tools.yml when it exists; so do the QRocket tools unless told a file.
// The secret is never put in an error message.

#include "clientlib/common/result.h"

#include <QByteArray>
#include <QString>

namespace qrocket::console {

struct Credentials
{
    QByteArray accessKey;
    QByteArray secretKey;

    bool isEmpty() const { return accessKey.isEmpty(); }
    /// An access key without a secret key signs nothing a broker accepts: InvalidArgument.
    Status check() const
    {
        if (!accessKey.isEmpty() && secretKey.isEmpty())
            return Status::invalidArgument(
                QStringLiteral("an ACL access key without a secret key"));
        return {};
    }
};

/// Reads a tools.yml. InvalidArgument naming the file for one that cannot be read, does not
/// parse or is not a map (missing keys stay empty: a command line may add them).
Result<Credentials> readCredentialsFile(const QString &path);

/// ${ROCKETMQ_HOME}/conf/tools.yml when ROCKETMQ_HOME is set and the file exists, else empty.
QString defaultCredentialsFile();

} // namespace qrocket::console
