// qrocket-bench: RocketMQ's benchmark tools (benchmark/producer.sh, consumer.sh, tproducer.sh)
// as one native program on QRocket's client, against QRocket or Apache RocketMQ clusters.
//
//   qrocket-bench producer  -n 127.0.0.1:9876 -t BenchmarkTest -w 64 -s 1024 --duration 30
//   qrocket-bench consumer  -n 127.0.0.1:9876 -t BenchmarkTest -g benchmark_consumer
//   qrocket-bench popconsumer -n 127.0.0.1:9876 -t BenchmarkTest -g benchmark_pop_consumer
//   qrocket-bench tproducer -n 127.0.0.1:9876 -t BenchmarkTest -w 32 -s 2048
//
// `qrocket-bench <mode> -h` lists a mode's options (the Java tools' letters and defaults).

#include "clientlib/bench/benchmodes.h"
#include "clientlib/bench/benchrun.h"

#include <QCoreApplication>
#include <QLoggingCategory>

#include <cstdio>

namespace {

void usage(std::FILE *out)
{
    std::fputs("usage: qrocket-bench producer|consumer|popconsumer|tproducer [options]\n"
               "  producer   send load (RocketMQ's benchmark Producer; -b for BatchProducer)\n"
               "  consumer   consume load and report end-to-end latency (benchmark Consumer)\n"
               "  popconsumer  POP consumption (SimpleConsumer: receive, ack) and its rate\n"
               "  tproducer  transactional sends and checks (benchmark TransactionProducer)\n"
               "Run 'qrocket-bench <mode> -h' for a mode's options.\n",
        out);
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("qrocket-bench"));
    // The client's info lines (instance started, shut down) would interleave with the report;
    // warnings stay. QT_LOGGING_RULES still overrides.
    if (qEnvironmentVariableIsEmpty("QT_LOGGING_RULES"))
        QLoggingCategory::setFilterRules(QStringLiteral("qrocket.*.info=false"));
    QStringList args = QCoreApplication::arguments();
    if (args.size() < 2) {
        usage(stderr);
        return 2;
    }
    const QString mode = args.takeAt(1);
    qrocket::bench::installStopSignals();
    if (mode == QLatin1String("producer"))
        return qrocket::bench::runProducer(args);
    if (mode == QLatin1String("consumer"))
        return qrocket::bench::runConsumer(args);
    if (mode == QLatin1String("popconsumer"))
        return qrocket::bench::runPopConsumer(args);
    if (mode == QLatin1String("tproducer"))
        return qrocket::bench::runTransactionProducer(args);
    if (mode == QLatin1String("-h") || mode == QLatin1String("--help")) {
        usage(stdout);
        return 0;
    }
    std::fprintf(stderr, "qrocket-bench: unknown mode \"%s\"\n", qPrintable(mode));
    usage(stderr);
    return 2;
}
