#pragma once

// MessageModel: the messages tab's result table (one row per message found: msgId, topic, tags,
// keys, queue, offset, store time, born host, size). Filled by a query; a new query replaces the
// rows (synced by msgId, so a page that overlaps the last keeps its rows).

#include "clientlib/client/message.h"
#include "console/gui/rowsync.h"

namespace qrocket::console {

class MessageModel : public SyncTableModel
{
    Q_OBJECT

public:
    enum Column { MsgId, Topic, Tags, Keys, Queue, Offset, StoreTime, BornHost, Size, ColumnCount };

    using SyncTableModel::SyncTableModel;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;
    void setMessages(std::vector<client::MessageExt> messages);
    const client::MessageExt *messageAt(int row) const;

private:
    struct Row
    {
        client::MessageExt m;
        friend bool operator==(const Row &a, const Row &b)
        {
            return a.m.offsetMsgId() == b.m.offsetMsgId() && a.m.queueOffset() == b.m.queueOffset();
        }
    };
    std::vector<Row> m_rows;
};

/// "00000000  48 65 6c 6c 6f ...  |Hello...|" lines (at most `limit` bytes, then a note).
QString hexDump(const QByteArray &data, int limit = 64 * 1024);

} // namespace qrocket::console
