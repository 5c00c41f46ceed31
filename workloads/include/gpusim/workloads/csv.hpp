#pragma once
// Line-by-line CSV reading shared by the trace readers and the HTML report (which reads a run's own
// files): no quoting (none of the supported traces quote, nor does gpusim write any), fields trimmed of
// spaces, blank lines skipped, every error with file and line. A gzip-compressed file is read as its
// text, streamed (one gzip stream, or several concatenated as gzip allows; bytes after it are refused,
// which zlib's gzread would ignore); text already in memory is read in place. The
// first record is the header; a trace with a header and no rows, or any file starting with a UTF-8
// byte-order mark (which would hide inside the first column's name), is refused here.
#include <zlib.h>

#include <algorithm>
#include <array>
#include <concepts>
#include <filesystem>
#include <fstream>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "gpusim/core/error.hpp"
#include "gpusim/core/number.hpp"
#include "gpusim/core/utf8.hpp"

namespace gpusim::csv {

// A file's bytes in chunks: gunzipped when it starts with gzip's magic bytes, else as they are.
class FileBytes {
 public:
  explicit FileBytes(const std::string& path) : path_(path), in_(path, std::ios::binary) {
    if (!in_) throw InputError({path, std::nullopt, ""}, "cannot open trace file");
    fill();
    gzip_ = avail() >= 2 && static_cast<unsigned char>(raw_[0]) == 0x1f && static_cast<unsigned char>(raw_[1]) == 0x8b;
    if (gzip_ && inflateInit2(&z_, 15 + 16) != Z_OK) throw std::bad_alloc();
  }
  ~FileBytes() {
    if (gzip_) inflateEnd(&z_);
  }
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;
  // Appends the next bytes of text to `out`; false at the end. `line` names the line being read in errors.
  bool append(std::string& out, int line) {
    while (true) {
      if (avail() == 0 && !fill()) {
        if (gzip_ && !member_ended_) bad(line, "the file is not valid gzip data (truncated)");
        return false;
      }
      if (!gzip_) {
        out.append(raw_.data() + used_, avail());
        used_ = raw_size_;
        return true;
      }
      if (member_ended_) {  // another member must follow, or nothing
        if (static_cast<unsigned char>(raw_[used_]) != 0x1f)
          bad(line, fmt::format("bytes after the end of the gzip data (at byte {} of the file): expected the end of the "
                                "file or another gzip stream",
                                offset_ - avail()));
        inflateReset(&z_);
        member_ended_ = false;
      }
      std::array<char, 65536> buf;
      z_.next_in = reinterpret_cast<Bytef*>(raw_.data() + used_);
      z_.avail_in = static_cast<uInt>(avail());
      z_.next_out = reinterpret_cast<Bytef*>(buf.data());
      z_.avail_out = static_cast<uInt>(buf.size());
      const int rc = inflate(&z_, Z_NO_FLUSH);
      used_ = raw_size_ - z_.avail_in;
      if (rc == Z_STREAM_END) member_ended_ = true;
      else if (rc != Z_OK && rc != Z_BUF_ERROR) bad(line, "the file is not valid gzip data (corrupt)");
      const std::size_t made = buf.size() - z_.avail_out;
      out.append(buf.data(), made);
      if (made > 0) return true;
    }
  }

