#pragma once

// SubscriptionGroupConfig as RocketMQ 4.9 persists it in subscriptionGroup.json and sends it in
// UPDATE_AND_CREATE_SUBSCRIPTIONGROUP (protocol.md §4.9, §7.6). The defaults are RocketMQ's:
//   {"brokerId":0,"consumeBroadcastEnable":true,"consumeEnable":true,"consumeFromMinEnable":true,
//    "groupName":"G","notifyConsumerIdsChangedEnable":true,"retryMaxTimes":16,"retryQueueNums":1,
//    "whichBrokerWhenConsumeSlowly":1}

#include "clientlib/common/result.h"
#include "clientlib/protocol/json.h"

#include <QByteArray>

#include <cstdint>

namespace qrocket::broker {

struct SubscriptionGroupConfig
{
    QByteArray groupName;
    bool consumeEnable = true;
    bool consumeFromMinEnable = true;
    bool consumeBroadcastEnable = true;
    int retryQueueNums = 1;
    int retryMaxTimes = 16;
    std::int64_t brokerId = 0;
    std::int64_t whichBrokerWhenConsumeSlowly = 1;
    bool notifyConsumerIdsChangedEnable = true;

    SubscriptionGroupConfig() = default;
    explicit SubscriptionGroupConfig(QByteArray name) : groupName(std::move(name)) { }

    void write(protocol::JsonWriter &w) const;
    QByteArray toJson() const;
    /// Missing fields keep their defaults; a missing groupName is filled from `fallbackName`.
    static Result<SubscriptionGroupConfig> fromJsonValue(
        const protocol::JsonValue &v, QByteArrayView fallbackName = {});
    /// Parses a JSON body (UPDATE_AND_CREATE_SUBSCRIPTIONGROUP).
    static Result<SubscriptionGroupConfig> fromJson(QByteArrayView json);

    friend bool operator==(const SubscriptionGroupConfig &, const SubscriptionGroupConfig &)
        = default;
};

} // namespace qrocket::broker
