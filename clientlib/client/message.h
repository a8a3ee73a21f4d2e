#pragma once

// Messages as the client API sees them (RocketMQ's Message and MessageExt).
//
//   client::Message msg("TopicTest", "TagA", "hello");
//   msg.setKeys({"order-1"});
//   msg.setDelayTimeLevel(3);
//   msg.setProperty("region", "eu");
//
// Message is what a producer sends: topic, body, flag and properties (tags, keys, delay level and
// the user's own are all properties, protocol.md §5.3/§5.4). MessageExt is what a consumer, a
// query or a transaction check receives: a Message plus where and when the broker stored it.
// Plain values: copy them, move them, use them from any thread.

#include "clientlib/common/result.h"
#include "clientlib/protocol/bodies/clientbodies.h"
#include "clientlib/protocol/messagecodec.h"
#include "clientlib/protocol/messageproperties.h"

#include <QByteArray>
#include <QByteArrayView>

#include <cstdint>
#include <vector>

namespace qrocket::client {

using protocol::MessageQueue;

class Message
{
public:
    Message() = default;
    Message(QByteArray topic, QByteArray body) : m_topic(std::move(topic)), m_body(std::move(body))
    { }
    Message(QByteArray topic, QByteArray tags, QByteArray body);
    Message(QByteArray topic, QByteArray tags, QByteArray keys, QByteArray body);

    const QByteArray &topic() const { return m_topic; }
    void setTopic(QByteArray topic) { m_topic = std::move(topic); }
    const QByteArray &body() const { return m_body; }
    void setBody(QByteArray body) { m_body = std::move(body); }
    std::int32_t flag() const { return m_flag; }
    void setFlag(std::int32_t flag) { m_flag = flag; }

    QByteArray tags() const { return property(protocol::MessageConst::Tags); }
    void setTags(QByteArray tags);
    /// KEYS: the keys joined by a space (the index is built per key).
    QByteArray keys() const { return property(protocol::MessageConst::Keys); }
    void setKeys(const QByteArray &keys);
    void setKeys(const std::vector<QByteArray> &keys);
    /// Delay level 1..18 (1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h by default);
    /// 0 = none.
    int delayTimeLevel() const;
    void setDelayTimeLevel(int level);
    /// WAIT: the broker answers only once the message is flushed / replicated as configured
    /// (true, the default), or at once.
    bool waitStoreMsgOK() const;
    void setWaitStoreMsgOK(bool wait);
    /// The client's unique id (UNIQ_KEY), set by the producer on send when absent.
    QByteArray uniqueKey() const
    {
        return property(protocol::MessageConst::UniqClientMessageIdKeyIdx);
    }
    QByteArray transactionId() const { return m_transactionId; }
    void setTransactionId(QByteArray id) { m_transactionId = std::move(id); }

    QByteArray property(QByteArrayView name) const { return m_properties.value(name); }
    /// Sets a property; a null or empty name or value removes it instead.
    void setProperty(QByteArray name, QByteArray value);
    void removeProperty(QByteArrayView name) { m_properties.remove(name); }
    const protocol::MessageProperties &properties() const { return m_properties; }
    protocol::MessageProperties &properties() { return m_properties; }

    friend bool operator==(const Message &, const Message &) = default;

private:
    QByteArray m_topic;
    QByteArray m_body;
    std::int32_t m_flag = 0;
    protocol::MessageProperties m_properties;
    QByteArray m_transactionId;
};

class MessageExt : public Message
{
public:
    /// The id users see: UNIQ_KEY when the producer set one, else the offset id.
    QByteArray msgId() const;
    /// The broker's id: store host and commit-log offset (protocol.md §6.1).
    const QByteArray &offsetMsgId() const { return m_offsetMsgId; }
    const QByteArray &brokerName() const { return m_brokerName; }
    MessageQueue messageQueue() const { return {topic(), m_brokerName, m_queueId}; }
    std::int32_t queueId() const { return m_queueId; }
    std::int64_t queueOffset() const { return m_queueOffset; }
    std::int64_t commitLogOffset() const { return m_commitLogOffset; }
    std::int32_t storeSize() const { return m_storeSize; }
    std::int32_t sysFlag() const { return m_sysFlag; }
    std::int32_t bodyCrc() const { return m_bodyCrc; }
    std::int64_t bornTimestamp() const { return m_bornTimestamp; }
    std::int64_t storeTimestamp() const { return m_storeTimestamp; }
    const protocol::HostAddress &bornHost() const { return m_bornHost; }
    const protocol::HostAddress &storeHost() const { return m_storeHost; }
    std::int32_t reconsumeTimes() const { return m_reconsumeTimes; }
    void setReconsumeTimes(std::int32_t times) { m_reconsumeTimes = times; }
    std::int64_t preparedTransactionOffset() const { return m_preparedTransactionOffset; }

    /// Decodes one stored record (protocol.md §5.1). Compressed bodies are inflated (at most
    /// `maxBody` bytes); `brokerName` is the broker it came from. `topicCache` (optional): the
    /// topic text of the previous record, shared when this one has the same (decodeAll).
    static Result<MessageExt> fromRecord(const protocol::MessageRecordView &record,
        const QByteArray &brokerName, qsizetype maxBody = 64 * 1024 * 1024,
        QByteArray *topicCache = nullptr);
    /// Decodes a pull, query or view body: stored records back to back (§5.6). A record that is
    /// truncated or corrupt is an error naming its offset in the body.
    static Result<std::vector<MessageExt>> decodeAll(
        QByteArrayView body, const QByteArray &brokerName, bool checkCrc = false);

private:
    QByteArray m_offsetMsgId;
    QByteArray m_brokerName;
    std::int32_t m_queueId = 0;
    std::int64_t m_queueOffset = 0;
    std::int64_t m_commitLogOffset = 0;
    std::int32_t m_storeSize = 0;
    std::int32_t m_sysFlag = 0;
    std::int32_t m_bodyCrc = 0;
    std::int64_t m_bornTimestamp = 0;
    std::int64_t m_storeTimestamp = 0;
    protocol::HostAddress m_bornHost;
    protocol::HostAddress m_storeHost;
    std::int32_t m_reconsumeTimes = 0;
    std::int64_t m_preparedTransactionOffset = 0;
};

/// RocketMQ's Validators.checkTopic: not blank, at most 127 bytes of [%|a-zA-Z0-9_-] (the
/// producer's and the consumers' check of a topic or group name).
Status checkTopic(const QByteArray &topic);

/// Splits a tag expression ("A || B", "*") into its tags, trimmed; empty for "*" or "".
std::vector<QByteArray> parseTagExpression(QByteArrayView expression);

} // namespace qrocket::client
