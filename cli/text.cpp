#include "text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace gpusim::cli {

std::string with_commas(double v, int decimals) {
  const std::string s = fmt::format("{:.{}f}", std::abs(v), decimals);
  const std::size_t digits = std::min(s.find('.'), s.size());
  std::string out = v < 0 ? "-" : "";
  for (std::size_t i = 0; i < digits; ++i) {
    if (i > 0 && (digits - i) % 3 == 0) out += ',';
    out += s[i];
  }
  return out + s.substr(digits);
}

std::pair<double, const char*> seconds_unit(double s) {
  if (s < 120) return {1.0, "s"};
  if (s < 7200) return {60.0, "min"};
  if (s < 172800) return {3600.0, "h"};
  return {86400.0, "d"};
}

std::string human_seconds(double s) {
  const auto [scale, unit] = seconds_unit(s);
  return fmt::format("{:.1f} {}", s / scale, unit);
}

std::size_t shown_width(const std::string& text) {
  std::size_t n = 0;
  for (unsigned char ch : text) n += (ch & 0xC0) != 0x80;  // count UTF-8 lead bytes only
  return n;
}

std::string aligned_table(const std::vector<TextColumn>& columns, const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width(columns.size());
  for (std::size_t c = 0; c < columns.size(); ++c) {
    width[c] = shown_width(columns[c].header);
    for (const auto& r : rows) width[c] = std::max(width[c], shown_width(r[c]));
  }
  const auto line = [&](const auto& cell_of) {
    std::string out;
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const std::string& text = cell_of(c);
      const std::string fill(width[c] - shown_width(text), ' ');
      out += "  ";
      out += columns[c].right ? fill + text : text + fill;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + '\n';
  };
  std::string out = line([&](std::size_t c) -> const std::string& { return columns[c].header; });
  for (const auto& r : rows) out += line([&](std::size_t c) -> const std::string& { return r[c]; });
  return out;
}

std::string xml_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace gpusim::cli
