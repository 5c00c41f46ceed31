#pragma once
// Text the front ends print: numbers with thousands separators, seconds in a readable unit, and
// aligned tables. One implementation for the run, compare, breakdown and catalog tables.
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpusim::cli {

// 1234567.891, 2 -> "1,234,567.89"
std::string with_commas(double v, int decimals);

// The unit a duration reads best in: {seconds per unit, name}; s < 120 -> s, < 2 h -> min, < 2 d -> h, else d.
std::pair<double, const char*> seconds_unit(double s);
// 5400 -> "90.0 min"
std::string human_seconds(double s);

// `s` inside XML or HTML text and double-quoted attributes: & < > " escaped (JUnit files, the report).
std::string xml_escape(std::string_view s);

// Columns a text takes on a terminal ("±" and "…" are several bytes and one column).
std::size_t shown_width(const std::string& text);

struct TextColumn {
  std::string header;
  bool right = false;  // numbers align right
};
// Two spaces before each cell, columns as wide as their widest cell, no trailing spaces.
std::string aligned_table(const std::vector<TextColumn>& columns, const std::vector<std::vector<std::string>>& rows);

}  // namespace gpusim::cli
