#include "clientlib/common/status.h"

namespace qrocket {

Status::Status(Code code, QString msg)
{
    if (code != Code::Ok)
        m_state = std::make_shared<const State>(State {code, std::move(msg)});
}

Status Status::remote(int responseCode, QString msg)
{
    Status s;
    s.m_state
        = std::make_shared<const State>(State {Code::RemoteError, std::move(msg), responseCode});
    return s;
}

const char *Status::codeName(Code code)
{
    switch (code) {
    case Code::Ok:
        return "OK";
    case Code::NotFound:
        return "NotFound";
    case Code::Corruption:
        return "Corruption";
    case Code::InvalidArgument:
        return "InvalidArgument";
    case Code::IoError:
        return "IoError";
    case Code::NotSupported:
        return "NotSupported";
    case Code::Busy:
        return "Busy";
    case Code::Timeout:
        return "Timeout";
    case Code::Unavailable:
        return "Unavailable";
    case Code::Internal:
        return "Internal";
    case Code::RemoteError:
        return "RemoteError";
    }
    return "Unknown";
}

QString Status::toString() const
{
    if (isOk())
        return QStringLiteral("OK");
    return QLatin1String(codeName(code())) + QStringLiteral(": ") + message();
}

} // namespace qrocket
