#include "gpusim/core/number.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace gpusim {

namespace {

std::invalid_argument expected(const Range& range, bool integer, std::string_view text, bool quoted) {
  // Text that is not a number is quoted; a number out of range is shown as written.
  return std::invalid_argument(
      fmt::format("expected {}, got {}{}{}", range.describe(integer), quoted ? "'" : "", text, quoted ? "'" : ""));
}

}  // namespace

bool Range::contains(double v) const {
  if (std::isnan(v)) return false;
  if (minimum && (minimum->exclusive ? v <= minimum->value : v < minimum->value)) return false;
  if (maximum && (maximum->exclusive ? v >= maximum->value : v > maximum->value)) return false;
  return true;
}

std::string Range::describe(bool integer) const {
  const std::string_view what = integer ? "an integer" : "a number";
  const auto side = [](const Bound& b, const char* strict, const char* loose) {
    return fmt::format("{} {}", b.exclusive ? strict : loose, b.value);
  };
  if (minimum && maximum) {
    if (!minimum->exclusive && !maximum->exclusive) return fmt::format("{} in {}..{}", what, minimum->value, maximum->value);
    return fmt::format("{} {} and {}", what, side(*minimum, ">", ">="), side(*maximum, "<", "<="));
  }
  if (minimum) {
    if (integer && minimum->value == 1 && !minimum->exclusive) return "a positive integer";
    return fmt::format("{} {}", what, side(*minimum, ">", ">="));
  }
  if (maximum) return fmt::format("{} {}", what, side(*maximum, "<", "<="));
  return std::string(what);
}

int64_t parse_integer(std::string_view text, const Range& range) {
  int64_t v = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (p != text.data() + text.size() || (ec != std::errc() && ec != std::errc::result_out_of_range) || text.empty())
    throw std::invalid_argument(fmt::format("expected {}, got '{}'", Range{}.describe(true), text));
  // Digits past int64 are out of any range a field has.
  if (ec == std::errc::result_out_of_range || !range.contains(static_cast<double>(v))) throw expected(range, true, text, false);
  return v;
}

double parse_number(std::string_view text, const Range& range) {
  double v = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size() || !std::isfinite(v)) throw expected(range, false, text, true);
  if (!range.contains(v)) throw expected(range, false, text, false);
  return v;
}

int64_t parse_whole(std::string_view text, const Range& range) {
  double v = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size() || !std::isfinite(v) || v != std::trunc(v))
    throw std::invalid_argument(fmt::format("expected a whole number, got '{}'", text));
  // Checked before the cast: a double past int64 has no integer value.
  if (!range.contains(v) || std::abs(v) >= 9.2e18) throw expected(range, true, text, false);
  return static_cast<int64_t>(v);
}

}  // namespace gpusim
