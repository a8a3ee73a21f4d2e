#pragma once

// Logging categories of the broker module (default Info; QT_LOGGING_RULES turns debug on).

#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcBroker)
Q_DECLARE_LOGGING_CATEGORY(lcBrokerConfig)
Q_DECLARE_LOGGING_CATEGORY(lcBrokerTopic)
Q_DECLARE_LOGGING_CATEGORY(lcBrokerOffset)
Q_DECLARE_LOGGING_CATEGORY(lcBrokerClient)
Q_DECLARE_LOGGING_CATEGORY(lcBrokerHa)
