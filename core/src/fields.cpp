#include "gpusim/core/fields.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <map>
#include <stdexcept>
#include <tuple>

namespace gpusim {

namespace {

// The same tree without source marks: a default read in place of an absent field has no line.
YAML::Node unmarked(const YAML::Node& n) {
  if (n.IsScalar()) return YAML::Node(n.Scalar());
  YAML::Node out(n.IsMap() ? YAML::NodeType::Map : n.IsSequence() ? YAML::NodeType::Sequence : YAML::NodeType::Null);
  if (n.IsSequence())
    for (const auto& item : n) out.push_back(unmarked(item));
  else if (n.IsMap())
    for (const auto& kv : n) out[kv.first.Scalar()] = unmarked(kv.second);
  return out;
}

// What parse_duration reads: a number, optionally with a unit.
constexpr std::string_view kDurationPattern = R"(^ *([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?(us|ms|s|m|h|d|w)? *$)";

Json bound_json(double v) {
  if (v == std::trunc(v) && std::abs(v) < 9e15) return static_cast<int64_t>(v);
  return v;
}

// A scalar as JSON: a number or a boolean where the text is one, unless the type is a string.
Json scalar_json(const std::string& s, const Type& t) {
  if (t.kind == Type::Kind::string || t.kind == Type::Kind::choice) return s;
  if (s == "true" || s == "false") return s == "true";
  int64_t i = 0;
  if (auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), i); ec == std::errc() && p == s.data() + s.size()) return i;
  double d = 0;
  if (auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), d); ec == std::errc() && p == s.data() + s.size()) return d;
  return s;
}

class SchemaWriter {
 public:
  Json defs = Json::object();

  Json section(const Section& s) {
    Json properties = Json::object(), required = Json::array();
    for (const Field& f : s.fields()) {
      properties[std::string(f.name)] = field(f);
      if (f.absent.required) required.push_back(f.name);
    }
    Json out{{"type", "object"}, {"description", s.description()}, {"properties", std::move(properties)}};
    if (!required.empty()) out["required"] = std::move(required);
    out["additionalProperties"] = false;
    return out;
  }

 private:
  Json field(const Field& f) {
    Json out{{"description", f.unit.empty() ? f.description : fmt::format("{} ({})", f.description, f.unit)}};
    out.update(type(f.type));
    if (f.absent.value) out["default"] = value(*f.absent.value, f.type);
    return out;
  }

  Json type(const Type& t) {
    using K = Type::Kind;
    Json out = Json::object();
    switch (t.kind) {
      case K::any: break;
      case K::string:
        out["type"] = "string";
        if (!t.pattern.empty()) out["pattern"] = t.pattern;
        break;
      case K::integer: out["type"] = "integer"; break;
      case K::number: out["type"] = "number"; break;
      case K::boolean: out["type"] = "boolean"; break;
      case K::duration:
        if (!defs.contains("duration"))
          defs["duration"] = Json::object(
              {{"description", fmt::format("number of seconds or a string like 30m, 2h, 7d (units us, ms, s, m, h, d, w), "
                                           "from 0 to {}",
                                           kMaxSpanText)},
               {"oneOf",
                Json::array({Json::object({{"type", "number"}, {"minimum", 0}, {"maximum", bound_json(kMaxSpan.seconds())}}),
                             Json::object({{"type", "string"}, {"pattern", kDurationPattern}})})}});
        out["$ref"] = "#/$defs/duration";
        break;
      case K::choice: out["enum"] = t.names; break;
      case K::section: out["$ref"] = ref(*t.fields); break;
      case K::list:
        out["type"] = "array";
        out["items"] = type(t.of.front());
        break;
      case K::map:
        out["type"] = "object";
        if (!t.names.empty()) out["propertyNames"] = {{"enum", t.names}};
        out["additionalProperties"] = type(t.of.front());
        break;
      case K::one_of:
        out["oneOf"] = Json::array();
        for (const Type& alternative : t.of) out["oneOf"].push_back(type(alternative));
        break;
    }
    for (auto [bound, exclusive, plain] :
         {std::tuple{&t.minimum, "exclusiveMinimum", "minimum"}, std::tuple{&t.maximum, "exclusiveMaximum", "maximum"}})
      if (*bound) out[(*bound)->exclusive ? exclusive : plain] = bound_json((*bound)->value);
    return out;
  }

