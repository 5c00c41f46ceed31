#include "gpusim/sim/open_metrics.hpp"

#include <fmt/format.h>

#include <algorithm>

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

std::string om_timestamp(int64_t start_unix_s, Time t) {
  const int64_t us = t.us();
  const int64_t seconds = start_unix_s + us / 1'000'000, fraction = us % 1'000'000;
  if (fraction == 0) return fmt::format("{}", seconds);
  std::string out = fmt::format("{}.{:06}", seconds, fraction);
  while (out.back() == '0') out.pop_back();
  return out;
}

double step_average(double busy_us_before, double busy_us_after, Duration step) {
  if (step.us() <= 0) return 0.0;
  return std::clamp((busy_us_after - busy_us_before) / static_cast<double>(step.us()), 0.0, 1.0);
}

}  // namespace gpusim
