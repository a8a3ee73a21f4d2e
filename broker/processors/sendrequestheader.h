#pragma once

// SendRequestHeader: SEND_MESSAGE's header fields from either encoding (protocol.md §4.1): the
// V1 names (code 10) or the one-letter V2 keys (codes 310 and 320). Plain value type.

#include "clientlib/protocol/remotingcommand.h"

#include <QByteArray>

#include <cstdint>
#include <optional>

namespace qrocket::broker {

struct SendRequestHeader
{
    QByteArray producerGroup;
    QByteArray topic;
    QByteArray defaultTopic;
    int defaultTopicQueueNums = 4;
    int queueId = -1;
    std::int32_t sysFlag = 0;
    std::int64_t bornTimestamp = 0;
    std::int32_t flag = 0;
    QByteArray properties;
    int reconsumeTimes = 0;
    bool unitMode = false;
    std::optional<int> maxReconsumeTimes;
    bool batch = false;

    /// The header of a send request, or the remark of a SYSTEM_ERROR naming the first missing or
    /// malformed required field.
    static std::optional<SendRequestHeader> decode(
        const protocol::RemotingCommand &request, QByteArray *error);
};

} // namespace qrocket::broker
