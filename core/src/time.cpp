#include "gpusim/core/time.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace gpusim {

namespace {
struct Unit {
  std::string_view suffix;
  double us;
};
// Longest suffixes first so "ms" is not read as "m".
constexpr Unit kUnits[] = {{"us", 1.0},         {"ms", 1e3},        {"s", 1e6},
                           {"m", 60e6},         {"h", 3600e6},      {"d", 86400e6},
                           {"w", 7 * 86400e6}};
}  // namespace

Duration parse_duration(std::string_view text) {
  const auto fail = [&] {
    return std::invalid_argument(fmt::format(
        "expected a duration such as 90, \"90s\", \"30m\", \"2h\" or \"30d\", got \"{}\"", text));
  };
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  if (text.empty()) throw fail();
  double scale = 1e6;  // a bare number is seconds
  std::string_view number = text;
  for (const Unit& u : kUnits) {
    if (text.size() > u.suffix.size() && text.ends_with(u.suffix)) {
      number = text.substr(0, text.size() - u.suffix.size());
      scale = u.us;
      break;
    }
  }
  double value = 0;
  auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec != std::errc() || ptr != number.data() + number.size() || !std::isfinite(value)) throw fail();
  const double us = std::round(value * scale);
  if (us < 0 || us > static_cast<double>(kMaxSpan.us()))
    throw std::invalid_argument(fmt::format("expected a duration from 0 to {}, got \"{}\"", kMaxSpanText, text));
  return Duration::from_us(static_cast<int64_t>(us));
}

Duration sampled_wait(double hours) { return hours >= kMaxSpan.hours() ? kMaxSpan : Duration::from_hours(hours, Round::up); }

std::string format_seconds(Duration d) {
  const int64_t us = d.us();
  const int64_t whole = us / 1'000'000;
  int64_t frac = us % 1'000'000;
  if (frac == 0) return fmt::format("{}", whole);
  const bool negative = us < 0;
  if (frac < 0) frac = -frac;
  std::string digits = fmt::format("{:06d}", frac);
  while (digits.back() == '0') digits.pop_back();
  return fmt::format("{}{}.{}", negative && whole == 0 ? "-" : "", whole, digits);
}

}  // namespace gpusim
