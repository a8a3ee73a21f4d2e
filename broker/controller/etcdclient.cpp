#include "broker/controller/etcdclient.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QPointer>
#include <QRegularExpression>
#include <QUrl>

namespace qrocket::broker::controller {

namespace {

QString b64(const QByteArray &bytes)
{
    return QString::fromLatin1(bytes.toBase64());
}

/// etcd's gateway writes int64 fields as JSON strings (and leaves zero fields out).
std::int64_t int64Of(const QJsonValue &v)
{
    if (v.isString())
        return v.toString().toLongLong();
    if (v.isDouble())
        return static_cast<std::int64_t>(v.toDouble());
    return 0;
}

QJsonValue int64Json(std::int64_t v)
{
    return QString::number(v);
}

EtcdKeyValue keyValueOf(const QJsonObject &o)
{
    EtcdKeyValue kv;
    kv.key = QByteArray::fromBase64(o.value(QLatin1String("key")).toString().toLatin1());
    kv.value = QByteArray::fromBase64(o.value(QLatin1String("value")).toString().toLatin1());
    kv.createRevision = int64Of(o.value(QLatin1String("create_revision")));
    kv.modRevision = int64Of(o.value(QLatin1String("mod_revision")));
    kv.version = int64Of(o.value(QLatin1String("version")));
    kv.lease = int64Of(o.value(QLatin1String("lease")));
    return kv;
}

std::optional<EtcdKeyValue> firstKv(const QJsonObject &rangeResponse)
{
    const QJsonArray kvs = rangeResponse.value(QLatin1String("kvs")).toArray();
    if (kvs.isEmpty())
        return std::nullopt;
    return keyValueOf(kvs.first().toObject());
}

std::int64_t revisionOf(const QJsonObject &answer)
{
    return int64Of(
        answer.value(QLatin1String("header")).toObject().value(QLatin1String("revision")));
}

QJsonObject putOp(const QByteArray &key, const QByteArray &value, std::int64_t leaseId)
{
    QJsonObject put {{QStringLiteral("key"), b64(key)}, {QStringLiteral("value"), b64(value)}};
    if (leaseId != 0)
        put.insert(QStringLiteral("lease"), int64Json(leaseId));
    return QJsonObject {{QStringLiteral("request_put"), put}};
}

QJsonObject rangeOp(const QByteArray &key)
{
    return QJsonObject {
        {QStringLiteral("request_range"), QJsonObject {{QStringLiteral("key"), b64(key)}}}};
}

QJsonObject compareOf(const QByteArray &key, const char *target, const char *field, std::int64_t v)
{
    return QJsonObject {{QStringLiteral("key"), b64(key)},
        {QStringLiteral("target"), QLatin1String(target)},
        {QStringLiteral("result"), QStringLiteral("EQUAL")}, {QLatin1String(field), int64Json(v)}};
}

} // namespace

struct EtcdClient::Call
{
    QByteArray path;
    QByteArray body;
    Callback<QJsonObject> done;
    int tried = 0; // endpoints tried so far
    Status lastError;
};

EtcdClient::EtcdClient(QStringList endpoints, int requestTimeoutMs, QObject *parent)
    : QObject(parent), m_endpoints(std::move(endpoints)), m_timeoutMs(std::max(1, requestTimeoutMs))
{
    // Connections are kept alive between requests; a dead endpoint's socket is not reused
    // after its error.
    m_nam.setAutoDeleteReplies(false);
}

EtcdClient::~EtcdClient()
{
    // Pending replies are children of m_nam; disconnect them so that no callback runs while
    // (or after) this object is destroyed.
    for (QNetworkReply *reply : m_nam.findChildren<QNetworkReply *>()) {
        reply->disconnect(this);
        reply->abort();
    }
}

Result<QStringList> EtcdClient::parseEndpoints(const QString &text)
{
    static const QRegularExpression separator(QStringLiteral("[,;\\s]+"));
    QStringList out;
    for (const QString &part : text.split(separator, Qt::SkipEmptyParts)) {
        const QUrl url(part);
        if (!url.isValid() || url.scheme() != QLatin1String("http") || url.host().isEmpty()
            || url.port() <= 0 || (!url.path().isEmpty() && url.path() != QLatin1String("/")))
            return Status::invalidArgument(
                QStringLiteral("etcd endpoint '%1' is not http://host:port").arg(part));
        out.append(QStringLiteral("http://%1:%2").arg(url.host()).arg(url.port()));
    }
    if (out.isEmpty())
        return Status::invalidArgument(QStringLiteral("no etcd endpoint given"));
    return out;
}

void EtcdClient::post(const QByteArray &path, const QJsonObject &body, Callback<QJsonObject> done)
{
    auto call = std::make_shared<Call>();
    call->path = path;
    call->body = QJsonDocument(body).toJson(QJsonDocument::Compact);
    call->done = std::move(done);
    if (m_endpoints.isEmpty()) {
        call->done(Status::invalidArgument(QStringLiteral("no etcd endpoint given")));
        return;
    }
    attempt(std::move(call));
}

void EtcdClient::attempt(std::shared_ptr<Call> call)
{
    const int index = (m_current + call->tried) % static_cast<int>(m_endpoints.size());
    QNetworkRequest request(QUrl(m_endpoints.at(index) + QString::fromLatin1(call->path)));
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    request.setTransferTimeout(m_timeoutMs);
    QNetworkReply *reply = m_nam.post(request, call->body);
    connect(reply, &QNetworkReply::finished, this, [this, reply, call, index] {
        reply->deleteLater();
        const QByteArray bytes
            = reply->isOpen() ? reply->readAll() : QByteArray(); // a timed-out reply is closed
        const QVariant httpStatus = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute);
        const QNetworkReply::NetworkError error = reply->error();
        const QString endpoint = m_endpoints.at(index);
        if (!httpStatus.isValid()) { // no HTTP answer: the transport failed
            const bool timedOut = error == QNetworkReply::OperationCanceledError
                || error == QNetworkReply::TimeoutError;
            const QString why = timedOut
                ? QStringLiteral("etcd %1%2: no answer within %3 ms")
                      .arg(endpoint, QString::fromLatin1(call->path))
                      .arg(m_timeoutMs)
                : QStringLiteral("etcd %1%2: %3")
                      .arg(endpoint, QString::fromLatin1(call->path), reply->errorString());
            call->lastError = timedOut ? Status::timeout(why) : Status::unavailable(why);
            if (++call->tried < m_endpoints.size()) {
                attempt(call);
                return;
            }
            call->done(call->lastError);
            return;
        }
        m_current = index; // it answered: later requests start there
        QJsonParseError parseError;
        const QJsonDocument doc = QJsonDocument::fromJson(bytes, &parseError);
        if (parseError.error != QJsonParseError::NoError || !doc.isObject()) {
            call->done(
                Status::unavailable(QStringLiteral("etcd %1%2: HTTP %3, not a JSON object: %4")
                                        .arg(endpoint, QString::fromLatin1(call->path))
                                        .arg(httpStatus.toInt())
                                        .arg(QString::fromUtf8(bytes.left(200)))));
            return;
        }
        QJsonObject answer = doc.object();
        // Streaming calls (lease keep-alive) wrap their message in "result".
        if (answer.contains(QLatin1String("result")) && answer.size() == 1)
            answer = answer.value(QLatin1String("result")).toObject();
        if (answer.contains(QLatin1String("error")) || httpStatus.toInt() != 200) {
            // Unary calls put code and message beside "error"; streaming ones nest them in it.
            const QJsonValue nested = answer.value(QLatin1String("error"));
            const QJsonObject err = nested.isObject() ? nested.toObject() : answer;
            const QString message = err.value(QLatin1String("message")).toString();
            const QString why
                = QStringLiteral("etcd %1%2: HTTP %3: %4")
                      .arg(endpoint, QString::fromLatin1(call->path))
                      .arg(httpStatus.toInt())
                      .arg(message.isEmpty() ? QString::fromUtf8(bytes.left(200)) : message);
            call->done(err.value(QLatin1String("code")).toInt() == 5 ? Status::notFound(why)
                                                                     : Status::unavailable(why));
            return;
        }
        call->done(std::move(answer));
    });
}

