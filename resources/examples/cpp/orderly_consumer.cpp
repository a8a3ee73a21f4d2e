// Ordered messages: the producer sends each order's steps to one queue (selector by order id),
// the orderly consumer gets each queue's messages one at a time, in order.
//
//   qrocket-example-orderly_consumer [-n 127.0.0.1:9876] [-t OrderTopic] [--orders 3] [--steps 5]

#include "clientlib/client/producer.h"
#include "clientlib/client/pushconsumer.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QThread>

#include <atomic>
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
        QStringLiteral("topic"), QStringLiteral("OrderTopic")});
    parser.addOption({QStringLiteral("orders"), QStringLiteral("orders"), QStringLiteral("N"),
        QStringLiteral("3")});
    parser.addOption({QStringLiteral("steps"), QStringLiteral("steps per order"),
        QStringLiteral("N"), QStringLiteral("5")});
    parser.process(app);
    const QByteArray namesrv = parser.value(QStringLiteral("n")).toUtf8();
    const QByteArray topic = parser.value(QStringLiteral("t")).toUtf8();
    const int orders = parser.value(QStringLiteral("orders")).toInt();
    const int steps = parser.value(QStringLiteral("steps")).toInt();

    client::ProducerOptions po;
    po.group = "example_order_producer";
    po.client.namesrvAddr = namesrv;
    client::Producer producer(po);
    if (Status s = producer.start(); !s) {
        std::fprintf(stderr, "producer: %s\n", qPrintable(s.message()));
        return 1;
    }
    for (int step = 0; step < steps; ++step) {
        for (int order = 0; order < orders; ++order) {
            const QByteArray id = "order-" + QByteArray::number(order);
            auto r = producer.sendSync(
                client::Message(topic, "step", id, id + " step " + QByteArray::number(step)),
                client::selectors::byHash(id));
            if (!r) {
                std::fprintf(stderr, "send: %s\n", qPrintable(r.error().message()));
                return 1;
            }
        }
    }

    client::PushConsumerOptions co;
    co.group = "example_order_consumer";
    co.client.namesrvAddr = namesrv;
    co.consumeFromWhere = client::ConsumeFromWhere::ConsumeFromFirstOffset;
    client::PushConsumer consumer(co);
    consumer.subscribe(topic, "*");
    std::atomic<int> received {0};
    consumer.registerMessageListener(
        [&](const std::vector<client::MessageExt> &msgs, client::ConsumeOrderlyContext &ctx) {
            for (const client::MessageExt &m : msgs) {
                std::printf("queue %d: %s\n", ctx.messageQueue.queueId, m.body().constData());
                std::fflush(stdout);
                ++received;
            }
            return client::ConsumeOrderlyStatus::Success;
        });
    if (Status s = consumer.start(); !s) {
        std::fprintf(stderr, "consumer: %s\n", qPrintable(s.message()));
        return 1;
    }
    QElapsedTimer t;
    t.start();
    while (received.load() < orders * steps && t.elapsed() < 30000)
        QThread::msleep(50);
    consumer.shutdown();
    producer.shutdown();
    return received.load() >= orders * steps ? 0 : 1;
}
