#pragma once

// Helpers for the broker unit tests: the golden store files, a temporary store root, and a fake
// remoting Channel.

#include "clientlib/remoting/requestprocessor.h"
#include "tests/unit/protocol/goldenvectors.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <atomic>
#include <mutex>
#include <vector>

namespace qrocket::testing {

/// Copies tests/data/vectors/store/config/<name> to <dir>/config/<name>; returns the new path.
inline QString copyGoldenConfig(const QTemporaryDir &dir, const QString &name)
{
    QDir().mkpath(dir.path() + QStringLiteral("/config"));
    const QString dest = dir.path() + QStringLiteral("/config/") + name;
    QFile::remove(dest);
    QFile::copy(vectorPath(QStringLiteral("store/config/") + name), dest);
    QFile::setPermissions(dest, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    return dest;
}

inline bool writeFile(const QString &path, const QByteArray &content)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(content) == content.size();
}

inline QByteArray readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// A Channel that records what is sent through it.
class FakeChannel final : public remoting::Channel
{
public:
    explicit FakeChannel(QByteArray addr = QByteArrayLiteral("127.0.0.1:40000"))
        : m_id(nextId()), m_addr(std::move(addr))
    { }

    std::uint64_t id() const override { return m_id; }
    QByteArray remoteAddress() const override { return m_addr; }
    bool isActive() const override { return m_active; }
    void close() override
    {
        m_active = false;
        ++closeCount;
    }
    void send(protocol::RemotingCommand cmd) override
    {
        std::lock_guard lock(m_mutex);
        sent.push_back(std::move(cmd));
    }
    void invokeAsync(protocol::RemotingCommand request, int, remoting::InvokeCallback) override
    {
        send(std::move(request));
    }
    void invokeOneway(protocol::RemotingCommand request) override { send(std::move(request)); }

    std::vector<protocol::RemotingCommand> sent;
    int closeCount = 0;

private:
    static std::uint64_t nextId()
    {
        static std::atomic<std::uint64_t> n {1};
        return n++;
    }
    const std::uint64_t m_id;
    const QByteArray m_addr;
    std::atomic<bool> m_active {true};
    std::mutex m_mutex;
};

} // namespace qrocket::testing
