#pragma once
// Letter case for names compared or written without regard to it (GPU models, Kubernetes kinds,
// vendors' labels): only A-Z and a-z change, whatever the locale, so the other bytes of a UTF-8 name
// pass through as they are.
#include <algorithm>
#include <string>
#include <string_view>

namespace gpusim {

constexpr char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
constexpr char ascii_upper(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; }

inline std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = ascii_lower(c);
  return out;
}

inline std::string ascii_upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = ascii_upper(c);
  return out;
}

// The same letters, case aside.
inline bool ascii_iequal(std::string_view a, std::string_view b) {
  return std::ranges::equal(a, b, [](char x, char y) { return ascii_lower(x) == ascii_lower(y); });
}

}  // namespace gpusim
