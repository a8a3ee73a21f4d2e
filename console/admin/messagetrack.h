#pragma once

// mqadmin's messageTrackDetail (DefaultMQAdminExtImpl, RocketMQ 4.9): for every group that
// consumes a message's topic (QUERY_TOPIC_CONSUME_BY_WHO), whether that group consumed it. A push
// group (CONSUME_PASSIVELY) has consumed it when its committed offset of the message's queue, on
// the broker that stored it, is past the message's queue offset; a group whose subscription of
// the topic does not take the message's tag consumed it "but filtered". A pull group is PULL (its
// offsets say nothing), a group with no client online NOT_ONLINE. queryMsgById,
// queryMsgByUniqueKey print these after the message, as mqadmin does.

#include "clientlib/client/admin/admin.h"

#include <QString>

#include <vector>

namespace qrocket::admincli {

struct MessageTrack
{
    enum class Type { Consumed, ConsumedButFiltered, Pull, NotConsumeYet, NotOnline, Unknown };
    QByteArray consumerGroup;
    Type type = Type::Unknown;
    QString exceptionDesc; // empty: Java's null

    /// RocketMQ's TrackType name ("CONSUMED", "NOT_CONSUME_YET"...).
    static const char *typeName(Type t);
    /// Java's MessageTrack.toString().
    QString toString() const;
};

/// The tracks of `msg`; the error when the consuming groups cannot be asked at all.
Result<std::vector<MessageTrack>> messageTrackDetail(
    client::Admin &admin, const client::MessageExt &msg);

} // namespace qrocket::admincli
