// qrocket-admin's command line: the registry of every area's commands, option parsing against a
// command's OptionSpec rows, the help texts, the Context handlers run in, and error reporting.

#include "console/admin/cli.h"

#include <QDateTime>
#include <QStringList>
#include <QThread>

#include <cstdio>

namespace qrocket::admincli {

namespace {

const QString kUsagePrefix = QStringLiteral("usage: ");

/// Options every command accepts, after its own in the help.
const std::vector<OptionSpec> &commonOptions()
{
    static const std::vector<OptionSpec> options {
        {'h', "help", false, false, "Print help"},
        {'n', "namesrvAddr", true, false,
            "Name server address list, eg: '192.168.0.1:9876;192.168.0.2:9876' (default: env "
            "NAMESRV_ADDR)"},
        {'\0', "json", false, false, "Print one JSON document instead of mqadmin's text"},
        {'\0', "timeout", true, false, "Timeout of each request in milliseconds (default 3000)"},
        {'\0', "aclConfig", true, false,
            "ACL credentials file, mqadmin's tools.yml format (accessKey:, secretKey:); default "
            "$ROCKETMQ_HOME/conf/tools.yml when it exists"},
        {'\0', "accessKey", true, false, "ACL access key (overrides the credentials file)"},
        {'\0', "secretKey", true, false,
            "ACL secret key (overrides the credentials file; other users can see a command "
            "line: prefer --aclConfig)"},
        {'\0', "tls", false, false,
            "Connect with TLS (RocketMQ's tls.enable), verifying the server's certificate"},
        {'\0', "tlsTrustCert", true, false,
            "PEM CA certificates the servers' certificates must chain to (tls.client.trustCertPath;"
            " default: the system's)"},
        {'\0', "tlsCert", true, false,
            "PEM client certificate, for servers requiring one (tls.client.certPath)"},
        {'\0', "tlsKey", true, false, "PEM key of --tlsCert (tls.client.keyPath)"},
        {'\0', "tlsConfig", true, false,
            "A tls.properties with the tls.client.* keys (tls.config.file); implies --tls"},
    };
    return options;
}

std::vector<const CommandSpec *> allCommands()
{
    std::vector<const CommandSpec *> all;
    for (auto area :
        {clusterCommands(), topicCommands(), groupCommands(), messageCommands(), traceCommands(),
            configCommands(), opsCommands(), authCommands(), haCommands(), explainCommands()}) {
        for (const CommandSpec &c : area)
            all.push_back(&c);
    }
    return all;
}

const CommandSpec *findCommand(const QString &name)
{
    for (const CommandSpec *c : allCommands()) {
        if (name == QLatin1String(c->name))
            return c;
    }
    return nullptr;
}

void printTo(std::FILE *f, const QString &s)
{
    const QByteArray b = s.toUtf8();
    std::fwrite(b.constData(), 1, static_cast<std::size_t>(b.size()), f);
    std::fflush(f);
}

/// Every option of a command: its own, then the common ones it does not redefine.
std::vector<OptionSpec> optionsOf(const CommandSpec &spec)
{
    std::vector<OptionSpec> all = spec.options;
    for (const OptionSpec &c : commonOptions()) {
        bool taken = false;
        for (const OptionSpec &o : spec.options)
            taken = taken || QByteArray(o.longName) == c.longName;
        if (!taken)
            all.push_back(c);
    }
    return all;
}

QString optionName(const OptionSpec &o)
{
    QString s;
    if (o.letter)
        s = QStringLiteral("-%1,").arg(QLatin1Char(o.letter));
    return s + QStringLiteral("--") + QLatin1String(o.longName);
}

QString commandHelp(const CommandSpec &spec)
{
    const std::vector<OptionSpec> options = optionsOf(spec);
    QString usage = QStringLiteral("usage: qrocket-admin %1").arg(QLatin1String(spec.name));
    for (const OptionSpec &o : options) {
        QString name = o.letter ? QStringLiteral("-%1").arg(QLatin1Char(o.letter))
                                : QStringLiteral("--") + QLatin1String(o.longName);
        if (o.hasValue)
            name += QStringLiteral(" <arg>");
        usage += o.required ? QStringLiteral(" ") + name : QStringLiteral(" [%1]").arg(name);
    }
    QString text = QStringLiteral("%1\n%2\n").arg(usage, QLatin1String(spec.description));
    for (const OptionSpec &o : options) {
        QString left = QStringLiteral(" ") + optionName(o);
        if (o.hasValue)
            left += QStringLiteral(" <arg>");
        text += QStringLiteral("%1  %2%3\n")
                    .arg(left, -34)
                    .arg(QLatin1String(o.description),
                        o.required ? QStringLiteral(" (required)") : QString());
    }
    text += QStringLiteral(
        "Exit status: 0 on success, 1 when the operation fails (errors go to stderr with the "
        "peer's code and remark; unlike mqadmin, which often exits 0 on failure), 2 on a usage "
        "error.\n");
    return text;
}

QString commandList()
{
    QString text = QStringLiteral("The most commonly used qrocket-admin commands are:\n");
    for (const CommandSpec *c : allCommands())
        text += QStringLiteral("   %1 %2\n")
                    .arg(QLatin1String(c->name), -24)
                    .arg(QLatin1String(c->description));
    text += QStringLiteral(
        "\nSee 'qrocket-admin help <command>' (or '<command> -h') for more information on a "
        "specific command.\nCommon options: -n <namesrvAddr> (or env NAMESRV_ADDR), --json, "
        "--timeout <ms>.\n");
    return text;
}

/// Parses a command's arguments into long name -> value.
Result<std::map<QString, QString>> parseOptions(const CommandSpec &spec, const QStringList &args)
{
    const std::vector<OptionSpec> options = optionsOf(spec);
    std::map<QString, QString> values;
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString &arg = args[i];
        const OptionSpec *opt = nullptr;
        QString inlineValue;
        bool hasInline = false;
        if (arg.startsWith(QLatin1String("--")) && arg.size() > 2) {
            QString name = arg.mid(2);
            if (const qsizetype eq = name.indexOf(QLatin1Char('=')); eq >= 0) {
                inlineValue = name.mid(eq + 1);
                hasInline = true;
                name = name.left(eq);
            }
            for (const OptionSpec &o : options) {
                if (name == QLatin1String(o.longName))
                    opt = &o;
            }
        } else if (arg.startsWith(QLatin1Char('-')) && arg.size() >= 2) {
            const QChar letter = arg.at(1);
            for (const OptionSpec &o : options) {
                if (o.letter && letter == QLatin1Char(o.letter))
                    opt = &o;
            }
            if (opt && arg.size() > 2) {
                if (!opt->hasValue)
                    opt = nullptr; // "-ab" bundles are not mqadmin's habit
                inlineValue = arg.mid(2);
                hasInline = true;
            }
        } else {
            return usageError(QStringLiteral("unexpected argument '%1'").arg(arg));
        }
        if (!opt)
            return usageError(QStringLiteral("unknown option '%1'").arg(arg));
        QString value;
        if (opt->hasValue) {
            if (hasInline) {
                value = inlineValue;
            } else if (i + 1 < args.size()) {
                value = args[++i];
            } else {
                return usageError(QStringLiteral("option %1 needs a value").arg(optionName(*opt)));
            }
        } else if (hasInline) {
            return usageError(QStringLiteral("option %1 takes no value").arg(optionName(*opt)));
        }
        values[QLatin1String(opt->longName)] = value.trimmed();
    }
    return values;
}

Status checkNamesrv(const QString &list)
{
    const QStringList parts = list.split(QLatin1Char(';'), Qt::SkipEmptyParts);
    if (parts.isEmpty())
        return usageError(QStringLiteral("empty name server address"));
    for (const QString &p : parts) {
        const qsizetype colon = p.lastIndexOf(QLatin1Char(':'));
        bool ok = false;
        const int port = colon > 0 ? p.mid(colon + 1).toInt(&ok) : 0;
        if (!ok || port <= 0 || port > 65535)
            return usageError(
                QStringLiteral("bad name server address '%1' (want host:port;host:port)").arg(p));
    }
    return {};
}

} // namespace

