#pragma once

// EtcdClient: the few etcd v3 calls controller mode needs, through etcd's JSON gateway
// (POST /v3/...; keys and values base64, 64-bit numbers as strings) with Qt Network. Debian has
// no C++ etcd client; the gateway ships in every etcd since 3.3 and needs nothing but HTTP.
//
//   EtcdClient etcd({"http://127.0.0.1:2379"}, 2000);
//   etcd.grantLease(5, [](Result<EtcdLease> lease) { ... });
//   etcd.createIfAbsent(key, value, leaseId, [](Result<EtcdTxnResult> r) { ... });
//
// Every request is bounded by `requestTimeoutMs` (a transfer timeout per endpoint tried). An
// endpoint that cannot be reached (connection refused, reset, timeout) is left for the next one
// in the list, which then serves the following requests; a request fails once every endpoint
// failed it, with Unavailable or Timeout. An answer carrying etcd's error object fails with
// NotFound (gRPC code 5: an unknown or expired lease) or Unavailable (anything else, message
// kept). Callbacks run on the client's thread (its event loop), exactly once each while the
// client lives; the ones pending when it is destroyed are dropped, never called (so an owner
// that holds the client by value or unique_ptr is never called back half-destroyed).
//
// Threads: one thread, the one that owns the object (QNetworkAccessManager's rule).

#include "clientlib/common/result.h"

#include <QByteArray>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QObject>
#include <QStringList>

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace qrocket::broker::controller {

struct EtcdKeyValue
{
    QByteArray key;
    QByteArray value;
    std::int64_t createRevision = 0;
    std::int64_t modRevision = 0;
    std::int64_t version = 0;
    std::int64_t lease = 0; // 0: none
};

struct EtcdLease
{
    std::int64_t id = 0;
    std::int64_t ttl = 0; // seconds etcd granted or renewed
};

/// The outcome of a conditional write: `succeeded` when the compare held and the write was
/// done; otherwise `current` is the key as it is (absent when the key does not exist).
struct EtcdTxnResult
{
    bool succeeded = false;
    std::optional<EtcdKeyValue> current;
    std::int64_t revision = 0; // the store's revision after the transaction
};

/// One comparison of a transaction: the key's create or mod revision equals `revision` (create
/// revision 0: the key does not exist).
struct EtcdCompare
{
    enum class Target { Create, Mod };
    QByteArray key;
    Target target = Target::Create;
    std::int64_t revision = 0;
};

struct EtcdPut
{
    QByteArray key;
    QByteArray value;
    std::int64_t lease = 0; // 0: none
};

class EtcdClient final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(EtcdClient)

public:
    template<typename T>
    using Callback = std::function<void(Result<T>)>;
    using StatusCallback = std::function<void(Status)>;

    EtcdClient(QStringList endpoints, int requestTimeoutMs, QObject *parent = nullptr);
    ~EtcdClient() override;

    /// "http://host:port[,http://host:port...]" (commas or semicolons; whitespace ignored) into
    /// endpoints; InvalidArgument for an empty list or an entry that is not http://host:port.
    static Result<QStringList> parseEndpoints(const QString &text);

    QStringList endpoints() const { return m_endpoints; }
    int requestTimeoutMs() const { return m_timeoutMs; }

    void grantLease(std::int64_t ttlSeconds, Callback<EtcdLease> done);
    /// One keep-alive round trip; NotFound when the lease expired or was revoked.
    void keepAlive(std::int64_t leaseId, Callback<EtcdLease> done);
    void revokeLease(std::int64_t leaseId, StatusCallback done);
    /// The key, or nullopt when absent.
    void get(const QByteArray &key, Callback<std::optional<EtcdKeyValue>> done);
    /// Every key starting with `prefix`, in key order.
    void list(const QByteArray &prefix, Callback<std::vector<EtcdKeyValue>> done);
    /// Puts `key` (bound to `leaseId` unless 0) only if it does not exist.
    void createIfAbsent(const QByteArray &key, const QByteArray &value, std::int64_t leaseId,
        Callback<EtcdTxnResult> done);
    /// Puts `key` (bound to `leaseId` unless 0) only if its mod revision is `modRevision` (the
    /// holder rewriting its own key, as nobody else changed it since).
    void putIfModRevision(const QByteArray &key, const QByteArray &value, std::int64_t leaseId,
        std::int64_t modRevision, Callback<EtcdTxnResult> done);
    /// Deletes `key` only if its mod revision is `modRevision`; the result says whether it did.
    void removeIfModRevision(
        const QByteArray &key, std::int64_t modRevision, Callback<EtcdTxnResult> done);
    /// Every put of `puts`, atomically, when every comparison holds; otherwise nothing, and
    /// `current` is `rangeOnFailure` as it is (when given).
    void txnPut(const std::vector<EtcdCompare> &compares, const std::vector<EtcdPut> &puts,
        const QByteArray &rangeOnFailure, Callback<EtcdTxnResult> done);
    /// Puts `key` unconditionally.
    void put(
        const QByteArray &key, const QByteArray &value, std::int64_t leaseId, StatusCallback done);
    /// Deletes `key`; the result is the number of keys deleted (0 or 1).
    void remove(const QByteArray &key, Callback<std::int64_t> done);

private:
    struct Call;
    /// POSTs `body` to `path` on the current endpoint, moving on to the next on a transport
    /// failure; `done` gets the answer's JSON object or the error.
    void post(const QByteArray &path, const QJsonObject &body, Callback<QJsonObject> done);
    void attempt(std::shared_ptr<Call> call);
    void txn(const QJsonObject &body, Callback<EtcdTxnResult> done);

    QNetworkAccessManager m_nam;
    QStringList m_endpoints;
    int m_current = 0; // index of the endpoint that answered last
    int m_timeoutMs;
};

} // namespace qrocket::broker::controller
