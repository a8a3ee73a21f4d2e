#include "storage/recordutil.h"

#include <cstring>

namespace qrocket::storage {

QByteArrayView findProperty(QByteArrayView props, QByteArrayView name)
{
    // One pass with memchr over `name\x01value\x02...`; runs three times per dispatched message.
    QByteArrayView found;
    const char *p = props.data();
    const char *const end = p + props.size();
    const auto nameLen = static_cast<size_t>(name.size());
    while (p < end) {
        const auto left = static_cast<size_t>(end - p);
        const char *segEnd = static_cast<const char *>(std::memchr(p, '\x02', left));
        if (!segEnd)
            segEnd = end;
        const char *sep
            = static_cast<const char *>(std::memchr(p, '\x01', static_cast<size_t>(segEnd - p)));
        // Same acceptance rule as the Java parser: non-empty name and value.
        if (sep && sep > p && sep + 1 < segEnd && static_cast<size_t>(sep - p) == nameLen
            && std::memcmp(p, name.data(), nameLen) == 0)
            found = QByteArrayView(sep + 1, segEnd - sep - 1);
        if (segEnd == end)
            break;
        p = segEnd + 1;
    }
    return found;
}

DispatchProperties scanDispatchProperties(QByteArrayView props)
{
    DispatchProperties found;
    const char *p = props.data();
    const char *const end = p + props.size();
    while (p < end) {
        const auto left = static_cast<size_t>(end - p);
        const char *segEnd = static_cast<const char *>(std::memchr(p, '\x02', left));
        if (!segEnd)
            segEnd = end;
        const char *sep
            = static_cast<const char *>(std::memchr(p, '\x01', static_cast<size_t>(segEnd - p)));
        if (sep && sep > p && sep + 1 < segEnd) {
            const QByteArrayView name(p, sep - p);
            const QByteArrayView value(sep + 1, segEnd - sep - 1);
            // Dispatched names by length first: most segments are rejected on one compare.
            switch (name.size()) {
            case 4:
                if (name == kPropertyTags)
                    found.tags = value;
                else if (name == kPropertyKeys)
                    found.keys = value;
                break;
            case 8:
                if (name == kPropertyUniqKey)
                    found.uniqKey = value;
                break;
            default:
                break;
            }
        }
        if (segEnd == end)
            break;
        p = segEnd + 1;
    }
    return found;
}

} // namespace qrocket::storage
