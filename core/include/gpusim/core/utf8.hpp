#pragma once
// Text that enters gpusim (scenario files, --set values, trace rows) must be UTF-8: names end up in
// JSON and CSV outputs, and a byte that is not UTF-8 would make a run fail only when it writes them.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace gpusim {

// The offset of the first byte that does not start a well-formed UTF-8 sequence (overlong forms,
// surrogates and code points past U+10FFFF are not well formed), or nullopt if all of `text` is UTF-8.
std::optional<std::size_t> first_invalid_utf8(std::string_view text);

// A whole file's text: an InputError naming `file` and the line of the first byte that is not UTF-8.
void require_utf8(std::string_view text, const std::string& file);

}  // namespace gpusim