 private:
  std::size_t avail() const { return raw_size_ - used_; }
  bool fill() {
    in_.read(raw_.data(), static_cast<std::streamsize>(raw_.size()));
    raw_size_ = static_cast<std::size_t>(in_.gcount());
    used_ = 0;
    offset_ += raw_size_;
    return raw_size_ > 0;
  }
  [[noreturn]] void bad(int line, const std::string& what) const { throw InputError({path_, line, ""}, what); }
  std::string path_;
  std::ifstream in_;
  std::array<char, 65536> raw_{};
  std::size_t raw_size_ = 0, used_ = 0;
  uint64_t offset_ = 0;  // bytes of the file read so far
  bool gzip_ = false, member_ended_ = false;
  z_stream z_{};
};

class Reader {
 public:
  // Rows after the header: a trace must have some; a run's output may have none (no requests, no events).
  enum class Rows { required, optional };
  explicit Reader(const std::string& path) : path_(path) {
    if (std::error_code ec; std::filesystem::is_directory(path, ec))
      throw InputError({path, std::nullopt, ""}, "is a directory: expected a trace file");
    file_.emplace(path);
  }
  // `text` read in place (it must outlive the reader); `path` names it in errors.
  Reader(std::string_view text, std::string path, Rows rows) : path_(std::move(path)), text_(text), rows_(rows) {}
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;
  // Next non-blank line split into fields; false at end of file (refused after the header alone).
  bool next(std::vector<std::string_view>& fields) {
    while (read_line()) {
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
    if (records_ == 1 && rows_ == Rows::required)
      throw InputError({path_, header_line_, ""}, "the file has a header and no rows");
    return false;
  }
  // Where column `name` is in the header `fields`; refused naming the header expected.
  std::size_t column(const std::vector<std::string_view>& fields, std::string_view name, std::string_view expected) const {
    const auto it = std::find(fields.begin(), fields.end(), name);
    if (it == fields.end()) fail(fmt::format("header lacks the required column '{}' (expected {})", name, expected));
    return static_cast<std::size_t>(it - fields.begin());
  }
  // The header into `fields` (an empty file is refused, naming the header `expected`); its width.
  std::size_t header(std::vector<std::string_view>& fields, std::string_view expected) {
    if (!next(fields)) fail(fmt::format("empty file: expected the header {}", expected));
    return fields.size();
  }
  // A row as wide as the header.
  void check_width(const std::vector<std::string_view>& fields, std::size_t width) const {
    if (fields.size() != width) fail(fmt::format("expected {} columns as in the header, got {}", width, fields.size()));
  }
  int line() const { return line_no_; }
  const std::string& path() const { return path_; }
  SourceLocation origin() const { return {path_, line_no_, ""}; }
  [[noreturn]] void fail(const std::string& what) const { throw InputError({path_, line_no_, ""}, what); }

  // A column's number in `range` (core/number.hpp); the message names the column.
  template <std::integral T = int64_t>
  T integer(std::string_view field, std::string_view column, const Range& range = {}) const {
    if (!range.fits<T>()) throw std::logic_error(fmt::format("column '{}': its range is not inside the type read", column));
    return static_cast<T>(checked(column, [&] { return parse_integer(field, range); }));
  }
  double number(std::string_view field, std::string_view column, const Range& range = {}) const {
    return checked(column, [&] { return parse_number(field, range); });
  }
  // Whole numbers written as floats ("2951.0") are accepted where the column is an integer count.
  int64_t whole(std::string_view field, std::string_view column, const Range& range = {}) const {
    return checked(column, [&] { return parse_whole(field, range); });
  }

 private:
  template <typename Parse>
  std::invoke_result_t<Parse> checked(std::string_view column, Parse parse) const {
    try {
      return parse();
    } catch (const std::invalid_argument& e) {
      fail(fmt::format("column '{}': {}", column, e.what()));
    }
  }
  // The next line into line_, without its '\n'; false at the end of the file. A file's text is read
  // into buffer_ a chunk at a time; text_ views what is left of it (or the caller's text).
  bool read_line() {
    std::size_t nl = text_.find('\n', text_pos_);
    while (nl == std::string_view::npos && file_) {
      buffer_.erase(0, text_pos_);
      const std::size_t searched = buffer_.size();
      text_pos_ = 0;
      if (!file_->append(buffer_, line_no_ + 1)) {
        file_.reset();
      } else {
        nl = buffer_.find('\n', searched);
      }
      text_ = buffer_;
    }
    if (text_pos_ >= text_.size()) return false;
    const std::size_t end = std::min(nl, text_.size());
    line_.assign(text_.substr(text_pos_, end - text_pos_));
    text_pos_ = end + 1;
    return true;
  }
  std::string path_;
  std::optional<FileBytes> file_;  // none: reading the caller's text, or the file is read
  std::string buffer_;
  std::string_view text_;
  std::size_t text_pos_ = 0;
  Rows rows_ = Rows::required;
  std::string line_;
  int line_no_ = 0;
  int records_ = 0;  // non-blank lines read, the header included
  int header_line_ = 0;
};

}  // namespace gpusim::csv