void EtcdClient::grantLease(std::int64_t ttlSeconds, Callback<EtcdLease> done)
{
    post("/v3/lease/grant", QJsonObject {{QStringLiteral("TTL"), int64Json(ttlSeconds)}},
        [done = std::move(done)](Result<QJsonObject> r) {
            if (!r)
                return done(r.error());
            EtcdLease lease;
            lease.id = int64Of(r->value(QLatin1String("ID")));
            lease.ttl = int64Of(r->value(QLatin1String("TTL")));
            if (lease.id == 0 || lease.ttl <= 0)
                return done(
                    Status::unavailable(QStringLiteral("etcd granted no lease: %1")
                                            .arg(r->value(QLatin1String("error")).toString())));
            done(lease);
        });
}

void EtcdClient::keepAlive(std::int64_t leaseId, Callback<EtcdLease> done)
{
    post("/v3/lease/keepalive", QJsonObject {{QStringLiteral("ID"), int64Json(leaseId)}},
        [done = std::move(done), leaseId](Result<QJsonObject> r) {
            if (!r)
                return done(r.error());
            EtcdLease lease;
            lease.id = leaseId;
            lease.ttl = int64Of(r->value(QLatin1String("TTL")));
            // etcd answers an expired or revoked lease's keep-alive without a TTL.
            if (lease.ttl <= 0)
                return done(Status::notFound(
                    QStringLiteral("etcd lease %1 expired or was revoked").arg(leaseId)));
            done(lease);
        });
}

