// Consumes a topic with QRocket's push consumer (clustering, concurrent listener) until Ctrl-C
// or until --count messages arrived.
//
//   qrocket-example-push_consumer [-n 127.0.0.1:9876] [-t TopicTest] [-g example_consumer_group]
//                                 [--count N] [--from-first]

#include "clientlib/client/pushconsumer.h"
#include "clientlib/common/signalwatcher.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QTimer>

#include <atomic>
#include <csignal>
#include <cstdio>

using namespace qrocket;

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOption(
        {{QStringLiteral("n"), QStringLiteral("namesrv")}, QStringLiteral("name servers"),
            QStringLiteral("host:port"), QStringLiteral("127.0.0.1:9876")});
    parser.addOption({{QStringLiteral("t"), QStringLiteral("topic")}, QStringLiteral("topic"),
        QStringLiteral("topic"), QStringLiteral("TopicTest")});
    parser.addOption(
        {{QStringLiteral("g"), QStringLiteral("group")}, QStringLiteral("consumer group"),
            QStringLiteral("group"), QStringLiteral("example_consumer_group")});
    parser.addOption({QStringLiteral("count"), QStringLiteral("stop after N messages"),
        QStringLiteral("N"), QStringLiteral("0")});
    parser.addOption({QStringLiteral("from-first"), QStringLiteral("CONSUME_FROM_FIRST_OFFSET")});
    parser.process(app);

    client::PushConsumerOptions options;
    options.group = parser.value(QStringLiteral("g")).toUtf8();
    options.client.namesrvAddr = parser.value(QStringLiteral("n")).toUtf8();
    if (parser.isSet(QStringLiteral("from-first")))
        options.consumeFromWhere = client::ConsumeFromWhere::ConsumeFromFirstOffset;
    client::PushConsumer consumer(options);
    consumer.subscribe(parser.value(QStringLiteral("t")).toUtf8(), "*");

    const int stopAfter = parser.value(QStringLiteral("count")).toInt();
    std::atomic<int> received {0};
    consumer.registerMessageListener(
        [&](const std::vector<client::MessageExt> &msgs, client::ConsumeConcurrentlyContext &) {
            for (const client::MessageExt &m : msgs) {
                std::printf("%s queue %d offset %lld tags %s: %s\n", m.msgId().constData(),
                    m.queueId(), static_cast<long long>(m.queueOffset()), m.tags().constData(),
                    m.body().left(80).constData());
                std::fflush(stdout);
                if (stopAfter > 0 && ++received == stopAfter)
                    QMetaObject::invokeMethod(&app, &QCoreApplication::quit, Qt::QueuedConnection);
            }
            return client::ConsumeConcurrentlyStatus::ConsumeSuccess;
        });
    if (Status s = consumer.start(); !s) {
        std::fprintf(stderr, "start: %s\n", qPrintable(s.message()));
        return 1;
    }
    SignalWatcher watcher({SIGTERM, SIGINT});
    QObject::connect(&watcher, &SignalWatcher::received, &app, &QCoreApplication::quit);
    const int rc = app.exec();
    consumer.shutdown();
    return rc;
}
