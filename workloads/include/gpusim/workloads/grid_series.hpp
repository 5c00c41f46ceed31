#pragma once
// A grid's series over time (carbon intensity, an electricity price) read from a CSV file: a
// `timestamp` column (UTC: "YYYY-MM-DD HH:MM:SS", optionally with "T" and "Z" or "+00:00") and one
// value column (docs/guide/energy.md). Each value holds from its timestamp to the next; the last one
// for as long as the gap before it. A row whose value is empty is skipped (the value before it holds):
// SustainDC's files from EIA data miss a few hours.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpusim {

struct GridSeries {
  std::string file;
  std::vector<int64_t> unix_s;  // increasing
  std::vector<double> values;
  int64_t end_unix_s = 0;  // where the last value stops holding
};

// `column`: the value column's name. Refused with an InputError naming the file and line: a missing
// column, a malformed timestamp, one not after the row before, a negative value, fewer than two rows.
GridSeries read_grid_series(const std::string& path, std::string_view column);

}  // namespace gpusim
