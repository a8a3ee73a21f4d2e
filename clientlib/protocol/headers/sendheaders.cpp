#include "clientlib/protocol/headers/sendheaders.h"

#include "clientlib/protocol/requestcode.h"

namespace qrocket::protocol {

namespace {

using H = SendMessageRequestHeader;

const HeaderField<H> kV1Fields[] = {
    headerField<&H::producerGroup>("producerGroup", kRequired),
    headerField<&H::topic>("topic", kRequired),
    headerField<&H::defaultTopic>("defaultTopic", kRequired),
    headerField<&H::defaultTopicQueueNums>("defaultTopicQueueNums", kRequired),
    headerField<&H::queueId>("queueId", kRequired),
    headerField<&H::sysFlag>("sysFlag", kRequired),
    headerField<&H::bornTimestamp>("bornTimestamp", kRequired),
    headerField<&H::flag>("flag", kRequired),
    headerField<&H::properties>("properties", kOptional),
    headerField<&H::reconsumeTimes>("reconsumeTimes", kOptional),
    headerField<&H::unitMode>("unitMode", kOptional),
    headerField<&H::batch>("batch", kOptional),
    headerField<&H::maxReconsumeTimes>("maxReconsumeTimes", kOptional),
    headerField<&H::brokerName>("bname", kOptional),
};

// Same members, Java's SendMessageRequestHeaderV2 keys (createSendMessageRequestHeaderV2).
const HeaderField<H> kV2Fields[] = {
    headerField<&H::producerGroup>("a", kRequired),
    headerField<&H::topic>("b", kRequired),
    headerField<&H::defaultTopic>("c", kRequired),
    headerField<&H::defaultTopicQueueNums>("d", kRequired),
    headerField<&H::queueId>("e", kRequired),
    headerField<&H::sysFlag>("f", kRequired),
    headerField<&H::bornTimestamp>("g", kRequired),
    headerField<&H::flag>("h", kRequired),
    headerField<&H::properties>("i", kOptional),
    headerField<&H::reconsumeTimes>("j", kOptional),
    headerField<&H::unitMode>("k", kOptional),
    headerField<&H::maxReconsumeTimes>("l", kOptional),
    headerField<&H::batch>("m", kOptional),
    headerField<&H::brokerName>("n", kOptional),
};

} // namespace

bool SendMessageRequestHeader::usesV2(int code)
{
    return code == toInt(RequestCode::SendMessageV2) || code == toInt(RequestCode::SendBatchMessage)
        || code == toInt(RequestCode::SendReplyMessageV2);
}

Result<SendMessageRequestHeader> SendMessageRequestHeader::decode(const RemotingCommand &cmd)
{
    return usesV2(cmd.code) ? decodeV2(cmd) : decodeV1(cmd);
}

Result<SendMessageRequestHeader> SendMessageRequestHeader::decodeV1(const RemotingCommand &cmd)
{
    return decodeHeader<H>(cmd, kV1Fields, "SendMessageRequestHeader");
}

Result<SendMessageRequestHeader> SendMessageRequestHeader::decodeV2(const RemotingCommand &cmd)
{
    return decodeHeader<H>(cmd, kV2Fields, "SendMessageRequestHeaderV2");
}

void SendMessageRequestHeader::encode(RemotingCommand &cmd) const
{
    if (usesV2(cmd.code))
        encodeV2(cmd);
    else
        encodeV1(cmd);
}

void SendMessageRequestHeader::encodeV1(RemotingCommand &cmd) const
{
    encodeHeader<H>(*this, cmd, kV1Fields);
}

void SendMessageRequestHeader::encodeV2(RemotingCommand &cmd) const
{
    encodeHeader<H>(*this, cmd, kV2Fields);
}

QROCKET_HEADER_CODEC_IMPL(SendMessageResponseHeader,
    headerField<&SendMessageResponseHeader::msgId>("msgId", kRequired),
    headerField<&SendMessageResponseHeader::queueId>("queueId", kRequired),
    headerField<&SendMessageResponseHeader::queueOffset>("queueOffset", kRequired),
    headerField<&SendMessageResponseHeader::transactionId>("transactionId", kOptional),
    headerField<&SendMessageResponseHeader::msgRegion>("MSG_REGION", kOptional),
    headerField<&SendMessageResponseHeader::traceOn>("TRACE_ON", kOptional))

} // namespace qrocket::protocol
