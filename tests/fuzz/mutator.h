#pragma once

// Mutator: the seeded byte-level mutations the bounded fuzz tests apply to their seeds (bit
// flips, interesting bytes and 32-bit lengths, truncation, deletion, insertion, duplication,
// splicing with another seed, and token noise from a per-test list).

#include <QByteArray>
#include <QRandomGenerator>
#include <QtGlobal>

#include <algorithm>
#include <iterator>
#include <span>
#include <vector>

namespace qrocket::fuzz {

/// How much a bounded fuzz test runs: its defaults, unless QROCKET_FUZZ_ITERATIONS (the main
/// loop's mutants; sanitizer builds lower it) or QROCKET_FUZZ_SEED say otherwise.
struct FuzzBudget
{
    int iterations;
    quint32 seed;

    static FuzzBudget fromEnvironment(int defaultIterations, quint32 defaultSeed)
    {
        FuzzBudget b {defaultIterations, defaultSeed};
        if (const int n = qEnvironmentVariableIntValue("QROCKET_FUZZ_ITERATIONS"); n > 0)
            b.iterations = n;
        if (const int s = qEnvironmentVariableIntValue("QROCKET_FUZZ_SEED"); s > 0)
            b.seed = quint32(s);
        return b;
    }
};

inline constexpr const char *kJsonTokens[] = {"{", "}", "[", "]", ",", ":", "\"", "\\u", "\\ud800",
    "null", "1e999", "-", "{0:1}", "{{}:1}", "'"};

class Mutator
{
public:
    /// `tokens`: what the last kind of mutation inserts (JSON-ish noise unless told).
    explicit Mutator(quint32 seed, std::span<const char *const> tokens = kJsonTokens)
        : m_rng(seed), m_tokens(tokens)
    { }

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
        default: // token noise
            m.insert(size ? pos(size) : 0, m_tokens[m_rng.bounded(quint32(m_tokens.size()))]);
        }
    }

    qsizetype pos(qsizetype size) { return qsizetype(m_rng.bounded(quint32(size))); }

    QRandomGenerator m_rng;
    std::span<const char *const> m_tokens;
};

} // namespace qrocket::fuzz
