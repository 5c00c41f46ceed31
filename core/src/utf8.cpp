#include "gpusim/core/utf8.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "gpusim/core/error.hpp"

namespace gpusim {

// The well-formed byte sequences of the Unicode standard (table 3-7).
std::optional<std::size_t> first_invalid_utf8(std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  std::size_t i = 0;
  const auto in = [&](std::size_t k, unsigned char lo, unsigned char hi) {
    return i + k < n && s[i + k] >= lo && s[i + k] <= hi;
  };
  while (i < n) {
    // Eight ASCII bytes at a time: traces are mostly ASCII (the byte-at-a-time loop cost the Mooncake hour 1 %).
    for (uint64_t w = 0; i + 8 <= n; i += 8) {
      std::memcpy(&w, s + i, 8);
      if (w & 0x8080808080808080ULL) break;
    }
    if (i >= n) break;
    const unsigned char c = s[i];
    std::size_t len = 0;
    if (c < 0x80) len = 1;
    else if (c >= 0xC2 && c <= 0xDF) len = in(1, 0x80, 0xBF) ? 2 : 0;
    else if (c == 0xE0) len = in(1, 0xA0, 0xBF) && in(2, 0x80, 0xBF) ? 3 : 0;
    else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) len = in(1, 0x80, 0xBF) && in(2, 0x80, 0xBF) ? 3 : 0;
    else if (c == 0xED) len = in(1, 0x80, 0x9F) && in(2, 0x80, 0xBF) ? 3 : 0;
    else if (c == 0xF0) len = in(1, 0x90, 0xBF) && in(2, 0x80, 0xBF) && in(3, 0x80, 0xBF) ? 4 : 0;
    else if (c >= 0xF1 && c <= 0xF3) len = in(1, 0x80, 0xBF) && in(2, 0x80, 0xBF) && in(3, 0x80, 0xBF) ? 4 : 0;
    else if (c == 0xF4) len = in(1, 0x80, 0x8F) && in(2, 0x80, 0xBF) && in(3, 0x80, 0xBF) ? 4 : 0;
    if (len == 0) return i;
    i += len;
  }
  return std::nullopt;
}

void require_utf8(std::string_view text, const std::string& file) {
  const auto bad = first_invalid_utf8(text);
  if (!bad) return;
  const std::string_view before = text.substr(0, *bad);
  throw InputError(
      {file, static_cast<int>(std::count(before.begin(), before.end(), '\n')) + 1, ""},
      fmt::format("byte 0x{:02X} is not UTF-8 text: save the file as UTF-8", static_cast<unsigned char>(text[*bad])));
}

}  // namespace gpusim
