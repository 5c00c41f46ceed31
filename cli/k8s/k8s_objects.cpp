#include "k8s_objects.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "gpusim/core/config.hpp"
#include "gpusim/core/error.hpp"
#include "gpusim/core/number.hpp"
#include "gpusim/core/utf8.hpp"
#include "gpusim/core/yaml_documents.hpp"

namespace gpusim::cli::k8s {

namespace fs = std::filesystem;

std::string Object::id() const { return ns.empty() ? fmt::format("{} {}", kind, name) : fmt::format("{} {}/{}", kind, ns, name); }

void Object::fail(const YAML::Node& at, const std::string& field, const std::string& why) const {
  const YAML::Node& n = at.IsDefined() && !at.IsNull() ? at : node;
  throw InputError({file, n.Mark().line + 1, field}, fmt::format("{}: {}", id(), why));
}

std::string scalar(const YAML::Node& n) { return n && n.IsScalar() ? n.Scalar() : std::string(); }

YAML::Node at(const YAML::Node& n, std::initializer_list<std::string_view> path) {
  // Nodes are copied and reset, never assigned: yaml-cpp's assignment to a node that exists merges the
  // two documents' node sets, which made every lookup in a `kind: List` cost the whole file.
  YAML::Node cur = n;
  for (std::string_view k : path) {
    if (!cur || !cur.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
    std::optional<YAML::Node> next;
    for (const auto& kv : cur)
      if (kv.first.IsScalar() && kv.first.Scalar() == k) {
        next.emplace(kv.second);
        break;
      }
    if (!next) return YAML::Node(YAML::NodeType::Undefined);
    cur.reset(*next);
  }
  return cur;
}

std::string label(const Object& o, const std::string& key) {
  return text(o, at(o.node, {"metadata", "labels", key}), "metadata.labels." + key);
}

std::string ns_of(const Object& o) { return o.ns.empty() ? "default" : o.ns; }

// --- reading files ----------------------------------------------------------------------------

namespace {

void collect(const YAML::Node& doc, const std::string& file, std::vector<Object>& out) {
  if (!doc || doc.IsNull()) return;
  if (!doc.IsMap()) throw InputError({file, doc.Mark().line + 1, ""}, "expected a Kubernetes object (a map with kind:)");
  const YAML::Node kind_node = at(doc, {"kind"});
  const std::string kind = scalar(kind_node);
  if (kind.empty() || !kind_node.IsScalar())
    throw InputError({file, doc.Mark().line + 1, "kind"}, "expected a Kubernetes object's kind:");
  if (kind == "List" || kind.ends_with("List")) {  // kubectl get -o json/yaml: kind List, items [...]
    const YAML::Node items = at(doc, {"items"});
    if (items && !items.IsNull() && !items.IsSequence())
      throw InputError({file, items.Mark().line + 1, "items"}, fmt::format("{}: expected a list of objects", kind));
    for (const auto& item : items) collect(item, file, out);
    return;
  }
  Object o{doc, file, kind, "", ""};
  o.name = text(o, at(doc, {"metadata", "name"}), "metadata.name");
  o.ns = text(o, at(doc, {"metadata", "namespace"}), "metadata.namespace");
  // Every object the API server returns has a name; jobs, pools and queues are named after it.
  if (o.name.empty()) o.fail(at(doc, {"metadata"}), "metadata.name", "expected the object's name");
  out.push_back(std::move(o));
}

}  // namespace

std::vector<Object> read_objects(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<std::string> in_dir;
      for (const auto& e : fs::directory_iterator(p)) {
        const std::string ext = e.path().extension().string();
        if (e.is_regular_file() && (ext == ".yaml" || ext == ".yml" || ext == ".json")) in_dir.push_back(e.path().string());
      }
      std::sort(in_dir.begin(), in_dir.end());
      files.insert(files.end(), in_dir.begin(), in_dir.end());
    } else if (fs::is_regular_file(p, ec)) {
      files.push_back(p);
    } else {
      throw InputError({p, std::nullopt, ""}, "no such file or directory");
    }
  }
  std::vector<Object> out;
  for (const std::string& f : files) {
    std::ifstream in(f);
    if (!in) throw InputError({f, std::nullopt, ""}, "cannot open file");
    std::stringstream text;
    text << in.rdbuf();
    const std::string bytes = text.str();
    require_utf8(bytes, f);
    const std::vector<YAML::Node> docs = yaml_documents(bytes, f);
    // As the scenario reader does: a key given twice (yaml-cpp would keep both), and aliases that
    // repeat a block into more values than a document holds (billion laughs), are refused here.
    for (const YAML::Node& doc : docs) {
      ConfigNode::check_keys(doc, f, "");
      collect(doc, f, out);
    }
  }
  return out;
}

