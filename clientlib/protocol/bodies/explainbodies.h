#pragma once

// The QRocket explain extensions' body (clientlib/protocol/extensioncode.h, kExplain*): why a
// group does not consume, why a commit-log file is kept, why sends are refused, why a broker is
// late at the name server. Each answer is a list of findings; each finding names the setting (and
// its current value) or the client that decides it, so that a CLI can print it and a console
// can show it.
//
//   {"findings":[{"client":"","kind":"consumeDisabled","reason":"...","setting":"consumeEnable",
//     "subject":"G","value":"false","verdict":"blocking"}],"now":1700000000000,
//    "question":"group","subject":"G","verdict":"blocking"}
//
// Verdicts, worst first: "blocking" (this stops it), "warning" (may stop it, or soon will),
// "ok" (checked and fine), "info" (context). The answer's verdict is its worst finding's.

#include "clientlib/common/result.h"

#include <QByteArray>
#include <QByteArrayView>

#include <cstdint>
#include <vector>

namespace qrocket::protocol {

namespace explainverdict {
inline constexpr char kBlocking[] = "blocking";
inline constexpr char kWarning[] = "warning";
inline constexpr char kOk[] = "ok";
inline constexpr char kInfo[] = "info";
/// Lower is worse: blocking 0, warning 1, ok 2, info 3, anything else 4.
int rank(QByteArrayView verdict);
} // namespace explainverdict

struct ExplainFinding
{
    QByteArray verdict; // explainverdict::k*
    QByteArray kind; // a stable id of the cause ("noLiveConsumer", "notExpired", ...)
    QByteArray subject; // what it is about: a queue "topic:queueId", a file path, an address
    QByteArray reason; // in words
    QByteArray setting; // the setting that decides it, or empty
    QByteArray value; // the setting's current value (or the figure compared with it)
    QByteArray client; // the client id that decides it, or empty
};

struct ExplainBody
{
    QByteArray question; // "group", "cleanup", "send", "broker"
    QByteArray subject; // the group, topic or broker name asked about (empty for cleanup)
    std::int64_t now = 0; // the daemon's wall clock (epoch ms)
    std::vector<ExplainFinding> findings;

    /// The worst verdict among the findings ("ok" when there is none).
    QByteArray verdict() const;
    /// The first finding of `kind`, or null.
    const ExplainFinding *find(QByteArrayView kind) const;
    ExplainFinding &add(QByteArray verdict, QByteArray kind, QByteArray about, QByteArray reason,
        QByteArray setting = {}, QByteArray value = {}, QByteArray client = {});

    QByteArray toJson() const;
    static Result<ExplainBody> fromJson(QByteArrayView json);
};

} // namespace qrocket::protocol
