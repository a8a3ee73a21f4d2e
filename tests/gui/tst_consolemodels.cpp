// qrocket-console's table models against an embedded cluster of two brokers, each under
// QAbstractItemModelTester: they fill from the session's polls, follow changes in place (rows
// inserted / removed / changed, no reset on a refresh) and filter; plus the figures' formatting.

#include "clientlib/client/pushconsumer.h"
#include "clientlib/client/simpleconsumer.h"
#include "console/gui/alerts.h"
#include "console/gui/brokermodel.h"
#include "console/gui/chartsview.h"
#include "console/gui/clustersession.h"
#include "console/gui/connectdialog.h"
#include "console/gui/consumerdetail.h"
#include "console/gui/format.h"
#include "console/gui/groupmodel.h"
#include "console/gui/messagemodel.h"
#include "console/gui/routemodel.h"
#include "console/gui/storagemodel.h"
#include "console/gui/style.h"
#include "console/gui/topicmodel.h"
#include "console/gui/topicsview.h"
#include "guitestutil.h"

#include <QAbstractItemModelTester>
#include <QElapsedTimer>
#include <QItemSelectionModel>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <QTextDocument>

using namespace qrocket;
using namespace qrocket::console;

class tst_ConsoleModels : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void formatting();
    void brokerModelFills();
    void topicModelFillsAndFilters();
    void topicModelSyncsInPlace();
    void topicRefreshSignalsOnlyWhatChanged();
    void topicSortFollowsChangingColumn();
    void topicSelectionSurvivesManyRanges();
    void topicRateListFollowsRates();
    void routeModelShowsQueuesAndOffsets();
    void groupAndConsumerModels();
    void popGroupShowsModeAndInFlight();
    void storeFileModelListsFiles();
    void messageModelHoldsAQuery();
    void alertModelFollowsRules();

private:
    QString text(QAbstractItemModel &m, int row, int col)
    {
        return m.index(row, col).data().toString();
    }
    int rowOf(QAbstractItemModel &m, const QByteArray &key)
    {
        for (int r = 0; r < m.rowCount(); ++r) {
            if (m.index(r, 0).data(SyncTableModel::KeyRole).toByteArray() == key)
                return r;
        }
        return -1;
    }

    std::unique_ptr<EmbeddedCluster> m_cluster;
    std::unique_ptr<client::Producer> m_producer;
    std::unique_ptr<client::PushConsumer> m_consumer;
    std::unique_ptr<ClusterSession> m_session;
};

void tst_ConsoleModels::initTestCase()
{
    guitest::isolateSettings("tst_consolemodels");
    QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
    initConsoleResources();
    m_cluster = guitest::startCluster(2);
    QVERIFY(m_cluster);
    QVERIFY(m_cluster->createTopic(QStringLiteral("ModelTopic"), 4).isOk());
    QVERIFY(m_cluster->waitForRoute(QStringLiteral("ModelTopic")).isOk());
    m_producer = guitest::startProducer(*m_cluster, "tst_consolemodels_p");
    QVERIFY(m_producer);
    for (int i = 0; i < 20; ++i) {
        client::Message m(
            "ModelTopic", "tag", "model-key", QByteArray("body ") + QByteArray::number(i));
        QVERIFY(m_producer->sendSync(std::move(m)).has_value());
    }
    m_session = std::make_unique<ClusterSession>(m_cluster->namesrvAddress());
    QVERIFY(m_session->start().isOk());
}

void tst_ConsoleModels::cleanupTestCase()
{
    if (m_consumer)
        m_consumer->shutdown();
    m_session.reset();
    if (m_producer)
        m_producer->shutdown();
    m_cluster.reset();
}