Status usageError(const QString &message)
{
    return Status::invalidArgument(kUsagePrefix + message);
}

Status repeatEveryInterval(Context &ctx, const std::function<Status()> &once)
{
    auto interval = ctx.integer("i", 0);
    if (!interval)
        return interval.error();
    if (*interval < 0 || (*interval > 0 && ctx.out().isJson()))
        return usageError(
            QStringLiteral("-i wants a positive number of seconds (not with --json)"));
    for (;;) {
        Status s = once();
        if (!s || *interval == 0)
            return s;
        ctx.out().finish();
        QThread::sleep(static_cast<unsigned long>(*interval));
    }
}

QString describe(const Status &s)
{
    QString text;
    if (s.code() == Status::Code::RemoteError)
        text = s.message();
    else if (s.code() == Status::Code::InvalidArgument && s.message().startsWith(kUsagePrefix))
        text = s.message().mid(kUsagePrefix.size());
    else
        text = QStringLiteral("%1: %2").arg(QLatin1String(Status::codeName(s.code())), s.message());
    // One line: RocketMQ's remarks end with "\nSee http://rocketmq.apache.org/docs/faq/ ...".
    return text.simplified();
}

// -- Context -----------------------------------------------------------------------------------

Context::Context(
    const CommandSpec &spec, std::map<QString, QString> values, bool json, int timeoutMs)
    : m_spec(spec), m_values(std::move(values)), m_out(json), m_timeoutMs(timeoutMs)
{ }

