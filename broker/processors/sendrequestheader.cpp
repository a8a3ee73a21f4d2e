#include "broker/processors/sendrequestheader.h"

#include "broker/brokercodes.h"

namespace qrocket::broker {

namespace {

struct FieldNames
{
    const char *producerGroup, *topic, *defaultTopic, *defaultTopicQueueNums, *queueId, *sysFlag,
        *bornTimestamp, *flag, *properties, *reconsumeTimes, *unitMode, *maxReconsumeTimes, *batch;
};

constexpr FieldNames kV1 {"producerGroup", "topic", "defaultTopic", "defaultTopicQueueNums",
    "queueId", "sysFlag", "bornTimestamp", "flag", "properties", "reconsumeTimes", "unitMode",
    "maxReconsumeTimes", "batch"};
constexpr FieldNames kV2 {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m"};

QByteArray missing(const char *name)
{
    return QByteArrayLiteral("the custom field <") + name + QByteArrayLiteral("> is null");
}

} // namespace

std::optional<SendRequestHeader> SendRequestHeader::decode(
    const protocol::RemotingCommand &request, QByteArray *error)
{
    const bool v2 = request.code == requestcode::kSendMessageV2
        || request.code == requestcode::kSendBatchMessage;
    const FieldNames &n = v2 ? kV2 : kV1;
    for (const char *required : {n.producerGroup, n.topic, n.defaultTopic, n.defaultTopicQueueNums,
             n.queueId, n.sysFlag, n.bornTimestamp, n.flag}) {
        if (!request.hasExt(QByteArrayView(required))) {
            *error = missing(required);
            return std::nullopt;
        }
    }
    SendRequestHeader h;
    h.producerGroup = request.extString(n.producerGroup).toByteArray();
    h.topic = request.extString(n.topic).toByteArray();
    h.defaultTopic = request.extString(n.defaultTopic).toByteArray();
    const auto queueNums = request.extInt(n.defaultTopicQueueNums);
    const auto queueId = request.extInt(n.queueId);
    const auto sysFlag = request.extInt(n.sysFlag);
    const auto born = request.extLong(n.bornTimestamp);
    const auto flag = request.extInt(n.flag);
    if (!queueNums || !queueId || !sysFlag || !born || !flag) {
        *error
            = QByteArrayLiteral("malformed send message header: a numeric field is not a number");
        return std::nullopt;
    }
    h.defaultTopicQueueNums = *queueNums;
    h.queueId = *queueId;
    h.sysFlag = *sysFlag;
    h.bornTimestamp = *born;
    h.flag = *flag;
    if (const QByteArray *props = request.ext(n.properties))
        h.properties = *props;
    h.reconsumeTimes = request.extInt(n.reconsumeTimes).value_or(0);
    h.unitMode = request.extBool(n.unitMode).value_or(false);
    h.maxReconsumeTimes = request.extInt(n.maxReconsumeTimes);
    h.batch = request.code == requestcode::kSendBatchMessage
        || request.extBool(n.batch).value_or(false);
    return h;
}

} // namespace qrocket::broker
