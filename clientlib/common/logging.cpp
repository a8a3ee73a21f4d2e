#include "clientlib/common/logging.h"

Q_LOGGING_CATEGORY(lcCommon, "qrocket.common", QtInfoMsg)
Q_LOGGING_CATEGORY(lcConfig, "qrocket.config", QtInfoMsg)

namespace qrocket {

void installMessagePattern()
{
    qSetMessagePattern(QStringLiteral("%{time yyyy-MM-dd hh:mm:ss.zzz} "
                                      "%{if-debug}DEBUG%{endif}%{if-info}INFO %{endif}"
                                      "%{if-warning}WARN %{endif}%{if-critical}ERROR%{endif}"
                                      "%{if-fatal}FATAL%{endif} [%{category}] %{message}"));
}

} // namespace qrocket