Context::~Context()
{
    if (m_admin)
        m_admin->shutdown();
}

const OptionSpec *Context::find(const char *option) const
{
    const QByteArray name(option);
    for (const OptionSpec &o : m_spec.options) {
        if ((name.size() == 1 && o.letter == name[0]) || name == o.longName)
            return &o;
    }
    for (const OptionSpec &o : commonOptions()) {
        if ((name.size() == 1 && o.letter == name[0]) || name == o.longName)
            return &o;
    }
    return nullptr;
}

bool Context::has(const char *option) const
{
    const OptionSpec *o = find(option);
    return o && m_values.count(QLatin1String(o->longName));
}

QString Context::value(const char *option, const QString &fallback) const
{
    const OptionSpec *o = find(option);
    if (!o)
        return fallback;
    const auto it = m_values.find(QLatin1String(o->longName));
    return it == m_values.end() ? fallback : it->second;
}

QByteArray Context::bytes(const char *option, const QByteArray &fallback) const
{
    return has(option) ? value(option).toUtf8() : fallback;
}

Result<std::int64_t> Context::integer(const char *option, std::int64_t fallback) const
{
    if (!has(option))
        return fallback;
    bool ok = false;
    const std::int64_t v = value(option).toLongLong(&ok);
    if (!ok)
        return usageError(QStringLiteral("option %1 wants a number, not '%2'")
                              .arg(optionName(*find(option)), value(option)));
    return v;
}

Result<bool> Context::boolean(const char *option, bool fallback) const
{
    if (!has(option))
        return fallback;
    const QString v = value(option).toLower();
    if (v == QLatin1String("true"))
        return true;
    if (v == QLatin1String("false"))
        return false;
    return usageError(QStringLiteral("option %1 wants true or false, not '%2'")
                          .arg(optionName(*find(option)), value(option)));
}

Result<std::int64_t> Context::timestamp(const char *option, std::int64_t fallback) const
{
    if (!has(option))
        return fallback;
    const QString v = value(option);
    if (v == QLatin1String("now"))
        return QDateTime::currentMSecsSinceEpoch();
    bool ok = false;
    const std::int64_t ms = v.toLongLong(&ok);
    if (ok)
        return ms;
    const QDateTime t = QDateTime::fromString(v, QStringLiteral("yyyy-MM-dd#HH:mm:ss:zzz"));
    if (t.isValid())
        return t.toMSecsSinceEpoch();
    return usageError(QStringLiteral(
        "option %1 wants now, epoch milliseconds or yyyy-MM-dd#HH:mm:ss:SSS, not '%2'")
                          .arg(optionName(*find(option)), v));
}

