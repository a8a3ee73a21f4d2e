#pragma once

// qrocket-admin's command registry and the context every command runs in.
//
// A command is one row of a table (CommandSpec): mqadmin's name, its one-line description, its
// options with mqadmin's letters and long names (commons-cli style: "-t T", "-tT", "--topic T",
// "--topic=T"; flags take no value) and its handler. Each area's file (cmd_cluster.cpp,
// cmd_topic.cpp, ...) exports its rows; cli.cpp parses the command line against them, prints the
// help and runs the handler. Options every command has (-n, -h, --json, --timeout) are added
// here once.
//
// Connection settings live in one place, Context::clientConfig(): the name servers (-n, else
// NAMESRV_ADDR) today; ACL credentials and TLS are to be added there (and as common options).
//
// Exit codes: 0 success, 1 the operation failed (a peer's error, a timeout, nothing found),
// 2 a usage error (unknown command or option, a missing or malformed value).

#include "clientlib/client/admin/admin.h"
#include "clientlib/common/result.h"
#include "console/admin/output.h"
#include "console/common/credentials.h"

#include <QString>

#include <functional>
#include <map>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace qrocket::admincli {

struct OptionSpec
{
    char letter; // '\0': long name only
    const char *longName;
    bool hasValue;
    bool required;
    const char *description;
};

class Context;
using Handler = Status (*)(Context &);
/// A command that talks to the cluster from its first line: withAdmin<F> is its Handler.
using AdminHandler = Status (*)(Context &, client::Admin &);

struct CommandSpec
{
    const char *name;
    const char *description;
    std::vector<OptionSpec> options;
    Handler handler;
    /// The command needs the name servers (-n / NAMESRV_ADDR).
    bool needsNamesrv = true;
};

/// A usage error (exit code 2): Status::invalidArgument with this prefix.
Status usageError(const QString &message);

class Context;
/// mqadmin's -i (seconds): `once` runs, then again every -i seconds until it fails or the
/// process is stopped; without -i, once. -i is refused with --json (one document per run).
Status repeatEveryInterval(Context &ctx, const std::function<Status()> &once);

class Context
{
public:
    Context(const CommandSpec &spec, std::map<QString, QString> values, bool json, int timeoutMs);
    ~Context();

    const CommandSpec &spec() const { return m_spec; }
    Output &out() { return m_out; }
    int timeoutMs() const { return m_timeoutMs; }

    /// Whether the option (by letter or long name) was given.
    bool has(const char *option) const;
    /// Its value (trimmed, as mqadmin trims), or `fallback` when absent.
    QString value(const char *option, const QString &fallback = {}) const;
    QByteArray bytes(const char *option, const QByteArray &fallback = {}) const;
    /// Typed values: a usage error names the option when the value is malformed.
    Result<std::int64_t> integer(const char *option, std::int64_t fallback) const;
    /// "true"/"false" (any case); anything else is a usage error.
    Result<bool> boolean(const char *option, bool fallback) const;
    /// "now", epoch milliseconds, or "yyyy-MM-dd#HH:mm:ss:SSS" (local time).
    Result<std::int64_t> timestamp(const char *option, std::int64_t fallback) const;

    /// The settings every client object of this run uses (name servers; later ACL and TLS).
    client::ClientConfig clientConfig() const;
    /// Reads the ACL credentials (--aclConfig, else $ROCKETMQ_HOME/conf/tools.yml when it
    /// exists; --accessKey/--secretKey override). Called once before the command runs.
    Status loadCredentials();
    /// The started Admin (started at the first call).
    Result<client::Admin *> admin();
    /// Runs `body(admin)` with the started Admin: every command's call prologue. An Admin that
    /// cannot start is the answer instead (a Status, or the Result `body` returns).
    template<typename Body>
    auto withAdmin(Body &&body) -> std::invoke_result_t<Body, client::Admin &>
    {
        auto started = admin();
        if (!started)
            return started.error();
        return std::forward<Body>(body)(**started);
    }

private:
    const OptionSpec *find(const char *option) const;

    const CommandSpec &m_spec;
    std::map<QString, QString> m_values; // long name -> value ("" for flags)
    Output m_out;
    int m_timeoutMs;
    console::Credentials m_credentials;
    std::unique_ptr<client::Admin> m_admin;
};

/// The Handler of an AdminHandler: `F` with the started Admin (Context::withAdmin).
template<AdminHandler F>
Status withAdmin(Context &ctx)
{
    return ctx.withAdmin([&ctx](client::Admin &admin) { return F(ctx, admin); });
}

// Each area's commands (defined in its cmd_*.cpp).
std::span<const CommandSpec> clusterCommands();
std::span<const CommandSpec> topicCommands();
std::span<const CommandSpec> groupCommands();
std::span<const CommandSpec> messageCommands();
std::span<const CommandSpec> traceCommands();
std::span<const CommandSpec> configCommands();
std::span<const CommandSpec> opsCommands();
std::span<const CommandSpec> authCommands();
std::span<const CommandSpec> haCommands();
std::span<const CommandSpec> explainCommands();

/// Parses `args` (without the program name), runs the command and returns the exit code.
int run(const QStringList &args);

// -- helpers the commands share ----------------------------------------------------------------

/// The broker addresses a -b / -c pair names: -b alone, else every master of cluster -c (every
/// address when `slavesToo`), else (when `allWhenNone`) every master of every cluster; a usage
/// error when neither is given and `allWhenNone` is false.
Result<std::vector<client::BrokerNode>> brokersOf(
    Context &ctx, bool slavesToo, bool allWhenNone, const char *clusterOption = "c");
/// A FanOutResult printed one line per outcome with `okFormat` ({broker address}) and the
/// failures on stderr; its status.
Status reportFanOut(Context &ctx, const client::FanOutResult &r, const char *okFormat);
/// "TOPIC_NOT_EXIST(17): ..." style message of a Status (with the peer's code when remote).
QString describe(const Status &s);

} // namespace qrocket::admincli