  // "#/$defs/NAME", written the first time a section is reached.
  std::string ref(const Section& s) {
    const std::string& name = s.name();
    if (auto seen = written_.find(name); seen != written_.end()) {
      if (seen->second != &s) throw std::logic_error(fmt::format("two sections are named '{}'", name));
    } else {
      written_.emplace(name, &s);
      defs[name] = nullptr;  // its place, in the order sections are reached
      defs[name] = section(s);
    }
    return "#/$defs/" + name;
  }

  // A default as JSON, its scalars typed by the field's type where it says.
  Json value(const YAML::Node& n, const Type& t) {
    if (n.IsScalar()) return scalar_json(n.Scalar(), t);
    const Type any;
    Json out = n.IsSequence() ? Json::array() : Json::object();
    for (const auto& item : n) {
      if (n.IsSequence()) {
        out.push_back(value(item, t.kind == Type::Kind::list ? t.of.front() : any));
      } else {
        const std::string key = item.first.Scalar();
        out[key] = value(item.second, t.kind == Type::Kind::map       ? t.of.front()
                                      : t.kind == Type::Kind::section ? t.fields->field(key).type
                                                                      : any);
      }
    }
    return out;
  }

  std::map<std::string, const Section*> written_;
};

}  // namespace

Range Type::range() const {
  if (minimum || maximum) return {minimum, maximum};
  for (const Type& t : of)
    if (const Range r = t.range(); r.minimum || r.maximum) return r;
  return {};
}

FieldDefault::FieldDefault(const char* yaml) {
  if (*yaml == '\0') return;
  YAML::Node v = unmarked(YAML::Load(yaml));
  if (!v.IsNull()) value = std::make_shared<const YAML::Node>(std::move(v));
}

std::vector<Field> join_fields(std::initializer_list<std::vector<Field>> parts) {
  std::vector<Field> out;
  for (const auto& part : parts) out.insert(out.end(), part.begin(), part.end());
  return out;
}

Field source_field(FieldDefault absent) {
  return {"source", Type::string(), std::move(absent), "", "Where the figures come from"};
}

Section::Section(std::string name, std::string description, std::vector<Field> fields)
    : name_(std::move(name)), description_(std::move(description)), fields_(std::move(fields)) {
  for (const Field& f : fields_) names_.push_back(f.name);
}

const Field& Section::field(std::string_view name) const {
  for (const Field& f : fields_)
    if (f.name == name) return f;
  throw std::logic_error(fmt::format("section '{}' declares no field '{}'", name_, name));
}

Fields Section::read(const ConfigNode& node) const {
  check(node);
  return Fields(*this, node);
}

Section Section::with_defaults(const YAML::Node& doc) const {
  Section out = *this;
  for (Field& f : out.fields_)
    if (const YAML::Node d = doc[std::string(f.name)]; !f.absent.value && d && !d.IsNull())
      f.absent.value = std::make_shared<const YAML::Node>(d);
  return out;
}

bool Fields::has(std::string_view name) const {
  section_->field(name);
  return node_.has(name);
}

std::optional<ConfigNode> Fields::get(std::string_view name) const {
  section_->field(name);
  return node_.get(name);
}

ConfigNode Fields::at(std::string_view name) const {
  section_->field(name);
  return node_.at(name);
}

ConfigNode Fields::value(std::string_view name) const {
  const Field& f = section_->field(name);
  if (auto v = node_.get(name)) return *v;
  // Fails naming the missing field: it is required, or optional without a default, which a reader
  // asks for only when other fields make it needed (nvlinks when nvlink_gb_per_s > 0).
  if (f.absent.required || !f.absent.value) return node_.at(name);
  return node_.child(name, *f.absent.value);
}

std::vector<std::string> Fields::string_list(std::string_view name) const {
  section_->field(name);
  return node_.string_list(name);
}

Json json_schema(const Section& root, std::string_view title) {
  SchemaWriter writer;
  Json body = writer.section(root);
  Json out{{"$schema", "https://json-schema.org/draft/2020-12/schema"}, {"title", title}};
  out.update(body);
  out["$defs"] = std::move(writer.defs);
  return out;
}

}  // namespace gpusim
