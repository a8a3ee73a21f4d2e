#pragma once

// Internal: collapse duplicate keys of a (key, value) list in linear time, keeping the position of
// the first occurrence and the value of the last (what repeated map puts do). Decoders append
// fields as they come and call this once, so a hostile input with millions of fields costs
// O(n), not O(n^2).

#include <QByteArray>
#include <QByteArrayView>

#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace qrocket::protocol::detail {

inline void dedupeKeepLastValue(std::vector<std::pair<QByteArray, QByteArray>> &fields)
{
    const std::size_t n = fields.size();
    if (n < 2)
        return;
    if (n <= 32) {
        // Typical headers: quadratic on a handful of fields, no allocation.
        std::uint32_t drop = 0;
        for (std::size_t i = 1; i < n; ++i) {
            for (std::size_t j = 0; j < i; ++j) {
                if (!(drop & (1u << j)) && fields[j].first == fields[i].first) {
                    fields[j].second = std::move(fields[i].second);
                    drop |= 1u << i;
                    break;
                }
            }
        }
        if (!drop)
            return;
        std::size_t out = 0;
        for (std::size_t i = 0; i < n; ++i) {
            if (!(drop & (1u << i))) {
                if (out != i)
                    fields[out] = std::move(fields[i]);
                ++out;
            }
        }
        fields.resize(out);
        return;
    }
    std::vector<bool> drop(n, false);
    bool any = false;
    {
        std::unordered_map<std::string_view, std::size_t> first;
        first.reserve(n);
        for (std::size_t i = 0; i < n; ++i) {
            const QByteArray &key = fields[i].first;
            const auto [it, inserted] = first.try_emplace(
                std::string_view(key.constData(), static_cast<std::size_t>(key.size())), i);
            if (!inserted) {
                fields[it->second].second = std::move(fields[i].second);
                drop[i] = any = true;
            }
        }
    }
    if (!any)
        return;
    std::size_t out = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (!drop[i]) {
            if (out != i)
                fields[out] = std::move(fields[i]);
            ++out;
        }
    }
    fields.resize(out);
}

} // namespace qrocket::protocol::detail
