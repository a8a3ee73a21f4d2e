#include "clientlib/protocol/bodies/explainbodies.h"

#include "clientlib/protocol/bodies/bodyreaders.h"
#include "clientlib/protocol/json.h"

namespace qrocket::protocol {

int explainverdict::rank(QByteArrayView verdict)
{
    if (verdict == kBlocking)
        return 0;
    if (verdict == kWarning)
        return 1;
    if (verdict == kOk)
        return 2;
    if (verdict == kInfo)
        return 3;
    return 4;
}

QByteArray ExplainBody::verdict() const
{
    QByteArray worst = explainverdict::kOk;
    for (const ExplainFinding &f : findings) {
        if (explainverdict::rank(f.verdict) < explainverdict::rank(worst))
            worst = f.verdict;
    }
    return worst;
}

const ExplainFinding *ExplainBody::find(QByteArrayView kind) const
{
    for (const ExplainFinding &f : findings) {
        if (f.kind == kind)
            return &f;
    }
    return nullptr;
}

ExplainFinding &ExplainBody::add(QByteArray verdict, QByteArray kind, QByteArray about,
    QByteArray reason, QByteArray setting, QByteArray value, QByteArray client)
{
    findings.push_back({std::move(verdict), std::move(kind), std::move(about), std::move(reason),
        std::move(setting), std::move(value), std::move(client)});
    return findings.back();
}

QByteArray ExplainBody::toJson() const
{
    JsonWriter w;
    w.beginObject();
    w.key("findings").beginArray();
    for (const ExplainFinding &f : findings) {
        w.beginObject();
        w.key("client").value(QByteArrayView(f.client));
        w.key("kind").value(QByteArrayView(f.kind));
        w.key("reason").value(QByteArrayView(f.reason));
        w.key("setting").value(QByteArrayView(f.setting));
        w.key("subject").value(QByteArrayView(f.subject));
        w.key("value").value(QByteArrayView(f.value));
        w.key("verdict").value(QByteArrayView(f.verdict));
        w.endObject();
    }
    w.endArray();
    w.key("now").value(now);
    w.key("question").value(QByteArrayView(question));
    w.key("subject").value(QByteArrayView(subject));
    const QByteArray worst = verdict();
    w.key("verdict").value(QByteArrayView(worst));
    w.endObject();
    return w.take();
}

Result<ExplainBody> ExplainBody::fromJson(QByteArrayView json)
{
    constexpr const char *what = "ExplainBody";
    auto v = bodyjson::parseObject(json, what);
    if (!v.has_value())
        return v.error();
    ExplainBody out;
    out.question = (*v)["question"].toString();
    out.subject = (*v)["subject"].toString();
    out.now = (*v)["now"].toInteger();
    const Status s
        = bodyjson::readObjectArray(*v, what, "findings", out.findings, [](const JsonValue &item) {
              ExplainFinding f;
              f.verdict = item["verdict"].toString();
              f.kind = item["kind"].toString();
              f.subject = item["subject"].toString();
              f.reason = item["reason"].toString();
              f.setting = item["setting"].toString();
              f.value = item["value"].toString();
              f.client = item["client"].toString();
              return f;
          });
    if (!s)
        return s;
    return out;
}

} // namespace qrocket::protocol
