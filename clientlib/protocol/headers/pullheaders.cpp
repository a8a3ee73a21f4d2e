#include "clientlib/protocol/headers/pullheaders.h"

namespace qrocket::protocol {

QROCKET_HEADER_CODEC_IMPL(PullMessageRequestHeader,
    headerField<&PullMessageRequestHeader::consumerGroup>("consumerGroup", kRequired),
    headerField<&PullMessageRequestHeader::topic>("topic", kRequired),
    headerField<&PullMessageRequestHeader::queueId>("queueId", kRequired),
    headerField<&PullMessageRequestHeader::queueOffset>("queueOffset", kRequired),
    headerField<&PullMessageRequestHeader::maxMsgNums>("maxMsgNums", kRequired),
    headerField<&PullMessageRequestHeader::sysFlag>("sysFlag", kRequired),
    headerField<&PullMessageRequestHeader::commitOffset>("commitOffset", kRequired),
    headerField<&PullMessageRequestHeader::suspendTimeoutMillis>("suspendTimeoutMillis", kRequired),
    headerField<&PullMessageRequestHeader::subscription>("subscription", kOptional),
    headerField<&PullMessageRequestHeader::subVersion>("subVersion", kRequired),
    headerField<&PullMessageRequestHeader::expressionType>("expressionType", kOptional),
    headerField<&PullMessageRequestHeader::brokerName>("bname", kOptional))

QROCKET_HEADER_CODEC_IMPL(PullMessageResponseHeader,
    headerField<&PullMessageResponseHeader::suggestWhichBrokerId>(
        "suggestWhichBrokerId", kRequired),
    headerField<&PullMessageResponseHeader::nextBeginOffset>("nextBeginOffset", kRequired),
    headerField<&PullMessageResponseHeader::minOffset>("minOffset", kRequired),
    headerField<&PullMessageResponseHeader::maxOffset>("maxOffset", kRequired))

} // namespace qrocket::protocol