client::ClientConfig Context::clientConfig() const
{
    client::ClientConfig config;
    config.namesrvAddr = has("n") ? value("n").toUtf8() : qgetenv("NAMESRV_ADDR");
    config.mqClientApiTimeout = m_timeoutMs;
    config.accessKey = m_credentials.accessKey;
    config.secretKey = m_credentials.secretKey;
    config.tls.enable = has("tls") || has("tlsConfig");
    config.tls.configFile = value("tlsConfig");
    config.tls.clientTrustCertPath = value("tlsTrustCert");
    config.tls.clientCertPath = value("tlsCert");
    config.tls.clientKeyPath = value("tlsKey");
    return config;
}

Status Context::loadCredentials()
{
    // mqadmin signs with ${rocketmqHome}/conf/tools.yml; so does qrocket-admin, or --aclConfig.
    QString file = value("aclConfig");
    if (file.isEmpty())
        file = console::defaultCredentialsFile();
    if (!file.isEmpty()) {
        auto read = console::readCredentialsFile(file);
        if (!read)
            return read.error();
        m_credentials = *read;
    }
    if (has("accessKey"))
        m_credentials.accessKey = value("accessKey").toUtf8();
    if (has("secretKey")) {
        m_credentials.secretKey = value("secretKey").toUtf8();
        std::fputs("qrocket-admin: warning: a secret key on the command line is visible to other "
                   "users of this machine (ps); prefer --aclConfig FILE\n",
            stderr);
    }
    if (!m_credentials.accessKey.isEmpty() && m_credentials.secretKey.isEmpty())
        return Status::invalidArgument(
            QStringLiteral("an ACL access key without a secret key (give --secretKey or "
                           "--aclConfig)"));
    return {};
}

Result<client::Admin *> Context::admin()
{
    if (!m_admin) {
        client::AdminOptions options;
        options.client = clientConfig();
        options.timeoutMs = m_timeoutMs;
        options.callbackThreads = 2;
        auto admin = std::make_unique<client::Admin>(options);
        if (Status s = admin->start(); !s)
            return s;
        m_admin = std::move(admin);
    }
    return m_admin.get();
}

// -- shared helpers ----------------------------------------------------------------------------

Result<std::vector<client::BrokerNode>> brokersOf(
    Context &ctx, bool slavesToo, bool allWhenNone, const char *clusterOption)
{
    if (ctx.has("b")) {
        client::BrokerNode node;
        node.address = ctx.bytes("b");
        return std::vector<client::BrokerNode> {node};
    }
    if (!ctx.has(clusterOption) && !allWhenNone)
        return usageError(QStringLiteral("give a broker (-b) or a cluster (-%1)")
                              .arg(QLatin1String(clusterOption)));
    return ctx.withAdmin([&](client::Admin &admin) -> Result<std::vector<client::BrokerNode>> {
        auto overview = admin.clusterOverview(false);
        if (!overview)
            return overview.error();
        const QByteArray cluster = ctx.bytes(clusterOption);
        if (!cluster.isEmpty() && !overview->info.clusterAddrTable.count(cluster))
            return Status::notFound(
                QStringLiteral("cluster %1 does not exist").arg(QString::fromUtf8(cluster)));
        std::vector<client::BrokerNode> nodes;
        for (client::BrokerNode &n : overview->nodes) {
            if ((cluster.isEmpty() || n.cluster == cluster) && (slavesToo || n.brokerId == 0))
                nodes.push_back(std::move(n));
        }
        return nodes;
    });
}

