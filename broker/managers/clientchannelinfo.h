#pragma once

// ClientChannelInfo: one client connection as the consumer and producer managers record it
// (RocketMQ's ClientChannelInfo): the channel, the heartbeat's clientID verbatim, the language
// and version from the frame header, and the time of the last heartbeat.

#include "clientlib/protocol/remotingcommand.h"
#include "clientlib/remoting/requestprocessor.h"

#include <QByteArray>

#include <cstdint>

namespace qrocket::broker {

struct ClientChannelInfo
{
    remoting::ChannelPtr channel;
    QByteArray clientId;
    protocol::LanguageCode language = protocol::LanguageCode::Java;
    int version = 0;
    std::int64_t lastUpdateTimestamp = 0; // ms since the epoch (the managers' clock)
    /// Consumers: this member's own subscriptions as its last heartbeat listed them, sorted,
    /// "topic(TYPE:expression), ..." (explainGroup compares the members'); empty for producers.
    QByteArray subscriptions;
};

/// Default idle expiry of client channels (protocol.md §8.1): 120 s without a heartbeat.
inline constexpr std::int64_t kChannelExpiredTimeoutMs = 120000;

} // namespace qrocket::broker
