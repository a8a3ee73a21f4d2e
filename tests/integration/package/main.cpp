// Built against an installed QRocket: starts an EmbeddedCluster, prints its name-server address,
// creates a topic and waits for its route. Exit code 0 on success.

#include "clientlib/embedded/embeddedcluster.h"

#include <QCoreApplication>

#include <chrono>
#include <cstdio>

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    qrocket::EmbeddedClusterOptions options;
    options.brokerCount = 1;
    qrocket::EmbeddedCluster cluster(options);
    if (const qrocket::Status st = cluster.start(); !st) {
        std::fprintf(stderr, "start failed: %s\n", qPrintable(st.toString()));
        return 1;
    }
    std::printf("name server %s\n", qPrintable(cluster.namesrvAddress()));
    const QString topic = QStringLiteral("PackageSmoke");
    if (const qrocket::Status st = cluster.createTopic(topic, 2); !st) {
        std::fprintf(stderr, "createTopic failed: %s\n", qPrintable(st.toString()));
        return 1;
    }
    if (const qrocket::Status st = cluster.waitForRoute(topic, std::chrono::seconds(10)); !st) {
        std::fprintf(stderr, "waitForRoute failed: %s\n", qPrintable(st.toString()));
        return 1;
    }
#ifdef QROCKET_SMOKE_HAS_CLIENT
    std::printf("linked QRocket::client\n");
#endif
    std::printf("route of %s ok on %s\n", qPrintable(topic), qPrintable(cluster.brokerAddress(0)));
    std::fflush(stdout);
    return 0;
}