void tst_ConsoleModels::formatting()
{
    QCOMPARE(formatCount(1234567), QStringLiteral("1,234,567"));
    QCOMPARE(formatRate(1234.4), QStringLiteral("1,234 msgs/s"));
    QCOMPARE(formatRate(2.25), QStringLiteral("2.3 msgs/s"));
    QCOMPARE(formatBytes(16 * 1024 * 1024), QStringLiteral("16.0 MiB"));
    QCOMPARE(formatBytes(512), QStringLiteral("512 B"));
    // A peer's markup in an error or a name is shown, never rendered.
    const QString hostile = QStringLiteral("<img src=\"x\"><b>bold</b> & more");
    const QString tip = plainToolTip(hostile);
    QVERIFY(!tip.contains(QStringLiteral("<img")));
    QVERIFY(!tip.contains(QStringLiteral("<b>")));
    QVERIFY(tip.contains(hostile.toHtmlEscaped()));
    QTextDocument doc;
    doc.setHtml(tip);
    QCOMPARE(doc.toPlainText(), hostile);
    QCOMPARE(plainToolTip(QString()), QString());
    QCOMPARE(formatAgo(180000), QStringLiteral("3 min ago"));
    QCOMPARE(formatAgo(500), QStringLiteral("just now"));
    QCOMPARE(formatDuration(97000), QStringLiteral("1 min 37 s"));
    QCOMPARE(formatRatio(0.853), QStringLiteral("85.3 %"));
    QCOMPARE(formatRatio(-1), QStringLiteral("n/a"));
    QCOMPARE(formatPerm(6), QStringLiteral("RW"));
    QCOMPARE(formatPerm(4), QStringLiteral("R-"));
    QCOMPARE(hexDump("Hi!").left(18), QStringLiteral("00000000  48 69 21"));
    QCOMPARE(mqVersionName(407), QStringLiteral("V4_9_7"));
    QCOMPARE(classifyTopic("%RETRY%G", {}), TopicType::Retry);
    QCOMPARE(classifyTopic("%DLQ%G", {}), TopicType::Dlq);
    QCOMPARE(classifyTopic("TBW102", {}), TopicType::System);
    QCOMPARE(classifyTopic("DefaultCluster", {QByteArray("DefaultCluster")}), TopicType::System);
    QCOMPARE(classifyTopic("Orders", {}), TopicType::Normal);
    QVERIFY(ConnectDialog::checkAddress(QStringLiteral("127.0.0.1:9876;10.0.0.2:9876")).isEmpty());
    QVERIFY(!ConnectDialog::checkAddress(QStringLiteral("127.0.0.1")).isEmpty());
    QVERIFY(!ConnectDialog::checkAddress(QStringLiteral("host:99999")).isEmpty());
    QVERIFY(!ConnectDialog::checkAddress(QStringLiteral(";")).isEmpty());
}

void tst_ConsoleModels::brokerModelFills()
{
    BrokerModel model(m_session.get());
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 2, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(text(model, 0, BrokerModel::Heartbeat).endsWith(QStringLiteral("ago"))
            || text(model, 0, BrokerModel::Heartbeat) == QStringLiteral("just now"),
        10000);
    for (int r = 0; r < 2; ++r) {
        // The wait above was for row 0: the other broker's liveness may be a poll behind.
        QTRY_COMPARE_WITH_TIMEOUT(
            text(model, r, BrokerModel::State), QStringLiteral("live"), 10000);
        QVERIFY(
            !model.index(r, BrokerModel::State).data(Qt::DecorationRole).value<QIcon>().isNull());
        QCOMPARE(text(model, r, BrokerModel::Version), QStringLiteral("V4_9_7"));
        QCOMPARE(text(model, r, BrokerModel::Role), QStringLiteral("0 (master)"));
        QVERIFY(text(model, r, BrokerModel::PutTps).endsWith(QStringLiteral("msgs/s")));
        // Numbers are right-aligned; the liveness has a tooltip saying where it comes from.
        QVERIFY(model.index(r, BrokerModel::MaxOffset)
                    .data(Qt::TextAlignmentRole)
                    .value<Qt::Alignment>()
            & Qt::AlignRight);
        QVERIFY(!model.index(r, BrokerModel::State).data(Qt::ToolTipRole).toString().isEmpty());
    }
    QVERIFY(m_session->livenessSupported());
    QVERIFY(model.index(0, BrokerModel::MaxOffset).data(SyncTableModel::SortRole).toLongLong() > 0
        || model.index(1, BrokerModel::MaxOffset).data(SyncTableModel::SortRole).toLongLong() > 0);
    model.tick(); // ages move on without a poll: dataChanged only
}

void tst_ConsoleModels::topicModelFillsAndFilters()
{
    TopicModel model(m_session.get());
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QTRY_VERIFY_WITH_TIMEOUT(rowOf(model, "ModelTopic") >= 0
            && text(model, rowOf(model, "ModelTopic"), TopicModel::Brokers) == QStringLiteral("2"),
        15000);
    const int row = rowOf(model, "ModelTopic");
    QCOMPARE(text(model, row, TopicModel::WriteQueues), QStringLiteral("8"));
    QCOMPARE(text(model, row, TopicModel::Perm), QStringLiteral("RW"));
    QCOMPARE(text(model, row, TopicModel::Type), QStringLiteral("normal"));
    QVERIFY(rowOf(model, "TBW102") >= 0);

    TopicFilter filter;
    filter.setSourceModel(&model);
    QAbstractItemModelTester filterTester(
        &filter, QAbstractItemModelTester::FailureReportingMode::QtTest);
    filter.setTypeMask(1 << static_cast<int>(TopicType::Normal));
    for (int r = 0; r < filter.rowCount(); ++r)
        QCOMPARE(filter.index(r, TopicModel::Type).data().toString(), QStringLiteral("normal"));
    filter.setSearch(QStringLiteral("modelTOP"));
    QCOMPARE(filter.rowCount(), 1);
    filter.setTypeMask(1 << static_cast<int>(TopicType::System));
    QCOMPARE(filter.rowCount(), 0);
    filter.setSearch({});
    QVERIFY(filter.rowCount() >= 1); // TBW102 at least
}

