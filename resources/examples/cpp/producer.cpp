// Sends messages with QRocket's producer: synchronously, asynchronously and one way.
//
//   qrocket-example-producer [-n 127.0.0.1:9876] [-t TopicTest] [-c 10]

#include "clientlib/client/producer.h"

#include <QCommandLineParser>
#include <QCoreApplication>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <mutex>

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
    parser.addOption({{QStringLiteral("c"), QStringLiteral("count")}, QStringLiteral("messages"),
        QStringLiteral("count"), QStringLiteral("10")});
    parser.process(app);

    client::ProducerOptions options;
    options.group = "example_producer_group";
    options.client.namesrvAddr = parser.value(QStringLiteral("n")).toUtf8();
    client::Producer producer(options);
    if (Status s = producer.start(); !s) {
        std::fprintf(stderr, "start: %s\n", qPrintable(s.message()));
        return 1;
    }
    const QByteArray topic = parser.value(QStringLiteral("t")).toUtf8();
    const int count = parser.value(QStringLiteral("c")).toInt();

    // Synchronous: the broker has the message when sendSync returns OK.
    for (int i = 0; i < count; ++i) {
        client::Message msg(topic, "TagA", "key-" + QByteArray::number(i),
            "Hello QRocket " + QByteArray::number(i));
        auto r = producer.sendSync(msg);
        if (!r) {
            std::fprintf(stderr, "send %d: %s\n", i, qPrintable(r.error().message()));
            return 1;
        }
        std::printf("SendResult [sendStatus=%s, msgId=%s, offsetMsgId=%s, messageQueue=[topic=%s, "
                    "brokerName=%s, queueId=%d], queueOffset=%lld]\n",
            client::sendStatusName(r->status), r->msgId.constData(), r->offsetMsgId.constData(),
            r->messageQueue.topic.constData(), r->messageQueue.brokerName.constData(),
            r->messageQueue.queueId, static_cast<long long>(r->queueOffset));
    }

    // Asynchronous: the callback runs on a producer thread once the broker answered.
    std::mutex mutex;
    std::condition_variable done;
    int pending = count;
    std::atomic<int> failed {0};
    for (int i = 0; i < count; ++i) {
        producer.sendAsync(client::Message(topic, "TagB", "async " + QByteArray::number(i)),
            [&](Result<client::SendResult> r) {
                if (!r)
                    ++failed;
                std::lock_guard lock(mutex);
                if (--pending == 0)
                    done.notify_one();
            });
    }
    {
        std::unique_lock lock(mutex);
        done.wait(lock, [&] { return pending == 0; });
    }
    std::printf("async: %d sent, %d failed\n", count - failed.load(), failed.load());

    // One way: no answer, no retry.
    (void)producer.sendOneway(client::Message(topic, "TagC", "oneway"));
    producer.shutdown();
    return failed.load() == 0 ? 0 : 1;
}
