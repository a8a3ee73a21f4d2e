// Bounded, seeded mutation fuzzing of the protocol decoders (a ctest with label "fuzz"):
// mutants of the real captured frames, stored records and JSON bodies go through fuzztargets.cpp,
// which checks invariants and must never crash, hang or trip a sanitizer.
// QROCKET_FUZZ_ITERATIONS scales the loops (default 200000 frame mutants); QROCKET_FUZZ_SEED
// picks another seed.

#include "clientlib/protocol/bodies/popbodies.h"
#include "clientlib/protocol/framecodec.h"
#include "clientlib/protocol/headers/popheaders.h"
#include "clientlib/protocol/popcodes.h"
#include "fuzztargets.h"
#include "mutator.h"
#include "tests/testlib/vectors.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QTest>

#include <vector>

namespace {

using qrocket::fuzz::Mutator;

QByteArray readVector(const QString &relative)
{
    return qrocket::testing::readVectorFile(relative);
}

} // namespace

class tst_FuzzCodec : public QObject
{
    Q_OBJECT

private:
    std::vector<QByteArray> m_frames;
    std::vector<QByteArray> m_bodies;
    std::vector<QByteArray> m_records;
    int m_iterations = 0;
    quint32 m_seed = 0;

    /// POP (RocketMQ 5.3's shapes; the captures are 4.9.7's): frames of our header encoders and
    /// bodies of our writers, for the mutator to start from.
    void addPopSeeds()
    {
        using namespace qrocket::protocol;
        const QByteArray handle = "5 1700000000000 30000 3 0 broker-a 1 7";
        PopMessageRequestHeader pop;
        pop.consumerGroup = "G";
        pop.topic = "T";
        pop.maxMsgNums = 32;
        pop.invisibleTime = 30000;
        pop.pollTime = 1000;
        pop.bornTime = 1700000000000;
        pop.expType = "TAG";
        pop.exp = "a || b";
        pop.order = true;
        RemotingCommand r = RemotingCommand::createRequest(popcode::PopMessage);
        pop.encode(r);
        m_frames.push_back(encodeFrame(r));
        PopMessageResponseHeader popped;
        popped.popTime = 1700000000000;
        popped.invisibleTime = 30000;
        popped.restNum = 12;
        appendStartOffsetInfo(popped.startOffsetInfo, '0', 1, 5);
        appendMsgOffsetInfo(popped.msgOffsetInfo, '0', 1, {5, 6, 7});
        appendOrderCountInfo(popped.orderCountInfo, '0', 1, 2);
        RemotingCommand answer = RemotingCommand::createResponse(r, 0);
        popped.encode(answer);
        m_frames.push_back(encodeFrame(answer));
        AckMessageRequestHeader ack {"G", "T", 1, handle, 7};
        RemotingCommand a = RemotingCommand::createRequest(popcode::AckMessage);
        ack.encode(a);
        m_frames.push_back(encodeFrame(a));
        ChangeInvisibleTimeRequestHeader change {"G", "T", 1, handle, 7, 60000};
        RemotingCommand c = RemotingCommand::createRequest(popcode::ChangeMessageInvisibleTime);
        change.encode(c);
        m_frames.push_back(encodeFrame(c));

        BatchAckMessageRequestBody batch;
        batch.brokerName = "broker-a";
        batch.acks.push_back({"G", "T", "0", 5, 1, 3, 1700000000000, 30000, {5, 7, 70}});
        m_bodies.push_back(batch.toJson());
        MessageRequestModeTable modes;
        modes.modes["T"]["G"] = SetMessageRequestModeRequestBody {"T", "G", "POP", 2};
        m_bodies.push_back(modes.toJson());
        m_bodies.push_back(modes.modes["T"]["G"].toJson());
        m_bodies.push_back(
            QueryAssignmentRequestBody {"T", "G", "cid@1", "AVG", MessageModel::Clustering}
                .toJson());
        QueryAssignmentResponseBody assigned;
        assigned.messageQueueAssignments.push_back({MessageQueue {"T", "broker-a", 1}, "POP"});
        m_bodies.push_back(assigned.toJson());
    }

private slots:
    void initTestCase()
    {
        const auto budget = qrocket::fuzz::FuzzBudget::fromEnvironment(200000, 20261130);
        m_iterations = budget.iterations;
        m_seed = budget.seed;
        QROCKET_REQUIRE_VECTORS();
        const QByteArray all = readVector(QStringLiteral("frames.jsonl"));
        for (const QByteArray &line : all.split('\n')) {
            if (line.trimmed().isEmpty())
                continue;
            const QJsonObject o = QJsonDocument::fromJson(line).object();
            m_frames.push_back(
                QByteArray::fromBase64(o.value(QLatin1String("frame_b64")).toString().toLatin1()));
            const QByteArray body
                = QByteArray::fromBase64(o.value(QLatin1String("body_b64")).toString().toLatin1());
            if (!body.isEmpty() && (body[0] == '{' || body[0] == '['))
                m_bodies.push_back(body);
            else if (body.size() > 91)
                m_records.push_back(body); // pull/query/view/batch bodies
        }
        const QByteArray commitLog
            = readVector(QStringLiteral("store/commitlog/00000000000000000000.first64KiB"));
        for (qsizetype off = 0; off + 2048 <= commitLog.size(); off += 2048)
            m_records.push_back(commitLog.mid(off, 4096)); // not aligned to records: all the better
        m_records.push_back(commitLog.left(8192));
        for (const char *file : {"store/config/topics.json", "store/config/consumerOffset.json",
                 "store/config/subscriptionGroup.json", "store/namesrv/kvConfig.json"})
            m_bodies.push_back(readVector(QString::fromLatin1(file)));
        // ACL 2.0 bodies (RocketMQ 5.3's UserInfo/AclInfo shapes): no capture of them exists.
        const QByteArray user = R"({"username":"alice","password":"12345678",)"
                                R"("userType":"Normal","userStatus":"enable"})";
        const QByteArray acl = R"({"subject":"User:alice","policies":[{"policyType":"Custom",)"
                               R"("entries":[{"resource":"Topic:orders*","actions":["Pub","Sub"],)"
                               R"("sourceIps":["10.0.0.0/8","192.168.1.7"],"decision":"Deny"}]}]})";
        m_bodies.push_back(user);
        m_bodies.push_back(acl);
        m_bodies.push_back('[' + user + ',' + user + ']');
        m_bodies.push_back('[' + acl + ']');
        addPopSeeds();
        QVERIFY(m_frames.size() > 200);
        QVERIFY(m_bodies.size() > 50);
        QVERIFY(m_records.size() > 20);
        qInfo("seed %u, %d frame mutants", m_seed, m_iterations);
    }

