#pragma once

// RocketMQ 5's topic attributes (TopicConfig::attributes, kept in topics.json) as far as QRocket
// knows them: "message.type", the one kind of message a topic takes (NORMAL, FIFO, DELAY,
// TRANSACTION; MIXED takes all; UNSPECIFIED none). UPDATE_AND_CREATE_TOPIC's "attributes" field
// changes them in RocketMQ 5's notation, "+message.type=FIFO" (set) and "-message.type"
// (remove), comma-separated; other attribute keys (queue.type, cleanup.policy, reserve.time)
// are refused, since QRocket implements none of them.
//
// The gRPC SendMessage checks a message's type against its topic's (grpcservice.cpp), as
// RocketMQ 5.3's proxy does: a topic without the attribute takes every type here (topics made by
// RocketMQ 4.x tools have none; RocketMQ 5 reads a missing one as NORMAL).
//
// Pure functions, thread-safe.

#include "clientlib/common/result.h"

#include <QByteArray>
#include <QByteArrayView>

#include <cstdint>
#include <map>
#include <optional>

namespace qrocket::broker {

enum class TopicMessageType : std::uint8_t { Unspecified, Normal, Fifo, Delay, Transaction, Mixed };

inline constexpr QByteArrayView kMessageTypeAttribute = "message.type";

/// "NORMAL", "FIFO", ... as RocketMQ 5 spells them.
const char *topicMessageTypeName(TopicMessageType type);
/// The type a "message.type" value names; nullopt for anything else.
std::optional<TopicMessageType> parseTopicMessageType(QByteArrayView value);
/// The type a topic's attributes declare; nullopt when they declare none (every type goes). A
/// value that names no type declares Unspecified (no message goes).
std::optional<TopicMessageType> declaredMessageType(
    const std::map<QByteArray, QByteArray> &attributes);
/// Whether a message of type `actual` may be stored in a topic declared `declared`: the same
/// type, or a MIXED topic (RocketMQ 5.3's proxy validator).
bool messageTypeAccepted(TopicMessageType declared, TopicMessageType actual);

/// Whether `modification` (an UPDATE_AND_CREATE_TOPIC "attributes" value) sets message.type to
/// MIXED, which a broker takes only with enableMixedMessageType (RocketMQ 5's rule).
bool setsMixedMessageType(QByteArrayView modification);
/// `current` changed by `modification` ("+key=value,-key"), with RocketMQ 5's rules: a new topic
/// (`create`) may only add; a removed key must exist; no key twice; only known keys and values.
/// An empty modification leaves `current` as it is. InvalidArgument with the reason otherwise.
Result<std::map<QByteArray, QByteArray>> alterTopicAttributes(
    bool create, const std::map<QByteArray, QByteArray> &current, QByteArrayView modification);

} // namespace qrocket::broker
