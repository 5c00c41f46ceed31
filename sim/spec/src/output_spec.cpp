#include "gpusim/sim/output_spec.hpp"

#include <fmt/format.h>

namespace gpusim {

const std::vector<OutputSpec>& output_table() {
  static const std::vector<OutputSpec> table{
#define GPUSIM_OUTPUT(name, file, description, by_default, writer) {name, file, description, by_default},
#include "gpusim/sim/outputs.def"
#undef GPUSIM_OUTPUT
  };
  return table;
}

const OutputSpec* find_output(std::string_view name) {
  for (const OutputSpec& o : output_table())
    if (o.name == name) return &o;
  return nullptr;
}

std::string default_output_files() {
  std::string out;
  for (const OutputSpec& o : output_table())
    if (o.by_default) out += fmt::format("{}{}", out.empty() ? "" : ", ", o.file);
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

}  // namespace gpusim
