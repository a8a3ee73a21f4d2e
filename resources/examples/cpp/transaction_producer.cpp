// Transactional messages: a half message, the local transaction, then commit or rollback; a
// transaction left unknown is settled when the broker checks back.
//
//   qrocket-example-transaction_producer [-n 127.0.0.1:9876] [-t TransactionTopic]

#include "clientlib/client/producer.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QThread>

#include <atomic>
#include <cstdio>

using namespace qrocket;

namespace {
class OrderTransactions final : public client::TransactionListener
{
public:
    std::atomic<int> checks {0};
    client::LocalTransactionState executeLocalTransaction(
        const client::Message &msg, void *) override
    {
        // A real application writes its database row here, in the same transaction.
        if (msg.tags() == "commit")
            return client::LocalTransactionState::CommitMessage;
        if (msg.tags() == "rollback")
            return client::LocalTransactionState::RollbackMessage;
        return client::LocalTransactionState::Unknown; // decided later, in checkLocalTransaction
    }
    client::LocalTransactionState checkLocalTransaction(const client::MessageExt &msg) override
    {
        ++checks;
        std::printf("broker checks back on %s: commit\n", msg.msgId().constData());
        return client::LocalTransactionState::CommitMessage;
    }
};
} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOption(
        {{QStringLiteral("n"), QStringLiteral("namesrv")}, QStringLiteral("name servers"),
            QStringLiteral("host:port"), QStringLiteral("127.0.0.1:9876")});
    parser.addOption({{QStringLiteral("t"), QStringLiteral("topic")}, QStringLiteral("topic"),
        QStringLiteral("topic"), QStringLiteral("TransactionTopic")});
    parser.process(app);

    OrderTransactions listener;
    client::ProducerOptions options;
    options.group = "example_transaction_producer";
    options.client.namesrvAddr = parser.value(QStringLiteral("n")).toUtf8();
    client::TransactionProducer producer(options, &listener);
    if (Status s = producer.start(); !s) {
        std::fprintf(stderr, "start: %s\n", qPrintable(s.message()));
        return 1;
    }
    const QByteArray topic = parser.value(QStringLiteral("t")).toUtf8();
    for (const char *tag : {"commit", "rollback", "unknown"}) {
        auto r = producer.sendMessageInTransaction(
            client::Message(topic, tag, QByteArray("order ") + tag));
        if (!r) {
            std::fprintf(stderr, "send: %s\n", qPrintable(r.error().message()));
            return 1;
        }
        std::printf("%s: %s, local transaction %s\n", tag,
            client::sendStatusName(r->sendResult.status),
            client::localTransactionStateName(r->localTransactionState));
    }
    // The broker checks unknown transactions after transactionTimeOut (6 s) and then every
    // transactionCheckInterval (60 s by default): wait for one check at most 90 s.
    for (int i = 0; i < 900 && listener.checks.load() == 0; ++i)
        QThread::msleep(100);
    producer.shutdown();
    if (listener.checks.load() == 0) {
        std::fprintf(
            stderr, "the broker did not check back on the unknown transaction within 90 s\n");
        return 1;
    }
    return 0;
}
