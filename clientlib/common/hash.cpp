#include "clientlib/common/hash.h"

#include <QString>

#include <algorithm>
#include <cstddef>
#include <zlib.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define QROCKET_CRC32_CLMUL 1
#include <immintrin.h>
#endif

namespace qrocket {

namespace {

std::uint32_t crc32Zlib(std::uint32_t crc, const unsigned char *p, std::size_t len)
{
    uLong c = crc;
    while (len > 0) {
        const auto chunk = static_cast<uInt>(std::min<std::size_t>(len, 1u << 30));
        c = ::crc32(c, p, chunk);
        p += chunk;
        len -= chunk;
    }
    return static_cast<std::uint32_t>(c);
}

#ifdef QROCKET_CRC32_CLMUL
// CRC-32 (IEEE 802.3, bit-reflected) by folding with carry-less multiplication, after Gopal,
// Ozturk et al., "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ Instruction"
// (Intel, 2009). Four 128-bit lanes are folded 64 bytes at a time, merged into one lane, folded
// 16 bytes at a time, then reduced 128 -> 64 -> 32 bits with a Barrett reduction. The
// constants are x^k mod P(x) for the reflected polynomial 0x1DB710641 (see the paper's
// appendix); `state` is the inverted (pre-/post-conditioned) CRC register.
#define QROCKET_CLMUL_TARGET __attribute__((target("pclmul,sse4.1")))

QROCKET_CLMUL_TARGET inline __m128i load(const unsigned char *q)
{
    return _mm_loadu_si128(reinterpret_cast<const __m128i *>(q));
}

// a.lo * k.lo xor a.hi * k.hi (carry-less), xor the next data block.
QROCKET_CLMUL_TARGET inline __m128i fold(__m128i a, __m128i k, __m128i next)
{
    const __m128i lo = _mm_clmulepi64_si128(a, k, 0x00);
    const __m128i hi = _mm_clmulepi64_si128(a, k, 0x11);
    return _mm_xor_si128(_mm_xor_si128(lo, hi), next);
}

// Needs len >= 64 and len % 16 == 0.
QROCKET_CLMUL_TARGET std::uint32_t clmulFold(
    std::uint32_t state, const unsigned char *p, std::size_t len)
{
    const __m128i fold4 = _mm_set_epi64x(0x1c6e41596LL, 0x154442bd4LL); // x^(4*128+-32) terms
    const __m128i fold1 = _mm_set_epi64x(0x0ccaa009eLL, 0x1751997d0LL); // x^(128+-32) terms
    const __m128i fold64 = _mm_set_epi64x(0, 0x163cd6124LL); // x^64 term
    const __m128i barrett = _mm_set_epi64x(0x1f7011641LL, 0x1db710641LL); // mu, P
    const __m128i low32 = _mm_setr_epi32(-1, 0, -1, 0);

    __m128i a = _mm_xor_si128(load(p), _mm_cvtsi32_si128(static_cast<int>(state)));
    __m128i b = load(p + 16);
    __m128i c = load(p + 32);
    __m128i d = load(p + 48);
    p += 64;
    len -= 64;
    while (len >= 64) {
        a = fold(a, fold4, load(p));
        b = fold(b, fold4, load(p + 16));
        c = fold(c, fold4, load(p + 32));
        d = fold(d, fold4, load(p + 48));
        p += 64;
        len -= 64;
    }
    a = fold(a, fold1, b);
    a = fold(a, fold1, c);
    a = fold(a, fold1, d);
    while (len >= 16) {
        a = fold(a, fold1, load(p));
        p += 16;
        len -= 16;
    }
    // 128 -> 96 -> 64 bits.
    __m128i t = _mm_clmulepi64_si128(a, fold1, 0x10);
    a = _mm_xor_si128(_mm_srli_si128(a, 8), t);
    t = _mm_srli_si128(a, 4);
    a = _mm_clmulepi64_si128(_mm_and_si128(a, low32), fold64, 0x00);
    a = _mm_xor_si128(a, t);
    // Barrett reduction to 32 bits.
    t = _mm_clmulepi64_si128(_mm_and_si128(a, low32), barrett, 0x10);
    t = _mm_clmulepi64_si128(_mm_and_si128(t, low32), barrett, 0x00);
    a = _mm_xor_si128(a, t);
    return static_cast<std::uint32_t>(_mm_extract_epi32(a, 1));
}

bool detectClmul()
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
}

const bool g_clmul = detectClmul();
#else
constexpr bool g_clmul = false;
#endif

} // namespace

std::uint32_t crc32Update(std::uint32_t crc, QByteArrayView data)
{
    const auto *p = reinterpret_cast<const unsigned char *>(data.data());
    auto len = static_cast<std::size_t>(data.size());
#ifdef QROCKET_CRC32_CLMUL
    if (g_clmul && len >= 64) {
        const std::size_t bulk = len & ~std::size_t {15};
        crc = ~clmulFold(~crc, p, bulk);
        p += bulk;
        len -= bulk;
    }
#endif
    return len ? crc32Zlib(crc, p, len) : crc;
}

std::uint32_t crc32(QByteArrayView data)
{
    return crc32Update(0, data);
}

std::uint32_t crc32Portable(std::uint32_t crc, QByteArrayView data)
{
    return crc32Zlib(crc, reinterpret_cast<const unsigned char *>(data.data()),
        static_cast<std::size_t>(data.size()));
}

bool crc32IsAccelerated()
{
    return g_clmul;
}

std::int32_t javaStringHash(QByteArrayView utf8)
{
    // Unsigned arithmetic gives Java's int32 wrap-around without signed-overflow UB.
    std::uint32_t h = 0;
    bool ascii = true;
    for (char c : utf8) {
        if (static_cast<unsigned char>(c) >= 0x80) {
            ascii = false;
            break;
        }
        h = 31u * h + static_cast<unsigned char>(c);
    }
    if (!ascii) {
        h = 0;
        const QString s = QString::fromUtf8(utf8);
        for (const QChar ch : s)
            h = 31u * h + ch.unicode();
    }
    return static_cast<std::int32_t>(h);
}

int consistentHash(std::int64_t input, int buckets)
{
    if (buckets <= 0)
        return 0;
    // Unsigned arithmetic: the generator wraps modulo 2^64 as Java's long does.
    std::uint64_t state = static_cast<std::uint64_t>(input);
    int candidate = 0;
    for (;;) {
        state = 2862933555777941757ULL * state + 1;
        // (int)(state >>> 33) + 1, over 2^31: a double in (0, 1].
        const double next01 = static_cast<double>((state >> 33) + 1) / 2147483648.0;
        const double jump = static_cast<double>(candidate + 1) / next01;
        // Java's (int) cast saturates; every jump is positive.
        const int next = jump >= 2147483647.0 ? 2147483647 : static_cast<int>(jump);
        if (next >= buckets)
            return candidate;
        candidate = next;
    }
}

} // namespace qrocket
