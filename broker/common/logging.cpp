#include "broker/common/logging.h"

Q_LOGGING_CATEGORY(lcBroker, "qrocket.broker", QtInfoMsg)
Q_LOGGING_CATEGORY(lcBrokerConfig, "qrocket.broker.config", QtInfoMsg)
Q_LOGGING_CATEGORY(lcBrokerTopic, "qrocket.broker.topic", QtInfoMsg)
Q_LOGGING_CATEGORY(lcBrokerOffset, "qrocket.broker.offset", QtInfoMsg)
Q_LOGGING_CATEGORY(lcBrokerClient, "qrocket.broker.client", QtInfoMsg)
Q_LOGGING_CATEGORY(lcBrokerHa, "qrocket.broker.ha", QtInfoMsg)