Status reportFanOut(Context &ctx, const client::FanOutResult &r, const char *okFormat)
{
    for (const client::BrokerOutcome &o : r.outcomes) {
        if (o.status) {
            ctx.out().text(okFormat, {o.address});
            ctx.out().append(QStringLiteral("results"),
                QJsonObject {{QStringLiteral("brokerName"), QString::fromUtf8(o.brokerName)},
                    {QStringLiteral("address"), QString::fromUtf8(o.address)},
                    {QStringLiteral("status"), QStringLiteral("OK")}});
        } else {
            printTo(stderr,
                QStringLiteral("qrocket-admin: %1: %2\n")
                    .arg(QLatin1String(ctx.spec().name), describe(o.status)));
            ctx.out().append(QStringLiteral("results"),
                QJsonObject {{QStringLiteral("brokerName"), QString::fromUtf8(o.brokerName)},
                    {QStringLiteral("address"), QString::fromUtf8(o.address)},
                    {QStringLiteral("status"), describe(o.status)}});
        }
    }
    return r.status();
}

// -- run ---------------------------------------------------------------------------------------

int run(const QStringList &args)
{
    if (args.isEmpty() || args[0] == QLatin1String("-h") || args[0] == QLatin1String("--help")) {
        printTo(stdout, commandList());
        return 0;
    }
    if (args[0] == QLatin1String("help")) {
        if (args.size() < 2) {
            printTo(stdout, commandList());
            return 0;
        }
        const CommandSpec *spec = findCommand(args[1]);
        if (!spec) {
            printTo(stderr,
                QStringLiteral("qrocket-admin: unknown command '%1' (run qrocket-admin "
                               "without arguments for the list)\n")
                    .arg(args[1]));
            return 2;
        }
        printTo(stdout, commandHelp(*spec));
        return 0;
    }
    const CommandSpec *spec = findCommand(args[0]);
    if (!spec) {
        printTo(stderr,
            QStringLiteral("qrocket-admin: unknown command '%1' (run qrocket-admin "
                           "without arguments for the list)\n")
                .arg(args[0]));
        return 2;
    }
    const QString name = QLatin1String(spec->name);
    auto fail = [&](const Status &s) {
        const bool usage
            = s.code() == Status::Code::InvalidArgument && s.message().startsWith(kUsagePrefix);
        printTo(stderr,
            QStringLiteral("qrocket-admin: %1: %2%3\n")
                .arg(name, describe(s),
                    usage ? QStringLiteral(" (see 'qrocket-admin %1 -h')").arg(name) : QString()));
        return s.code() == Status::Code::InvalidArgument ? 2 : 1;
    };
    auto values = parseOptions(*spec, args.mid(1));
    if (!values)
        return fail(values.error());
    if (values->count(QStringLiteral("help"))) {
        printTo(stdout, commandHelp(*spec));
        return 0;
    }
    for (const OptionSpec &o : spec->options) {
        if (o.required && !values->count(QLatin1String(o.longName)))
            return fail(
                usageError(QStringLiteral("missing required option %1").arg(optionName(o))));
    }
    int timeoutMs = 3000;
    if (auto it = values->find(QStringLiteral("timeout")); it != values->end()) {
        bool ok = false;
        timeoutMs = it->second.toInt(&ok);
        if (!ok || timeoutMs <= 0)
            return fail(
                usageError(QStringLiteral("--timeout wants a positive number of milliseconds")));
    }
    const bool json = values->count(QStringLiteral("json")) > 0;
    Context ctx(*spec, std::move(*values), json, timeoutMs);
    if (Status s = ctx.loadCredentials(); !s)
        return fail(usageError(s.message()));
    if (spec->needsNamesrv) {
        const QByteArray namesrv = ctx.clientConfig().namesrvAddr;
        if (namesrv.isEmpty())
            return fail(usageError(
                QStringLiteral("no name server: give -n host:port or set NAMESRV_ADDR")));
        if (Status s = checkNamesrv(QString::fromUtf8(namesrv)); !s)
            return fail(s);
    }
    const Status s = spec->handler(ctx);
    ctx.out().finish(s.isOk());
    if (!s)
        return fail(s);
    return 0;
}

} // namespace qrocket::admincli
