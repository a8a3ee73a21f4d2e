#include "clientlib/protocol/headers/consumerheaders.h"

namespace qrocket::protocol {

QROCKET_HEADER_CODEC_IMPL(UnregisterClientRequestHeader,
    headerField<&UnregisterClientRequestHeader::clientID>("clientID", kRequired),
    headerField<&UnregisterClientRequestHeader::producerGroup>("producerGroup", kOptional),
    headerField<&UnregisterClientRequestHeader::consumerGroup>("consumerGroup", kOptional))

QROCKET_HEADER_CODEC_IMPL(GetConsumerListByGroupRequestHeader,
    headerField<&GetConsumerListByGroupRequestHeader::consumerGroup>("consumerGroup", kRequired))

QROCKET_HEADER_CODEC_IMPL(QueryConsumerOffsetRequestHeader,
    headerField<&QueryConsumerOffsetRequestHeader::consumerGroup>("consumerGroup", kRequired),
    headerField<&QueryConsumerOffsetRequestHeader::topic>("topic", kRequired),
    headerField<&QueryConsumerOffsetRequestHeader::queueId>("queueId", kRequired))

QROCKET_HEADER_CODEC_IMPL(QueryConsumerOffsetResponseHeader,
    headerField<&QueryConsumerOffsetResponseHeader::offset>("offset", kRequired))

QROCKET_HEADER_CODEC_IMPL(UpdateConsumerOffsetRequestHeader,
    headerField<&UpdateConsumerOffsetRequestHeader::consumerGroup>("consumerGroup", kRequired),
    headerField<&UpdateConsumerOffsetRequestHeader::topic>("topic", kRequired),
    headerField<&UpdateConsumerOffsetRequestHeader::queueId>("queueId", kRequired),
    headerField<&UpdateConsumerOffsetRequestHeader::commitOffset>("commitOffset", kRequired))

QROCKET_HEADER_CODEC_IMPL(GetMaxOffsetRequestHeader,
    headerField<&GetMaxOffsetRequestHeader::topic>("topic", kRequired),
    headerField<&GetMaxOffsetRequestHeader::queueId>("queueId", kRequired))

QROCKET_HEADER_CODEC_IMPL(GetMaxOffsetResponseHeader,
    headerField<&GetMaxOffsetResponseHeader::offset>("offset", kRequired))

QROCKET_HEADER_CODEC_IMPL(GetMinOffsetRequestHeader,
    headerField<&GetMinOffsetRequestHeader::topic>("topic", kRequired),
    headerField<&GetMinOffsetRequestHeader::queueId>("queueId", kRequired))

QROCKET_HEADER_CODEC_IMPL(GetMinOffsetResponseHeader,
    headerField<&GetMinOffsetResponseHeader::offset>("offset", kRequired))

QROCKET_HEADER_CODEC_IMPL(SearchOffsetRequestHeader,
    headerField<&SearchOffsetRequestHeader::topic>("topic", kRequired),
    headerField<&SearchOffsetRequestHeader::queueId>("queueId", kRequired),
    headerField<&SearchOffsetRequestHeader::timestamp>("timestamp", kRequired))

QROCKET_HEADER_CODEC_IMPL(SearchOffsetResponseHeader,
    headerField<&SearchOffsetResponseHeader::offset>("offset", kRequired))

QROCKET_HEADER_CODEC_IMPL(GetEarliestMsgStoretimeRequestHeader,
    headerField<&GetEarliestMsgStoretimeRequestHeader::topic>("topic", kRequired),
    headerField<&GetEarliestMsgStoretimeRequestHeader::queueId>("queueId", kRequired))

QROCKET_HEADER_CODEC_IMPL(GetEarliestMsgStoretimeResponseHeader,
    headerField<&GetEarliestMsgStoretimeResponseHeader::timestamp>("timestamp", kRequired))

QROCKET_HEADER_CODEC_IMPL(ConsumerSendMsgBackRequestHeader,
    headerField<&ConsumerSendMsgBackRequestHeader::offset>("offset", kRequired),
    headerField<&ConsumerSendMsgBackRequestHeader::group>("group", kRequired),
    headerField<&ConsumerSendMsgBackRequestHeader::delayLevel>("delayLevel", kRequired),
    headerField<&ConsumerSendMsgBackRequestHeader::originMsgId>("originMsgId", kOptional),
    headerField<&ConsumerSendMsgBackRequestHeader::originTopic>("originTopic", kOptional),
    headerField<&ConsumerSendMsgBackRequestHeader::unitMode>("unitMode", kOptional),
    headerField<&ConsumerSendMsgBackRequestHeader::maxReconsumeTimes>(
        "maxReconsumeTimes", kOptional))

QROCKET_HEADER_CODEC_IMPL(NotifyConsumerIdsChangedRequestHeader,
    headerField<&NotifyConsumerIdsChangedRequestHeader::consumerGroup>("consumerGroup", kRequired))

QROCKET_HEADER_CODEC_IMPL(ResetOffsetRequestHeader,
    headerField<&ResetOffsetRequestHeader::topic>("topic", kRequired),
    headerField<&ResetOffsetRequestHeader::group>("group", kRequired),
    headerField<&ResetOffsetRequestHeader::timestamp>("timestamp", kRequired),
    headerField<&ResetOffsetRequestHeader::isForce>("isForce", kRequired))

QROCKET_HEADER_CODEC_IMPL(GetConsumerStatusRequestHeader,
    headerField<&GetConsumerStatusRequestHeader::topic>("topic", kRequired),
    headerField<&GetConsumerStatusRequestHeader::group>("group", kRequired),
    headerField<&GetConsumerStatusRequestHeader::clientAddr>("clientAddr", kOptional))

} // namespace qrocket::protocol