// --- checked fields ---------------------------------------------------------------------------

void expect(const Object& o, const YAML::Node& n, const std::string& field, YAML::NodeType::value type) {
  if (!n || n.Type() == type) return;
  const char* what = type == YAML::NodeType::Map ? "a map" : type == YAML::NodeType::Sequence ? "a list" : "a single value";
  o.fail(n, field, fmt::format("expected {}", what));
}

std::string text(const Object& o, const YAML::Node& n, const std::string& field) {
  if (!n || n.IsNull()) return {};
  expect(o, n, field, YAML::NodeType::Scalar);
  return n.Scalar();
}

YAML::Node entries(const Object& o, const YAML::Node& n, const std::string& field) {
  if (!n || n.IsNull()) return YAML::Node(YAML::NodeType::Map);
  expect(o, n, field, YAML::NodeType::Map);
  return n;
}

YAML::Node items(const Object& o, const YAML::Node& n, const std::string& field) {
  if (!n || n.IsNull()) return YAML::Node(YAML::NodeType::Sequence);
  expect(o, n, field, YAML::NodeType::Sequence);
  return n;
}

int64_t whole(const Object& o, const YAML::Node& n, const std::string& field, int64_t lo, int64_t hi) {
  expect(o, n, field, YAML::NodeType::Scalar);
  const std::string text = scalar(n);
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < lo || v > hi)
    o.fail(n, field, fmt::format("expected a whole number from {} to {}, got '{}'", lo, hi, text));
  return v;
}

std::string one_of(const Object& o, const YAML::Node& n, const std::string& field, const std::vector<std::string_view>& values) {
  expect(o, n, field, YAML::NodeType::Scalar);
  const std::string text = scalar(n);
  if (std::find(values.begin(), values.end(), text) == values.end())
    o.fail(n, field, fmt::format("expected one of {}, got '{}'", fmt::join(values, ", "), text));
  return text;
}

double quantity(const Object& o, const YAML::Node& n, const std::string& field, double max) {
  expect(o, n, field, YAML::NodeType::Scalar);
  try {
    return parse_quantity(scalar(n), Range::between(0, max));
  } catch (const std::invalid_argument& e) {
    o.fail(n, field, e.what());
  }
}

std::string quantity_text(const Object& o, const YAML::Node& n, const std::string& field) {
  quantity(o, n, field, 9e15);
  return scalar(n);
}

YAML::Node string_map(const Object& o, const YAML::Node& n, const std::string& field) {
  expect(o, n, field, YAML::NodeType::Map);
  YAML::Node out(YAML::NodeType::Map);
  for (const auto& kv : n) {
    expect(o, kv.second, field + "." + kv.first.Scalar(), YAML::NodeType::Scalar);
    out[kv.first.Scalar()] = kv.second.Scalar();
  }
  return out;
}

std::vector<std::string> other_keys(const YAML::Node& n, std::initializer_list<std::string_view> known) {
  std::vector<std::string> out;
  if (!n || !n.IsMap()) return out;
  for (const auto& kv : n)
    if (std::find(known.begin(), known.end(), kv.first.Scalar()) == known.end()) out.push_back(kv.first.Scalar());
  return out;
}

void report_fields(const Object& o, const std::string& prefix, const std::vector<std::string>& keys, std::string_view why,
                   std::vector<std::string>& ignored) {
  for (const std::string& k : keys) ignored.push_back(fmt::format("{}: {}{} ({})", o.id(), prefix, k, why));
}

}  // namespace gpusim::cli::k8s
