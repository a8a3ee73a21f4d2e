#include "clientlib/protocol/headers/adminheaders.h"

namespace qrocket::protocol {

QROCKET_HEADER_CODEC_IMPL(CreateTopicRequestHeader,
    headerField<&CreateTopicRequestHeader::topic>("topic", kRequired),
    headerField<&CreateTopicRequestHeader::defaultTopic>("defaultTopic", kRequired),
    headerField<&CreateTopicRequestHeader::readQueueNums>("readQueueNums", kRequired),
    headerField<&CreateTopicRequestHeader::writeQueueNums>("writeQueueNums", kRequired),
    headerField<&CreateTopicRequestHeader::perm>("perm", kRequired),
    headerField<&CreateTopicRequestHeader::topicFilterType>("topicFilterType", kRequired),
    headerField<&CreateTopicRequestHeader::topicSysFlag>("topicSysFlag", kOptional),
    headerField<&CreateTopicRequestHeader::order>("order", kRequired),
    headerField<&CreateTopicRequestHeader::attributes>("attributes", kOptional))

QROCKET_HEADER_CODEC_IMPL(
    DeleteTopicRequestHeader, headerField<&DeleteTopicRequestHeader::topic>("topic", kRequired))

QROCKET_HEADER_CODEC_IMPL(GetTopicStatsInfoRequestHeader,
    headerField<&GetTopicStatsInfoRequestHeader::topic>("topic", kRequired))

QROCKET_HEADER_CODEC_IMPL(GetConsumeStatsRequestHeader,
    headerField<&GetConsumeStatsRequestHeader::consumerGroup>("consumerGroup", kRequired),
    headerField<&GetConsumeStatsRequestHeader::topic>("topic", kOptional))

QROCKET_HEADER_CODEC_IMPL(GetConsumerConnectionListRequestHeader,
    headerField<&GetConsumerConnectionListRequestHeader::consumerGroup>("consumerGroup", kRequired))

QROCKET_HEADER_CODEC_IMPL(GetProducerConnectionListRequestHeader,
    headerField<&GetProducerConnectionListRequestHeader::producerGroup>("producerGroup", kRequired))

QROCKET_HEADER_CODEC_IMPL(QueryTopicConsumeByWhoRequestHeader,
    headerField<&QueryTopicConsumeByWhoRequestHeader::topic>("topic", kRequired))

QROCKET_HEADER_CODEC_IMPL(DeleteSubscriptionGroupRequestHeader,
    headerField<&DeleteSubscriptionGroupRequestHeader::groupName>("groupName", kRequired),
    headerField<&DeleteSubscriptionGroupRequestHeader::removeOffset>("removeOffset", kOptional))

QROCKET_HEADER_CODEC_IMPL(GetConsumerRunningInfoRequestHeader,
    headerField<&GetConsumerRunningInfoRequestHeader::consumerGroup>("consumerGroup", kRequired),
    headerField<&GetConsumerRunningInfoRequestHeader::clientId>("clientId", kRequired),
    headerField<&GetConsumerRunningInfoRequestHeader::jstackEnable>("jstackEnable", kOptional))

QROCKET_HEADER_CODEC_IMPL(ConsumeMessageDirectlyResultRequestHeader,
    headerField<&ConsumeMessageDirectlyResultRequestHeader::consumerGroup>(
        "consumerGroup", kRequired),
    headerField<&ConsumeMessageDirectlyResultRequestHeader::clientId>("clientId", kOptional),
    headerField<&ConsumeMessageDirectlyResultRequestHeader::msgId>("msgId", kOptional),
    headerField<&ConsumeMessageDirectlyResultRequestHeader::brokerName>("brokerName", kOptional))

QROCKET_HEADER_CODEC_IMPL(GetBrokerConfigResponseHeader,
    headerField<&GetBrokerConfigResponseHeader::version>("version", kRequired))

QROCKET_HEADER_CODEC_IMPL(QueryConsumeQueueRequestHeader,
    headerField<&QueryConsumeQueueRequestHeader::topic>("topic", kRequired),
    headerField<&QueryConsumeQueueRequestHeader::queueId>("queueId", kRequired),
    headerField<&QueryConsumeQueueRequestHeader::index>("index", kRequired),
    headerField<&QueryConsumeQueueRequestHeader::count>("count", kRequired),
    headerField<&QueryConsumeQueueRequestHeader::consumerGroup>("consumerGroup", kRequired))

} // namespace qrocket::protocol
