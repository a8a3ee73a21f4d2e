#include "clientlib/remoting/metricshttpserver.h"

#include <QAbstractHttpServer>
#include <QHttpServerRequest>
#include <QHttpServerResponder>
#include <QTcpServer>
#include <QThread>

namespace qrocket::remoting {

namespace {

const QByteArray kContentType = QByteArrayLiteral("text/plain; version=0.0.4; charset=utf-8");

QByteArray headerValue(const QHttpServerRequest &request, QByteArrayView name)
{
    const auto headers = request.headers();
    for (const auto &[key, value] : headers)
        if (QByteArrayView(key).compare(name, Qt::CaseInsensitive) == 0)
            return value;
    return {};
}

} // namespace

class MetricsHttpServer::Server final : public QAbstractHttpServer
{
public:
    explicit Server(MetricsHttpServer &owner) : m_owner(owner) { }

protected:
    bool handleRequest(const QHttpServerRequest &request, QTcpSocket *socket) override
    {
        using Status = QHttpServerResponder::StatusCode;
        if (request.url().path() != QLatin1String("/metrics"))
            return false; // missingHandler: 404
        QHttpServerResponder responder = makeResponder(request, socket);
        if (request.method() != QHttpServerRequest::Method::Get) {
            responder.write(QByteArrayLiteral("only GET\n"),
                {{QByteArrayLiteral("Content-Type"), QByteArrayLiteral("text/plain")},
                    {QByteArrayLiteral("Allow"), QByteArrayLiteral("GET")}},
                Status::MethodNotAllowed);
            return true;
        }
        if (m_owner.m_options.authenticate) {
            QByteArray user;
            QByteArray password;
            if (!parseBasicAuth(headerValue(request, "Authorization"), &user, &password)
                || !m_owner.m_options.authenticate(user, password)) {
                m_owner.m_unauthorized.fetch_add(1, std::memory_order_relaxed);
                responder.write(QByteArrayLiteral("credentials of an ACL admin account needed\n"),
                    {{QByteArrayLiteral("Content-Type"), QByteArrayLiteral("text/plain")},
                        {QByteArrayLiteral("WWW-Authenticate"),
                            QByteArrayLiteral("Basic realm=\"qrocket metrics\"")}},
                    Status::Unauthorized);
                return true;
            }
        }
        m_owner.m_scrapes.fetch_add(1, std::memory_order_relaxed);
        responder.write(
            m_owner.m_collect(), {{QByteArrayLiteral("Content-Type"), kContentType}}, Status::Ok);
        return true;
    }

    void missingHandler(const QHttpServerRequest &request, QTcpSocket *socket) override
    {
        makeResponder(request, socket)
            .write(QByteArrayLiteral("not found; the metrics are at /metrics\n"),
                {{QByteArrayLiteral("Content-Type"), QByteArrayLiteral("text/plain")}},
                QHttpServerResponder::StatusCode::NotFound);
    }

private:
    MetricsHttpServer &m_owner;
};

MetricsHttpServer::MetricsHttpServer(Options options, Collector collect)
    : m_options(std::move(options)), m_collect(std::move(collect))
{ }

MetricsHttpServer::~MetricsHttpServer()
{
    stop();
}

bool MetricsHttpServer::parseBasicAuth(
    QByteArrayView header, QByteArray *user, QByteArray *password)
{
    header = header.trimmed();
    if (header.size() < 6 || QByteArrayView(header.first(6)).compare("Basic ", Qt::CaseInsensitive))
        return false;
    const auto decoded = QByteArray::fromBase64Encoding(
        header.sliced(6).trimmed().toByteArray(), QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded)
        return false;
    const qsizetype colon = decoded.decoded.indexOf(':');
    if (colon <= 0)
        return false;
    *user = decoded.decoded.left(colon);
    *password = decoded.decoded.mid(colon + 1);
    return true;
}

Status MetricsHttpServer::start()
{
    if (m_thread)
        return {};
    auto thread = std::make_unique<QThread>();
    thread->setObjectName(QStringLiteral("Metrics"));
    auto *server = new Server(*this);
    server->moveToThread(thread.get());
    QObject::connect(thread.get(), &QThread::finished, server, &QObject::deleteLater);
    thread->start();

    QString error;
    quint16 bound = 0;
    QMetaObject::invokeMethod(
        server,
        [&] {
            auto *tcp = new QTcpServer(server);
            if (!tcp->listen(m_options.host, m_options.port)) {
                error = tcp->errorString();
                delete tcp;
                return;
            }
            bound = tcp->serverPort();
            server->bind(tcp);
        },
        Qt::BlockingQueuedConnection);
    if (bound == 0) {
        thread->quit();
        thread->wait();
        return Status::ioError(QStringLiteral("metrics: cannot listen on %1:%2: %3")
                                   .arg(m_options.host.toString())
                                   .arg(m_options.port)
                                   .arg(error));
    }
    m_server = server;
    m_thread = std::move(thread);
    m_port.store(bound);
    return {};
}

void MetricsHttpServer::stop()
{
    if (!m_thread)
        return;
    m_thread->quit();
    m_thread->wait();
    m_thread.reset();
    m_server = nullptr;
    m_port.store(0);
}

} // namespace qrocket::remoting
