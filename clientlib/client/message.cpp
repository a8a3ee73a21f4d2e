#include "clientlib/client/message.h"

#include "clientlib/protocol/compression.h"
#include "clientlib/protocol/messageid.h"

#include <QList>

namespace qrocket::client {

namespace MC = protocol::MessageConst;

Message::Message(QByteArray topic, QByteArray tags, QByteArray body)
    : m_topic(std::move(topic)), m_body(std::move(body))
{
    setTags(std::move(tags));
}

Message::Message(QByteArray topic, QByteArray tags, QByteArray keys, QByteArray body)
    : Message(std::move(topic), std::move(tags), std::move(body))
{
    setKeys(keys);
}

void Message::setProperty(QByteArray name, QByteArray value)
{
    if (name.isEmpty() || value.isEmpty()) {
        m_properties.remove(name);
        return;
    }
    m_properties.set(std::move(name), std::move(value));
}

void Message::setTags(QByteArray tags)
{
    setProperty(QByteArray(MC::Tags.data(), MC::Tags.size()), std::move(tags));
}

void Message::setKeys(const QByteArray &keys)
{
    setProperty(QByteArray(MC::Keys.data(), MC::Keys.size()), keys);
}

void Message::setKeys(const std::vector<QByteArray> &keys)
{
    QByteArray joined;
    for (const QByteArray &k : keys) {
        if (k.isEmpty())
            continue;
        if (!joined.isEmpty())
            joined += ' ';
        joined += k;
    }
    setKeys(joined);
}

int Message::delayTimeLevel() const
{
    const QByteArray *v = m_properties.find(MC::DelayTimeLevel);
    return v ? v->toInt() : 0;
}

void Message::setDelayTimeLevel(int level)
{
    setProperty(QByteArray(MC::DelayTimeLevel.data(), MC::DelayTimeLevel.size()),
        level > 0 ? QByteArray::number(level) : QByteArray());
}

bool Message::waitStoreMsgOK() const
{
    const QByteArray *v = m_properties.find(MC::WaitStoreMsgOk);
    return !v || *v != "false";
}

void Message::setWaitStoreMsgOK(bool wait)
{
    setProperty(QByteArray(MC::WaitStoreMsgOk.data(), MC::WaitStoreMsgOk.size()),
        wait ? QByteArray("true") : QByteArray("false"));
}

QByteArray MessageExt::msgId() const
{
    const QByteArray *uniq = properties().find(MC::UniqClientMessageIdKeyIdx);
    return uniq && !uniq->isEmpty() ? *uniq : m_offsetMsgId;
}

Result<MessageExt> MessageExt::fromRecord(const protocol::MessageRecordView &r,
    const QByteArray &brokerName, qsizetype maxBody, QByteArray *topicCache)
{
    MessageExt m;
    if (!topicCache) {
        m.setTopic(r.topic.toByteArray());
    } else {
        if (*topicCache != r.topic)
            *topicCache = r.topic.toByteArray();
        m.setTopic(*topicCache);
    }
    m.setFlag(r.flag);
    m.properties() = protocol::MessageProperties::parse(r.properties);
    if (r.sysFlag & protocol::SysFlag::Compressed) {
        auto inflated = protocol::zlibDecompress(r.body, maxBody);
        if (!inflated)
            return Status::corruption(QStringLiteral("message at commit-log offset %1: %2")
                                          .arg(r.physicalOffset)
                                          .arg(inflated.error().message()));
        m.setBody(std::move(inflated).value());
    } else {
        m.setBody(r.body.toByteArray());
    }
    m.m_brokerName = brokerName;
    m.m_queueId = r.queueId;
    m.m_queueOffset = r.queueOffset;
    m.m_commitLogOffset = r.physicalOffset;
    m.m_storeSize = r.totalSize;
    m.m_sysFlag = r.sysFlag;
    m.m_bodyCrc = r.bodyCrc;
    m.m_bornTimestamp = r.bornTimestamp;
    m.m_storeTimestamp = r.storeTimestamp;
    m.m_bornHost = r.bornHost;
    m.m_storeHost = r.storeHost;
    m.m_reconsumeTimes = r.reconsumeTimes;
    m.m_preparedTransactionOffset = r.preparedTransactionOffset;
    m.m_offsetMsgId = protocol::encodeOffsetMessageId(r.storeHost, r.physicalOffset);
    m.setTransactionId(m.property(MC::TransactionId));
    return m;
}

Result<std::vector<MessageExt>> MessageExt::decodeAll(
    QByteArrayView body, const QByteArray &brokerName, bool checkCrc)
{
    std::vector<MessageExt> out;
    qsizetype pos = 0;
    QByteArray topic; // shared by the records of one topic (a pull answers one queue)
    while (pos < body.size()) {
        protocol::MessageRecordView view;
        const auto r = protocol::decodeRecord(body.sliced(pos), view, checkCrc);
        if (r.status != protocol::RecordStatus::Ok)
            return Status::corruption(
                QStringLiteral("bad message record at body offset %1: %2")
                    .arg(pos)
                    .arg(r.error.isEmpty() ? QStringLiteral("blank record") : r.error));
        auto m = fromRecord(view, brokerName, 64 * 1024 * 1024, &topic);
        if (!m)
            return m.error();
        out.push_back(std::move(m).value());
        pos += r.size;
    }
    return out;
}

std::vector<QByteArray> parseTagExpression(QByteArrayView expression)
{
    std::vector<QByteArray> tags;
    const QByteArray text = expression.toByteArray().trimmed();
    if (text.isEmpty() || text == "*")
        return tags;
    for (const QByteArray &part : text.split('|')) {
        const QByteArray tag = part.trimmed();
        if (!tag.isEmpty())
            tags.push_back(tag);
    }
    return tags;
}

} // namespace qrocket::client
