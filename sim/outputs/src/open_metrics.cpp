#include "gpusim/sim/open_metrics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

namespace gpusim {

std::string om_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

namespace {

// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (H. Hinnant, "chrono-Compatible
// Low-Level Date Algorithms", days_from_civil).
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

// The unsigned number of exactly `digits` digits at text[at..].
std::optional<unsigned> digits_at(std::string_view text, std::size_t at, std::size_t digits) {
  if (at + digits > text.size()) return std::nullopt;
  unsigned v = 0;
  for (std::size_t i = at; i < at + digits; ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    v = v * 10 + static_cast<unsigned>(text[i] - '0');
  }
  return v;
}

}  // namespace

std::optional<int64_t> parse_utc_date(std::string_view text) {
  if (text.size() != 10 && text.size() != 20) return std::nullopt;
  const auto y = digits_at(text, 0, 4), mo = digits_at(text, 5, 2), d = digits_at(text, 8, 2);
  if (!y || !mo || !d || text[4] != '-' || text[7] != '-' || *y < 1970 || *mo < 1 || *mo > 12) return std::nullopt;
  const bool leap = (*y % 4 == 0 && *y % 100 != 0) || *y % 400 == 0;
  constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (*d < 1 || *d > kDays[*mo - 1] + (*mo == 2 && leap)) return std::nullopt;
  int64_t seconds = days_from_civil(*y, *mo, *d) * 86400;
  if (text.size() == 10) return seconds;
  const auto h = digits_at(text, 11, 2), mi = digits_at(text, 14, 2), s = digits_at(text, 17, 2);
  if (text[10] != 'T' || text[13] != ':' || text[16] != ':' || text[19] != 'Z' || !h || !mi || !s || *h > 23 || *mi > 59 ||
      *s > 59)
    return std::nullopt;
  return seconds + *h * 3600 + *mi * 60 + *s;
}

std::string om_timestamp(int64_t start_unix_s, Time t) {
  const int64_t us = t.us();
  const int64_t seconds = start_unix_s + us / 1'000'000, fraction = us % 1'000'000;
  if (fraction == 0) return fmt::format("{}", seconds);
  std::string out = fmt::format("{}.{:06}", seconds, fraction);
  while (out.back() == '0') out.pop_back();
  return out;
}

double power_w(double tdp_w, double idle_fraction, double util) {
  const double idle_w = idle_fraction * tdp_w;
  return idle_w + (tdp_w - idle_w) * std::clamp(util, 0.0, 1.0);
}

double step_average(double busy_us_before, double busy_us_after, Duration step) {
  if (step.us() <= 0) return 0.0;
  return std::clamp((busy_us_after - busy_us_before) / static_cast<double>(step.us()), 0.0, 1.0);
}

}  // namespace gpusim
