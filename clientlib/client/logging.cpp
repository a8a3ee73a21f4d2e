#include "clientlib/client/logging.h"

Q_LOGGING_CATEGORY(lcClient, "qrocket.client", QtInfoMsg)
Q_LOGGING_CATEGORY(lcProducer, "qrocket.client.producer", QtInfoMsg)
Q_LOGGING_CATEGORY(lcConsumer, "qrocket.client.consumer", QtInfoMsg)
Q_LOGGING_CATEGORY(lcAdmin, "qrocket.client.admin", QtInfoMsg)
