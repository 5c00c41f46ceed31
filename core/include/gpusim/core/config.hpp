#pragma once
// A strict reader over YAML (and JSON, which YAML reads): every error names the file, the line and
// the field path, and objects reject fields they do not know (after mig-parted's spec).
#include <fmt/format.h>

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "gpusim/core/enum_table.hpp"
#include "gpusim/core/error.hpp"
#include "gpusim/core/number.hpp"
#include "gpusim/core/time.hpp"

// yaml-cpp stays behind this reader: headers that read configs do not pull it in (only the .cpp
// files that touch YAML trees include it).
namespace YAML {
class Node;
class Exception;
}  // namespace YAML

namespace gpusim {

// Where YAML text comes from. A built-in document (compiled in, read by every test) skips the first pass
// that guards against yaml-cpp's endless loop (yaml_documents): it is known not to loop, and the pass
// was a third of the instructions a small scenario takes to start.
enum class YamlText : uint8_t { user, builtin };

class ConfigNode {
 public:
  // Parses `text` read from `file` (used in messages only). Every key of every map must be a
  // scalar, given once: yaml-cpp keeps both of two equal keys and finds the first, so a second
  // `seed:` would be ignored silently; parse refuses it naming both lines.
  static ConfigNode parse(const std::string& text, const std::string& file, YamlText from = YamlText::user);
  static ConfigNode load_file(const std::string& path);
  // The check parse makes, for a tree read some other way (a --set value): throws an InputError
  // naming `file`, the line and the field (under `path`).
  static void check_keys(const YAML::Node& node, const std::string& file, const std::string& path);
  // What a yaml-cpp parse error means, in words a user can act on (yaml-cpp says "bad file" for
  // lists and maps nested past its depth limit).
  static std::string parse_error(const YAML::Exception& e);
  ConfigNode(const YAML::Node& node, std::shared_ptr<const std::string> file, std::string path);
  ConfigNode();  // an empty document of no file

  // Records that `value` (now in this document) was put there by `--set assignment`: it and every
  // node under it are then named by the flag in messages, not by the file and a line of their own.
  void note_set(const YAML::Node& value, const std::string& assignment) const;

  const std::string& path() const { return path_; }
  const std::string& file() const { return *file_; }
  const YAML::Node& yaml() const { return *node_; }
  SourceLocation where() const;
  [[noreturn]] void fail(const std::string& what) const;

  bool is_map() const;
  bool is_sequence() const;
  bool is_scalar() const;
  bool is_null() const;

  // Fields of a map.
  bool has(std::string_view key) const;
  ConfigNode at(std::string_view key) const;  // required
  std::optional<ConfigNode> get(std::string_view key) const;
  // `value` standing for field `key` of this map (e.g. its default when the map lacks it).
  ConfigNode child(std::string_view key, const YAML::Node& value) const;
  // Rejects any key not in `allowed`, naming the ones that are.
  void allow_only(std::span<const std::string_view> allowed) const;
  void allow_only(std::initializer_list<std::string_view> allowed) const {
    allow_only(std::span<const std::string_view>(allowed.begin(), allowed.size()));
  }
  std::vector<std::pair<std::string, ConfigNode>> entries() const;
  std::vector<ConfigNode> items() const;  // a sequence

  std::string as_string() const;
  // An integer in `range` (parse_integer), read into T: a T narrower than int64 needs a range
  // inside it (std::logic_error otherwise, a reader's bug), so no value is truncated.
  template <std::integral T = int64_t>
  T as_int(const Range& range = {}) const {
    if (!range.fits<T>())
      throw std::logic_error(fmt::format("{}: the range read into a narrower integer type is not inside it", path_));
    return static_cast<T>(as_int64(range));
  }
  int64_t as_positive_int() const { return as_int(Range::at_least(1)); }
  int64_t as_non_negative_int() const { return as_int(Range::at_least(0)); }
  double as_number(const Range& range = {}) const;  // finite, in `range` (parse_number)
  double as_non_negative_number() const { return as_number(Range::at_least(0)); }
  bool as_bool() const;
  Duration as_duration() const;  // number of seconds, or "30m", "2h", ..., from 0 to kMaxSpan
  // The value of E the scalar names, else fails listing the choices: "expected one of a, b, c", or
  // with last = " or ", "expected a, b or c".
  template <NamedEnum E>
  E as_enum(std::string_view last = ", ") const {
    const std::string s = as_string();
    if (const auto v = parse_enum<E>(s)) return *v;
    fail(fmt::format("expected {}{}, got '{}'", last == ", " ? "one of " : "", enum_choices<E>(last), s));
  }

  std::vector<std::string> string_list(std::string_view key) const;  // scalar or sequence; absent = {}

 private:
  std::string scalar(std::string_view expected) const;
  int64_t as_int64(const Range& range) const;
  template <class Parse>
  std::invoke_result_t<Parse, const std::string&> parsed(std::string_view expected, Parse parse) const;
  std::shared_ptr<const YAML::Node> node_;  // a handle: copies of a ConfigNode share it
  std::shared_ptr<const std::string> file_;
  std::string path_;
  // The document's --set values (shared by its nodes), and the assignment this node came from.
  std::shared_ptr<std::vector<std::pair<std::shared_ptr<const YAML::Node>, std::shared_ptr<const std::string>>>> sets_;
  std::shared_ptr<const std::string> set_;
  ConfigNode derived(const YAML::Node& value, std::string path) const;
};

}  // namespace gpusim
