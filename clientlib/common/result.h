#pragma once

// Result<T>: a value or an error Status, with std::expected's member names (has_value, value,
// error) so that moving to C++23 is a rename.

#include "clientlib/common/check.h"
#include "clientlib/common/status.h"

#include <utility>
#include <variant>

namespace qrocket {

template<typename T>
class Result
{
public:
    Result(T value) : m_v(std::in_place_index<0>, std::move(value)) { }
    Result(Status error) : m_v(std::in_place_index<1>, std::move(error))
    {
        QROCKET_CHECK(!std::get<1>(m_v).isOk(), "Result constructed from an OK status");
    }

    bool has_value() const { return m_v.index() == 0; }
    explicit operator bool() const { return has_value(); }

    T &value() &
    {
        QROCKET_CHECK(has_value(), "Result::value() on an error");
        return std::get<0>(m_v);
    }
    const T &value() const &
    {
        QROCKET_CHECK(has_value(), "Result::value() on an error");
        return std::get<0>(m_v);
    }
    T &&value() &&
    {
        QROCKET_CHECK(has_value(), "Result::value() on an error");
        return std::get<0>(std::move(m_v));
    }
    T value_or(T fallback) const { return has_value() ? std::get<0>(m_v) : std::move(fallback); }

    const Status &error() const
    {
        QROCKET_CHECK(!has_value(), "Result::error() on a value");
        return std::get<1>(m_v);
    }
    /// OK when holding a value, else the error.
    Status status() const { return has_value() ? Status() : std::get<1>(m_v); }

    T *operator->() { return &value(); }
    const T *operator->() const { return &value(); }
    T &operator*() & { return value(); }
    const T &operator*() const & { return value(); }

private:
    std::variant<T, Status> m_v;
};

} // namespace qrocket
