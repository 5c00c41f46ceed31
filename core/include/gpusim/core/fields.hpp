#pragma once
// Config sections declared once: each field's name, type, default, unit and one-line description.
// From the declaration come the fields a map may have (ConfigNode::allow_only's "expected one of:
// ..."), the check that every name a reader asks for is declared, the defaults it falls back on and
// the JSON Schema of the format (`gpusim schema`), so that reader, messages and schema cannot drift.
//
//   const Section& spot_section() {
//     static const Section s{"spot", "A spot pool's reclaim process", {
//         {"notice", Type::duration(), "2m", "", "Warning before a node is taken back"}, ...}};
//     return s;
//   }
//   const Fields f = spot_section().read(node);   // fails on an undeclared field
//   const Duration notice = f.value("notice").as_duration();

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusim/core/config.hpp"
#include "gpusim/core/enum_table.hpp"
#include "gpusim/core/json.hpp"

namespace gpusim {

class Section;

// The type of a field's value: what its reader accepts, as the schema states it.
struct Type {
  enum class Kind : uint8_t { any, string, integer, number, boolean, duration, choice, section, list, map, one_of };
  Kind kind = Kind::any;
  std::optional<Bound> minimum, maximum;  // integer, number
  std::string_view pattern;               // string: a regular expression the value matches
  std::vector<std::string_view> names;    // choice: the strings allowed; map: the keys allowed (none: any)
  const Section* fields = nullptr;        // section
  std::vector<Type> of;                   // list, map: the element's type; one_of: the alternatives

  explicit Type(Kind k = Kind::any) : kind(k) {}
  static Type any() { return Type(); }
  static Type string(std::string_view pattern = {}) {
    Type t(Kind::string);
    t.pattern = pattern;
    return t;
  }
  static Type integer() { return Type(Kind::integer); }
  // An integer read into an int32 (ConfigNode::as_int<int32_t> needs the range stated).
  static Type int32() { return integer().in(Range::of<int32_t>()); }
  static Type number() { return Type(Kind::number); }
  static Type boolean() { return Type(Kind::boolean); }
  // A number of seconds or a string such as "30m", "2h", "7d" (parse_duration).
  static Type duration() { return Type(Kind::duration); }
  static Type choice(std::vector<std::string_view> names) {
    Type t(Kind::choice);
    t.names = std::move(names);
    return t;
  }
  template <NamedEnum E>
  static Type enumeration() {
    return choice({enum_names<E>.begin(), enum_names<E>.end()});
  }
  // Some of E's values only.
  template <NamedEnum E>
  static Type enumeration(std::initializer_list<E> values) {
    std::vector<std::string_view> names;
    for (E v : values) names.push_back(to_string(v));
    return choice(std::move(names));
  }
  // A string or a list of strings (ConfigNode::string_list).
  static Type string_list() { return one_of({string(), list(string())}); }
  static Type section(const Section& s) {
    Type t(Kind::section);
    t.fields = &s;
    return t;
  }
  static Type list(Type item) {
    Type t(Kind::list);
    t.of.push_back(std::move(item));
    return t;
  }
  // A map from any key (or one of `keys`) to values of one type.
  static Type map(Type value, std::vector<std::string_view> keys = {}) {
    Type t(Kind::map);
    t.names = std::move(keys);
    t.of.push_back(std::move(value));
    return t;
  }
  static Type one_of(std::vector<Type> alternatives) {
    Type t(Kind::one_of);
    t.of = std::move(alternatives);
    return t;
  }

  // The range of an integer or a number (of a list's items; of a one_of's first bounded alternative):
  // what the schema states and the reader checks (Fields::range).
  Range range() const;
  Type at_least(double v) const { return bounded(&Type::minimum, {v, false}); }
  Type above(double v) const { return bounded(&Type::minimum, {v, true}); }
  Type at_most(double v) const { return bounded(&Type::maximum, {v, false}); }
  Type below(double v) const { return bounded(&Type::maximum, {v, true}); }
  Type in(const Range& r) const {
    Type t = *this;
    t.minimum = r.minimum;
    t.maximum = r.maximum;
    return t;
  }

 private:
  Type bounded(std::optional<Bound> Type::*end, Bound b) const {
    Type t = *this;
    t.*end = b;
    return t;
  }
};

// A field an absent value of which is an error.
struct Required {};
inline constexpr Required required{};

// What an absent field means: an error (`required`), the value of a YAML text, or nothing stated
// ("": the description says what absence means).
struct FieldDefault {
  FieldDefault(Required) : required(true) {}
  FieldDefault(const char* yaml);
  bool required = false;
  std::shared_ptr<const YAML::Node> value;  // null: no default
};

struct Field {
  std::string_view name;
  Type type;
  FieldDefault absent;
  std::string_view unit;    // of a number, e.g. "MiB", "USD per GPU-hour" (durations state theirs)
  std::string description;  // one line
};

// Fields of several lists, in order: a section that shares some of its fields with another.
std::vector<Field> join_fields(std::initializer_list<std::vector<Field>> parts);

// `source:`, where the figures of a catalog entry or a section of model.yaml come from.
Field source_field(FieldDefault absent = "");

class Fields;

// A map of declared fields. Sections are built once (function-local statics), so the pointers
// Type::section keeps stay valid.
class Section {
 public:
  // `name` is the section's key under the schema's $defs: unique in a format.
  Section(std::string name, std::string description, std::vector<Field> fields);

  const std::string& name() const { return name_; }
  const std::string& description() const { return description_; }
  const std::vector<Field>& fields() const { return fields_; }
  // The field called `name`; std::logic_error when it is not declared (a reader's bug).
  const Field& field(std::string_view name) const;

  // Fails at the first field of `node` (a map) the section does not declare, naming the ones it does.
  void check(const ConfigNode& node) const { node.allow_only(names_); }
  // `node`, checked, to read through the declaration.
  Fields read(const ConfigNode& node) const;
  // A copy whose fields without a default take the one `doc` (a map of this section's shape) gives.
  Section with_defaults(const YAML::Node& doc) const;

 private:
  std::string name_;
  std::string description_;
  std::vector<Field> fields_;
  std::vector<std::string_view> names_;
};

// A map read through its section: every field asked for must be declared.
class Fields {
 public:
  Fields(const Section& section, ConfigNode node) : section_(&section), node_(std::move(node)) {}

  const ConfigNode& node() const { return node_; }
  [[noreturn]] void fail(const std::string& what) const { node_.fail(what); }
  bool has(std::string_view name) const;
  std::optional<ConfigNode> get(std::string_view name) const;
  ConfigNode at(std::string_view name) const;  // required
  // The field, else its declared default; an input error naming it when it has none (required, or
  // optional without a default and needed by what the other fields say).
  ConfigNode value(std::string_view name) const;
  std::vector<std::string> string_list(std::string_view name) const;  // scalar or sequence; absent = {}
  // The declared range of a field's numbers, for reading it (or its items) with ConfigNode::as_int
  // or as_number: the schema states the same range, so reader and schema cannot drift.
  Range range(std::string_view name) const { return section_->field(name).type.range(); }
  // The field (else its default) read in its declared range.
  template <std::integral T = int64_t>
  T integer(std::string_view name) const {
    return value(name).as_int<T>(range(name));
  }
  double number(std::string_view name) const { return value(name).as_number(range(name)); }

 private:
  const Section* section_;
  ConfigNode node_;
};

// The JSON Schema (draft 2020-12) of documents shaped as `root`: each section it reaches is a $defs
// entry; every property has a description (with its unit), its type or choices and its default.
Json json_schema(const Section& root, std::string_view title);

}  // namespace gpusim
