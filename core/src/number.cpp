#include "gpusim/core/number.hpp"

#include <fmt/format.h>

#include <array>
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

// A Kubernetes quantity (resource.Quantity: a number with an optional binary or decimal suffix,
// "500m", "16Gi") as a plain number; nullopt if it is not one.
std::optional<double> parse_quantity(std::string_view text) {
  static const std::array<std::pair<std::string_view, double>, 13> suffixes{{{"Ki", 1024.0},
                                                                             {"Mi", 1048576.0},
                                                                             {"Gi", 1073741824.0},
                                                                             {"Ti", 1099511627776.0},
                                                                             {"Pi", 1125899906842624.0},
                                                                             {"m", 1e-3},
                                                                             {"k", 1e3},
                                                                             {"M", 1e6},
                                                                             {"G", 1e9},
                                                                             {"T", 1e12},
                                                                             {"P", 1e15},
                                                                             {"E", 1e18},
                                                                             {"Ei", 1152921504606846976.0}}};
  std::string_view t = text;
  double scale = 1;
  for (const auto& [s, f] : suffixes)
    if (t.size() > s.size() && t.ends_with(s) && (s.size() == 2 || !std::isalpha(static_cast<unsigned char>(t[t.size() - 2])))) {
      scale = f;
      t.remove_suffix(s.size());
      break;
    }
  double v = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || end != t.data() + t.size() || !std::isfinite(v)) return std::nullopt;
  return v * scale;
}

}  // namespace gpusim
