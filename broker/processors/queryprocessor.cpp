#include "broker/processors/queryprocessor.h"

#include "broker/common/brokercontext.h"
#include "broker/processors/admincommon.h"
#include "storage/messagestore.h"

namespace qrocket::broker {

using protocol::RemotingCommand;

void QueryProcessor::processRequest(
    const remoting::ChannelPtr &, RemotingCommand request, remoting::Responder respond)
{
    if (request.code == toInt(RequestCode::ViewMessageById))
        respond(viewMessageById(request));
    else
        respond(queryMessage(request));
}

RemotingCommand QueryProcessor::queryMessage(const RemotingCommand &request) const
{
    const QByteArrayView topic = request.extString("topic");
    const QByteArrayView key = request.extString("key");
    std::optional<std::int32_t> maxNum = request.extInt("maxNum");
    const std::optional<std::int64_t> begin = request.extLong("beginTimestamp");
    const std::optional<std::int64_t> end = request.extLong("endTimestamp");
    if (topic.isEmpty() || key.isEmpty() || !maxNum || !begin || !end) {
        const char *field = topic.isEmpty() ? "topic"
            : key.isEmpty()                 ? "key"
            : !maxNum                       ? "maxNum"
            : !begin                        ? "beginTimestamp"
                                            : "endTimestamp";
        return makeResponse(request, toInt(ResponseCode::SystemError), missingFieldRemark(field));
    }
    if (!m_ctx.store)
        return makeResponse(
            request, toInt(ResponseCode::SystemError), QByteArrayLiteral("store not ready"));
    if (request.extBool("_UNIQUE_KEY_QUERY").value_or(false))
        maxNum = m_ctx.store->config().defaultQueryMaxNum > 0
            ? m_ctx.store->config().defaultQueryMaxNum
            : kDefaultQueryMaxNum;

    const storage::QueryMessageResult result
        = m_ctx.store->queryMessage(topic, key, std::max(*maxNum, 1), *begin, *end);
    RemotingCommand response = makeResponse(request, toInt(ResponseCode::Success));
    response.setExt(QByteArrayLiteral("indexLastUpdateTimestamp"), result.indexLastUpdateTimestamp);
    response.setExt(QByteArrayLiteral("indexLastUpdatePhyoffset"), result.indexLastUpdatePhyoffset);
    if (result.messages.empty()) {
        response.code = toInt(ResponseCode::QueryNotFound);
        response.remark = QByteArrayLiteral("can not find message, maybe time range not correct");
        return response;
    }
    response.body = result.concatenated();
    return response;
}

RemotingCommand QueryProcessor::viewMessageById(const RemotingCommand &request) const
{
    const std::optional<std::int64_t> offset = request.extLong("offset");
    if (!offset)
        return makeResponse(
            request, toInt(ResponseCode::SystemError), missingFieldRemark("offset"));
    if (!m_ctx.store)
        return makeResponse(
            request, toInt(ResponseCode::SystemError), QByteArrayLiteral("store not ready"));
    const storage::SelectedRecord sel = m_ctx.store->lookMessageByOffset(*offset);
    if (!sel.isValid())
        return makeResponse(request, toInt(ResponseCode::SystemError),
            QByteArrayLiteral("can not find message by the offset, ")
                + QByteArray::number(*offset));
    RemotingCommand response = makeResponse(request, toInt(ResponseCode::Success));
    response.body = sel.bytes.toByteArray();
    return response;
}

} // namespace qrocket::broker
