#pragma once

// Helpers shared by the broker system tests: raw request frames and answers over a
// RemotingClient (invoke()), and a stored-record walker for PULL bodies.

#include "clientlib/protocol/messagecodec.h"
#include "clientlib/protocol/remotingcommand.h"
#include "clientlib/remoting/remotingclient.h"

#include <QByteArray>
#include <QDebug>

#include <initializer_list>
#include <utility>
#include <vector>

namespace qrocket::brokertest {

using protocol::RemotingCommand;
using Ext = std::initializer_list<std::pair<const char *, QByteArray>>;

inline RemotingCommand request(int code, Ext ext = {}, QByteArray body = {})
{
    RemotingCommand r = RemotingCommand::createRequest(code);
    for (const auto &[k, v] : ext)
        r.setExt(QByteArray(k), v);
    r.body = std::move(body);
    return r;
}

/// "127.0.0.1:<port>".
inline QByteArray localAddr(quint16 port)
{
    return "127.0.0.1:" + QByteArray::number(port);
}

/// invokeSync's answer; when the call itself fails (no connection, timeout), a warning and a
/// command with code -1 and the error as its remark, so that a test's QCOMPARE on the code fails.
/// 15 s: a daemon's first request (topic creation, the first mapped files) can take seconds under
/// the sanitizers on a loaded 2-core machine; a hang still fails well within a test's timeout.
inline RemotingCommand invoke(remoting::RemotingClient &client, const QByteArray &addr,
    RemotingCommand req, int timeoutMs = 15000)
{
    auto r = client.invokeSync(addr, std::move(req), timeoutMs);
    if (r)
        return *r;
    qWarning().noquote() << "invoke" << addr << "failed:" << r.error().message();
    RemotingCommand failed;
    failed.code = -1;
    failed.remark = r.error().message().toUtf8();
    return failed;
}

inline QByteArray num(std::int64_t v)
{
    return QByteArray::number(v);
}

/// "k\x01v\x02k\x01v" from pairs.
inline QByteArray props(std::initializer_list<std::pair<const char *, const char *>> kv)
{
    QByteArray out;
    for (const auto &[k, v] : kv) {
        if (!out.isEmpty())
            out += '\x02';
        out += k;
        out += '\x01';
        out += v;
    }
    return out;
}

/// A SEND_MESSAGE_V2 request.
inline RemotingCommand sendV2(const QByteArray &topic, int queueId, const QByteArray &body,
    const QByteArray &properties = {}, const QByteArray &defaultTopic = "TBW102")
{
    return request(310,
        {{"a", "PG_test"}, {"b", topic}, {"c", defaultTopic}, {"d", "4"}, {"e", num(queueId)},
            {"f", "0"}, {"g", num(1700000000000)}, {"h", "0"}, {"i", properties}, {"j", "0"},
            {"k", "false"}, {"m", "false"}},
        body);
}

/// Every record in a PULL body, decoded (views into `body`).
inline std::vector<protocol::MessageRecordView> records(const QByteArray &body)
{
    std::vector<protocol::MessageRecordView> out;
    qsizetype at = 0;
    while (at < body.size()) {
        protocol::MessageRecordView v;
        const auto r = protocol::decodeRecord(QByteArrayView(body).sliced(at), v, true);
        if (r.status != protocol::RecordStatus::Ok)
            break;
        out.push_back(v);
        at += r.size;
    }
    return out;
}

} // namespace qrocket::brokertest
