#pragma once

// Config files written the way RocketMQ's MixAll.string2File does (protocol.md §7.6): the new
// content goes to `<path>.tmp` (flushed to disk), the old file becomes `<path>.bak`, then the
// temporary file is renamed over `<path>`. A crash at any point leaves either the old or the new
// content readable: readFileWithBackup() falls back to `<path>.bak` when `<path>` is missing or
// empty, or when `validate` rejects it.

#include "clientlib/common/result.h"

#include <QByteArray>
#include <QString>

#include <functional>

namespace qrocket::namesrv {

Status writeFileAtomically(const QString &path, const QByteArray &content);

/// NotFound when neither file exists.
Result<QByteArray> readFileWithBackup(
    const QString &path, const std::function<bool(const QByteArray &)> &validate = {});

} // namespace qrocket::namesrv
