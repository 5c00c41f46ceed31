#include "gpusim/workloads/grid_series.hpp"

#include <fmt/format.h>

#include "gpusim/core/number.hpp"
#include "gpusim/workloads/csv.hpp"
#include "gpusim/workloads/traces.hpp"

namespace gpusim {

namespace {

// "YYYY-MM-DD HH:MM:SS" with an optional "T" for the space and a "Z" or "+00:00" after it.
std::optional<int64_t> utc_seconds(std::string_view t) {
  if (t.ends_with("Z")) t.remove_suffix(1);
  else if (t.ends_with("+00:00")) t.remove_suffix(6);
  std::string plain(t);
  if (plain.size() == 19 && plain[10] == 'T') plain[10] = ' ';
  return parse_timestamp(plain);
}

}  // namespace

GridSeries read_grid_series(const std::string& path, std::string_view column) {
  csv::Reader r(path);
  std::vector<std::string_view> f;
  const std::string expected = fmt::format("timestamp,{}", column);
  const std::size_t width = r.header(f, expected);
  const std::size_t at_time = r.column(f, "timestamp", expected), at_value = r.column(f, column, expected);
  GridSeries s;
  s.file = path;
  while (r.next(f)) {
    r.check_width(f, width);
    const auto t = utc_seconds(f[at_time]);
    if (!t)
      r.fail(fmt::format("column 'timestamp': expected a UTC time as YYYY-MM-DD HH:MM:SS (or with T and Z, or +00:00), got '{}'",
                         f[at_time]));
    if (!s.unix_s.empty() && *t <= s.unix_s.back()) r.fail("timestamps must increase from row to row");
    if (f[at_value].empty()) continue;
    s.unix_s.push_back(*t);
    s.values.push_back(r.number(f[at_value], column, Range::at_least(0)));
  }
  if (s.values.size() < 2)
    r.fail(fmt::format("expected at least two rows with a {} (a series' step is the gap between them)", column));
  s.end_unix_s = s.unix_s.back() + (s.unix_s.back() - s.unix_s[s.unix_s.size() - 2]);
  return s;
}

}  // namespace gpusim
