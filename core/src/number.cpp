#include "gpusim/core/number.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <utility>

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

double parse_quantity(std::string_view text, const Range& range) {
  // resource.Quantity's grammar: a sign, digits with an optional fraction, then a binary suffix, a
  // decimal one or a decimal exponent ("1e3"); the value as a double.
  static constexpr std::pair<std::string_view, double> kSuffixes[] = {
      {"n", 1e-9}, {"u", 1e-6}, {"m", 1e-3},    {"", 1},        {"k", 1e3},     {"M", 1e6},     {"G", 1e9},     {"T", 1e12},
      {"P", 1e15}, {"E", 1e18}, {"Ki", 0x1p10}, {"Mi", 0x1p20}, {"Gi", 0x1p30}, {"Ti", 0x1p40}, {"Pi", 0x1p50}, {"Ei", 0x1p60}};
  std::string_view t = text;
  const bool negative = t.starts_with('-');
  if (t.starts_with('+') || negative) t.remove_prefix(1);
  std::size_t i = 0;
  while (i < t.size() && (std::isdigit(static_cast<unsigned char>(t[i])) || t[i] == '.')) ++i;
  const std::string_view number = t.substr(0, i), suffix = t.substr(i);
  const auto not_one = [&] {
    return std::invalid_argument(fmt::format(
        "expected a Kubernetes quantity (a number with an exponent, 1e3, or one of the suffixes n, u, m, k, M, G, T, P, "
        "E, Ki, Mi, Gi, Ti, Pi, Ei), got '{}'",
        text));
  };
  double v = 0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), v, std::chars_format::fixed);
  if (number.empty() || ec != std::errc() || end != number.data() + number.size()) throw not_one();
  double scale = 0;
  for (const auto& [s, f] : kSuffixes)
    if (suffix == s) scale = f;
  if (scale == 0) {
    int exponent = 0;
    const std::string_view e = suffix.size() < 2 ? suffix : suffix.substr(suffix[1] == '+' ? 2 : 1);
    const auto [e_end, e_ec] = std::from_chars(e.data(), e.data() + e.size(), exponent);
    if (suffix.size() < 2 || (suffix[0] != 'e' && suffix[0] != 'E') || e_ec != std::errc() || e_end != e.data() + e.size())
      throw std::invalid_argument(fmt::format("'{}' has the suffix '{}', which is not a Kubernetes quantity's: expected an "
                                              "exponent (1e3) or one of n, u, m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, Ei",
                                              text, suffix));
    scale = std::pow(10.0, exponent);
  }
  const double value = (negative ? -v : v) * scale;
  if (!std::isfinite(value)) throw not_one();
  if (!range.contains(value)) throw expected(range, false, text, false);
  return value;
}

}  // namespace gpusim
