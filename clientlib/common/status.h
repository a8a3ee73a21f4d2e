#pragma once

// Status: the outcome of an operation that can fail (leveldb's shape). OK carries no allocation;
// an error carries a code and a human-readable message. Cheap to copy (shared immutable state).

#include <QString>

#include <cstdint>
#include <memory>

namespace qrocket {

class Status
{
public:
    enum class Code : std::uint8_t {
        Ok,
        NotFound,
        Corruption,
        InvalidArgument,
        IoError,
        NotSupported,
        Busy,
        Timeout,
        Unavailable,
        Internal,
        /// The peer answered with an error response code (remoteCode() has it, the message
        /// its remark).
        RemoteError,
    };

    Status() = default; // OK

    static Status ok() { return {}; }
    static Status notFound(QString msg) { return {Code::NotFound, std::move(msg)}; }
    static Status corruption(QString msg) { return {Code::Corruption, std::move(msg)}; }
    static Status invalidArgument(QString msg) { return {Code::InvalidArgument, std::move(msg)}; }
    static Status ioError(QString msg) { return {Code::IoError, std::move(msg)}; }
    static Status notSupported(QString msg) { return {Code::NotSupported, std::move(msg)}; }
    static Status busy(QString msg) { return {Code::Busy, std::move(msg)}; }
    static Status timeout(QString msg) { return {Code::Timeout, std::move(msg)}; }
    static Status unavailable(QString msg) { return {Code::Unavailable, std::move(msg)}; }
    static Status internal(QString msg) { return {Code::Internal, std::move(msg)}; }
    /// A broker's or name server's error response: its response code and remark.
    static Status remote(int responseCode, QString msg);

    bool isOk() const { return !m_state; }
    explicit operator bool() const { return isOk(); }
    Code code() const { return m_state ? m_state->code : Code::Ok; }
    QString message() const { return m_state ? m_state->message : QString(); }
    /// The response code of a RemoteError, else -1.
    int remoteCode() const { return m_state ? m_state->remoteCode : -1; }
    /// "InvalidArgument: <message>", or "OK".
    QString toString() const;
    static const char *codeName(Code code);

    Status(Code code, QString msg);

private:
    struct State
    {
        Code code;
        QString message;
        int remoteCode = -1;
    };
    std::shared_ptr<const State> m_state; // null means OK
};

} // namespace qrocket
