#pragma once

// Loads the captured RocketMQ 4.9.7 frames of tests/data/vectors/frames.jsonl (test code only).
// A missing or damaged vector file fails the running test (tests/testlib/vectors.h).

#include "tests/testlib/vectors.h"

#include <QByteArray>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>

#include <vector>

namespace qrocket::testing {

struct GoldenFrame
{
    int id = 0;
    QString scenario;
    QString client;
    QString kind;
    int code = 0;
    int flag = 0;
    int opaque = 0;
    int requestCode = -1; // responses: the request's code
    QByteArray header;
    QByteArray body;
    QByteArray frame;
    QJsonObject json;
};

inline std::vector<GoldenFrame> loadGoldenFrames()
{
    std::vector<GoldenFrame> frames;
    const QByteArray all = readVectorFile(QStringLiteral("frames.jsonl"));
    for (const QByteArray &line : all.split('\n')) {
        if (line.trimmed().isEmpty())
            continue;
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        GoldenFrame f;
        f.id = o.value(QLatin1String("id")).toInt();
        f.scenario = o.value(QLatin1String("scenario")).toString();
        f.client = o.value(QLatin1String("client")).toString();
        f.kind = o.value(QLatin1String("kind")).toString();
        f.code = o.value(QLatin1String("code")).toInt();
        f.flag = o.value(QLatin1String("flag")).toInt();
        f.opaque = o.value(QLatin1String("opaque")).toInt();
        f.requestCode = o.value(QLatin1String("request_code")).toInt(-1);
        f.header = o.value(QLatin1String("header")).toString().toUtf8();
        f.body = QByteArray::fromBase64(o.value(QLatin1String("body_b64")).toString().toLatin1());
        f.frame = QByteArray::fromBase64(o.value(QLatin1String("frame_b64")).toString().toLatin1());
        f.json = o;
        frames.push_back(std::move(f));
    }
    return frames;
}

} // namespace qrocket::testing
