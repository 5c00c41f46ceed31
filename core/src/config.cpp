#include "gpusim/core/config.hpp"
#include "gpusim/core/utf8.hpp"
#include "gpusim/core/yaml_documents.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace gpusim {

namespace {

std::optional<int> line_of(const YAML::Node& n) {
  if (!n.IsDefined() || n.Mark().is_null()) return std::nullopt;
  return n.Mark().line + 1;
}

// What aliases may add to a document: a YAML alias names a node again, and readers walking the tree
// see it once per alias, so nested aliases ("billion laughs": [*a, *a, ...] ten levels deep) make a
// short text a tree of billions of values. Scenarios repeat a few blocks, far below this.
constexpr double kMaxAliasedValues = 1'000'000;

// Where a map or list sits in the text, and its kind: an alias names the same node again, so a walk
// finds the nodes it has already seen among the few at their place (never by comparing with each).
using Place = std::pair<int, int>;
Place place_of(const YAML::Node& n) { return {n.Mark().pos, static_cast<int>(n.Type())}; }

// The walk of check_keys: `seen` holds the maps and lists already checked (an alias may name a node
// it sits in), with the values each holds counted through its aliases; `distinct` counts the values
// the text itself holds.
struct KeyWalk {
  std::map<Place, std::vector<std::pair<YAML::Node, double>>> seen;
  double distinct = 0;
};

// Checks `n` once and returns the values it holds, counted as readers see them (through aliases).
double check_keys_in(const YAML::Node& n, const std::string& file, const std::string& path, KeyWalk& walk) {
  if (!n.IsMap() && !n.IsSequence()) {
    ++walk.distinct;
    return 1;
  }
  const Place place = place_of(n);
  for (const auto& [other, values] : walk.seen[place])
    if (other.is(n)) return values;
  walk.seen[place].emplace_back(n, 0.0);  // 0 while it is walked: a node inside itself adds nothing more
  ++walk.distinct;
  double values = 1;
  const auto counted = [&, index = walk.seen[place].size() - 1] {
    if (values - walk.distinct > kMaxAliasedValues)
      throw InputError({file, line_of(n), path},
                       fmt::format("aliases (*name) repeat this block into about {:.3g} values, more than the {:.0f} a "
                                   "document may add through aliases: write the values out, or alias fewer nested blocks",
                                   values, kMaxAliasedValues));
    walk.seen[place][index].second = values;
    return values;
  };
  if (n.IsSequence()) {
    std::size_t i = 0;
    for (const YAML::Node& item : n) values += check_keys_in(item, file, fmt::format("{}[{}]", path, i++), walk);
    return counted();
  }
  std::map<std::string, int> lines;  // key -> line of its first appearance
  for (const auto& kv : n) {
    const YAML::Node& key = kv.first;
    if (!key.IsScalar())
      throw InputError({file, line_of(key), path},
                       fmt::format("expected a name as the key, got {}", key.IsSequence() ? "a list"
                                                                         : key.IsMap()    ? "a map"
                                                                                          : "an empty key"));
    const std::string name = key.Scalar();
    const std::string field = path.empty() ? name : path + "." + name;
    const int line = line_of(key).value_or(0);
    if (auto [first, fresh] = lines.emplace(name, line); !fresh)
      throw InputError({file, line_of(key), field},
                       fmt::format("the key '{}' is given twice (first at line {}): give it once", name, first->second));
    values += 1 + check_keys_in(kv.second, file, field, walk);
  }
  return counted();
}

// YAML merge keys (`<<: *anchor`, or a list of anchors), which yaml-cpp reads as a plain key "<<": each
// map's merged entries are added where the map does not give the key itself (the earlier of several
// merged maps first), as copies, and "<<" goes. Nodes are resolved once each (an alias names the same node
// again); check_keys has bounded what the copies can add.
void resolve_merges(YAML::Node node, const std::string& file, std::map<Place, std::vector<YAML::Node>>& done) {
  if (!node.IsMap() && !node.IsSequence()) return;
  std::vector<YAML::Node>& here = done[place_of(node)];
  for (const YAML::Node& d : here)
    if (d.is(node)) return;
  here.push_back(node);
  if (node.IsSequence()) {
    for (YAML::Node item : node) resolve_merges(item, file, done);
    return;
  }
  std::vector<YAML::Node> sources;
  for (auto kv : node) {
    resolve_merges(kv.second, file, done);
    if (kv.first.Scalar() != "<<") continue;
    const YAML::Node& v = kv.second;
    if (v.IsMap()) sources.push_back(v);
    for (std::size_t i = 0; v.IsSequence() && i < v.size(); ++i) sources.push_back(v[i]);
    if (!v.IsMap() && !(v.IsSequence() && std::all_of(v.begin(), v.end(), [](const YAML::Node& m) { return m.IsMap(); })))
      throw InputError({file, line_of(kv.first), "<<"}, "a merge key takes a map or a list of maps, e.g. <<: *defaults");
  }
  if (sources.empty()) return;
  node.remove("<<");
  for (const YAML::Node& source : sources)
    for (const auto& kv : source)
      // A copy: an override of one map's merged value (--set) must not reach the other maps.
      if (!node[kv.first.Scalar()].IsDefined()) node[kv.first.Scalar()] = YAML::Clone(kv.second);
}

}  // namespace

