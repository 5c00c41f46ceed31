#include "gpusim/core/error.hpp"

#include <fmt/format.h>

namespace gpusim {

std::string located(const SourceLocation& w, const std::string& what) {
  std::string out;
  if (!w.file.empty()) out += w.file;
  if (w.line) out += fmt::format("{}line {}", out.empty() ? "" : ":", *w.line);
  if (!w.field.empty()) out += fmt::format("{}{}", out.empty() ? "" : ": ", w.field);
  return out.empty() ? what : out + ": " + what;
}

InputError::InputError(const SourceLocation& where, const std::string& what)
    : std::runtime_error(located(where, what)), where_(where), reason_(what) {}

}  // namespace gpusim
