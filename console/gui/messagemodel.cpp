// The message result table and the hex dump (see messagemodel.h).

#include "console/gui/messagemodel.h"

#include "console/gui/format.h"

namespace qrocket::console {

int MessageModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int MessageModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

void MessageModel::setMessages(std::vector<client::MessageExt> messages)
{
    std::vector<Row> fresh;
    for (auto &m : messages)
        fresh.push_back({std::move(m)});
    // A replaced result: sync by offset msgId (unique per stored copy).
    syncRows(m_rows, std::move(fresh),
        [](const Row &r) { return r.m.offsetMsgId().isEmpty() ? r.m.msgId() : r.m.offsetMsgId(); });
}

const client::MessageExt *MessageModel::messageAt(int row) const
{
    if (row < 0 || row >= rowCount())
        return nullptr;
    return &m_rows[static_cast<std::size_t>(row)].m;
}

QVariant MessageModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        static const char *const names[] = {"Message id", "Topic", "Tags", "Keys", "Queue",
            "Queue offset", "Stored", "Born host", "Size"};
        return QString::fromLatin1(names[section]);
    }
    if (role == Qt::ToolTipRole && section == MsgId)
        return tr("UNIQ_KEY (the id producers and consumers see); the offset id is in the detail");
    return {};
}

QVariant MessageModel::data(const QModelIndex &index, int role) const
{
    const client::MessageExt *m = messageAt(index.row());
    if (!m)
        return {};
    const int col = index.column();
    switch (role) {
    case Qt::DisplayRole:
        switch (col) {
        case MsgId:
            return QString::fromUtf8(m->msgId());
        case Topic:
            return QString::fromUtf8(m->topic());
        case Tags:
            return QString::fromUtf8(m->tags());
        case Keys:
            return QString::fromUtf8(m->keys());
        case Queue:
            return QStringLiteral("%1:%2")
                .arg(QString::fromUtf8(m->brokerName()))
                .arg(m->queueId());
        case Offset:
            return formatCount(m->queueOffset());
        case StoreTime:
            return formatTimestamp(m->storeTimestamp());
        case BornHost:
            return QString::fromUtf8(m->bornHost().toString());
        case Size:
            return formatBytes(m->storeSize());
        }
        break;
    case SortRole:
        switch (col) {
        case Offset:
            return static_cast<qlonglong>(m->queueOffset());
        case StoreTime:
            return static_cast<qlonglong>(m->storeTimestamp());
        case Size:
            return m->storeSize();
        default:
            return data(index, Qt::DisplayRole);
        }
    case KeyRole:
        return m->offsetMsgId();
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(Qt::Alignment(
            (col == Offset || col == Size ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter));
    }
    return {};
}

QString hexDump(const QByteArray &data, int limit)
{
    QString out;
    const int n = std::min<int>(static_cast<int>(data.size()), limit);
    out.reserve(n * 4 + 64);
    for (int off = 0; off < n; off += 16) {
        out += QStringLiteral("%1  ").arg(off, 8, 16, QLatin1Char('0'));
        QString ascii;
        for (int i = 0; i < 16; ++i) {
            if (off + i < n) {
                const auto c = static_cast<unsigned char>(data[off + i]);
                out += QStringLiteral("%1 ").arg(c, 2, 16, QLatin1Char('0'));
                ascii += (c >= 0x20 && c < 0x7f) ? QLatin1Char(static_cast<char>(c))
                                                 : QLatin1Char('.');
            } else {
                out += QStringLiteral("   ");
            }
            if (i == 7)
                out += QLatin1Char(' ');
        }
        out += QStringLiteral(" |") + ascii + QStringLiteral("|\n");
    }
    if (data.size() > n)
        out += QStringLiteral("… %1 more bytes not shown\n").arg(data.size() - n);
    return out;
}

} // namespace qrocket::console
