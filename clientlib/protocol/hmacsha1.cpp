#include "clientlib/protocol/hmacsha1.h"

#include <QLibrary>

#include <cstring>

namespace qrocket::protocol {

namespace {

// libcrypto's SHA-1 calls (openssl/sha.h); the state is passed as the caller's buffer.
struct Crypto
{
    using Init = int (*)(void *);
    using Update = int (*)(void *, const void *, std::size_t);
    using Final = int (*)(unsigned char *, void *);

    Init init = nullptr;
    Update update = nullptr;
    Final final = nullptr;

    bool loaded() const { return init && update && final; }

    static const Crypto &instance()
    {
        static const Crypto crypto = load();
        return crypto;
    }

private:
    static Crypto load()
    {
        Crypto c;
        // Never unloaded or destroyed: another thread may be hashing until the process ends.
        // The static pointer keeps the handle reachable, so leak checkers do not report it.
        static QLibrary *const lib = new QLibrary(QStringLiteral("crypto"), 3);
        if (!lib->load())
            return c;
        const auto init = reinterpret_cast<Init>(lib->resolve("SHA1_Init"));
        const auto update = reinterpret_cast<Update>(lib->resolve("SHA1_Update"));
        const auto final = reinterpret_cast<Final>(lib->resolve("SHA1_Final"));
        if (init && update && final) {
            c.init = init;
            c.update = update;
            c.final = final;
        }
        return c;
    }
};

const Crypto &crypto(const void *p)
{
    return *static_cast<const Crypto *>(p);
}

} // namespace

HmacSha1::HmacSha1(QByteArrayView key, Backend backend)
{
    const Crypto &c = Crypto::instance();
    if (backend == Backend::Auto && c.loaded())
        m_crypto = &c;
    else
        m_qt.emplace(QCryptographicHash::Sha1);

    std::array<std::uint8_t, kBlock> k {};
    if (key.size() > kBlock) {
        const QByteArray hashed = QCryptographicHash::hash(key, QCryptographicHash::Sha1);
        std::memcpy(k.data(), hashed.constData(), static_cast<std::size_t>(hashed.size()));
    } else if (!key.isEmpty()) {
        std::memcpy(k.data(), key.data(), static_cast<std::size_t>(key.size()));
    }
    std::array<std::uint8_t, kBlock> innerPad;
    for (std::size_t i = 0; i < k.size(); ++i) {
        innerPad[i] = k[i] ^ 0x36;
        m_outerPad[i] = k[i] ^ 0x5c;
    }
    if (m_crypto) {
        c.init(m_inner.data());
        c.update(m_inner.data(), innerPad.data(), innerPad.size());
        c.init(m_outer.data());
        c.update(m_outer.data(), m_outerPad.data(), m_outerPad.size());
    } else {
        m_qt->addData(QByteArrayView(reinterpret_cast<const char *>(innerPad.data()), kBlock));
    }
}

HmacSha1::~HmacSha1() = default;

void HmacSha1::addData(QByteArrayView data)
{
    if (m_crypto)
        crypto(m_crypto).update(m_inner.data(), data.data(), static_cast<std::size_t>(data.size()));
    else
        m_qt->addData(data);
}

HmacSha1::Digest HmacSha1::result()
{
    Digest out {};
    if (m_crypto) {
        const Crypto &c = crypto(m_crypto);
        Digest inner {};
        c.final(inner.data(), m_inner.data());
        c.update(m_outer.data(), inner.data(), inner.size());
        c.final(out.data(), m_outer.data());
        return out;
    }
    const QByteArray inner = m_qt->result();
    m_qt->reset();
    m_qt->addData(QByteArrayView(reinterpret_cast<const char *>(m_outerPad.data()), kBlock));
    m_qt->addData(inner);
    std::memcpy(out.data(), m_qt->resultView().data(), out.size());
    return out;
}

const char *HmacSha1::autoBackendName()
{
    return Crypto::instance().loaded() ? "libcrypto" : "QCryptographicHash";
}

} // namespace qrocket::protocol
