#include "storage/core/multidispatch.h"

#include "storage/core/recordutil.h"
#include "storage/core/storetypes.h"

#include <charconv>

namespace qrocket::storage {

bool isMultiDispatchHoldingTopic(QByteArrayView name)
{
    return name == QByteArrayView("SCHEDULE_TOPIC_XXXX") || name.startsWith("RMQ_SYS_")
        || name.startsWith("rmq_sys_");
}

namespace {

QString printable(QByteArrayView name)
{
    return QString::fromLatin1(
        name.first(std::min<qsizetype>(name.size(), 64)).toByteArray().toPercentEncoding());
}
} // namespace

Status parseMultiDispatchNames(
    QByteArrayView properties, QByteArrayView ownTopic, std::vector<QByteArrayView> &names)
{
    names.clear();
    const QByteArrayView value = findProperty(properties, kPropertyMultiDispatch);
    if (value.isEmpty())
        return {};
    qsizetype pos = 0;
    while (pos <= value.size()) {
        const QByteArrayView name = detail::nextItem(value, pos);
        const int index = static_cast<int>(names.size());
        if (index >= kMaxMultiDispatchQueues)
            return Status::invalidArgument(
                QStringLiteral("INNER_MULTI_DISPATCH names more than %1 queues")
                    .arg(kMaxMultiDispatchQueues));
        if (name.isEmpty())
            return Status::invalidArgument(
                QStringLiteral("INNER_MULTI_DISPATCH: queue name %1 is empty").arg(index + 1));
        if (!isStorableTopicName(name))
            return Status::invalidArgument(
                QStringLiteral("INNER_MULTI_DISPATCH: queue name %1 \"%2\" is not a valid topic "
                               "name (characters %|a-zA-Z0-9_-, at most 127)")
                    .arg(index + 1)
                    .arg(printable(name)));
        if (name == ownTopic || isMultiDispatchHoldingTopic(name))
            return Status::invalidArgument(
                QStringLiteral("INNER_MULTI_DISPATCH: queue name %1 \"%2\" is the message's own "
                               "topic or a system topic")
                    .arg(index + 1)
                    .arg(printable(name)));
        names.push_back(name);
        if (pos > value.size())
            break;
    }
    return {};
}

QByteArray withMultiQueueOffsets(QByteArrayView properties, const std::int64_t *offsets, size_t n)
{
    QByteArray out;
    out.reserve(
        properties.size() + kPropertyMultiQueueOffset.size() + 2 + static_cast<qsizetype>(n) * 8);
    // Copy every segment but INNER_MULTI_QUEUE_OFFSET (a sender's, or one of a re-put message).
    qsizetype pos = 0;
    while (pos < properties.size()) {
        const char *seg = properties.data() + pos;
        const char *end = static_cast<const char *>(
            std::memchr(seg, '\x02', static_cast<std::size_t>(properties.size() - pos)));
        const qsizetype len = end ? end - seg : properties.size() - pos;
        const QByteArrayView segment(seg, len);
        const bool drop = segment.startsWith(kPropertyMultiQueueOffset)
            && segment.size() > kPropertyMultiQueueOffset.size()
            && segment[kPropertyMultiQueueOffset.size()] == '\x01';
        if (!drop && len > 0) {
            out.append(segment);
            out.append('\x02');
        }
        pos += len + 1;
    }
    out.append(kPropertyMultiQueueOffset);
    out.append('\x01');
    char buf[24];
    for (size_t i = 0; i < n; ++i) {
        if (i > 0)
            out.append(',');
        const auto r = std::to_chars(buf, buf + sizeof buf, offsets[i]);
        out.append(buf, r.ptr - buf);
    }
    out.append('\x02');
    return out;
}

namespace detail {

bool parseOffset(QByteArrayView s, std::int64_t &out)
{
    if (s.isEmpty())
        return false;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
    return r.ec == std::errc() && r.ptr == s.data() + s.size() && out >= 0;
}

bool multiDispatchShapeOk(QByteArrayView names, QByteArrayView offsets)
{
    if (names.isEmpty() || offsets.isEmpty())
        return false;
    qsizetype np = 0, op = 0;
    while (np <= names.size()) {
        if (op > offsets.size())
            return false; // fewer offsets than names
        const QByteArrayView name = nextItem(names, np);
        std::int64_t offset = 0;
        if (name.isEmpty() || !parseOffset(nextItem(offsets, op), offset))
            return false;
        if (np > names.size())
            break;
    }
    return op > offsets.size(); // as many offsets as names
}

} // namespace detail

} // namespace qrocket::storage
