#include "storage/core/recordutil.h"

#include <cstring>

namespace qrocket::storage {

namespace {

/// Calls f(name, value) for each segment of `name\x01value\x02...` that the Java parser accepts
/// (non-empty name and value), in order; one pass with memchr.
template<typename F>
void forEachValidProperty(QByteArrayView props, F &&f)
{
    const char *p = props.data();
    const char *const end = p + props.size();
    while (p < end) {
        const auto left = static_cast<size_t>(end - p);
        const char *segEnd = static_cast<const char *>(std::memchr(p, '\x02', left));
        if (!segEnd)
            segEnd = end;
        const char *sep
            = static_cast<const char *>(std::memchr(p, '\x01', static_cast<size_t>(segEnd - p)));
        if (sep && sep > p && sep + 1 < segEnd)
            f(QByteArrayView(p, sep - p), QByteArrayView(sep + 1, segEnd - sep - 1));
        if (segEnd == end)
            break;
        p = segEnd + 1;
    }
}

} // namespace

QByteArrayView findProperty(QByteArrayView props, QByteArrayView name)
{
    QByteArrayView found;
    forEachValidProperty(props, [&](QByteArrayView n, QByteArrayView value) {
        if (n == name)
            found = value; // last one wins, as in the Java parser's map
    });
    return found;
}

DispatchProperties scanDispatchProperties(QByteArrayView props)
{
    DispatchProperties found;
    forEachValidProperty(props, [&](QByteArrayView name, QByteArrayView value) {
        // By length first: most segments are rejected on one compare.
        if (name.size() == 4) {
            if (name == kPropertyTags)
                found.tags = value;
            else if (name == kPropertyKeys)
                found.keys = value;
        } else if (name.size() == 8 && name == kPropertyUniqKey) {
            found.uniqKey = value;
        } else if (name.size() == 20 && name == QByteArrayView("INNER_MULTI_DISPATCH")) {
            found.multiDispatch = value;
        } else if (name.size() == 24 && name == QByteArrayView("INNER_MULTI_QUEUE_OFFSET")) {
            found.multiQueueOffset = value;
        }
    });
    return found;
}

} // namespace qrocket::storage
