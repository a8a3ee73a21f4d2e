#include "storage/recordutil.h"

namespace qrocket::storage {

QByteArrayView findProperty(QByteArrayView props, QByteArrayView name)
{
    QByteArrayView found;
    qsizetype pos = 0;
    while (pos < props.size()) {
        qsizetype end = props.indexOf('\x02', pos);
        if (end < 0)
            end = props.size();
        const QByteArrayView seg = props.sliced(pos, end - pos);
        const qsizetype sep = seg.indexOf('\x01');
        // Same acceptance rule as the Java parser: non-empty name and value.
        if (sep > 0 && sep < seg.size() - 1 && seg.first(sep) == name)
            found = seg.sliced(sep + 1);
        pos = end + 1;
    }
    return found;
}

} // namespace qrocket::storage
