#include "broker/processors/sendproperties.h"

#include "clientlib/protocol/messageproperties.h"

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <utility>

namespace qrocket::broker {

namespace {

/// The first byte equal to `c` in [from, to), else `to`; 8 bytes per step (most property texts
/// are short, so this beats a memchr call per segment).
const char *findByte(const char *from, const char *to, char c)
{
    constexpr std::uint64_t kOnes = 0x0101010101010101ull;
    constexpr std::uint64_t kHigh = 0x8080808080808080ull;
    const std::uint64_t pattern = kOnes * static_cast<unsigned char>(c);
    while (to - from >= 8) {
        std::uint64_t w;
        std::memcpy(&w, from, 8);
        w ^= pattern;
        // Exact for the lowest matching byte (little endian), which is the one wanted.
        if (const std::uint64_t m = (w - kOnes) & ~w & kHigh)
            return from + std::countr_zero(m) / 8;
        from += 8;
    }
    while (from < to && *from != c)
        ++from;
    return from;
}

/// `name` is the property name `known`: sizes checked first, then the bytes.
bool isName(QByteArrayView name, QByteArrayView known)
{
    return name.size() == known.size()
        && std::memcmp(name.data(), known.data(), static_cast<std::size_t>(name.size())) == 0;
}

} // namespace

SendProperties prepareSendProperties(QByteArray &props, QByteArrayView cluster)
{
    namespace mc = protocol::MessageConst;
    using protocol::kNameValueSeparator;
    using protocol::kPropertySeparator;
    const char *const p = props.constData();
    const qsizetype n = props.size();
    QByteArrayView wait, tran, delay;
    // The WAIT and CLUSTER segments to drop, [start, end); more than fit here, or an empty
    // segment (which a rewrite drops too), leave the rewrite to replaceProperties.
    std::array<std::pair<qsizetype, qsizetype>, 4> drops;
    std::size_t dropCount = 0;
    bool rewrite = false;
    bool simple = true;
    const char *const stop = p + n;
    for (qsizetype start = 0; start < n;) {
        const qsizetype end = findByte(p + start, stop, kPropertySeparator) - p;
        simple = simple && end > start;
        const char *eq = findByte(p + start, p + end, kNameValueSeparator);
        if (eq > p + start && eq < p + end - 1) { // a valid "name\x01value" segment
            const QByteArrayView name(p + start, eq - (p + start));
            const QByteArrayView value(eq + 1, p + end - (eq + 1));
            // Sizes first: WAIT 4, DELAY 5, CLUSTER 7, TRAN_MSG 8; most names are none of them.
            const bool isWait = isName(name, mc::WaitStoreMsgOk);
            if (isWait || isName(name, mc::Cluster)) {
                if (isWait)
                    wait = value;
                rewrite = true;
                if (dropCount < drops.size())
                    drops[dropCount] = {start, end};
                simple = simple && dropCount < drops.size();
                ++dropCount;
            } else if (isName(name, mc::TransactionPrepared)) {
                tran = value;
            } else if (isName(name, mc::DelayTimeLevel)) {
                delay = value;
            }
        }
        start = end + 1;
    }
    SendProperties out;
    out.waitStoreMsgOk = wait.isNull() || wait.compare("false", Qt::CaseInsensitive) != 0;
    out.transactionPrepared = !tran.isNull() && tran.compare("true", Qt::CaseInsensitive) == 0;
    if (!delay.isNull()) {
        out.hasDelay = true;
        bool ok = false;
        const int level = delay.toByteArray().toInt(&ok);
        out.delayLevel = ok ? level : 0;
    }
    if (rewrite && !simple) {
        props = protocol::replaceProperties(props, {mc::WaitStoreMsgOk, mc::Cluster}, cluster);
    } else if (rewrite) {
        // Copy the runs of segments between the dropped ones, one separator between runs, into
        // one allocation: each run adds at most its bytes and a separator.
        QByteArray rewritten(
            n + static_cast<qsizetype>(dropCount) + 1 + cluster.size(), Qt::Uninitialized);
        char *const begin = rewritten.data();
        char *o = begin;
        const auto addRun = [&](qsizetype from, qsizetype to) {
            if (to > from && p[to - 1] == kPropertySeparator)
                --to;
            if (to <= from)
                return;
            if (o != begin)
                *o++ = kPropertySeparator;
            std::memcpy(o, p + from, static_cast<std::size_t>(to - from));
            o += to - from;
        };
        qsizetype from = 0;
        for (std::size_t i = 0; i < dropCount; ++i) {
            addRun(from, drops[i].first);
            from = drops[i].second + 1;
        }
        addRun(from, n);
        if (o != begin)
            *o++ = kPropertySeparator;
        if (!cluster.isEmpty())
            std::memcpy(o, cluster.data(), static_cast<std::size_t>(cluster.size()));
        o += cluster.size();
        rewritten.resize(o - begin);
        props = std::move(rewritten);
    } else {
        if (!props.isEmpty() && !props.endsWith(kPropertySeparator))
            props.append(kPropertySeparator);
        props.append(cluster);
    }
    return out;
}

} // namespace qrocket::broker
