#include "fuzztargets.h"

#include "clientlib/common/check.h"
#include "clientlib/protocol/bodies/adminbodies.h"
#include "clientlib/protocol/bodies/authbodies.h"
#include "clientlib/protocol/bodies/clientbodies.h"
#include "clientlib/protocol/bodies/popbodies.h"
#include "clientlib/protocol/bodies/routebodies.h"
#include "clientlib/protocol/bodies/runtimebodies.h"
#include "clientlib/protocol/compression.h"
#include "clientlib/protocol/framecodec.h"
#include "clientlib/protocol/headers/consumerheaders.h"
#include "clientlib/protocol/headers/namesrvheaders.h"
#include "clientlib/protocol/headers/popheaders.h"
#include "clientlib/protocol/headers/pullheaders.h"
#include "clientlib/protocol/headers/sendheaders.h"
#include "clientlib/protocol/json.h"
#include "clientlib/protocol/messagebatch.h"
#include "clientlib/protocol/messagecodec.h"
#include "clientlib/protocol/messageid.h"
#include "clientlib/protocol/messageproperties.h"

namespace qrocket::fuzz {

using namespace qrocket::protocol;

namespace {

/// A typed header that decodes encodes to fields that decode again, to the same fields.
template<typename H>
void headerRoundTrip(const RemotingCommand &cmd)
{
    const auto h = H::decode(cmd);
    if (!h)
        return;
    RemotingCommand out = RemotingCommand::createRequest(cmd.code);
    h->encode(out);
    const auto again = H::decode(out);
    QROCKET_CHECK(again.has_value(), "an encoded header does not decode");
    RemotingCommand twice = RemotingCommand::createRequest(cmd.code);
    again->encode(twice);
    QROCKET_CHECK(twice.extFields == out.extFields, "a header differs after a round trip");
}

/// POP (RocketMQ 5): every header, the receipt handle and the offset lists of a pop answer.
void checkPop(const RemotingCommand &cmd)
{
    headerRoundTrip<PopMessageRequestHeader>(cmd);
    headerRoundTrip<PopMessageResponseHeader>(cmd);
    headerRoundTrip<AckMessageRequestHeader>(cmd);
    headerRoundTrip<ChangeInvisibleTimeRequestHeader>(cmd);
    headerRoundTrip<ChangeInvisibleTimeResponseHeader>(cmd);
    headerRoundTrip<PeekMessageRequestHeader>(cmd);
    headerRoundTrip<NotificationRequestHeader>(cmd);
    headerRoundTrip<NotificationResponseHeader>(cmd);
    headerRoundTrip<PollingInfoRequestHeader>(cmd);
    headerRoundTrip<PollingInfoResponseHeader>(cmd);
    headerRoundTrip<GetTopicConfigRequestHeader>(cmd);
    headerRoundTrip<GetSubscriptionGroupConfigRequestHeader>(cmd);
    for (const char *key : {"extraInfo", "i", "b"}) {
        const auto handle = ExtraInfo::parse(cmd.extString(key));
        if (!handle)
            continue;
        const QByteArray text = handle->toString();
        const auto again = ExtraInfo::parse(text);
        QROCKET_CHECK(again.has_value(), "a receipt handle we wrote does not parse");
        QROCKET_CHECK(again->toString() == text, "a receipt handle differs after a round trip");
    }
    (void)parseStartOffsetInfo(cmd.extString("startOffsetInfo"));
    (void)parseStartOffsetInfo(cmd.extString("orderCountInfo"));
    (void)parseMsgOffsetInfo(cmd.extString("msgOffsetInfo"));
}

/// A body that reads is written to JSON that reads again and writes the same.
template<typename T>
void fuzzStableJson(QByteArrayView data)
{
    const auto value = T::fromJson(data);
    if (!value)
        return;
    const QByteArray out = value->toJson();
    const auto again = T::fromJson(out);
    QROCKET_CHECK(again.has_value(), "our POP body output does not read");
    QROCKET_CHECK(again->toJson() == out, "POP body differs after a write");
}

void checkCommand(const RemotingCommand &cmd)
{
    // Typed headers never crash on whatever ext fields arrived.
    const auto send = SendMessageRequestHeader::decode(cmd);
    QByteArray remark;
    const auto broker = SendMessageRequestHeader::decodeSend(cmd, &remark);
    // The broker's reading accepts all the strict one does, and reads it the same.
    QROCKET_CHECK(!send || (broker && *broker == *send), "the send header's readings disagree");
    QROCKET_CHECK(broker || !remark.isEmpty(), "a refused send header without a remark");
    (void)PullMessageRequestHeader::decode(cmd);
    (void)RegisterBrokerRequestHeader::decode(cmd);
    (void)QueryConsumerOffsetRequestHeader::decode(cmd);
    (void)MessageProperties::parse(cmd.extString("i"));
    checkPop(cmd);
    // What we decoded we can encode, and it decodes to the same fields.
    const QByteArray again = encodeFrame(cmd);
    RemotingCommand back;
    const DecodeResult r = decodeFrame(again, back);
    QROCKET_CHECK(r.status == DecodeStatus::Ok, "re-encoded frame does not decode");
    QROCKET_CHECK(r.consumed == again.size(), "re-encoded frame size");
    QROCKET_CHECK(back.code == cmd.code && back.opaque == cmd.opaque && back.flag == cmd.flag,
        "re-encoded scalars differ");
    QROCKET_CHECK(back.extFields == cmd.extFields, "re-encoded extFields differ");
    QROCKET_CHECK(back.body == cmd.body, "re-encoded body differs");
}

template<typename T>
void fuzzRoundTrip(QByteArrayView data)
{
    const auto value = T::fromJson(data);
    if (!value)
        return;
    const auto again = T::fromJson(value->toJson());
    QROCKET_CHECK(again.has_value(), "our admin body output does not read");
    QROCKET_CHECK(*again == *value, "admin body differs after a write");
}

/// The same for a JSON array of T (T::listFromJson / T::listToJson).
template<typename T>
void fuzzListRoundTrip(QByteArrayView data)
{
    const auto value = T::listFromJson(data);
    if (!value)
        return;
    const auto again = T::listFromJson(T::listToJson(*value));
    QROCKET_CHECK(again.has_value(), "our list body output does not read");
    QROCKET_CHECK(*again == *value, "list body differs after a write");
}

} // namespace

void fuzzFrame(QByteArrayView data)
{
    FrameLimits small;
    small.maxFrameBytes = 4096;
    const QByteArray buffer = data.toByteArray(); // as a server's receive buffer
    for (const FrameLimits &limits : {FrameLimits(), small}) {
        qsizetype pos = 0;
        for (int frames = 0; frames < 64 && pos < data.size(); ++frames) {
            RemotingCommand cmd;
            const DecodeResult r = decodeFrame(data.sliced(pos), cmd, limits);
            // The server's decode, its body a slice of the buffer, reads the same frame.
            RemotingCommand shared;
            const DecodeResult s = decodeFrameSharingBody(buffer, pos, shared, limits);
            QROCKET_CHECK(s.status == r.status && s.consumed == r.consumed,
                "the body-sharing decode disagrees");
            QROCKET_CHECK(shared.body == cmd.body && shared.extFields == cmd.extFields,
                "the body-sharing decode reads another frame");
            QROCKET_CHECK(shared.body.isEmpty()
                    || (shared.body.constData() >= buffer.constData()
                        && shared.body.constData() + shared.body.size()
                            <= buffer.constData() + buffer.size()),
                "a shared body outside the buffer");
            if (r.status != DecodeStatus::Ok) {
                QROCKET_CHECK(r.consumed == 0, "consumed bytes without a frame");
                QROCKET_CHECK(r.status == DecodeStatus::NeedMore || !r.error.isEmpty(),
                    "Invalid without a reason");
                break;
            }
            QROCKET_CHECK(
                r.consumed >= 8 && r.consumed <= data.size() - pos, "consumed out of range");
            QROCKET_CHECK(r.consumed <= limits.maxFrameBytes, "frame over the limit accepted");
            checkCommand(cmd);
            // A strict prefix of a whole frame is never Ok.
            RemotingCommand partial;
            QROCKET_CHECK(decodeFrame(data.sliced(pos, r.consumed - 1), partial, limits).status
                    != DecodeStatus::Ok,
                "prefix decoded as a frame");
            pos += r.consumed;
        }
    }
}

void fuzzRecord(QByteArrayView data)
{
    qsizetype pos = 0;
    for (int n = 0; n < 256 && pos < data.size(); ++n) {
        MessageRecordView v;
        const RecordDecodeResult r = decodeRecord(data.sliced(pos), v, n % 2 == 0);
        if (r.status == RecordStatus::Ok) {
            QROCKET_CHECK(r.size >= 91 && r.size <= data.size() - pos, "record size out of range");
            QROCKET_CHECK(v.body.data() >= data.data()
                    && v.properties.data() + v.properties.size() <= data.data() + data.size(),
                "record view outside the input");
            QROCKET_CHECK(
                encodeRecord(recordInputOf(v), v.queueOffset, v.physicalOffset, v.storeTimestamp)
                    == data.sliced(pos, r.size),
                "re-encoded record differs");
            (void)MessageProperties::parse(v.properties);
            (void)findProperty(v.properties, MessageConst::Tags);
            (void)encodeOffsetMessageId(v.storeHost, v.physicalOffset);
            if (v.sysFlag & SysFlag::Compressed)
                (void)zlibDecompress(v.body, 1 << 20);
            pos += r.size;
        } else if (r.status == RecordStatus::Blank) {
            break;
        } else {
            QROCKET_CHECK(!r.error.isEmpty(), "record error without a reason");
            break;
        }
    }
    if (auto items = decodeBatch(data); items.has_value())
        QROCKET_CHECK(encodeBatch(*items).size() == data.size(), "batch re-encoding size");
    const MessageProperties props = MessageProperties::parse(data);
    QROCKET_CHECK(MessageProperties::parse(props.encode()) == props, "properties round trip");
    (void)decodeOffsetMessageId(data.first(std::min<qsizetype>(data.size(), 56)));
    (void)zlibDecompress(data, 1 << 20);
    HostAddress host;
    (void)HostAddress::parse(data.first(std::min<qsizetype>(data.size(), 64)), host);
}

void fuzzJson(QByteArrayView data)
{
    if (auto v = parseJson(data); v.has_value()) {
        const QByteArray out = toJson(*v);
        auto again = parseJson(out);
        QROCKET_CHECK(again.has_value(), "our JSON output does not parse");
        QROCKET_CHECK(toJson(*again) == out, "JSON output not stable");
    }
    (void)TopicRouteData::fromJson(data);
    (void)ClusterInfo::fromJson(data);
    (void)RegisterBrokerBody::fromJson(data);
    (void)HeartbeatData::fromJson(data);
    (void)TopicList::fromJson(data);
    (void)KVTable::fromJson(data);
    (void)ConsumerIdList::fromJson(data);
    (void)LockBatchRequestBody::fromJson(data);
    (void)TopicConfigSerializeWrapper::fromJson(data);
    (void)RegisterBrokerBody::decodeCompressed(data, 1 << 20);
    // Admin bodies: what reads, written back, reads to the same value.
    fuzzRoundTrip<TopicStatsTable>(data);
    fuzzRoundTrip<ConsumeStats>(data);
    fuzzRoundTrip<ConsumeStatsList>(data);
    fuzzRoundTrip<ResetOffsetBody>(data);
    fuzzRoundTrip<GroupList>(data);
    fuzzRoundTrip<ConsumerConnection>(data);
    fuzzRoundTrip<ProducerConnection>(data);
    fuzzRoundTrip<SubscriptionGroupConfig>(data);
    fuzzRoundTrip<SubscriptionGroupWrapper>(data);
    // ACL 2.0's bodies (AUTH_CREATE_USER ... AUTH_LIST_ACL): what a client sends, what the
    // broker keeps in auth.json.
    fuzzRoundTrip<UserInfo>(data);
    fuzzRoundTrip<AclInfo>(data);
    fuzzListRoundTrip<UserInfo>(data);
    fuzzListRoundTrip<AclInfo>(data);
    // POP's bodies (batch ack, request mode, queue assignment).
    fuzzStableJson<BatchAckMessageRequestBody>(data);
    fuzzStableJson<SetMessageRequestModeRequestBody>(data);
    fuzzStableJson<MessageRequestModeTable>(data);
    fuzzStableJson<QueryAssignmentRequestBody>(data);
    fuzzStableJson<QueryAssignmentResponseBody>(data);
    (void)ConsumerRunningInfo::fromJson(data);
    (void)BrokerStatsData::fromJson(data);
    (void)BrokerRuntimeInfo::fromJson(data);
    (void)BrokerLiveness::fromJson(data);
    (void)StoreFiles::fromJson(data);
}

} // namespace qrocket::fuzz
