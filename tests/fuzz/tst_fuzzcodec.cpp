// Bounded, seeded mutation fuzzing of the protocol decoders (a ctest with label "fuzz"):
// mutants of the real captured frames, stored records and JSON bodies go through fuzztargets.cpp,
// which checks invariants and must never crash, hang or trip a sanitizer.
// QROCKET_FUZZ_ITERATIONS scales the loops (default 200000 frame mutants); QROCKET_FUZZ_SEED
// picks another seed.

#include "fuzztargets.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QTest>

#include <vector>

namespace {

QString vectorsDir()
{
    const QByteArray env = qgetenv("QROCKET_VECTORS_DIR");
    return env.isEmpty() ? QStringLiteral("/work/shared/vectors") : QString::fromLocal8Bit(env);
}

QByteArray readVector(const QString &relative)
{
    QFile f(vectorsDir() + QLatin1Char('/') + relative);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

class Mutator
{
public:
    explicit Mutator(quint32 seed) : m_rng(seed) { }

    QByteArray mutate(const QByteArray &seed, const std::vector<QByteArray> &pool)
    {
        QByteArray m = seed;
        const int rounds = 1 + int(m_rng.bounded(4));
        for (int i = 0; i < rounds; ++i)
            mutateOnce(m, pool);
        return m;
    }

    quint32 bounded(quint32 n) { return m_rng.bounded(n); }

private:
    void mutateOnce(QByteArray &m, const std::vector<QByteArray> &pool)
    {
        static const int kInteresting[] = {0, 1, -1, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff,
            0x7fffffff, int(0x80000000), 0x01000000, 21, 91};
        const qsizetype size = m.size();
        switch (m_rng.bounded(9)) {
        case 0: // flip a bit
            if (size > 0)
                m[pos(size)] = char(m[pos(size)] ^ (1 << m_rng.bounded(8)));
            break;
        case 1: // set a byte
            if (size > 0)
                m[pos(size)] = char(kInteresting[m_rng.bounded(6)]);
            break;
        case 2: { // overwrite an aligned-ish 32-bit field (lengths!)
            if (size >= 4) {
                const qsizetype p = m_rng.bounded(3) == 0 ? 0 : pos(size - 3);
                const int v = kInteresting[m_rng.bounded(quint32(std::size(kInteresting)))];
                m[p] = char(v >> 24);
                m[p + 1] = char(v >> 16);
                m[p + 2] = char(v >> 8);
                m[p + 3] = char(v);
            }
            break;
        }
        case 3: // truncate
            if (size > 0)
                m.truncate(pos(size));
            break;
        case 4: // delete a range
            if (size > 1)
                m.remove(pos(size), 1 + m_rng.bounded(std::min<quint32>(16, quint32(size))));
            break;
        case 5: // insert random bytes
            for (int k = 0, n = 1 + int(m_rng.bounded(8)); k < n; ++k)
                m.insert(size ? pos(size) : 0, char(m_rng.bounded(256)));
            break;
        case 6: // duplicate a range
            if (size > 0) {
                const qsizetype p = pos(size);
                m.insert(p, m.mid(p, 1 + m_rng.bounded(32)));
            }
            break;
        case 7: // splice with another seed
            if (!pool.empty()) {
                const QByteArray &other = pool[m_rng.bounded(quint32(pool.size()))];
                m = m.left(size ? pos(size) : 0)
                    + other.mid(other.isEmpty() ? 0 : pos(other.size()));
            }
            break;
        default: { // JSON-ish token noise
            static const char *kTokens[] = {"{", "}", "[", "]", ",", ":", "\"", "\\u", "\\ud800",
                "null", "1e999", "-", "{0:1}", "{{}:1}", "'"};
            m.insert(size ? pos(size) : 0, kTokens[m_rng.bounded(quint32(std::size(kTokens)))]);
        }
        }
    }

    qsizetype pos(qsizetype size) { return qsizetype(m_rng.bounded(quint32(size))); }

    QRandomGenerator m_rng;
};

} // namespace

class tst_FuzzCodec : public QObject
{
    Q_OBJECT

private:
    std::vector<QByteArray> m_frames;
    std::vector<QByteArray> m_bodies;
    std::vector<QByteArray> m_records;
    int m_iterations = 200000;
    quint32 m_seed = 20261130;

private slots:
    void initTestCase()
    {
        if (const int n = qEnvironmentVariableIntValue("QROCKET_FUZZ_ITERATIONS"); n > 0)
            m_iterations = n;
        if (const int s = qEnvironmentVariableIntValue("QROCKET_FUZZ_SEED"); s > 0)
            m_seed = quint32(s);
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
