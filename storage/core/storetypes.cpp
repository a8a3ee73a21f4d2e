#include "storage/core/storetypes.h"

#include "clientlib/common/hash.h"

#include <QList>

#include <algorithm>

namespace qrocket::storage {

bool isStorableTopicName(QByteArrayView topic)
{
    if (topic.isEmpty() || topic.size() > protocol::kMaxTopicLength)
        return false;
    for (char c : topic) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
            || c == '%' || c == '|' || c == '_' || c == '-';
        if (!ok)
            return false;
    }
    return true;
}

const char *putMessageStatusName(PutMessageStatus s)
{
    switch (s) {
    case PutMessageStatus::PutOk:
        return "PUT_OK";
    case PutMessageStatus::FlushDiskTimeout:
        return "FLUSH_DISK_TIMEOUT";
    case PutMessageStatus::FlushSlaveTimeout:
        return "FLUSH_SLAVE_TIMEOUT";
    case PutMessageStatus::SlaveNotAvailable:
        return "SLAVE_NOT_AVAILABLE";
    case PutMessageStatus::ServiceNotAvailable:
        return "SERVICE_NOT_AVAILABLE";
    case PutMessageStatus::CreateMappedFileFailed:
        return "CREATE_MAPEDFILE_FAILED";
    case PutMessageStatus::MessageIllegal:
        return "MESSAGE_ILLEGAL";
    case PutMessageStatus::PropertiesSizeExceeded:
        return "PROPERTIES_SIZE_EXCEEDED";
    case PutMessageStatus::OsPageCacheBusy:
        return "OS_PAGECACHE_BUSY";
    case PutMessageStatus::UnknownError:
        return "UNKNOWN_ERROR";
    }
    return "UNKNOWN_ERROR";
}

const char *getMessageStatusName(GetMessageStatus s)
{
    switch (s) {
    case GetMessageStatus::Found:
        return "FOUND";
    case GetMessageStatus::NoMatchedMessage:
        return "NO_MATCHED_MESSAGE";
    case GetMessageStatus::MessageWasRemoving:
        return "MESSAGE_WAS_REMOVING";
    case GetMessageStatus::OffsetFoundNull:
        return "OFFSET_FOUND_NULL";
    case GetMessageStatus::OffsetOverflowBadly:
        return "OFFSET_OVERFLOW_BADLY";
    case GetMessageStatus::OffsetOverflowOne:
        return "OFFSET_OVERFLOW_ONE";
    case GetMessageStatus::OffsetTooSmall:
        return "OFFSET_TOO_SMALL";
    case GetMessageStatus::NoMatchedLogicQueue:
        return "NO_MATCHED_LOGIC_QUEUE";
    case GetMessageStatus::NoMessageInQueue:
        return "NO_MESSAGE_IN_QUEUE";
    }
    return "UNKNOWN";
}

namespace {
QByteArray concat(const std::vector<QByteArrayView> &parts, std::int64_t total)
{
    QByteArray out;
    out.reserve(static_cast<qsizetype>(total));
    for (const auto &p : parts)
        out.append(p);
    return out;
}
} // namespace

QByteArray GetMessageResult::concatenated() const
{
    return concat(messages, bufferTotalSize);
}
QByteArray QueryMessageResult::concatenated() const
{
    return concat(messages, bufferTotalSize);
}

MessageFilter MessageFilter::fromTagExpression(QByteArrayView expression)
{
    MessageFilter f;
    const QByteArrayView e = expression.trimmed();
    if (e.isEmpty() || e == "*")
        return f;
    f.matchAll = false;
    for (const QByteArray &part : e.toByteArray().split('|')) {
        const QByteArray tag = part.trimmed();
        if (!tag.isEmpty())
            f.codes.push_back(javaStringHash(tag));
    }
    return f;
}

MessageFilter MessageFilter::fromProperties(std::shared_ptr<const PropertyFilter> properties)
{
    MessageFilter f;
    f.properties = std::move(properties);
    return f;
}

bool MessageFilter::matchesTagsCode(std::int64_t tagsCode) const
{
    if (matchAll)
        return true;
    return std::find(codes.begin(), codes.end(), static_cast<std::int32_t>(tagsCode))
        != codes.end();
}

} // namespace qrocket::storage
