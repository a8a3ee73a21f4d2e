#include "console/common/credentials.h"

#include <QFile>
#include <QFileInfo>

#include <yaml-cpp/yaml.h>

namespace qrocket::console {

Result<Credentials> readCredentialsFile(const QString &path)
{
    const auto invalid = [&](const QString &why) {
        return Status::invalidArgument(
            QStringLiteral("ACL credentials file %1: %2").arg(path, why));
    };
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return invalid(f.errorString());
    Credentials c;
    try {
        const YAML::Node root = YAML::Load(f.readAll().toStdString());
        if (!root.IsMap())
            return invalid(QStringLiteral("not a map of accessKey and secretKey"));
        const auto text = [&](const char *key) {
            const YAML::Node n = root[key];
            return n && n.IsScalar() ? QByteArray::fromStdString(n.Scalar()) : QByteArray();
        };
        c.accessKey = text("accessKey");
        c.secretKey = text("secretKey");
    } catch (const YAML::Exception &e) {
        // yaml-cpp's message names a line and column, never the value.
        return invalid(QString::fromStdString(e.what()));
    }
    return c;
}

QString defaultCredentialsFile()
{
    const QString home = qEnvironmentVariable("ROCKETMQ_HOME");
    if (home.isEmpty())
        return {};
    const QString stock = home + QStringLiteral("/conf/tools.yml");
    return QFileInfo::exists(stock) ? stock : QString();
}

} // namespace qrocket::console
