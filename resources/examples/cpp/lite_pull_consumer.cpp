// Polls a topic with QRocket's lite pull consumer and commits after each batch.
//
//   qrocket-example-lite_pull_consumer [-n 127.0.0.1:9876] [-t TopicTest] [--count N]

#include "clientlib/client/litepullconsumer.h"

#include <QCommandLineParser>
#include <QCoreApplication>

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
    parser.addOption({QStringLiteral("count"), QStringLiteral("stop after N messages"),
        QStringLiteral("N"), QStringLiteral("10")});
    parser.process(app);

    client::LitePullConsumerOptions options;
    options.group = "example_lite_pull_group";
    options.client.namesrvAddr = parser.value(QStringLiteral("n")).toUtf8();
    options.consumeFromWhere = client::ConsumeFromWhere::ConsumeFromFirstOffset;
    options.autoCommit = false;
    client::LitePullConsumer consumer(options);
    consumer.subscribe(parser.value(QStringLiteral("t")).toUtf8(), "*");
    if (Status s = consumer.start(); !s) {
        std::fprintf(stderr, "start: %s\n", qPrintable(s.message()));
        return 1;
    }
    const int want = parser.value(QStringLiteral("count")).toInt();
    int got = 0;
    int idle = 0;
    while (got < want && idle < 10) {
        const auto msgs = consumer.poll(1000);
        idle = msgs.empty() ? idle + 1 : 0;
        for (const client::MessageExt &m : msgs)
            std::printf("%s queue %d offset %lld: %s\n", m.msgId().constData(), m.queueId(),
                static_cast<long long>(m.queueOffset()), m.body().left(80).constData());
        got += static_cast<int>(msgs.size());
        if (!msgs.empty())
            consumer.commitSync();
    }
    std::printf("%d messages\n", got);
    consumer.shutdown();
    return 0;
}
