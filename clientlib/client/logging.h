#pragma once

// Logging categories of the client library (default Info):
//   qrocket.client           instance, routes, heartbeats
//   qrocket.client.producer  sends, retries, fault avoidance
//   qrocket.client.consumer  rebalance, pulls, consumption, offsets
//   qrocket.client.admin     admin calls

#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcClient)
Q_DECLARE_LOGGING_CATEGORY(lcProducer)
Q_DECLARE_LOGGING_CATEGORY(lcConsumer)
Q_DECLARE_LOGGING_CATEGORY(lcAdmin)