void tst_ConsoleModels::topicModelSyncsInPlace()
{
    ClusterSession offline(QStringLiteral("127.0.0.1:1")); // never started: fed by hand
    TopicModel model(&offline);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    std::vector<QByteArray> names;
    std::map<QByteArray, TopicInfo> configs;
    for (int i = 0; i < 1000; ++i) {
        names.push_back("T" + QByteArray::number(i).rightJustified(4, '0'));
        configs[names.back()] = TopicInfo {names.back(), TopicType::Normal, 1, 4, 4, 6, false};
    }
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    QSignalSpy inserts(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy removes(&model, &QAbstractItemModel::rowsRemoved);
    QSignalSpy changes(&model, &QAbstractItemModel::dataChanged);
    offline.applyTopics(names, configs, {});
    QCOMPARE(model.rowCount(), 1000);
    QCOMPARE(resets.count(), 1); // the first fill is one reset
    resets.clear();
    // The same catalogue again: nothing at all is signalled.
    offline.applyTopics(names, configs, {});
    QCOMPARE(resets.count() + inserts.count() + removes.count() + changes.count(), 0);
    // One gone, one new, one changed: one remove, one insert, one dataChanged, no reset.
    names.erase(names.begin() + 10);
    names.push_back("NEW");
    configs["T0500"].writeQueues = 16;
    offline.applyTopics(names, configs, {});
    QCOMPARE(resets.count(), 0);
    QCOMPARE(removes.count(), 1);
    QCOMPARE(inserts.count(), 1);
    QCOMPARE(changes.count(), 1);
    QCOMPARE(model.rowCount(), 1000);
    QCOMPARE(text(model, rowOf(model, "T0500"), TopicModel::WriteQueues), QStringLiteral("16"));
    QCOMPARE(rowOf(model, "T0010"), -1);
}

namespace {

/// Every structural or data signal a model emits, counted.
struct ModelSpies
{
    explicit ModelSpies(QAbstractItemModel *m)
        : resets(m, &QAbstractItemModel::modelReset)
        , inserts(m, &QAbstractItemModel::rowsInserted)
        , removes(m, &QAbstractItemModel::rowsRemoved)
        , moves(m, &QAbstractItemModel::rowsMoved)
        , layouts(m, &QAbstractItemModel::layoutChanged)
        , changes(m, &QAbstractItemModel::dataChanged)
    { }
    int total() const
    {
        return int(resets.count() + inserts.count() + removes.count() + moves.count()
            + layouts.count() + changes.count());
    }
    void clear()
    {
        for (QSignalSpy *s : {&resets, &inserts, &removes, &moves, &layouts, &changes})
            s->clear();
    }
    QSignalSpy resets, inserts, removes, moves, layouts, changes;
};

} // namespace

void tst_ConsoleModels::topicRefreshSignalsOnlyWhatChanged()
{
    // A catalogue in the name server's (unsorted) order, mixed case, behind the topics tab's
    // sorting filter: a refresh signals exactly the rows that changed, nothing when none did.
    ClusterSession offline(QStringLiteral("127.0.0.1:1")); // never started: fed by hand
    TopicModel model(&offline);
    TopicFilter filter;
    filter.setSourceModel(&model);
    filter.sort(TopicModel::Name, Qt::AscendingOrder);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester filterTester(
        &filter, QAbstractItemModelTester::FailureReportingMode::QtTest);
    std::vector<QByteArray> names;
    std::map<QByteArray, TopicInfo> configs;
    for (int i = 0; i < 2000; ++i) {
        const int k = (i * 7919) % 2000; // shuffled
        QByteArray name = (k % 3 ? "t" : "T") + QByteArray::number(k).rightJustified(4, '0');
        names.push_back(name);
        configs[name] = TopicInfo {name, TopicType::Normal, 1, 4, 4, 6, false};
    }
    ModelSpies m(&model);
    ModelSpies f(&filter);
    offline.applyTopics(names, configs, {});
    QCOMPARE(model.rowCount(), 2000);
    QCOMPARE(filter.rowCount(), 2000);
    QCOMPARE(m.resets.count(), 1);
    // Sorted case-insensitively, as QString compares them.
    for (int r = 1; r < filter.rowCount(); ++r) {
        QVERIFY2(
            QString::compare(text(filter, r - 1, 0), text(filter, r, 0), Qt::CaseInsensitive) < 0,
            qPrintable(text(filter, r, 0)));
    }
    m.clear();
    f.clear();

    // Unchanged, in another order, and again through the prepared (worker) path: nothing.
    std::reverse(names.begin(), names.end());
    offline.applyTopics(names, configs, {});
    offline.applyPreparedTopics(ClusterSession::prepareTopics(names, configs, {}), {});
    QCOMPARE(m.total(), 0);
    QCOMPARE(f.total(), 0);

    // Three rows change (write queues), two go, two come: exactly those rows are signalled.
    const QByteArray changed[] = {"T0000", "t0500", "t1999"};
    for (const QByteArray &c : changed)
        configs[c].writeQueues = 32;
    names.erase(std::find(names.begin(), names.end(), QByteArray("t1000")));
    names.erase(std::find(names.begin(), names.end(), QByteArray("t0100")));
    names.push_back("t0500a");
    names.push_back("T1500a");
    configs["t0500a"] = configs["T1500a"] = TopicInfo {"", TopicType::Normal, 2, 8, 8, 6, false};
    const int rowsBefore[] = {rowOf(model, "T0000"), rowOf(model, "t0500"), rowOf(model, "t1999")};
    offline.applyTopics(names, configs, {});
    QCOMPARE(m.resets.count(), 0);
    QCOMPARE(m.moves.count() + m.layouts.count(), 0);
    QCOMPARE(m.removes.count(), 2);
    QCOMPARE(m.inserts.count(), 2);
    for (const QSignalSpy *spy : {&m.removes, &m.inserts}) {
        for (const QList<QVariant> &args : *spy)
            QCOMPARE(args.at(1).toInt(), args.at(2).toInt()); // one row each
    }
    QCOMPARE(m.changes.count(), 3);
    for (int k = 0; k < 3; ++k) {
        const auto topLeft = m.changes.at(k).at(0).value<QModelIndex>();
        const auto bottomRight = m.changes.at(k).at(1).value<QModelIndex>();
        QCOMPARE(topLeft.row(), rowsBefore[k]); // signalled before the removals and inserts
        QCOMPARE(bottomRight.row(), rowsBefore[k]);
        QCOMPARE(topLeft.column(), int(TopicModel::WriteQueues)); // only the column that changed
        QCOMPARE(bottomRight.column(), int(TopicModel::WriteQueues));
    }
    QCOMPARE(model.rowCount(), 2000);
    for (int r = 1; r < model.rowCount(); ++r) // still sorted: new rows went where they belong
        QVERIFY(model.topicAt(r - 1)->name < model.topicAt(r)->name);
    QCOMPARE(rowOf(model, "t1000"), -1);
    QCOMPARE(text(model, rowOf(model, "t0500a"), TopicModel::Brokers), QStringLiteral("2"));
    QCOMPARE(text(model, rowOf(model, "t0500"), TopicModel::WriteQueues), QStringLiteral("32"));
    // The filter, sorted by name, re-sorts nothing for a write-queue change.
    QCOMPARE(f.resets.count() + f.layouts.count(), 0);
    QCOMPARE(f.changes.count(), 3);
    QCOMPARE(text(filter, rowOf(filter, "t0500a") - 1, 0), QStringLiteral("t0500"));
    m.clear();
    f.clear();

    // Sorted by the column that changes: the changed row moves to the top.
    filter.sort(TopicModel::WriteQueues, Qt::DescendingOrder);
    f.clear();
    configs["t0778"].writeQueues = 64;
    offline.applyTopics(names, configs, {});
    QCOMPARE(m.changes.count(), 1);
    QCOMPARE(m.resets.count() + m.inserts.count() + m.removes.count(), 0);
    QCOMPARE(text(filter, 0, 0), QStringLiteral("t0778"));
    QCOMPARE(f.resets.count(), 0);
    filter.sort(TopicModel::Name, Qt::AscendingOrder);
    m.clear();

    // Many scattered changes: one dataChanged over the rows between, still only that column.
    for (int i = 0; i < 2000; i += 10)
        configs[names[static_cast<std::size_t>(i)]].readQueues = 2;
    offline.applyTopics(names, configs, {});
    QCOMPARE(m.total(), 1);
    QCOMPARE(m.changes.count(), 1);
    QCOMPARE(m.changes.at(0).at(0).value<QModelIndex>().column(), int(TopicModel::ReadQueues));
    QCOMPARE(m.changes.at(0).at(1).value<QModelIndex>().column(), int(TopicModel::ReadQueues));
    m.clear();

    // Search: case-insensitive, on the names as they are.
    filter.setSearch(QStringLiteral("T050"));
    QCOMPARE(filter.rowCount(), 11); // t0500..t0509 and t0500a
}

void tst_ConsoleModels::topicSortFollowsChangingColumn()
{
    // Sorted by the column that changes (write queues, descending): right after each refresh
    // the order is exactly the sort's (equal ones by name), whether rows went up or down, next
    // to each other or apart, came or went; a layout change, never a reset; the selected row
    // stays selected.
    ClusterSession offline(QStringLiteral("127.0.0.1:1")); // never started: fed by hand
    TopicModel model(&offline);
    TopicFilter filter;
    filter.setSourceModel(&model);
    QAbstractItemModelTester filterTester(
        &filter, QAbstractItemModelTester::FailureReportingMode::QtTest);
    std::vector<QByteArray> names;
    std::map<QByteArray, TopicInfo> configs;
    for (int i = 0; i < 3000; ++i) {
        names.push_back("S" + QByteArray::number(i).rightJustified(4, '0'));
        configs[names.back()] = TopicInfo {names.back(), TopicType::Normal, 1, 4, 4 + i % 7, 6};
    }
    offline.applyTopics(names, configs, {});
    filter.sort(TopicModel::WriteQueues, Qt::DescendingOrder);
    QItemSelectionModel selection(&filter);
    const auto inOrder = [&]() -> QString {
        std::vector<std::pair<int, QByteArray>> expected;
        for (const QByteArray &n : names)
            expected.emplace_back(-configs[n].writeQueues, n);
        std::sort(expected.begin(), expected.end());
        if (static_cast<int>(expected.size()) != filter.rowCount())
            return QStringLiteral("%1 rows, %2 expected")
                .arg(filter.rowCount())
                .arg(expected.size());
        for (int r = 0; r < filter.rowCount(); ++r) {
            const QByteArray key = filter.index(r, 0).data(SyncTableModel::KeyRole).toByteArray();
            if (key != expected[static_cast<std::size_t>(r)].second) {
                return QStringLiteral("row %1 is %2, expected %3")
                    .arg(r)
                    .arg(QString::fromUtf8(key),
                        QString::fromUtf8(expected[static_cast<std::size_t>(r)].second));
            }
        }
        return {};
    };
    QCOMPARE(inOrder(), QString());
    ModelSpies f(&filter);
    quint32 seed = 7;
    const auto next = [&seed](quint32 n) {
        seed = seed * 1103515245u + 12345u;
        return (seed >> 8) % n;
    };
    const QByteArray selected = "S1500";
    for (int round = 0; round < 8; ++round) {
        selection.setCurrentIndex(filter.index(rowOf(filter, selected), 0),
            QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        if (round == 3) {
            // A whole run of equal rows (adjacent in the view) jumps to the top.
            for (auto &[name, t] : configs) {
                if (t.writeQueues == 5)
                    t.writeQueues = 30;
            }
        } else {
            // Scattered rows up and down, some in adjacent pairs; a few go, a few come.
            const int changes = round % 2 ? 30 : 300;
            for (int k = 0; k < changes; ++k) {
                const auto i = next(static_cast<quint32>(names.size() - 1));
                configs[names[i]].writeQueues = static_cast<int>(next(20));
                if (k % 3 == 0)
                    configs[names[i + 1]].writeQueues = configs[names[i]].writeQueues + 1;
            }
            for (int k = 0; k < 5; ++k) {
                const auto i = next(static_cast<quint32>(names.size()));
                if (names[i] != selected)
                    names.erase(names.begin() + i);
                QByteArray fresh = "S" + QByteArray::number(next(3000)).rightJustified(4, '0') + "-"
                    + QByteArray::number(round) + QByteArray::number(k);
                configs[fresh] = TopicInfo {fresh, TopicType::Normal, 1, 4, int(next(20)), 6};
                names.push_back(fresh);
            }
        }
        f.clear();
        offline.applyTopics(names, configs, {});
        QCOMPARE(inOrder(), QString());
        QCOMPARE(f.resets.count(), 0);
        QVERIFY(f.layouts.count() >= 1);
        QCOMPARE(selection.currentIndex().data(SyncTableModel::KeyRole).toByteArray(), selected);
        QVERIFY(selection.isRowSelected(selection.currentIndex().row()));
    }
    // Back to the name, then the other way: equal keys still by name.
    filter.sort(TopicModel::WriteQueues, Qt::AscendingOrder);
    for (int r = 1; r < filter.rowCount(); ++r) {
        const TopicInfo *a = model.topicAt(filter.mapToSource(filter.index(r - 1, 0)).row());
        const TopicInfo *b = model.topicAt(filter.mapToSource(filter.index(r, 0)).row());
        QVERIFY(a->writeQueues < b->writeQueues
            || (a->writeQueues == b->writeQueues && a->name < b->name));
    }
    QCOMPARE(selection.currentIndex().data(SyncTableModel::KeyRole).toByteArray(), selected);
}

void tst_ConsoleModels::topicSelectionSurvivesManyRanges()
{
    // The topics tab with a topic selected and the view scrolled to it; a refresh changes
    // 10,000 rows and removes and adds 5,000 scattered ones: far more ranges than are signalled
    // one by one. The model changes its layout (no reset): the topic stays selected and the
    // view stays where it was.
    ClusterSession offline(QStringLiteral("127.0.0.1:1")); // never started: fed by hand
    TopicsView view(&offline);
    view.resize(900, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    std::vector<QByteArray> names;
    std::map<QByteArray, TopicInfo> configs;
    for (int i = 0; i < 20000; ++i) {
        names.push_back("M" + QByteArray::number(i).rightJustified(5, '0'));
        configs[names.back()] = TopicInfo {names.back(), TopicType::Normal, 1, 4, 4, 6};
    }
    offline.applyTopics(names, configs, {});
    view.table()->sortByColumn(TopicModel::Name, Qt::AscendingOrder);
    const QByteArray selected = "M10001";
    view.selectTopic(selected);
    QCOMPARE(view.currentTopic(), selected);
    QTest::qWait(10);
    const int scroll = view.table()->verticalScrollBar()->value();
    QVERIFY(scroll > 0);
    ModelSpies m(view.model());
    ModelSpies f(view.filter());
    std::vector<QByteArray> fresh;
    for (int i = 0; i < 20000; ++i) {
        if (i % 2 == 0)
            configs[names[static_cast<std::size_t>(i)]].readQueues = 8;
        if (i % 4 != 1 || names[static_cast<std::size_t>(i)] == selected)
            fresh.push_back(names[static_cast<std::size_t>(i)]);
        if (i % 4 == 2) {
            fresh.push_back(names[static_cast<std::size_t>(i)] + "-new");
            configs[fresh.back()] = TopicInfo {fresh.back(), TopicType::Normal, 1, 4, 4, 6};
        }
    }
    offline.applyTopics(fresh, configs, {});
    QCOMPARE(m.resets.count(), 0);
    QCOMPARE(m.layouts.count(), 1);
    QCOMPARE(f.resets.count(), 0);
    QCOMPARE(view.model()->rowCount(), 20001);
    QCOMPARE(view.currentTopic(), selected);
    QVERIFY(view.table()->selectionModel()->isRowSelected(view.table()->currentIndex().row()));
    QCOMPARE(view.table()->verticalScrollBar()->value(), scroll);
    QCOMPARE(rowOf(*view.model(), "M10005"), -1);
    QCOMPARE(text(*view.model(), rowOf(*view.model(), "M10002-new"), TopicModel::Perm),
        QStringLiteral("RW"));
    QCOMPARE(text(*view.model(), rowOf(*view.model(), "M10002"), TopicModel::ReadQueues),
        QStringLiteral("8"));
    // Sorted by a column as well, the same again; then a refresh that removes the selected
    // topic: nothing is selected (no other row takes its place).
    view.table()->sortByColumn(TopicModel::ReadQueues, Qt::DescendingOrder);
    view.selectTopic(selected);
    for (std::size_t i = 0; i < fresh.size(); i += 3)
        configs[fresh[i]].readQueues += 1;
    offline.applyTopics(fresh, configs, {});
    QCOMPARE(view.currentTopic(), selected);
    fresh.erase(std::find(fresh.begin(), fresh.end(), selected));
    fresh.erase(fresh.begin(), fresh.begin() + 12000);
    offline.applyTopics(fresh, configs, {});
    QCOMPARE(view.currentTopic(), QByteArray());
    QCOMPARE(view.filter()->rowCount(), static_cast<int>(fresh.size()));
}

void tst_ConsoleModels::topicRateListFollowsRates()
{
    // The per-topic charts' list: busiest first, the top ones checked until the operator
    // chooses; a new order keeps the checks with their topics and the selection.
    TopicRateList list(2, nullptr);
    QAbstractItemModelTester tester(&list, QAbstractItemModelTester::FailureReportingMode::QtTest);
    std::map<QByteArray, TopicRates> rates;
    for (int i = 0; i < 50; ++i) {
        TopicRates &r = rates["R" + QByteArray::number(i).rightJustified(2, '0')];
        r.putTps = i % 10;
        r.getTps = 0;
    }
    list.update(rates);
    QCOMPARE(list.rowCount(), 50);
    QCOMPARE(list.index(0).data(Qt::UserRole).toString(), QStringLiteral("R09")); // 9, by name
    QCOMPARE(list.index(1).data(Qt::UserRole).toString(), QStringLiteral("R19"));
    QCOMPARE(list.checked(), (QStringList {QStringLiteral("R09"), QStringLiteral("R19")}));
    QVERIFY(list.index(0).data(Qt::DisplayRole).toString().contains(QStringLiteral("put 9")));
    QItemSelectionModel selection(&list);
    selection.setCurrentIndex(list.index(5), QItemSelectionModel::ClearAndSelect);
    const QString current = list.index(5).data(Qt::UserRole).toString();
    // The same order: figures in place, no layout change.
    ModelSpies spies(&list);
    rates["R09"].getTps = 1;
    list.update(rates);
    QCOMPARE(spies.layouts.count(), 0);
    QCOMPARE(spies.changes.count(), 1);
    // The operator unchecks the first: the choice is theirs from then on.
    QVERIFY(list.setData(list.index(0), Qt::Unchecked, Qt::CheckStateRole));
    QCOMPARE(list.checked(), QStringList {QStringLiteral("R19")});
    // A new order: R00 becomes the busiest; R19 stays checked wherever it goes, and so does
    // the selection.
    rates["R00"].putTps = 100;
    list.update(rates);
    QCOMPARE(spies.layouts.count(), 1);
    QCOMPARE(list.index(0).data(Qt::UserRole).toString(), QStringLiteral("R00"));
    QCOMPARE(list.checked(), QStringList {QStringLiteral("R19")});
    QCOMPARE(selection.currentIndex().data(Qt::UserRole).toString(), current);
    // A checked topic that leaves the rates leaves the choice.
    rates.erase("R19");
    list.update(rates);
    QCOMPARE(list.checked(), QStringList());
    list.setChecked({QStringLiteral("R00"), QStringLiteral("nope")});
    QCOMPARE(list.checked(), QStringList {QStringLiteral("R00")});
}

void tst_ConsoleModels::routeModelShowsQueuesAndOffsets()
{
    RouteQueueModel model(m_session.get());
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    m_session->setFocusTopic("ModelTopic");
    auto messages = [&] {
        qlonglong n = 0;
        for (int r = 0; r < model.rowCount(); ++r)
            n += model.index(r, RouteQueueModel::Messages)
                     .data(SyncTableModel::SortRole)
                     .toLongLong();
        return n;
    };
    QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 8, 10000);
    QTRY_COMPARE_WITH_TIMEOUT(messages(), 20LL, 10000);
    QCOMPARE(text(model, 0, RouteQueueModel::Access), QStringLiteral("read write"));
    m_session->setFocusTopic("NoSuchTopicHere");
    QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 0, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(!m_session->focusTopicPart().error.isEmpty(), 10000);
}

void tst_ConsoleModels::groupAndConsumerModels()
{
    client::PushConsumerOptions o;
    o.group = "ModelGroup";
    o.client.namesrvAddr = m_cluster->namesrvAddress().toUtf8();
    o.client.clientIP = "127.0.0.1";
    o.client.instanceName = "modelgroup";
    o.client.heartbeatBrokerInterval = 1000;
    o.client.persistConsumerOffsetInterval = 500;
    o.consumeFromWhere = client::ConsumeFromWhere::ConsumeFromFirstOffset;
    m_consumer = std::make_unique<client::PushConsumer>(o);
    QVERIFY(m_consumer->subscribe("ModelTopic").isOk());
    m_consumer->registerMessageListener(
        [](const std::vector<client::MessageExt> &, client::ConsumeConcurrentlyContext &) {
            return client::ConsumeConcurrentlyStatus::ConsumeSuccess;
        });
    QVERIFY(m_consumer->start().isOk());

    GroupModel groups(m_session.get());
    QAbstractItemModelTester groupTester(
        &groups, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QTRY_VERIFY_WITH_TIMEOUT(
        (m_session->refreshCatalog(), rowOf(groups, "ModelGroup") >= 0), 15000);
    // ModelTopic's 8 queues (+ the %RETRY% topic's), all consumed.
    QTRY_VERIFY_WITH_TIMEOUT(groups.index(rowOf(groups, "ModelGroup"), GroupModel::Queues)
                                 .data(SyncTableModel::SortRole)
                                 .toInt()
                >= 8
            && text(groups, rowOf(groups, "ModelGroup"), GroupModel::Lag) == QStringLiteral("0"),
        20000);
    QCOMPARE(text(groups, rowOf(groups, "ModelGroup"), GroupModel::Topics), QStringLiteral("1"));

    ConsumerQueueModel queues(m_session.get());
    ConnectionModel connections(m_session.get());
    QAbstractItemModelTester queueTester(
        &queues, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester connectionTester(
        &connections, QAbstractItemModelTester::FailureReportingMode::QtTest);
    m_session->setFocusGroup("ModelGroup");
    QTRY_VERIFY_WITH_TIMEOUT(queues.rowCount() >= 8, 10000); // ModelTopic's 8 (+ the %RETRY% queue)
    QTRY_COMPARE_WITH_TIMEOUT(connections.rowCount(), 1, 10000);
    QCOMPARE(text(connections, 0, ConnectionModel::Language), QStringLiteral("CPP"));
    QVERIFY(text(connections, 0, ConnectionModel::Subscriptions)
                .contains(QStringLiteral("ModelTopic")));
    queues.setQueueOwners(
        {{protocol::MessageQueue {"ModelTopic", m_cluster->brokerName(0).toUtf8(), 0}, "me"}});
}

void tst_ConsoleModels::popGroupShowsModeAndInFlight()
{
    protocol::SetMessageRequestModeRequestBody mode;
    mode.topic = "ModelTopic";
    mode.consumerGroup = "ModelPopGroup";
    mode.mode = "POP";
    auto set = m_session->admin().setMessageRequestModeInCluster(
        m_cluster->clusterName().toUtf8(), mode);
    QVERIFY(set && set->isOk());
    client::SimpleConsumerOptions o;
    o.group = "ModelPopGroup";
    o.client.namesrvAddr = m_cluster->namesrvAddress().toUtf8();
    o.client.clientIP = "127.0.0.1";
    o.client.instanceName = "modelpop";
    o.awaitDurationMillis = 300;
    o.consumeFromFirst = true;
    client::SimpleConsumer consumer(o);
    QVERIFY(consumer.subscribe("ModelTopic").isOk());
    QVERIFY(consumer.start().isOk());
    std::size_t popped = 0;
    QElapsedTimer t;
    t.start();
    while (popped < 5 && t.elapsed() < 10000) {
        auto r = consumer.receive(5, 60000); // never acked: in flight for a minute
        if (r)
            popped += r->size();
    }
    QVERIFY(popped >= 5);

    GroupModel groups(m_session.get());
    QTRY_VERIFY_WITH_TIMEOUT(
        (m_session->refreshCatalog(),
            rowOf(groups, "ModelPopGroup") >= 0
                && text(groups, rowOf(groups, "ModelPopGroup"), GroupModel::InFlight)
                    == QString::number(popped)),
        15000);
    const int row = rowOf(groups, "ModelPopGroup");
    QCOMPARE(text(groups, row, GroupModel::Mode), QStringLiteral("POP"));
    QCOMPARE(text(groups, row, GroupModel::ReviveBacklog), QStringLiteral("0"));
    QCOMPARE(text(groups, rowOf(groups, "ModelGroup"), GroupModel::Mode), QStringLiteral("PULL"));
}

void tst_ConsoleModels::storeFileModelListsFiles()
{
    StoreFileModel model(m_session.get());
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QTRY_VERIFY_WITH_TIMEOUT(model.rowCount() >= 2, 15000); // a commit-log file per broker
    QVERIFY(text(model, 0, StoreFileModel::Size).endsWith(QStringLiteral("MiB")));
    QVERIFY(!text(model, 0, StoreFileModel::Reason).isEmpty());
}

void tst_ConsoleModels::messageModelHoldsAQuery()
{
    MessageModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    Result<client::QueryMessageResult> r
        = m_session->admin().queryMessageByKey("ModelTopic", "model-key");
    QVERIFY(r.has_value());
    QCOMPARE(r->messages.size(), std::size_t(20));
    model.setMessages(r->messages);
    QCOMPARE(model.rowCount(), 20);
    std::vector<client::MessageExt> fewer(r->messages.begin(), r->messages.begin() + 5);
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    model.setMessages(fewer);
    QCOMPARE(model.rowCount(), 5);
    QCOMPARE(resets.count(), 1); // more than half went: one reset
    QVERIFY(text(model, 0, MessageModel::Keys) == QStringLiteral("model-key"));
}

void tst_ConsoleModels::alertModelFollowsRules()
{
    AlertEngine engine(m_session.get());
    AlertModel alerts(&engine);
    AlertRuleModel rules(&engine);
    QAbstractItemModelTester tester(
        &alerts, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester ruleTester(
        &rules, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy raised(&engine, &AlertEngine::raised);
    engine.setRules({{AlertRule::DiskOver, 0.0, {}, true}}); // any used disk is "over 0 %"
    QTRY_COMPARE_WITH_TIMEOUT(alerts.rowCount(), 2, 5000);
    QCOMPARE(raised.count(), 2);
    QVERIFY(text(alerts, 0, AlertModel::Text).contains(QStringLiteral("disk of")));
    // Editing the rule in its table (threshold in %) clears the alerts.
    QVERIFY(rules.setData(rules.index(0, AlertRuleModel::Threshold), 100, Qt::EditRole));
    QTRY_COMPARE_WITH_TIMEOUT(alerts.rowCount(), 0, 5000);
    QCOMPARE(AlertEngine::loadRules().front().threshold, 1.0); // stored with QSettings
    engine.setRules({{AlertRule::LagOver, 1000000, {}, true}});
    engine.evaluate();
    QCOMPARE(alerts.rowCount(), 0);
    // Put TPS positive, then zero for a second: the TPS-drop rule fires.
    engine.setRules({{AlertRule::TpsZero, 1, {}, true}});
    for (int i = 0; i < 10; ++i)
        QVERIFY(m_producer->sendSync(client::Message("ModelTopic", QByteArray("tps"))).has_value());
    QTRY_VERIFY_WITH_TIMEOUT(alerts.rowCount() >= 1, 15000);
    QVERIFY(text(alerts, 0, AlertModel::Text).contains(QStringLiteral("put TPS")));
    engine.setRules(AlertEngine::defaultRules());
}

QTEST_MAIN(tst_ConsoleModels)
#include "tst_consolemodels.moc"
