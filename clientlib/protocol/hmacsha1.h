#pragma once

// HMAC-SHA1 (RFC 2104) for RocketMQ's request signature (aclsignature.h), fed piece by piece.
//
// The digest comes from OpenSSL's libcrypto when it can be loaded at run time - the library
// Qt's TLS backend loads too (Debian's libqt6network6 depends on libssl3), opened through
// QLibrary, so nothing links against OpenSSL - else from QCryptographicHash. The two give the
// same bytes. libcrypto's SHA1_Init/Update/Final (deprecated in OpenSSL 3 but exported) run
// SHA-NI code with no per-call provider lookup and a state that is a plain struct, so the
// keyed inner and outer states are computed once per HmacSha1 and nothing is allocated: ~2x
// faster than QCryptographicHash (and than OpenSSL's EVP calls) on a signed 1 KiB send, which
// is most of what an ACL check costs per message (qrocket-bench-acl prints both). If libcrypto
// or one of those symbols is missing, QCryptographicHash serves.

#include <QByteArray>
#include <QByteArrayView>
#include <QCryptographicHash>

#include <array>
#include <cstdint>
#include <optional>

namespace qrocket::protocol {

class HmacSha1
{
public:
    using Digest = std::array<std::uint8_t, 20>;
    enum class Backend : std::uint8_t { Auto, Qt };

    /// Backend::Qt forces QCryptographicHash (tests compare the two).
    explicit HmacSha1(QByteArrayView key, Backend backend = Backend::Auto);
    ~HmacSha1();
    HmacSha1(const HmacSha1 &) = delete;
    HmacSha1 &operator=(const HmacSha1 &) = delete;

    void addData(QByteArrayView data);
    /// The MAC; once per object.
    Digest result();

    /// "libcrypto" or "QCryptographicHash": what Backend::Auto uses in this process.
    static const char *autoBackendName();

private:
    static constexpr qsizetype kBlock = 64; // SHA-1's block size
    // libcrypto's SHA_CTX (96 bytes in OpenSSL 1.1 and 3), a plain struct: copied by value.
    using ShaState = std::array<unsigned char, 128>;

    const void *m_crypto = nullptr; // libcrypto's functions; null: m_qt
    alignas(16) ShaState m_inner {};
    alignas(16) ShaState m_outer {}; // the outer hash after its key block
    std::optional<QCryptographicHash> m_qt;
    std::array<std::uint8_t, kBlock> m_outerPad {}; // QCryptographicHash's outer key block
};

} // namespace qrocket::protocol
