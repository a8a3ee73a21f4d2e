#pragma once

// RemotingCommand: one RocketMQ remoting frame's header fields plus body (protocol.md §1).
// A plain value type: no QObject, no JSON tree. extFields keep their arrival order; every value is
// held as text, canonicalised at decode time (JSON numbers and booleans that cpp and ali-ons send
// become "0", "1700000000000", "true"), so typed access parses text only (protocol.md §1.7).

#include <QByteArray>
#include <QByteArrayView>

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace qrocket::protocol {

enum class SerializeType : std::uint8_t { Json = 0, RocketMQ = 1 };

/// protocol.md §1.5
enum class LanguageCode : std::uint8_t {
    Java = 0,
    Cpp = 1,
    DotNet = 2,
    Python = 3,
    Delphi = 4,
    Erlang = 5,
    Ruby = 6,
    Other = 7,
    Http = 8,
    Go = 9,
    Php = 10,
    Oms = 11,
    Rust = 12,
};
const char *languageName(LanguageCode code);
/// Accepts the enum name ("JAVA") or its ordinal as text ("0").
std::optional<LanguageCode> parseLanguage(QByteArrayView text);

/// Java Long.parseLong: optional sign, decimal digits only, range checked; nullopt otherwise.
/// Header fields on the wire are parsed this way (protocol.md §1.2).
std::optional<std::int64_t> parseJavaLong(QByteArrayView text);
/// Java Boolean.parseBoolean: "true" in any case is true, anything else false.
bool parseJavaBoolean(QByteArrayView text);

/// QRocket's own MQVersion ordinal sent in requests and responses (V4_9_7 = 407, protocol.md §1.6).
inline constexpr int kQRocketVersion = 407;

class RemotingCommand
{
public:
    static constexpr int kFlagResponse = 0x1;
    static constexpr int kFlagOneway = 0x2;

    using ExtField = std::pair<QByteArray, QByteArray>;

    static RemotingCommand createRequest(int code);
    /// A response to `request`: same opaque and serialize type, response flag set.
    static RemotingCommand createResponse(
        const RemotingCommand &request, int code, QByteArray remark = {});

    int code = 0;
    LanguageCode language = LanguageCode::Java;
    int version = kQRocketVersion;
    int opaque = 0;
    int flag = 0;
    QByteArray remark; // null = absent (Java omits it); empty = present but ""
    std::vector<ExtField> extFields;
    QByteArray body;
    SerializeType serializeType = SerializeType::Json;

    bool isResponse() const { return flag & kFlagResponse; }
    bool isOneway() const { return flag & kFlagOneway; }
    void markResponse() { flag |= kFlagResponse; }
    void markOneway() { flag |= kFlagOneway; }

    /// The value of an ext field, or nullptr when absent.
    const QByteArray *ext(QByteArrayView key) const;
    bool hasExt(QByteArrayView key) const { return ext(key) != nullptr; }
    /// The value or an empty view.
    QByteArrayView extString(QByteArrayView key) const;
    /// Parsed as a Java Integer/Long would be (decimal, optional sign); nullopt when absent or bad.
    std::optional<std::int32_t> extInt(QByteArrayView key) const;
    std::optional<std::int64_t> extLong(QByteArrayView key) const;
    /// Java Boolean.parseBoolean: "true" (any case) is true, anything else false; nullopt when
    /// absent.
    std::optional<bool> extBool(QByteArrayView key) const;

    /// Sets (replacing an existing key) or appends.
    void setExt(QByteArray key, QByteArray value);
    void setExt(QByteArray key, std::int64_t value);
    void setExtBool(QByteArray key, bool value);
    bool removeExt(QByteArrayView key);
};

} // namespace qrocket::protocol