void EtcdClient::revokeLease(std::int64_t leaseId, StatusCallback done)
{
    post("/v3/lease/revoke", QJsonObject {{QStringLiteral("ID"), int64Json(leaseId)}},
        [done = std::move(done)](Result<QJsonObject> r) { done(r.status()); });
}

void EtcdClient::get(const QByteArray &key, Callback<std::optional<EtcdKeyValue>> done)
{
    post("/v3/kv/range", QJsonObject {{QStringLiteral("key"), b64(key)}},
        [done = std::move(done)](Result<QJsonObject> r) {
            if (!r)
                return done(r.error());
            done(firstKv(*r));
        });
}

void EtcdClient::list(const QByteArray &prefix, Callback<std::vector<EtcdKeyValue>> done)
{
    // range_end = the prefix with its last byte raised (etcd's prefix convention).
    QByteArray end = prefix;
    while (!end.isEmpty() && static_cast<unsigned char>(end.back()) == 0xff)
        end.chop(1);
    if (end.isEmpty())
        end = QByteArray(1, '\0'); // every key
    else
        end.back() = static_cast<char>(static_cast<unsigned char>(end.back()) + 1);
    post("/v3/kv/range",
        QJsonObject {{QStringLiteral("key"), b64(prefix)}, {QStringLiteral("range_end"), b64(end)}},
        [done = std::move(done)](Result<QJsonObject> r) {
            if (!r)
                return done(r.error());
            std::vector<EtcdKeyValue> out;
            for (const QJsonValue &kv : r->value(QLatin1String("kvs")).toArray())
                out.push_back(keyValueOf(kv.toObject()));
            done(std::move(out));
        });
}