    void seedsPass()
    {
        for (const QByteArray &f : m_frames)
            qrocket::fuzz::fuzzFrame(f);
        for (const QByteArray &b : m_bodies)
            qrocket::fuzz::fuzzJson(b);
        for (const QByteArray &r : m_records)
            qrocket::fuzz::fuzzRecord(r);
        // Pipelined: the whole capture as one stream.
        QByteArray stream;
        for (const QByteArray &f : m_frames)
            stream += f;
        qrocket::fuzz::fuzzFrame(stream);
    }

    void mutatedFrames()
    {
        Mutator mut(m_seed);
        QElapsedTimer timer;
        timer.start();
        for (int i = 0; i < m_iterations; ++i) {
            const QByteArray &seed = m_frames[mut.bounded(quint32(m_frames.size()))];
            qrocket::fuzz::fuzzFrame(mut.mutate(seed, m_frames));
        }
        qInfo("%d frame mutants in %lld ms", m_iterations, timer.elapsed());
    }

    void mutatedRecords()
    {
        Mutator mut(m_seed + 1);
        const int n = m_iterations / 20;
        for (int i = 0; i < n; ++i) {
            const QByteArray &seed = m_records[mut.bounded(quint32(m_records.size()))];
            qrocket::fuzz::fuzzRecord(mut.mutate(seed, m_records));
        }
    }

    void mutatedJson()
    {
        Mutator mut(m_seed + 2);
        const int n = m_iterations / 20;
        for (int i = 0; i < n; ++i) {
            const QByteArray &seed = m_bodies[mut.bounded(quint32(m_bodies.size()))];
            qrocket::fuzz::fuzzJson(mut.mutate(seed, m_bodies));
        }
    }

    void randomBytes()
    {
        QRandomGenerator rng(m_seed + 3);
        for (int i = 0; i < m_iterations / 20; ++i) {
            QByteArray junk(qsizetype(rng.bounded(64)), Qt::Uninitialized);
            for (char &c : junk)
                c = char(rng.bounded(256));
            qrocket::fuzz::fuzzFrame(junk);
            qrocket::fuzz::fuzzRecord(junk);
            qrocket::fuzz::fuzzJson(junk);
        }
    }
};

QTEST_APPLESS_MAIN(tst_FuzzCodec)
#include "tst_fuzzcodec.moc"