void ConfigNode::check_keys(const YAML::Node& node, const std::string& file, const std::string& path) {
  KeyWalk walk;
  check_keys_in(node, file, path, walk);
}

std::string ConfigNode::parse_error(const YAML::Exception& e) {
  if (dynamic_cast<const YAML::DeepRecursion*>(&e))
    return "lists and maps nested more than 2000 levels deep (the YAML reader's limit)";
  return e.msg;
}

ConfigNode ConfigNode::parse(const std::string& text, const std::string& file, YamlText from) {
  require_utf8(text, file);
  YAML::Node doc = yaml_document(text, file, from);
  // yaml-cpp keeps both of two equal keys and finds the first: refused here, once, for every document.
  check_keys(doc, file, "");
  std::map<Place, std::vector<YAML::Node>> resolved;
  resolve_merges(doc, file, resolved);
  return ConfigNode(doc, std::make_shared<const std::string>(file), "");
}

ConfigNode ConfigNode::load_file(const std::string& path) {
  if (std::error_code ec; std::filesystem::is_directory(path, ec))
    throw InputError({path, std::nullopt, ""}, "is a directory: expected a file");
  std::ifstream in(path);
  if (!in) throw InputError({path, std::nullopt, ""}, "cannot open file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return parse(buffer.str(), path);
}

ConfigNode::ConfigNode(const YAML::Node& node, std::shared_ptr<const std::string> file, std::string path)
    : node_(std::make_shared<const YAML::Node>(node)),
      file_(std::move(file)),
      path_(std::move(path)),
      sets_(std::make_shared<std::vector<std::pair<std::shared_ptr<const YAML::Node>, std::shared_ptr<const std::string>>>>()) {}

void ConfigNode::note_set(const YAML::Node& value, const std::string& assignment) const {
  sets_->emplace_back(std::make_shared<const YAML::Node>(value), std::make_shared<const std::string>(assignment));
}

// A node of the same document: from the same --set as this one, or from the --set that put it there.
ConfigNode ConfigNode::derived(const YAML::Node& value, std::string path) const {
  ConfigNode out(*this);
  out.node_ = std::make_shared<const YAML::Node>(value);
  out.path_ = std::move(path);
  if (!out.set_)
    for (const auto& [node, assignment] : *sets_)
      if (node->is(value)) out.set_ = assignment;
  return out;
}

ConfigNode::ConfigNode() : ConfigNode(YAML::Node(), std::make_shared<const std::string>(), "") {}

bool ConfigNode::is_map() const { return node_->IsMap(); }
bool ConfigNode::is_sequence() const { return node_->IsSequence(); }
bool ConfigNode::is_scalar() const { return node_->IsScalar(); }
bool ConfigNode::is_null() const { return node_->IsNull(); }

SourceLocation ConfigNode::where() const {
  if (set_) return {"--set", std::nullopt, path_.empty() ? *set_ : fmt::format("{}: {}", *set_, path_)};
  return {*file_, line_of(*node_), path_};
}

void ConfigNode::fail(const std::string& what) const { throw InputError(where(), what); }

bool ConfigNode::has(std::string_view key) const { return node_->IsMap() && (*node_)[std::string(key)].IsDefined(); }

std::optional<ConfigNode> ConfigNode::get(std::string_view key) const {
  if (!node_->IsMap()) fail("expected a map of fields");
  YAML::Node value = (*node_)[std::string(key)];
  if (!value.IsDefined()) return std::nullopt;
  return child(key, value);
}

ConfigNode ConfigNode::child(std::string_view key, const YAML::Node& value) const {
  return derived(value, path_.empty() ? std::string(key) : path_ + "." + std::string(key));
}

ConfigNode ConfigNode::at(std::string_view key) const {
  auto value = get(key);
  if (!value) fail(fmt::format("missing required field '{}'", key));
  return *value;
}

void ConfigNode::allow_only(std::span<const std::string_view> allowed) const {
  if (!node_->IsMap()) fail("expected a map of fields");
  for (const auto& kv : *node_) {
    const std::string key = kv.first.Scalar();  // parse() refused keys that are not scalars
    bool known = false;
    for (auto a : allowed) known = known || a == key;
    if (known) continue;
    // Named at its key's line; a key a --set added is named by that --set (noted on its value).
    ConfigNode at_key = child(key, kv.first);
    if (!at_key.set_) at_key.set_ = child(key, kv.second).set_;
    at_key.fail(fmt::format("unknown field '{}'; expected one of: {}", key, fmt::join(allowed, ", ")));
  }
}

std::vector<std::pair<std::string, ConfigNode>> ConfigNode::entries() const {
  if (!node_->IsMap()) fail("expected a map");
  std::vector<std::pair<std::string, ConfigNode>> out;
  for (const auto& kv : *node_) {
    const std::string key = kv.first.Scalar();
    // A map the readers take entries of is keyed by names (labels, resources, metrics): "" names nothing.
    if (key.empty()) child(key, kv.first).fail("an empty key: expected a name");
    out.emplace_back(key, child(key, kv.second));
  }
  return out;
}

std::vector<ConfigNode> ConfigNode::items() const {
  if (!node_->IsSequence()) fail("expected a list");
  std::vector<ConfigNode> out;
  std::size_t i = 0;
  for (const auto& item : *node_) out.push_back(derived(item, fmt::format("{}[{}]", path_, i++)));
  return out;
}

std::string ConfigNode::scalar(std::string_view expected) const {
  if (!node_->IsScalar()) fail(fmt::format("expected {}", expected));
  return node_->Scalar();
}

std::string ConfigNode::as_string() const { return scalar("a string"); }

// The scalar read by `parse` (core/number.hpp, parse_duration), whose std::invalid_argument says
// what it expected: failed here, naming this node.
template <class Parse>
std::invoke_result_t<Parse, const std::string&> ConfigNode::parsed(std::string_view expected, Parse parse) const {
  const std::string s = scalar(expected);
  try {
    return parse(s);
  } catch (const std::invalid_argument& e) {
    fail(e.what());
  }
}

int64_t ConfigNode::as_int64(const Range& range) const {
  return parsed("an integer", [&](const std::string& s) { return parse_integer(s, range); });
}

double ConfigNode::as_number(const Range& range) const {
  return parsed("a number", [&](const std::string& s) { return parse_number(s, range); });
}

bool ConfigNode::as_bool() const {
  const std::string s = scalar("true or false");
  if (s == "true") return true;
  if (s == "false") return false;
  fail(fmt::format("expected true or false, got '{}'", s));
}

Duration ConfigNode::as_duration() const {
  return parsed("a duration", [](const std::string& s) { return parse_duration(s); });
}

std::vector<std::string> ConfigNode::string_list(std::string_view key) const {
  auto v = get(key);
  if (!v) return {};
  if (v->is_scalar()) return {v->as_string()};
  std::vector<std::string> out;
  for (const auto& item : v->items()) out.push_back(item.as_string());
  return out;
}

}  // namespace gpusim
