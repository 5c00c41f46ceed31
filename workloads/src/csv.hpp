#pragma once
// Line-by-line CSV reading shared by the trace readers: no quoting (none of the supported traces
// quote), fields trimmed of spaces, blank lines skipped, every error with file and line. The first
// record is the header; a file with a header and no rows, or one starting with a UTF-8 byte-order
// mark (which would hide inside the first column's name), is refused here for every trace reader.
#include <charconv>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "gpusim/core/error.hpp"
#include "gpusim/core/utf8.hpp"

namespace gpusim::csv {

class Reader {
 public:
  explicit Reader(const std::string& path) : path_(path) {
    if (std::error_code ec; std::filesystem::is_directory(path, ec))
      throw InputError({path, std::nullopt, ""}, "is a directory: expected a trace file");
    in_.open(path);
    if (!in_) throw InputError({path, std::nullopt, ""}, "cannot open trace file");
  }
  // Next non-blank line split into fields; false at end of file (refused after the header alone).
  bool next(std::vector<std::string_view>& fields) {
    while (std::getline(in_, line_)) {
      ++line_no_;
      if (line_no_ == 1 && line_.starts_with("\xEF\xBB\xBF"))
        fail("the file starts with a byte-order mark (bytes EF BB BF, as some spreadsheet programs write): save it as "
             "UTF-8 without a BOM");
      if (const auto bad = first_invalid_utf8(line_))
        fail(fmt::format("byte 0x{:02X} at column {} is not UTF-8 text: save the file as UTF-8",
                         static_cast<unsigned char>(line_[*bad]), *bad + 1));
      if (!line_.empty() && line_.back() == '\r') line_.pop_back();
      if (line_.find_first_not_of(" \t") == std::string::npos) continue;
      fields.clear();
      std::size_t start = 0;
      while (true) {
        const std::size_t comma = line_.find(',', start);
        std::string_view f(line_.data() + start, (comma == std::string::npos ? line_.size() : comma) - start);
        while (!f.empty() && f.front() == ' ') f.remove_prefix(1);
        while (!f.empty() && f.back() == ' ') f.remove_suffix(1);
        fields.push_back(f);
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      if (++records_ == 1) header_line_ = line_no_;
      return true;
    }
    if (records_ == 1) throw InputError({path_, header_line_, ""}, "the file has a header and no rows");
    return false;
  }
  int line() const { return line_no_; }
  const std::string& path() const { return path_; }
  SourceLocation origin() const { return {path_, line_no_, ""}; }
  [[noreturn]] void fail(const std::string& what) const { throw InputError({path_, line_no_, ""}, what); }

  template <typename T>
  T number(std::string_view field, std::string_view column) const {
    T v{};
    auto [p, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
    if (ec != std::errc() || p != field.data() + field.size())
      fail(fmt::format("column '{}': expected a number, got '{}'", column, field));
    return v;
  }
  // Whole numbers written as floats ("2951.0") are accepted where the column is an integer count.
  int64_t whole(std::string_view field, std::string_view column) const {
    const double v = number<double>(field, column);
    if (v != static_cast<double>(static_cast<int64_t>(v)))
      fail(fmt::format("column '{}': expected a whole number, got '{}'", column, field));
    return static_cast<int64_t>(v);
  }

 private:
  std::string path_;
  std::ifstream in_;
  std::string line_;
  int line_no_ = 0;
  int records_ = 0;  // non-blank lines read, the header included
  int header_line_ = 0;
};

}  // namespace gpusim::csv
