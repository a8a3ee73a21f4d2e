#pragma once

// Small allocation-free helpers over stored records: property lookup in the §5.3 string and the
// per-record facts the dispatcher needs.

#include <QByteArrayView>

#include <cstdint>
#include <functional>
#include <string_view>

namespace qrocket::storage {

/// Hash for std::string-keyed maps that are looked up with string_view (no key allocation).
struct TransparentStringHash
{
    using is_transparent = void;
    size_t operator()(std::string_view s) const noexcept
    {
        return std::hash<std::string_view> {}(s);
    }
};

/// Value of `name` in an encoded properties string (`name\x01value\x02...`), last one wins;
/// an empty view when absent.
QByteArrayView findProperty(QByteArrayView properties, QByteArrayView name);

inline constexpr QByteArrayView kPropertyKeys("KEYS");
inline constexpr QByteArrayView kPropertyUniqKey("UNIQ_KEY");
inline constexpr QByteArrayView kPropertyTags("TAGS");
inline constexpr QByteArrayView kPropertyDelay("DELAY");

/// The properties the dispatcher reads from every record, found in one pass (same acceptance
/// rule as findProperty: non-empty name and value, last one wins); empty views when absent.
struct DispatchProperties
{
    QByteArrayView tags;
    QByteArrayView keys;
    QByteArrayView uniqKey;
    QByteArrayView multiDispatch; // INNER_MULTI_DISPATCH
    QByteArrayView multiQueueOffset; // INNER_MULTI_QUEUE_OFFSET
};
DispatchProperties scanDispatchProperties(QByteArrayView properties);

} // namespace qrocket::storage
