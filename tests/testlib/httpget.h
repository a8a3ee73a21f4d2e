#pragma once

// One HTTP request from a test, bounded: status code, body and headers, or status 0 when no
// answer came within the timeout. No proxy (the environment's would hijack loopback).

#include <QByteArray>
#include <QEventLoop>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QTimer>
#include <QUrl>

namespace qrocket::testlib {

struct HttpAnswer
{
    int status = 0; // 0: no answer
    QByteArray body;
    QByteArray contentType;
    QByteArray wwwAuthenticate;
};

inline HttpAnswer httpRequest(const QUrl &url, const QByteArray &verb = "GET",
    const QByteArray &user = {}, const QByteArray &password = {}, int timeoutMs = 15000)
{
    QNetworkAccessManager manager;
    manager.setProxy(QNetworkProxy::NoProxy);
    QNetworkRequest request(url);
    if (!user.isEmpty() || !password.isEmpty())
        request.setRawHeader("Authorization", "Basic " + (user + ':' + password).toBase64());
    QNetworkReply *reply = manager.sendCustomRequest(request, verb);
    QEventLoop loop;
    QTimer timer;
    timer.setSingleShot(true);
    QObject::connect(&timer, &QTimer::timeout, &loop, &QEventLoop::quit);
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    timer.start(timeoutMs);
    if (!reply->isFinished())
        loop.exec();
    HttpAnswer answer;
    if (reply->isFinished()) {
        answer.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        answer.body = reply->readAll();
        answer.contentType = reply->rawHeader("Content-Type");
        answer.wwwAuthenticate = reply->rawHeader("WWW-Authenticate");
    } else {
        reply->abort();
    }
    delete reply;
    return answer;
}

inline QUrl metricsUrl(quint16 port, const QString &path = QStringLiteral("/metrics"))
{
    return QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(port).arg(path));
}

} // namespace qrocket::testlib