void EtcdClient::txn(const QJsonObject &body, Callback<EtcdTxnResult> done)
{
    post("/v3/kv/txn", body, [done = std::move(done)](Result<QJsonObject> r) {
        if (!r)
            return done(r.error());
        EtcdTxnResult out;
        out.succeeded = r->value(QLatin1String("succeeded")).toBool();
        out.revision = revisionOf(*r);
        if (!out.succeeded) {
            const QJsonArray responses = r->value(QLatin1String("responses")).toArray();
            if (!responses.isEmpty())
                out.current = firstKv(
                    responses.first().toObject().value(QLatin1String("response_range")).toObject());
        }
        done(std::move(out));
    });
}

void EtcdClient::txnPut(const std::vector<EtcdCompare> &compares, const std::vector<EtcdPut> &puts,
    const QByteArray &rangeOnFailure, Callback<EtcdTxnResult> done)
{
    QJsonArray compareArray;
    for (const EtcdCompare &c : compares)
        compareArray.append(c.target == EtcdCompare::Target::Create
                ? compareOf(c.key, "CREATE", "create_revision", c.revision)
                : compareOf(c.key, "MOD", "mod_revision", c.revision));
    QJsonArray success;
    for (const EtcdPut &p : puts)
        success.append(putOp(p.key, p.value, p.lease));
    QJsonObject body {
        {QStringLiteral("compare"), compareArray}, {QStringLiteral("success"), success}};
    if (!rangeOnFailure.isEmpty())
        body.insert(QStringLiteral("failure"), QJsonArray {rangeOp(rangeOnFailure)});
    txn(body, std::move(done));
}

void EtcdClient::createIfAbsent(const QByteArray &key, const QByteArray &value,
    std::int64_t leaseId, Callback<EtcdTxnResult> done)
{
    txn(QJsonObject {{QStringLiteral("compare"),
                         QJsonArray {compareOf(key, "CREATE", "create_revision", 0)}},
            {QStringLiteral("success"), QJsonArray {putOp(key, value, leaseId)}},
            {QStringLiteral("failure"), QJsonArray {rangeOp(key)}}},
        std::move(done));
}

void EtcdClient::putIfModRevision(const QByteArray &key, const QByteArray &value,
    std::int64_t leaseId, std::int64_t modRevision, Callback<EtcdTxnResult> done)
{
    txn(QJsonObject {{QStringLiteral("compare"),
                         QJsonArray {compareOf(key, "MOD", "mod_revision", modRevision)}},
            {QStringLiteral("success"), QJsonArray {putOp(key, value, leaseId)}},
            {QStringLiteral("failure"), QJsonArray {rangeOp(key)}}},
        std::move(done));
}

void EtcdClient::removeIfModRevision(
    const QByteArray &key, std::int64_t modRevision, Callback<EtcdTxnResult> done)
{
    const QJsonObject del {
        {QStringLiteral("request_delete_range"), QJsonObject {{QStringLiteral("key"), b64(key)}}}};
    txn(QJsonObject {{QStringLiteral("compare"),
                         QJsonArray {compareOf(key, "MOD", "mod_revision", modRevision)}},
            {QStringLiteral("success"), QJsonArray {del}},
            {QStringLiteral("failure"), QJsonArray {rangeOp(key)}}},
        std::move(done));
}

void EtcdClient::put(
    const QByteArray &key, const QByteArray &value, std::int64_t leaseId, StatusCallback done)
{
    QJsonObject body = putOp(key, value, leaseId).value(QLatin1String("request_put")).toObject();
    post("/v3/kv/put", body, [done = std::move(done)](Result<QJsonObject> r) { done(r.status()); });
}

void EtcdClient::remove(const QByteArray &key, Callback<std::int64_t> done)
{
    post("/v3/kv/deleterange", QJsonObject {{QStringLiteral("key"), b64(key)}},
        [done = std::move(done)](Result<QJsonObject> r) {
            if (!r)
                return done(r.error());
            done(int64Of(r->value(QLatin1String("deleted"))));
        });
}

} // namespace qrocket::broker::controller
