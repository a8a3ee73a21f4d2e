#pragma once

// PULL_MESSAGE (11) headers (protocol.md §4.2).
// Wire names are the Java field names; `!` fields are required when decoding.

#include "clientlib/protocol/headers/headercodec.h"

namespace qrocket::protocol {

/// PullSysFlag bits of PullMessageRequestHeader::sysFlag.
namespace PullSysFlag {
inline constexpr int CommitOffset = 0x1;
inline constexpr int Suspend = 0x2;
inline constexpr int Subscription = 0x4;
inline constexpr int ClassFilter = 0x8;
inline constexpr int LitePull = 0x10;
} // namespace PullSysFlag

/// PULL_MESSAGE request. sysFlag bits: PullSysFlag.
struct PullMessageRequestHeader
{
    QByteArray consumerGroup; // required
    QByteArray topic; // required
    std::int32_t queueId = 0; // required
    std::int64_t queueOffset = 0; // required
    std::int32_t maxMsgNums = 0; // required
    std::int32_t sysFlag = 0; // required
    std::int64_t commitOffset = 0; // required
    std::int64_t suspendTimeoutMillis = 0; // required
    QByteArray subscription;
    std::int64_t subVersion = 0; // required
    QByteArray expressionType;
    QByteArray brokerName; // "bname"

    QROCKET_HEADER_CODEC(PullMessageRequestHeader);
};

/// PULL_MESSAGE response; remark carries the store status name.
struct PullMessageResponseHeader
{
    std::int64_t suggestWhichBrokerId = 0; // required
    std::int64_t nextBeginOffset = 0; // required
    std::int64_t minOffset = 0; // required
    std::int64_t maxOffset = 0; // required

    QROCKET_HEADER_CODEC(PullMessageResponseHeader);
};

} // namespace qrocket::protocol
