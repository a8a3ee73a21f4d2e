#include "broker/grpc/grpcconvert.h"

#include "broker/grpc/grpcauth.h"
#include "broker/grpc/grpcchannel.h"
#include "broker/managers/topicvalidator.h"
#include "clientlib/protocol/compression.h"
#include "clientlib/protocol/messageid.h"
#include "clientlib/protocol/messageproperties.h"
#include "clientlib/protocol/responsecode.h"

#include <QCryptographicHash>
#include <QList>

#include <array>
#include <charconv>
#include <optional>
#include <utility>

namespace qrocket::broker::v2 {

namespace {

namespace Name {
constexpr QByteArrayView Keys = "KEYS";
constexpr QByteArrayView Tags = "TAGS";
constexpr QByteArrayView UniqKey = "UNIQ_KEY";
constexpr QByteArrayView TranMsg = "TRAN_MSG";
constexpr QByteArrayView DelayLevel = "DELAY";
constexpr QByteArrayView TimerDeliverMs = "TIMER_DELIVER_MS";
constexpr QByteArrayView TimerDelaySec = "TIMER_DELAY_SEC";
constexpr QByteArrayView ReconsumeTime = "RECONSUME_TIME";
constexpr QByteArrayView ProducerGroup = "PGROUP";
constexpr QByteArrayView ShardingKey = "__SHARDINGKEY";
constexpr QByteArrayView TraceContext = "TRACE_CONTEXT";
constexpr QByteArrayView BornHost = "__BORNHOST";
constexpr QByteArrayView BornTimestamp = "BORN_TIMESTAMP";
constexpr QByteArrayView CheckImmunity = "CHECK_IMMUNITY_TIME_IN_SECONDS";
constexpr QByteArrayView PopCk = "POP_CK";
constexpr QByteArrayView DlqOriginTopic = "DLQ_ORIGIN_TOPIC";
constexpr QByteArrayView DlqOriginMessageId = "DLQ_ORIGIN_MESSAGE_ID";
} // namespace Name

// RocketMQ 5.3's MessageConst.STRING_HASH_SET: the names user properties may not take.
constexpr std::array<QByteArrayView, 51> kSystemNames = {"TRACE_ON", "MSG_REGION", "KEYS", "TAGS",
    "WAIT", "DELAY", "RETRY_TOPIC", "REAL_TOPIC", "REAL_QID", "TRAN_MSG", "PGROUP", "MIN_OFFSET",
    "MAX_OFFSET", "BUYER_ID", "ORIGIN_MESSAGE_ID", "TRANSFER_FLAG", "CORRECTION_FLAG", "MQ2_FLAG",
    "RECONSUME_TIME", "UNIQ_KEY", "MAX_RECONSUME_TIMES", "CONSUME_START_TIME", "POP_CK",
    "POP_CK_OFFSET", "1ST_POP_TIME", "TRAN_PREPARED_QUEUE_OFFSET", "DUP_INFO", "EXTEND_UNIQ_INFO",
    "INSTANCE_ID", "CORRELATION_ID", "REPLY_TO_CLIENT", "TTL", "ARRIVE_TIME", "PUSH_REPLY_TIME",
    "CLUSTER", "MSG_TYPE", "INNER_MULTI_QUEUE_OFFSET", "TIMER_DELAY_MS", "TIMER_DELAY_SEC",
    "TIMER_DELIVER_MS", "TIMER_ENQUEUE_MS", "TIMER_DEQUEUE_MS", "TIMER_ROLL_TIMES", "TIMER_OUT_MS",
    "TIMER_DEL_UNIQKEY", "TIMER_DELAY_LEVEL", "__BORNHOST", "BORN_TIMESTAMP", "DLQ_ORIGIN_TOPIC",
    "DLQ_ORIGIN_MESSAGE_ID", "__CRC32#"};

bool hasControlCharacter(const std::string &s)
{
    for (const char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if ((u < 0x20 && c != '\t') || u == 0x7f)
            return true;
    }
    return false;
}

bool isBlank(const std::string &s)
{
    for (const char c : s)
        if (c != ' ' && c != '\t' && c != '\r' && c != '\n')
            return false;
    return true;
}

SendInput refuse(pb::Code code, std::string reason)
{
    SendInput in;
    in.refusal = code;
    in.reason = std::move(reason);
    return in;
}

QByteArrayView viewOf(const std::string &s)
{
    return QByteArrayView(s.data(), static_cast<qsizetype>(s.size()));
}

/// A decimal number's text, kept for a PropertyList's view of it.
class Number
{
public:
    QByteArrayView of(std::int64_t v)
    {
        const auto r = std::to_chars(m_text.data(), m_text.data() + m_text.size(), v);
        return QByteArrayView(m_text.data(), r.ptr - m_text.data());
    }

private:
    std::array<char, 24> m_text {};
};

/// MessageProperties' entries and encodeChecked() over views (their strings outlive it).
class PropertyList
{
public:
    /// Appends; the name must not be present (set() when it may be: a name that is not one of
    /// the system names users may not take).
    void add(QByteArrayView name, QByteArrayView value) { m_entries.emplace_back(name, value); }
    /// Replaces the value of `name` in place, else appends (MessageProperties::set()).
    void set(QByteArrayView name, QByteArrayView value)
    {
        for (auto &e : m_entries)
            if (e.first == name) {
                e.second = value;
                return;
            }
        add(name, value);
    }
    /// `name\x01value` joined by `\x02`, entries that would not survive a round trip skipped
    /// (as MessageProperties::encode()); nullopt when longer than the record's i16 allows.
    std::optional<QByteArray> encodeChecked() const
    {
        qsizetype size = 0;
        for (const auto &[name, value] : m_entries)
            size += name.size() + value.size() + 2;
        QByteArray out;
        out.reserve(size);
        for (const auto &[name, value] : m_entries) {
            if (name.isEmpty() || value.isEmpty() || name.contains(protocol::kNameValueSeparator)
                || name.contains(protocol::kPropertySeparator)
                || value.contains(protocol::kPropertySeparator))
                continue;
            if (!out.isEmpty())
                out.append(protocol::kPropertySeparator);
            out.append(name);
            out.append(protocol::kNameValueSeparator);
            out.append(value);
        }
        if (out.size() > protocol::kMaxPropertiesLength)
            return std::nullopt;
        return out;
    }

private:
    // Sixteen entries cover a message without user properties without a reallocation.
    std::vector<std::pair<QByteArrayView, QByteArrayView>> m_entries = [] {
        std::vector<std::pair<QByteArrayView, QByteArrayView>> v;
        v.reserve(16);
        return v;
    }();
};

// Host "a.b.c.d:port" of a record's host field.
} // namespace

std::string hostText(const protocol::HostAddress &h, bool withPort)
{
    if (h.v6) {
        QByteArray text = h.toString(); // "[v6]:port"
        if (!withPort) {
            text.truncate(text.lastIndexOf(':'));
            text = text.mid(1, text.size() - 2);
        }
        return toStd(text);
    }
    // IPv4, on every received message: digits straight into the string (HostAddress::toString()
    // built it from five temporary QByteArrays, ~6k instructions a call).
    char buf[24];
    char *p = buf;
    char *const end = buf + sizeof buf;
    for (int i = 0; i < 4; ++i) {
        if (i > 0)
            *p++ = '.';
        p = std::to_chars(p, end, int(h.ip[std::size_t(i)])).ptr;
    }
    if (withPort) {
        *p++ = ':';
        p = std::to_chars(p, end, h.port).ptr;
    }
    return std::string(buf, p);
}

void setStatus(pb::Status *status, pb::Code code, std::string message)
{
    status->set_code(code);
    status->set_message(std::move(message));
}

pb::Code codeOfRemoting(int remotingCode)
{
    using protocol::ResponseCode;
    switch (remotingCode) {
    case toInt(ResponseCode::Success):
        return pb::OK;
    case toInt(ResponseCode::SystemBusy):
    case 209: // POLLING_FULL
        return pb::TOO_MANY_REQUESTS;
    case toInt(ResponseCode::RequestCodeNotSupported):
        return pb::NOT_IMPLEMENTED;
    case toInt(ResponseCode::FlushDiskTimeout):
        return pb::MASTER_PERSISTENCE_TIMEOUT;
    case toInt(ResponseCode::SlaveNotAvailable):
        return pb::HA_NOT_AVAILABLE;
    case toInt(ResponseCode::FlushSlaveTimeout):
        return pb::SLAVE_PERSISTENCE_TIMEOUT;
    case toInt(ResponseCode::MessageIllegal):
    case toInt(ResponseCode::InvalidParameter):
        return pb::BAD_REQUEST;
    case toInt(ResponseCode::NoPermission):
        return pb::FORBIDDEN;
    case kUnauthorizedCode: // the ACL guard refused an internal request (grpcauth.h)
        return pb::UNAUTHORIZED;
    case toInt(ResponseCode::TopicNotExist):
        return pb::TOPIC_NOT_FOUND;
    case toInt(ResponseCode::SubscriptionGroupNotExist):
        return pb::CONSUMER_GROUP_NOT_FOUND;
    case toInt(ResponseCode::SubscriptionParseFailed):
        return pb::ILLEGAL_FILTER_EXPRESSION;
    case toInt(ResponseCode::PullNotFound):
    case toInt(ResponseCode::PullRetryImmediately):
    case toInt(ResponseCode::NoMessage):
    case 210: // POLLING_TIMEOUT
        return pb::MESSAGE_NOT_FOUND;
    case toInt(ResponseCode::VersionNotSupported):
        return pb::VERSION_UNSUPPORTED;
    case kTimeoutCode:
        return pb::PROXY_TIMEOUT;
    default:
        return pb::INTERNAL_SERVER_ERROR;
    }
}

bool isSystemProperty(QByteArrayView name)
{
    for (const QByteArrayView n : kSystemNames)
        if (n == name)
            return true;
    return false;
}

std::int64_t millisOf(const google::protobuf::Duration &d)
{
    return d.seconds() * 1000 + d.nanos() / 1000000;
}

std::int64_t millisOf(const google::protobuf::Timestamp &t)
{
    return t.seconds() * 1000 + t.nanos() / 1000000;
}

void setMillis(google::protobuf::Duration *d, std::int64_t ms)
{
    d->set_seconds(ms / 1000);
    d->set_nanos(static_cast<std::int32_t>((ms % 1000) * 1000000));
}

void setMillis(google::protobuf::Timestamp *t, std::int64_t ms)
{
    t->set_seconds(ms / 1000);
    t->set_nanos(static_cast<std::int32_t>((ms % 1000) * 1000000));
}

SendInput sendInputOf(const pb::Message &message, const QByteArray &peer, int maxBodySize)
{
    const pb::SystemProperties &sys = message.system_properties();
    if (message.topic().name().empty())
        return refuse(pb::ILLEGAL_TOPIC, "topic name cannot be empty");
    if (maxBodySize > 0 && message.body().size() > static_cast<std::size_t>(maxBodySize))
        return refuse(pb::MESSAGE_BODY_TOO_LARGE,
            "message body cannot exceed the max " + std::to_string(maxBodySize));
    if (sys.message_id().empty() || isBlank(sys.message_id()))
        return refuse(pb::ILLEGAL_MESSAGE_ID, "message id cannot be empty");

    // The properties are encoded straight from views of the request's strings (the converted
    // message's hot path: one allocation instead of a map of copies). The entries and their
    // order are MessageProperties::set()'s: a name set again replaces its value in place (only
    // CHECK_IMMUNITY_TIME_IN_SECONDS, __SHARDINGKEY and TRACE_CONTEXT, not system names, can be
    // both a user property and set below).
    PropertyList props;
    for (const auto &[key, value] : message.user_properties()) {
        if (isSystemProperty(QByteArrayView(key.data(), static_cast<qsizetype>(key.size()))))
            return refuse(pb::ILLEGAL_MESSAGE_PROPERTY_KEY, "property is used by system: " + key);
        if (key.empty() || hasControlCharacter(key) || hasControlCharacter(value))
            return refuse(pb::ILLEGAL_MESSAGE_PROPERTY_KEY,
                "a property's key or value cannot be empty or contain control characters");
        props.add(viewOf(key), viewOf(value));
    }
    if (sys.has_tag()) {
        if (sys.tag().empty() || isBlank(sys.tag()) || hasControlCharacter(sys.tag())
            || sys.tag().find('|') != std::string::npos)
            return refuse(
                pb::ILLEGAL_MESSAGE_TAG, "tag is blank or contains '|' or control characters");
        props.add(Name::Tags, viewOf(sys.tag()));
    }
    QByteArray keys;
    for (const std::string &k : sys.keys()) {
        if (k.empty())
            continue;
        if (isBlank(k) || hasControlCharacter(k))
            return refuse(pb::ILLEGAL_MESSAGE_KEY, "key is blank or contains control characters");
        if (!keys.isEmpty())
            keys += ' ';
        keys.append(viewOf(k));
    }
    if (!keys.isEmpty())
        props.add(Name::Keys, keys);
    SendInput in;
    in.messageId = fromStd(sys.message_id());
    props.add(Name::UniqKey, in.messageId);
    Number immunity, deliverMs, reconsume, born;
    if (sys.message_type() == pb::TRANSACTION) {
        props.add(Name::TranMsg, "true");
        in.sysFlag |= protocol::SysFlag::TransactionPrepared;
        if (sys.has_orphaned_transaction_recovery_duration())
            props.set(Name::CheckImmunity,
                immunity.of(sys.orphaned_transaction_recovery_duration().seconds()));
    }
    if (sys.has_delivery_timestamp())
        props.add(Name::TimerDeliverMs, deliverMs.of(millisOf(sys.delivery_timestamp())));
    props.add(Name::ReconsumeTime, reconsume.of(sys.delivery_attempt()));
    props.add(Name::ProducerGroup, viewOf(message.topic().name()));
    if (!sys.message_group().empty()) {
        if (isBlank(sys.message_group()) || hasControlCharacter(sys.message_group()))
            return refuse(
                pb::ILLEGAL_MESSAGE_GROUP, "message group is blank or contains control characters");
        in.messageGroup = fromStd(sys.message_group());
        props.set(Name::ShardingKey, in.messageGroup);
    }
    if (!sys.trace_context().empty())
        props.set(Name::TraceContext, viewOf(sys.trace_context()));
    const QByteArrayView bornHost
        = sys.born_host().empty() ? QByteArrayView(peer) : viewOf(sys.born_host());
    if (!bornHost.isEmpty())
        props.add(Name::BornHost, bornHost);
    in.bornTimestamp = sys.has_born_timestamp() ? millisOf(sys.born_timestamp()) : 0;
    if (in.bornTimestamp > 0)
        props.add(Name::BornTimestamp, born.of(in.bornTimestamp));
    std::optional<QByteArray> encoded = props.encodeChecked();
    if (!encoded)
        return refuse(pb::MESSAGE_PROPERTIES_TOO_LARGE, "the message's properties are too large");
    in.properties = std::move(*encoded);
    in.topic = fromStd(message.topic().name());
    in.body = fromStd(message.body());
    if (sys.body_encoding() == pb::GZIP)
        in.sysFlag |= protocol::SysFlag::Compressed;
    in.messageType = sys.message_type() == pb::TRANSACTION ? TopicMessageType::Transaction
        : sys.has_delivery_timestamp()                     ? TopicMessageType::Delay
        : !sys.message_group().empty()                     ? TopicMessageType::Fifo
                                                           : TopicMessageType::Normal;
    return in;
}

void setResource(pb::Resource *out, QByteArrayView name)
{
    using namespace protocol::topics;
    const auto assign
        = [](std::string *to, QByteArrayView v) { to->assign(v.data(), std::size_t(v.size())); };
    QByteArrayView prefix;
    for (QByteArrayView p : {QByteArrayView(kRetryPrefix), QByteArrayView(kDlqPrefix)})
        if (name.startsWith(p)) {
            prefix = p;
            break;
        }
    const QByteArrayView rest = name.sliced(prefix.size());
    const qsizetype cut = rest.indexOf('%');
    const bool system = topics::isSystemTopic(name) || name.startsWith("CID_RMQ_SYS_");
    if (system || cut <= 0) {
        assign(out->mutable_name(), name);
        out->clear_resource_namespace();
        return;
    }
    assign(out->mutable_resource_namespace(), rest.first(cut));
    std::string *n = out->mutable_name();
    assign(n, prefix);
    n->append(rest.data() + cut + 1, std::size_t(rest.size() - cut - 1));
}

void fillMessage(
    pb::Message *out, const protocol::MessageRecordView &record, const QByteArray &receiptHandle)
{
    const protocol::MessageProperties props = protocol::MessageProperties::parse(record.properties);
    setResource(out->mutable_topic(), record.topic);
    auto *user = out->mutable_user_properties();
    for (const auto &[name, value] : props.entries()) {
        if (isSystemProperty(name) || name == Name::ShardingKey || name == Name::TraceContext)
            continue;
        (*user)[toStd(name)] = toStd(value);
    }
    pb::SystemProperties *sys = out->mutable_system_properties();
    if (const QByteArray *tag = props.find(Name::Tags))
        sys->set_tag(toStd(*tag));
    if (const QByteArray *keys = props.find(Name::Keys)) {
        for (const QByteArray &k : keys->split(' '))
            if (!k.isEmpty())
                sys->add_keys(toStd(k));
    }
    const QByteArray *uniq = props.find(Name::UniqKey);
    if (uniq)
        sys->set_message_id(toStd(*uniq));
    else
        sys->set_message_id(
            toStd(protocol::encodeOffsetMessageId(record.storeHost, record.physicalOffset)));

    // Stored compressed by a remoting producer (zlib): delivered as plain bytes. Otherwise the
    // record's bytes are copied once, into the message.
    QByteArray plain;
    QByteArrayView body = record.body;
    if (record.sysFlag & protocol::SysFlag::Compressed) {
        if (auto unzipped = protocol::zlibDecompress(record.body)) {
            plain = std::move(*unzipped);
            body = plain;
        }
    }
    sys->mutable_body_digest()->set_type(pb::MD5);
    sys->mutable_body_digest()->set_checksum(
        toStd(QCryptographicHash::hash(body, QCryptographicHash::Md5).toHex().toUpper()));
    sys->set_body_encoding(pb::IDENTITY);

    if (props.value(Name::TranMsg) == "true")
        sys->set_message_type(pb::TRANSACTION);
    else if (props.contains(Name::DelayLevel) || props.contains(Name::TimerDeliverMs)
        || props.contains(Name::TimerDelaySec))
        sys->set_message_type(pb::DELAY);
    else if (props.contains(Name::ShardingKey))
        sys->set_message_type(pb::FIFO);
    else
        sys->set_message_type(pb::NORMAL);

    setMillis(sys->mutable_born_timestamp(), record.bornTimestamp);
    const QByteArray *bornHost = props.find(Name::BornHost);
    // As the proxy: the producer's address alone (MessageExt.getBornHostString), the store's
    // with its port (NetworkUtil.socketAddress2String).
    sys->set_born_host(bornHost ? toStd(*bornHost) : hostText(record.bornHost, false));
    setMillis(sys->mutable_store_timestamp(), record.storeTimestamp);
    sys->set_store_host(hostText(record.storeHost, true));
    if (const QByteArray *deliver = props.find(Name::TimerDeliverMs))
        setMillis(sys->mutable_delivery_timestamp(), deliver->toLongLong());
    if (const QByteArray *group = props.find(Name::ShardingKey))
        sys->set_message_group(toStd(*group));
    if (!receiptHandle.isEmpty())
        sys->set_receipt_handle(toStd(receiptHandle));
    else if (const QByteArray *ck = props.find(Name::PopCk))
        sys->set_receipt_handle(toStd(*ck));
    sys->set_queue_id(record.queueId);
    sys->set_queue_offset(record.queueOffset);
    sys->set_delivery_attempt(record.reconsumeTimes + 1);
    if (const QByteArray *trace = props.find(Name::TraceContext))
        sys->set_trace_context(toStd(*trace));
    const QByteArray *dlqTopic = props.find(Name::DlqOriginTopic);
    const QByteArray *dlqId = props.find(Name::DlqOriginMessageId);
    if (dlqTopic && dlqId) {
        sys->mutable_dead_letter_queue()->set_topic(toStd(*dlqTopic));
        sys->mutable_dead_letter_queue()->set_message_id(toStd(*dlqId));
    }
    out->set_body(body.data(), static_cast<std::size_t>(body.size()));
}

} // namespace qrocket::broker::v2
