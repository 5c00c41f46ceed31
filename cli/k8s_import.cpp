#include "k8s_import.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "gpusim/core/enum_table.hpp"
#include "gpusim/core/error.hpp"
#include "gpusim/core/number.hpp"
#include "gpusim/sim/kueue_spec.hpp"

namespace gpusim::cli {

namespace {

namespace fs = std::filesystem;

// One Kubernetes object and where it was read.
struct Object {
  YAML::Node node;
  std::string file;
  std::string kind, name, ns;
  std::string id() const { return ns.empty() ? fmt::format("{} {}", kind, name) : fmt::format("{} {}/{}", kind, ns, name); }
  [[noreturn]] void fail(const YAML::Node& at, const std::string& field, const std::string& why) const {
    const YAML::Node& n = at.IsDefined() && !at.IsNull() ? at : node;
    throw InputError({file, n.Mark().line + 1, field}, fmt::format("{}: {}", id(), why));
  }
};

std::string scalar(const YAML::Node& n) { return n && n.IsScalar() ? n.Scalar() : std::string(); }

// n[k0][k1]... through maps only: an undefined node where a key is missing or a value is no map
// (yaml-cpp throws on a key looked up in a missing node).
YAML::Node at(const YAML::Node& n, std::initializer_list<std::string_view> path) {
  YAML::Node cur = n;
  for (std::string_view k : path) {
    if (!cur || !cur.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
    YAML::Node next(YAML::NodeType::Undefined);
    for (const auto& kv : cur)
      if (kv.first.IsScalar() && kv.first.Scalar() == k) {
        next = kv.second;
        break;
      }
    cur.reset(next);
  }
  return cur;
}

std::string label(const Object& o, const std::string& key) { return scalar(at(o.node, {"metadata", "labels", key})); }

// --- reading files ----------------------------------------------------------------------------

void collect(const YAML::Node& doc, const std::string& file, std::vector<Object>& out) {
  if (!doc || doc.IsNull()) return;
  if (!doc.IsMap()) throw InputError({file, doc.Mark().line + 1, ""}, "expected a Kubernetes object (a map with kind:)");
  const std::string kind = scalar(at(doc, {"kind"}));
  if (kind.empty()) throw InputError({file, doc.Mark().line + 1, "kind"}, "expected a Kubernetes object's kind:");
  if (kind == "List" || kind.ends_with("List")) {  // kubectl get -o json/yaml: kind List, items [...]
    for (const auto& item : at(doc, {"items"})) collect(item, file, out);
    return;
  }
  out.push_back({doc, file, kind, scalar(at(doc, {"metadata", "name"})), scalar(at(doc, {"metadata", "namespace"}))});
}

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
    try {
      for (const YAML::Node& doc : YAML::LoadAllFromFile(f)) collect(doc, f, out);
    } catch (const YAML::Exception& e) {
      throw InputError({f, e.mark.line + 1, ""}, fmt::format("malformed YAML or JSON: {}", e.msg));
    }
  }
  return out;
}

// --- quantities ---------------------------------------------------------------------------------

// A replica count (replicas, completions, parallelism): a whole number >= 0, `fallback` when absent.
int64_t count_field(const Object& o, const YAML::Node& n, const std::string& field, int64_t fallback) {
  if (!n) return fallback;
  const std::string text = scalar(n);
  int64_t v = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 0 || v > 1'000'000)
    o.fail(n, field, fmt::format("expected a whole number from 0 to 1000000, got '{}'", text));
  return v;
}

// --- pods -------------------------------------------------------------------------------------

inline constexpr std::string_view kAnnotationPrefix = "gpusim.io/";

// What one pod asks: its GPU resource (summed over containers) and its CPU and memory requests.
struct PodRequest {
  int64_t gpus = 0;
  std::string resource;  // nvidia.com/gpu, nvidia.com/gpu.shared or nvidia.com/mig-<profile>
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
};

// A pod spec's request; `field` is the spec's path in the object (for messages).
PodRequest read_pod_spec(const Object& o, const YAML::Node& spec, const std::string& field) {
  PodRequest r;
  const YAML::Node containers = at(spec, {"containers"});
  if (!containers || !containers.IsSequence()) o.fail(spec, field + ".containers", "expected a list of containers");
  for (std::size_t i = 0; i < containers.size(); ++i) {
    const YAML::Node res = at(containers[i], {"resources"});
    const std::string path = fmt::format("{}.containers[{}].resources", field, i);
    // Extended resources (GPUs) are given as limits (requests, if given, must equal them); CPU and
    // memory requests default to their limits.
    for (const char* part : {"limits", "requests"}) {
      for (const auto& kv : at(res, {part})) {
        const std::string key = kv.first.Scalar();
        const std::string where = fmt::format("{}.{}.{}", path, part, key);
        if (key.starts_with("nvidia.com/")) {
          if (std::string_view(part) == "requests" && at(res, {"limits", key})) continue;
          const auto q = parse_quantity(scalar(kv.second));
          if (!q || *q < 0 || *q != std::floor(*q) || *q > 100000)
            o.fail(kv.second, where,
                   fmt::format("expected a whole number of devices from 0 to 100000, got '{}'", scalar(kv.second)));
          if (*q == 0) continue;
          if (key != "nvidia.com/gpu" && key != "nvidia.com/gpu.shared" && !key.starts_with("nvidia.com/mig-"))
            o.fail(kv.second, where, "expected nvidia.com/gpu, nvidia.com/gpu.shared or nvidia.com/mig-<profile>");
          if (!r.resource.empty() && r.resource != key)
            o.fail(kv.second, where, fmt::format("asks both {} and {}; gpusim models one GPU resource per pod", r.resource, key));
          r.resource = key;
          r.gpus += static_cast<int64_t>(*q);
        } else if (key == "cpu" || key == "memory") {
          if (std::string_view(part) == "limits" && at(res, {"requests", key})) continue;
          const auto q = parse_quantity(scalar(kv.second));
          if (!q || *q < 0) o.fail(kv.second, where, fmt::format("expected a quantity >= 0, got '{}'", scalar(kv.second)));
          if (key == "cpu") r.cpu_milli += static_cast<int64_t>(std::ceil(*q * 1000 - 1e-9));
          else r.memory_mib += static_cast<int64_t>(std::ceil(*q / 1048576.0 - 1e-9));
        }
      }
    }
  }
  if (r.gpus > 100000) o.fail(spec, field, fmt::format("asks {} GPUs; a pod has at most 100000", r.gpus));
  return r;
}

// A gpusim.io/<key> annotation of the object, else of its pod template.
std::optional<std::pair<std::string, YAML::Node>> annotation(const Object& o, const YAML::Node& tmpl, const std::string& key) {
  const std::string full = std::string(kAnnotationPrefix) + key;
  for (const YAML::Node& a : {at(o.node, {"metadata", "annotations", full}), at(tmpl, {"metadata", "annotations", full})})
    if (a) return std::pair(scalar(a), a);
  return std::nullopt;
}

// A duration annotation, checked here so that an error names the manifest, not the scenario (a
// deadline must also be positive: how long after its arrival the job must end).
std::string duration_annotation(const Object& o, const YAML::Node& tmpl, const std::string& key, const std::string& fallback) {
  const auto a = annotation(o, tmpl, key);
  if (!a) return fallback;
  const std::string field = "metadata.annotations." + std::string(kAnnotationPrefix) + key;
  Duration d;
  try {
    d = parse_duration(a->first);
  } catch (const std::exception& e) {
    o.fail(a->second, field, e.what());
  }
  if (key == "deadline" && d <= Duration()) o.fail(a->second, field, "expected a positive duration after the job's arrival");
  return a->first;
}

// One inline job of the scenario, written as a flow map.
struct JobOut {
  std::string name, tenant, kind, duration, arrival = "0", deadline, node, comment;
  PodRequest request;
  int64_t count = 1, workers = 1;
  YAML::Node rules;  // the pod's Kubernetes settings (PodRules::fields)
  std::string object_id;
  std::vector<std::string> named_claims;  // ResourceClaims its pod names (resourceClaimName)
  bool whole_horizon = false;             // serving: runs to the horizon
};

std::string yaml_quoted(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + '"';
}

std::string flow(const YAML::Node& n) {
  YAML::Emitter e;
  e.SetMapFormat(YAML::Flow);
  e.SetSeqFormat(YAML::Flow);
  e << n;
  return e.c_str();
}

std::string emit_job(const JobOut& j) {
  std::string s = fmt::format("    - {{name: {}", yaml_quoted(j.name));
  if (j.count > 1) s += fmt::format(", count: {}", j.count);
  if (j.workers > 1) s += fmt::format(", workers: {}", j.workers);
  s += fmt::format(", gpus: {}", j.request.gpus);
  if (!j.request.resource.empty() && j.request.resource != "nvidia.com/gpu")
    s += fmt::format(", resource: {}", j.request.resource);
  if (j.request.cpu_milli > 0) s += fmt::format(", cpu_milli: {}", j.request.cpu_milli);
  if (j.request.memory_mib > 0) s += fmt::format(", memory_mib: {}", j.request.memory_mib);
  s += fmt::format(", kind: {}, duration: {}, arrival: {}, tenant: {}", j.kind, yaml_quoted(j.duration), yaml_quoted(j.arrival),
                   yaml_quoted(j.tenant));
  if (!j.deadline.empty()) s += fmt::format(", deadline: {}", yaml_quoted(j.deadline));
  if (!j.node.empty()) s += fmt::format(", node: {}", yaml_quoted(j.node));
  if (j.rules && j.rules.size() > 0) {
    const std::string f = flow(j.rules);  // {a: 1, b: 2}: its entries go on the job's line
    s += ", " + f.substr(1, f.size() - 2);
  }
  return s + fmt::format("}}   # {}\n", j.comment);
}

// --- small readers shared by the objects below -------------------------------------------------

// `n` must be of `type` (a map, a list or a scalar) when given.
void expect(const Object& o, const YAML::Node& n, const std::string& field, YAML::NodeType::value type) {
  if (!n || n.Type() == type) return;
  const char* what = type == YAML::NodeType::Map ? "a map" : type == YAML::NodeType::Sequence ? "a list" : "a single value";
  o.fail(n, field, fmt::format("expected {}", what));
}

// A whole number in [lo, hi]; `fallback` when absent.
int64_t whole(const Object& o, const YAML::Node& n, const std::string& field, int64_t lo, int64_t hi) {
  expect(o, n, field, YAML::NodeType::Scalar);
  const std::string text = scalar(n);
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < lo || v > hi)
    o.fail(n, field, fmt::format("expected a whole number from {} to {}, got '{}'", lo, hi, text));
  return v;
}

// One of `values` (Kubernetes' enumerations are case-sensitive).
std::string one_of(const Object& o, const YAML::Node& n, const std::string& field, const std::vector<std::string_view>& values) {
  expect(o, n, field, YAML::NodeType::Scalar);
  const std::string text = scalar(n);
  if (std::find(values.begin(), values.end(), text) == values.end())
    o.fail(n, field, fmt::format("expected one of {}, got '{}'", fmt::join(values, ", "), text));
  return text;
}

std::string quantity_text(const Object& o, const YAML::Node& n, const std::string& field) {
  expect(o, n, field, YAML::NodeType::Scalar);
  const auto q = parse_quantity(scalar(n));
  if (!q || *q < 0) o.fail(n, field, fmt::format("expected a Kubernetes quantity >= 0 (8, 500m, 64Gi), got '{}'", scalar(n)));
  return scalar(n);
}

// A map of strings (labels, nodeSelector, nodeLabels), in the object's order.
YAML::Node string_map(const Object& o, const YAML::Node& n, const std::string& field) {
  expect(o, n, field, YAML::NodeType::Map);
  YAML::Node out(YAML::NodeType::Map);
  for (const auto& kv : n) {
    expect(o, kv.second, field + "." + kv.first.Scalar(), YAML::NodeType::Scalar);
    out[kv.first.Scalar()] = kv.second.Scalar();
  }
  return out;
}

// Keys of a map other than `known`, for the ignored report.
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

std::string snake(std::string_view camel) {
  std::string s;
  for (char c : camel) {
    if (std::isupper(static_cast<unsigned char>(c))) {
      s += '_';
      s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      s += c;
    }
  }
  return s;
}

// --- tenancy objects ---------------------------------------------------------------------------

// A ResourceClaimTemplate or ResourceClaim read, for the pods that name it.
struct ClaimSource {
  std::string ns, name;
  bool from_template = true;
  std::size_t requests = 0;
  int64_t per_pod = 1;   // devices of its (one) request per pod
  std::string unusable;  // why pods naming it are ignored
};

// What goes into the scenario's tenancy: block, one flow map per item.
struct TenancyOut {
  std::vector<std::string> priority_classes, budgets, quotas, flavors, cohorts, cluster_queues, local_queues, device_classes,
      claim_templates, resource_claims;
  std::set<std::string> class_names;
  std::set<std::pair<std::string, std::string>> queues;  // LocalQueues: (namespace, name)
  std::vector<ClaimSource> claim_sources;
  std::set<std::string> label_keys;  // node label keys ResourceFlavors select on
  bool any() const {
    for (const auto* v : {&priority_classes, &budgets, &quotas, &flavors, &cohorts, &cluster_queues, &local_queues,
                          &device_classes, &claim_templates, &resource_claims})
      if (!v->empty()) return true;
    return false;
  }
};

std::string ns_of(const Object& o) { return o.ns.empty() ? "default" : o.ns; }

void read_priority_class(const Object& o, TenancyOut& t, std::vector<std::string>& ignored) {
  // scheduling.k8s.io/v1 PriorityClass: value, preemptionPolicy, globalDefault, description at the top level.
  YAML::Node c(YAML::NodeType::Map);
  c["name"] = o.name;
  c["value"] = whole(o, at(o.node, {"value"}), "value", -2147483648LL, 2147483647LL);  // system classes exceed 1e9
  if (const YAML::Node p = at(o.node, {"preemptionPolicy"}))
    c["preemption_policy"] = one_of(o, p, "preemptionPolicy", {"PreemptLowerPriority", "Never"});
  if (const YAML::Node g = at(o.node, {"globalDefault"}))
    c["global_default"] = one_of(o, g, "globalDefault", {"true", "false"}) == "true";
  if (const YAML::Node d = at(o.node, {"description"})) {
    expect(o, d, "description", YAML::NodeType::Scalar);
    c["description"] = d.Scalar();
  }
  if (!t.class_names.insert(o.name).second)
    o.fail(at(o.node, {"metadata", "name"}), "metadata.name", "a second PriorityClass of this name");
  t.priority_classes.push_back(flow(c));
  report_fields(
      o, "", other_keys(o.node, {"apiVersion", "kind", "metadata", "value", "preemptionPolicy", "globalDefault", "description"}),
      "not modelled", ignored);
}

// minAvailable / maxUnavailable: a count or "N%".
YAML::Node count_or_percent(const Object& o, const YAML::Node& n, const std::string& field) {
  expect(o, n, field, YAML::NodeType::Scalar);
  const std::string text = scalar(n);
  const std::string digits = text.ends_with('%') ? text.substr(0, text.size() - 1) : text;
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c); }) ||
      digits.size() > 9)
    o.fail(n, field, fmt::format("expected a count or a percent (2, \"50%\"), got '{}'", text));
  return text.ends_with('%') ? YAML::Node(text) : YAML::Node(std::stoll(digits));
}

void read_budget(const Object& o, TenancyOut& t, std::vector<std::string>& ignored) {
  const YAML::Node spec = at(o.node, {"spec"});
  expect(o, spec, "spec", YAML::NodeType::Map);
  const YAML::Node sel = at(spec, {"selector"});
  expect(o, sel, "spec.selector", YAML::NodeType::Map);
  if (at(sel, {"matchExpressions"})) {
    // Dropping the expressions would widen the budget to pods it does not cover.
    ignored.push_back(o.id() + ": spec.selector.matchExpressions (gpusim's budgets select by matchLabels only)");
    return;
  }
  const YAML::Node min = at(spec, {"minAvailable"}), max = at(spec, {"maxUnavailable"});
  if (min && max) o.fail(spec, "spec", "minAvailable and maxUnavailable: give one of them (Kubernetes refuses both)");
  if (!min && !max) o.fail(spec, "spec", "expected minAvailable or maxUnavailable");
  YAML::Node b(YAML::NodeType::Map);
  b["name"] = o.name;
  b["namespace"] = ns_of(o);
  YAML::Node s(YAML::NodeType::Map);
  s["match_labels"] = string_map(o, at(sel, {"matchLabels"}), "spec.selector.matchLabels");
  b["selector"] = s;
  if (min) b["min_available"] = count_or_percent(o, min, "spec.minAvailable");
  else b["max_unavailable"] = count_or_percent(o, max, "spec.maxUnavailable");
  t.budgets.push_back(flow(b));
  report_fields(o, "spec.", other_keys(spec, {"selector", "minAvailable", "maxUnavailable"}), "not modelled", ignored);
}

// The resources gpusim's quotas count (sim/resource_quota.cpp): GPUs by requests, cpu, memory, pods.
bool quota_resource(std::string_view name) {
  if (name == "count/pods" || name == "pods") return true;
  if (name.starts_with("requests.")) name.remove_prefix(9);
  return name == "nvidia.com/gpu" || name == "nvidia.com/gpu.shared" ||
         (name.starts_with("nvidia.com/mig-") && name.size() > 15) || name == "cpu" || name == "memory";
}

void read_quota(const Object& o, TenancyOut& t, std::vector<std::string>& ignored) {
  const YAML::Node spec = at(o.node, {"spec"});
  expect(o, spec, "spec", YAML::NodeType::Map);
  const YAML::Node hard = at(spec, {"hard"});
  if (!hard || !hard.IsMap()) o.fail(spec, "spec.hard", "expected a map of resource names to quantities");
  if (const YAML::Node scopes = at(spec, {"scopes"}); scopes && scopes.size() > 0) {
    ignored.push_back(o.id() + ": spec.scopes (gpusim's quotas take a PriorityClass scopeSelector only)");
    return;
  }
  YAML::Node q(YAML::NodeType::Map);
  q["name"] = o.name;
  q["namespace"] = ns_of(o);
  YAML::Node h(YAML::NodeType::Map);
  for (const auto& kv : hard) {
    const std::string key = kv.first.Scalar();
    const std::string value = quantity_text(o, kv.second, "spec.hard." + key);
    if (quota_resource(key)) h[key] = value;
    else ignored.push_back(fmt::format("{}: spec.hard.{} (gpusim counts GPUs, cpu, memory and pods)", o.id(), key));
  }
  if (h.size() == 0) {
    ignored.push_back(o.id() + ": no resource gpusim counts in spec.hard");
    return;
  }
  q["hard"] = h;
  if (const YAML::Node sel = at(spec, {"scopeSelector"})) {
    const YAML::Node exprs = at(sel, {"matchExpressions"});
    if (!exprs || !exprs.IsSequence()) o.fail(sel, "spec.scopeSelector.matchExpressions", "expected a list of expressions");
    YAML::Node list(YAML::NodeType::Sequence);
    for (std::size_t i = 0; i < exprs.size(); ++i) {
      const std::string field = fmt::format("spec.scopeSelector.matchExpressions[{}]", i);
      const std::string scope = scalar(at(exprs[i], {"scopeName"}));
      if (scope != "PriorityClass") {
        // Dropping the expression would widen the quota to pods it does not cover.
        ignored.push_back(fmt::format("{}: {}.scopeName {} (gpusim's quotas scope by PriorityClass only)", o.id(), field,
                                      scope.empty() ? "missing" : scope));
        return;
      }
      YAML::Node e(YAML::NodeType::Map);
      e["scope_name"] = scope;
      e["operator"] = one_of(o, at(exprs[i], {"operator"}), field + ".operator", {"In", "NotIn", "Exists", "DoesNotExist"});
      if (const YAML::Node v = at(exprs[i], {"values"}); v && v.size() > 0) {
        expect(o, v, field + ".values", YAML::NodeType::Sequence);
        e["values"] = v;
      }
      list.push_back(e);
    }
    YAML::Node s(YAML::NodeType::Map);
    s["match_expressions"] = list;
    q["scope_selector"] = s;
  }
  t.quotas.push_back(flow(q));
}

// Kueue's fields gpusim reads (docs/guide/tenants.md, Kueue), camelCase; the scenario's are their snake_case.
struct KueueField {
  std::string_view name;
  YAML::NodeType::value type;
  std::vector<std::string_view> values = {};  // an enumeration's values
  bool quantity = false;
};

// The names of `values` as Kueue spells them (kueue_spec.hpp's tables: one spelling for the reader and here).
template <NamedEnum E>
std::vector<std::string_view> names(std::initializer_list<E> values) {
  std::vector<std::string_view> out;
  for (E v : values) out.push_back(to_string(v));
  return out;
}

const KueueField* kueue_field(std::string_view name) {
  using T = YAML::NodeType;
  using P = KueuePreemptionPolicy;
  using F = Fungibility;
  static const std::vector<KueueField> fields{
      {"resourceGroups", T::Sequence},
      {"coveredResources", T::Sequence},
      {"flavors", T::Sequence},
      {"resources", T::Sequence},
      {"name", T::Scalar},
      {"nominalQuota", T::Scalar, {}, true},
      {"borrowingLimit", T::Scalar, {}, true},
      {"lendingLimit", T::Scalar, {}, true},
      {"cohort", T::Scalar},
      {"parent", T::Scalar},
      {"queueingStrategy", T::Scalar, {enum_names<QueueingStrategy>.begin(), enum_names<QueueingStrategy>.end()}},
      {"preemption", T::Map},
      {"withinClusterQueue", T::Scalar, names({P::never, P::lower_priority, P::lower_or_newer_equal_priority})},
      {"reclaimWithinCohort", T::Scalar, names({P::never, P::lower_priority, P::any})},
      {"borrowWithinCohort", T::Map},
      {"policy", T::Scalar, names({P::never, P::lower_priority})},
      {"maxPriorityThreshold", T::Scalar},
      {"flavorFungibility", T::Map},
      {"whenCanBorrow", T::Scalar, names({F::borrow, F::try_next_flavor})},
      {"whenCanPreempt", T::Scalar, names({F::preempt, F::try_next_flavor})},
      {"fairSharing", T::Map},
      {"weight", T::Scalar, {}, true},
  };
  for (const KueueField& f : fields)
    if (f.name == name) return &f;
  return nullptr;
}

// A Kueue spec with its fields renamed; fields gpusim does not model are reported (an empty
// namespaceSelector, every namespace, is what gpusim does: not reported).
YAML::Node kueue_spec(const Object& o, const YAML::Node& n, const std::string& field, std::vector<std::string>& ignored) {
  if (n.IsSequence()) {
    YAML::Node out(YAML::NodeType::Sequence);
    for (std::size_t i = 0; i < n.size(); ++i) out.push_back(kueue_spec(o, n[i], fmt::format("{}[{}]", field, i), ignored));
    return out;
  }
  if (!n.IsMap()) return YAML::Node(n.Scalar());
  YAML::Node out(YAML::NodeType::Map);
  for (const auto& kv : n) {
    std::string key = kv.first.Scalar();
    const std::string where = field + "." + key;
    if (key == "cohortName") key = "cohort";  // v1beta2's name
    if (key == "parentName") key = "parent";  // Cohort v1beta1's name
    const KueueField* f = kueue_field(key);
    if (!f) {
      if (!(key == "namespaceSelector" && kv.second.IsMap() && kv.second.size() == 0))
        ignored.push_back(fmt::format("{}: {} (not modelled)", o.id(), where));
      continue;
    }
    expect(o, kv.second, where, f->type);
    if (!f->values.empty()) one_of(o, kv.second, where, f->values);
    if (f->quantity) quantity_text(o, kv.second, where);
    if (key == "maxPriorityThreshold") whole(o, kv.second, where, -2147483648LL, 2147483647LL);
    if (key == "weight") out["weight"] = *parse_quantity(kv.second.Scalar());
    else out[snake(key)] = kueue_spec(o, kv.second, where, ignored);
  }
  return out;
}

void read_kueue(const Object& o, TenancyOut& t, std::vector<std::string>& ignored) {
  const YAML::Node spec = at(o.node, {"spec"});
  expect(o, spec, "spec", YAML::NodeType::Map);
  YAML::Node out(YAML::NodeType::Map);
  out["name"] = o.name;
  if (o.kind == "ResourceFlavor") {
    if (const YAML::Node l = at(spec, {"nodeLabels"})) {
      out["node_labels"] = string_map(o, l, "spec.nodeLabels");
      for (const auto& kv : l) t.label_keys.insert(kv.first.Scalar());
    }
    report_fields(o, "spec.", other_keys(spec, {"nodeLabels"}), "not modelled; the nodes' own taints are imported", ignored);
    t.flavors.push_back(flow(out));
  } else if (o.kind == "LocalQueue") {
    const YAML::Node cq = at(spec, {"clusterQueue"});
    if (!cq || !cq.IsScalar() || cq.Scalar().empty()) o.fail(spec, "spec.clusterQueue", "expected the name of a ClusterQueue");
    out["namespace"] = ns_of(o);
    out["cluster_queue"] = cq.Scalar();
    report_fields(o, "spec.", other_keys(spec, {"clusterQueue"}), "not modelled", ignored);
    t.local_queues.push_back(flow(out));
    t.queues.emplace(ns_of(o), o.name);
  } else {
    if (o.kind == "ClusterQueue" && !at(spec, {"resourceGroups"}))
      o.fail(spec, "spec.resourceGroups", "expected resource groups");
    for (const auto& kv : kueue_spec(o, spec, "spec", ignored)) out[kv.first] = kv.second;
    (o.kind == "ClusterQueue" ? t.cluster_queues : t.cohorts).push_back(flow(out));
  }
}

// CEL selectors (spec.selectors[].cel.expression) as plain strings.
YAML::Node cel_selectors(const Object& o, const YAML::Node& n, const std::string& field) {
  expect(o, n, field, YAML::NodeType::Sequence);
  YAML::Node out(YAML::NodeType::Sequence);
  for (std::size_t i = 0; i < n.size(); ++i) {
    const YAML::Node e = at(n[i], {"cel", "expression"});
    if (!e || !e.IsScalar()) o.fail(n[i], fmt::format("{}[{}].cel.expression", field, i), "expected a CEL expression");
    out.push_back(e.Scalar());
  }
  return out;
}

void read_device_class(const Object& o, TenancyOut& t, std::vector<std::string>& ignored) {
  const YAML::Node spec = at(o.node, {"spec"});
  expect(o, spec, "spec", YAML::NodeType::Map);
  YAML::Node c(YAML::NodeType::Map);
  c["name"] = o.name;
  if (const YAML::Node s = at(spec, {"selectors"}); s && s.size() > 0) c["selectors"] = cel_selectors(o, s, "spec.selectors");
  report_fields(o, "spec.", other_keys(spec, {"selectors"}), "not modelled", ignored);
  t.device_classes.push_back(flow(c));
}

// A ResourceClaimTemplate (its claim's spec under spec.spec) or a ResourceClaim (under spec): the
// same DeviceClaim (resource.k8s.io/v1).
void read_claim(const Object& o, TenancyOut& t, std::vector<std::string>& ignored) {
  const bool from_template = o.kind == "ResourceClaimTemplate";
  if (!from_template) {
    // The resourceclaim controller makes a claim from a template for each pod naming the template,
    // owned by that pod (ownerReferences, controller: true); the pod and its template are imported.
    const YAML::Node owners = at(o.node, {"metadata", "ownerReferences"});
    for (std::size_t i = 0; owners && owners.IsSequence() && i < owners.size(); ++i)
      if (scalar(at(owners[i], {"kind"})) == "Pod") {
        const std::string why = fmt::format("made for Pod {} from a ResourceClaimTemplate, which is read instead",
                                            scalar(at(owners[i], {"name"})));
        ignored.push_back(fmt::format("{}: {}", o.id(), why));
        t.claim_sources.push_back({ns_of(o), o.name, false, 0, 1, why});
        return;
      }
  }
  const std::string dev_field = from_template ? "spec.spec.devices" : "spec.devices";
  const YAML::Node devices = from_template ? at(o.node, {"spec", "spec", "devices"}) : at(o.node, {"spec", "devices"});
  const YAML::Node requests = at(devices, {"requests"});
  if (!requests || !requests.IsSequence() || requests.size() == 0)
    o.fail(devices ? devices : o.node, dev_field + ".requests", "expected a list of device requests");
  ClaimSource ct{ns_of(o), o.name, from_template, requests.size(), 1, ""};
  YAML::Node c(YAML::NodeType::Map), list(YAML::NodeType::Sequence);
  c["name"] = o.name;
  c["namespace"] = ns_of(o);
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const std::string field = fmt::format("{}.requests[{}]", dev_field, i);
    if (at(requests[i], {"firstAvailable"})) {
      ct.unusable = fmt::format("{}.firstAvailable (prioritized alternatives are not modelled)", field);
      continue;
    }
    // resource.k8s.io/v1 nests the request under `exactly`; v1beta1 gives its fields directly.
    const YAML::Node exactly = at(requests[i], {"exactly"});
    const YAML::Node r = exactly ? exactly : requests[i];
    const std::string rf = exactly ? field + ".exactly" : field;
    YAML::Node q(YAML::NodeType::Map);
    const YAML::Node name = at(requests[i], {"name"}), cls = at(r, {"deviceClassName"});
    if (!name || !name.IsScalar()) o.fail(requests[i], field + ".name", "expected the request's name");
    if (!cls || !cls.IsScalar()) o.fail(r, rf + ".deviceClassName", "expected a DeviceClass name");
    q["name"] = name.Scalar();
    q["device_class"] = cls.Scalar();
    const std::string mode = at(r, {"allocationMode"})
                                 ? one_of(o, at(r, {"allocationMode"}), rf + ".allocationMode", {"ExactCount", "All"})
                                 : "ExactCount";
    if (mode == "All") q["allocation_mode"] = "All";
    if (const YAML::Node n = at(r, {"count"})) {
      ct.per_pod = whole(o, n, rf + ".count", 1, 100000);
      if (mode == "ExactCount") q["count"] = ct.per_pod;
    }
    if (const YAML::Node s = at(r, {"selectors"}); s && s.size() > 0) q["selectors"] = cel_selectors(o, s, rf + ".selectors");
    report_fields(o, rf + ".", other_keys(r, {"name", "deviceClassName", "allocationMode", "count", "selectors", "exactly"}),
                  "not modelled", ignored);
    list.push_back(q);
  }
  report_fields(o, dev_field + ".", other_keys(devices, {"requests"}), "not modelled", ignored);
  t.claim_sources.push_back(ct);
  if (!ct.unusable.empty()) {
    ignored.push_back(fmt::format("{}: {}", o.id(), ct.unusable));
    return;
  }
  c["requests"] = list;
  (from_template ? t.claim_templates : t.resource_claims).push_back(flow(c));
}

// Which tenancy object is it; false: not one gpusim reads.
bool read_tenancy_object(const Object& o, TenancyOut& t, std::vector<std::string>& ignored) {
  const std::string api = scalar(at(o.node, {"apiVersion"}));
  const std::string group = api.substr(0, api.find('/'));
  if (o.kind == "PriorityClass" && group == "scheduling.k8s.io") read_priority_class(o, t, ignored);
  else if (o.kind == "PodDisruptionBudget" && group == "policy") read_budget(o, t, ignored);
  else if (o.kind == "ResourceQuota" && api == "v1") read_quota(o, t, ignored);
  else if (group == "kueue.x-k8s.io" &&
           (o.kind == "ResourceFlavor" || o.kind == "ClusterQueue" || o.kind == "LocalQueue" || o.kind == "Cohort"))
    read_kueue(o, t, ignored);
  else if (group == "resource.k8s.io" && o.kind == "DeviceClass") read_device_class(o, t, ignored);
  else if (group == "resource.k8s.io" && (o.kind == "ResourceClaimTemplate" || o.kind == "ResourceClaim"))
    read_claim(o, t, ignored);
  else return false;
  if (o.name.empty()) o.fail(at(o.node, {"metadata"}), "metadata.name", "expected the object's name");
  return true;
}

// --- a pod's Kubernetes settings -------------------------------------------------------------

inline constexpr std::string_view kHostname = "kubernetes.io/hostname";
inline constexpr std::string_view kQueueLabel = "kueue.x-k8s.io/queue-name";

// A nodeSelectorTerm's matchExpressions; expressions gpusim cannot match (matchFields, per-node
// hostname labels: gpusim matches labels per pool) are reported. Undefined when none is left.
YAML::Node selector_term(const Object& o, const YAML::Node& n, const std::string& field, std::vector<std::string>& ignored) {
  expect(o, n, field, YAML::NodeType::Map);
  if (at(n, {"matchFields"})) ignored.push_back(fmt::format("{}: {}.matchFields (not modelled)", o.id(), field));
  const YAML::Node exprs = at(n, {"matchExpressions"});
  expect(o, exprs, field + ".matchExpressions", YAML::NodeType::Sequence);
  YAML::Node list(YAML::NodeType::Sequence);
  for (std::size_t i = 0; exprs && i < exprs.size(); ++i) {
    const std::string f = fmt::format("{}.matchExpressions[{}]", field, i);
    const YAML::Node key = at(exprs[i], {"key"});
    if (!key || !key.IsScalar() || key.Scalar().empty()) o.fail(exprs[i], f + ".key", "expected a label key");
    if (key.Scalar() == kHostname) {
      ignored.push_back(fmt::format("{}: {} on {} (a per-node label; gpusim matches labels per pool)", o.id(), f, kHostname));
      continue;
    }
    YAML::Node e(YAML::NodeType::Map);
    e["key"] = key.Scalar();
    e["operator"] = one_of(o, at(exprs[i], {"operator"}), f + ".operator", {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"});
    if (const YAML::Node v = at(exprs[i], {"values"}); v && v.size() > 0) {
      expect(o, v, f + ".values", YAML::NodeType::Sequence);
      e["values"] = v;
    }
    list.push_back(e);
  }
  if (list.size() == 0) return YAML::Node(YAML::NodeType::Undefined);
  YAML::Node term(YAML::NodeType::Map);
  term["match_expressions"] = list;
  return term;
}

YAML::Node node_affinity(const Object& o, const YAML::Node& a, const std::string& field, std::vector<std::string>& ignored) {
  YAML::Node out(YAML::NodeType::Map);
  const std::string rf = field + ".requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms";
  if (const YAML::Node terms = at(a, {"requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"})) {
    expect(o, terms, rf, YAML::NodeType::Sequence);
    YAML::Node req(YAML::NodeType::Sequence);
    for (std::size_t i = 0; i < terms.size(); ++i)
      if (const YAML::Node t = selector_term(o, terms[i], fmt::format("{}[{}]", rf, i), ignored)) req.push_back(t);
    if (req.size() > 0) out["required"] = req;
  }
  const std::string pf = field + ".preferredDuringSchedulingIgnoredDuringExecution";
  if (const YAML::Node prefs = at(a, {"preferredDuringSchedulingIgnoredDuringExecution"})) {
    expect(o, prefs, pf, YAML::NodeType::Sequence);
    YAML::Node list(YAML::NodeType::Sequence);
    for (std::size_t i = 0; i < prefs.size(); ++i) {
      const std::string f = fmt::format("{}[{}]", pf, i);
      YAML::Node p(YAML::NodeType::Map);
      p["weight"] = whole(o, at(prefs[i], {"weight"}), f + ".weight", 1, 100);
      const YAML::Node pref = at(prefs[i], {"preference"});
      if (!pref) o.fail(prefs[i], f + ".preference", "expected a node selector term");
      if (const YAML::Node t = selector_term(o, pref, f + ".preference", ignored)) {
        p["preference"] = t;
        list.push_back(p);
      }
    }
    if (list.size() > 0) out["preferred"] = list;
  }
  return out;
}

YAML::Node tolerations(const Object& o, const YAML::Node& n, const std::string& field, std::vector<std::string>& ignored) {
  expect(o, n, field, YAML::NodeType::Sequence);
  YAML::Node list(YAML::NodeType::Sequence);
  for (std::size_t i = 0; i < n.size(); ++i) {
    const std::string f = fmt::format("{}[{}]", field, i);
    expect(o, n[i], f, YAML::NodeType::Map);
    YAML::Node t(YAML::NodeType::Map);
    const std::string key = scalar(at(n[i], {"key"})), value = scalar(at(n[i], {"value"}));
    const std::string op = at(n[i], {"operator"}) ? one_of(o, at(n[i], {"operator"}), f + ".operator", {"Equal", "Exists"})
                                                  : "Equal";
    // Kubernetes' validation (validateTolerations).
    if (key.empty() && op != "Exists") o.fail(n[i], f + ".operator", "a toleration without a key needs operator Exists");
    if (op == "Exists" && !value.empty()) o.fail(at(n[i], {"value"}), f + ".value", "operator Exists takes no value");
    if (!key.empty()) t["key"] = key;
    t["operator"] = op;
    if (!value.empty()) t["value"] = value;
    if (const YAML::Node e = at(n[i], {"effect"}); e && !scalar(e).empty())
      t["effect"] = one_of(o, e, f + ".effect", {"NoSchedule", "PreferNoSchedule", "NoExecute"});
    if (at(n[i], {"tolerationSeconds"}))
      ignored.push_back(fmt::format("{}: {}.tolerationSeconds (gpusim's taints do not evict running pods)", o.id(), f));
    list.push_back(t);
  }
  return list;
}

// What a pod template sets beside its resources.
struct PodRules {
  YAML::Node fields{YAML::NodeType::Map};  // the job's fields, in the scenario's names
  std::string priority_class, queue, hostname;
  YAML::Node queue_at;  // the queue label and its object's path, for messages
  std::string queue_at_field;
  std::vector<std::pair<std::string, bool>> claims;  // names, true: a ResourceClaimTemplate's
  YAML::Node claims_at;                              // for messages
};

// `tmpl` is the pod (template) with metadata and spec; `field` its path in the object ("" or "spec.template.").
PodRules read_pod_rules(const Object& o, const YAML::Node& tmpl, const std::string& field, bool with_labels,
                        std::vector<std::string>& ignored) {
  PodRules r;
  const YAML::Node spec = at(tmpl, {"spec"});
  const std::string sf = field + "spec";
  if (const YAML::Node p = at(spec, {"priorityClassName"})) {
    expect(o, p, sf + ".priorityClassName", YAML::NodeType::Scalar);
    r.priority_class = p.Scalar();
    r.fields["priority_class"] = r.priority_class;
  }
  // Kueue reads the queue label of the job object (its integrations), a plain pod's own.
  for (const auto& [where, in] : {std::pair(std::string(), o.node), std::pair(field, tmpl)})
    if (const YAML::Node q = at(in, {"metadata", "labels", std::string(kQueueLabel)}); q && r.queue.empty()) {
      r.queue = scalar(q);
      r.queue_at = q;
      r.queue_at_field = where;
    }
  if (!r.queue.empty()) r.fields["queue"] = r.queue;
  // Pod labels matter to PodDisruptionBudgets' selectors: written with a tenancy: block only.
  if (const YAML::Node l = at(tmpl, {"metadata", "labels"}); l && with_labels)
    r.fields["labels"] = string_map(o, l, field + "metadata.labels");
  if (const YAML::Node s = at(spec, {"nodeSelector"})) {
    YAML::Node sel = string_map(o, s, sf + ".nodeSelector");
    if (sel[std::string(kHostname)]) {
      r.hostname = sel[std::string(kHostname)].Scalar();
      sel.remove(std::string(kHostname));
    }
    if (sel.size() > 0) r.fields["node_selector"] = sel;
  }
  if (const YAML::Node t = at(spec, {"tolerations"}); t && t.size() > 0)
    r.fields["tolerations"] = tolerations(o, t, sf + ".tolerations", ignored);
  const YAML::Node affinity = at(spec, {"affinity"});
  expect(o, affinity, sf + ".affinity", YAML::NodeType::Map);
  if (const YAML::Node a = at(affinity, {"nodeAffinity"})) {
    expect(o, a, sf + ".affinity.nodeAffinity", YAML::NodeType::Map);
    if (const YAML::Node na = node_affinity(o, a, sf + ".affinity.nodeAffinity", ignored); na.size() > 0)
      r.fields["node_affinity"] = na;
  }
  report_fields(o, sf + ".affinity.", other_keys(affinity, {"nodeAffinity"}), "not modelled", ignored);
  if (const YAML::Node g = at(spec, {"terminationGracePeriodSeconds"}))
    r.fields["termination_grace_period"] = fmt::format("{}s",
                                                       whole(o, g, sf + ".terminationGracePeriodSeconds", 0, 1'000'000'000));
  if (const YAML::Node c = at(spec, {"resourceClaims"})) {
    expect(o, c, sf + ".resourceClaims", YAML::NodeType::Sequence);
    r.claims_at = c;
    // A template stays a bare name in the scenario, a ResourceClaim is {resource_claim_name: NAME}.
    YAML::Node out(YAML::NodeType::Sequence);
    for (std::size_t i = 0; i < c.size(); ++i) {
      const std::string f = fmt::format("{}.resourceClaims[{}]", sf, i);
      const YAML::Node t = at(c[i], {"resourceClaimTemplateName"}), byname = at(c[i], {"resourceClaimName"});
      const YAML::Node given = t ? t : byname;
      if (!given || (t && byname) || !given.IsScalar() || given.Scalar().empty())
        o.fail(c[i], f, "expected one of resourceClaimTemplateName and resourceClaimName");
      r.claims.emplace_back(given.Scalar(), bool(t));
      if (t) {
        out.push_back(given.Scalar());
      } else {
        YAML::Node ref(YAML::NodeType::Map);
        ref["resource_claim_name"] = given.Scalar();
        out.push_back(ref);
      }
    }
    if (!r.claims.empty()) r.fields["resource_claims"] = out;
  }
  return r;
}

// Node label keys workloads select on (nodeSelector, node affinity): the pools carry those labels.
void selected_label_keys(const YAML::Node& n, bool in_affinity, std::set<std::string>& out) {
  if (n.IsSequence())
    for (const auto& item : n) selected_label_keys(item, in_affinity, out);
  if (!n.IsMap()) return;
  for (const auto& kv : n) {
    const std::string k = kv.first.Scalar();
    if (k == "nodeSelector" && kv.second.IsMap())
      for (const auto& s : kv.second) out.insert(s.first.Scalar());
    else if (in_affinity && k == "key" && kv.second.IsScalar()) out.insert(kv.second.Scalar());
    else selected_label_keys(kv.second, in_affinity || k == "nodeAffinity", out);
  }
}

// --- the GPU feature discovery's product label -------------------------------------------------

// nvidia.com/gpu.product is nvidia-smi's name with spaces as dashes; with the single MIG strategy
// it ends in -MIG-<profile>, with sharing in -SHARED (gpu-feature-discovery README, "Generated Labels").
// The catalog's product_names are nvidia-smi's names.
const GpuModel* catalog_model(const Catalog& catalog, std::string product) {
  if (const auto mig = product.find("-MIG-"); mig != std::string::npos) product.resize(mig);
  if (product.ends_with("-SHARED")) product.resize(product.size() - 7);
  for (const GpuModel& g : catalog.gpus())
    for (std::string name : g.product_names) {
      std::replace(name.begin(), name.end(), ' ', '-');
      if (name == product) return &g;
    }
  return nullptr;
}

// --- ConfigMaps -------------------------------------------------------------------------------

struct Configs {
  std::map<std::string, YAML::Node> device_plugin;  // config name -> its parsed YAML (version: v1, flags, sharing)
  YAML::Node mig_configs;                           // mig-parted's mig-configs: name -> list of device filters
};

// Which of our ConfigMaps is it (device plugin, MIG manager), if any; each value is a YAML file.
bool read_config_map(const Object& o, Configs& configs) {
  bool used = false;
  for (const auto& kv : at(o.node, {"data"})) {
    const std::string key = kv.first.Scalar();
    YAML::Node doc;
    try {
      doc = YAML::Load(scalar(kv.second));
    } catch (const YAML::Exception& e) {
      o.fail(kv.second, "data." + key, fmt::format("malformed YAML: {}", e.msg));
    }
    if (!doc.IsMap()) continue;
    if (doc["mig-configs"]) {
      if (!doc["mig-configs"].IsMap()) o.fail(kv.second, "data." + key + ".mig-configs", "expected a map of config names");
      for (const auto& c : doc["mig-configs"]) configs.mig_configs[c.first.Scalar()] = c.second;
      used = true;
    } else if (doc["version"] && (doc["sharing"] || doc["flags"])) {
      configs.device_plugin[key] = doc;
      used = true;
    }
  }
  return used;
}

// --- nodes ------------------------------------------------------------------------------------

struct PoolOut {
  std::string key;  // what groups its nodes
  std::string name, node_template, instance_type, product, mig_config, plugin_config;
  bool plugin_fallback = false;  // no label chose plugin_config
  std::string labels, taints;    // flow maps / lists, empty: none
  std::vector<std::string> nodes;
};

std::string pool_block(const PoolOut& p, const Configs& configs, const Object& first) {
  std::string s = fmt::format("    # nodes labelled nvidia.com/gpu.product={}", p.product);
  if (!p.instance_type.empty()) s += fmt::format(", node.kubernetes.io/instance-type={}", p.instance_type);
  if (!p.mig_config.empty()) s += fmt::format(", nvidia.com/mig.config={}", p.mig_config);
  if (!p.plugin_config.empty())
    s += p.plugin_fallback
             ? fmt::format("; no nvidia.com/device-plugin.config label: the plugin's fallback config {}", p.plugin_config)
             : fmt::format(", nvidia.com/device-plugin.config={}", p.plugin_config);
  s += fmt::format("\n    - name: {}\n      node: {}\n      node_names: [{}]\n", yaml_quoted(p.name), p.node_template,
                   fmt::join(p.nodes, ", "));
  if (!p.labels.empty()) s += fmt::format("      labels: {}\n", p.labels);
  if (!p.taints.empty()) s += fmt::format("      taints: {}\n", p.taints);
  YAML::Node plugin;
  if (!p.plugin_config.empty()) {
    const auto it = configs.device_plugin.find(p.plugin_config);
    if (it == configs.device_plugin.end()) {
      std::vector<std::string> known;
      for (const auto& [k, v] : configs.device_plugin) known.push_back(k);
      first.fail(at(first.node, {"metadata", "labels", "nvidia.com/device-plugin.config"}),
                 "metadata.labels.nvidia.com/device-plugin.config",
                 fmt::format("no device plugin config '{}' in the ConfigMaps read (known: {})", p.plugin_config,
                             known.empty() ? "none" : fmt::format("{}", fmt::join(known, ", "))));
    }
    plugin = it->second;
  }
  if (!p.mig_config.empty() && p.mig_config != "all-disabled") {
    // The device plugin's flags.migStrategy; none given (or none): mixed, which advertises each profile.
    std::string strategy = scalar(at(plugin, {"flags", "migStrategy"}));
    if (strategy.empty() || strategy == "none") strategy = "mixed";
    std::string mig = fmt::format("{{strategy: {}, config: {}", strategy, yaml_quoted(p.mig_config));
    if (configs.mig_configs[p.mig_config]) {
      YAML::Node one;
      one[p.mig_config] = configs.mig_configs[p.mig_config];
      mig += ", mig-configs: " + flow(one);
    }
    s += fmt::format("      mig: {}}}\n", mig);
  } else if (const YAML::Node sharing = at(plugin, {"sharing"})) {
    s += fmt::format("      sharing: {}\n", flow(sharing));
  }
  return s;
}

// A duration as a file would give it: "24h", "90m" or seconds.
std::string duration_text(Duration d) {
  const int64_t s = d.us() / 1'000'000;
  if (d.us() % 1'000'000 != 0) return format_seconds(d);
  if (s > 0 && s % 3600 == 0) return fmt::format("{}h", s / 3600);
  if (s > 0 && s % 60 == 0) return fmt::format("{}m", s / 60);
  return fmt::format("{}", s);
}

// A Node's spec.taints as the pool's taints (timeAdded, set by the node controller, is not a rule).
std::string node_taints(const Object& n) {
  const YAML::Node taints = at(n.node, {"spec", "taints"});
  expect(n, taints, "spec.taints", YAML::NodeType::Sequence);
  if (!taints || taints.size() == 0) return "";
  YAML::Node list(YAML::NodeType::Sequence);
  for (std::size_t i = 0; i < taints.size(); ++i) {
    const std::string f = fmt::format("spec.taints[{}]", i);
    const YAML::Node key = at(taints[i], {"key"});
    if (!key || !key.IsScalar() || key.Scalar().empty()) n.fail(taints[i], f + ".key", "expected a taint key");
    YAML::Node t(YAML::NodeType::Map);
    t["key"] = key.Scalar();
    if (const std::string v = scalar(at(taints[i], {"value"})); !v.empty()) t["value"] = v;
    t["effect"] = one_of(n, at(taints[i], {"effect"}), f + ".effect", {"NoSchedule", "PreferNoSchedule", "NoExecute"});
    list.push_back(t);
  }
  return flow(list);
}

// The Node's labels that workloads or ResourceFlavors select on, except those every gpusim pool of
// this template has anyway (sim/node_placement.cpp, add_node_labels): kubernetes.io/os=linux, the
// instance type when it is the template's name, and the GPU product and count the pool was matched
// by. kubernetes.io/hostname is per node: a nodeSelector on it becomes the job's node:.
std::string node_labels(const Object& n, const std::set<std::string>& keys, const std::string& node_template) {
  YAML::Node out(YAML::NodeType::Map);
  for (const std::string& key : keys) {
    const YAML::Node v = at(n.node, {"metadata", "labels", key});
    if (!v) continue;
    const std::string value = scalar(v);
    if (key == kHostname || (key == "kubernetes.io/os" && value == "linux") ||
        (key == "node.kubernetes.io/instance-type" && value == node_template) || key == "nvidia.com/gpu.product" ||
        key == "nvidia.com/gpu.count")
      continue;
    out[key] = value;
  }
  return out.size() > 0 ? flow(out) : "";
}

std::string tenancy_block(const TenancyOut& t) {
  std::string y = "tenancy:\n";
  const auto list = [&](const char* key, const std::vector<std::string>& items, const char* indent) {
    if (items.empty()) return;
    y += fmt::format("{}{}:\n", indent, key);
    for (const std::string& i : items) y += fmt::format("{}  - {}\n", indent, i);
  };
  list("priority_classes", t.priority_classes, "  ");
  list("pod_disruption_budgets", t.budgets, "  ");
  list("resource_quotas", t.quotas, "  ");
  if (!t.flavors.empty() || !t.cohorts.empty() || !t.cluster_queues.empty() || !t.local_queues.empty()) {
    y += "  kueue:\n";
    list("resource_flavors", t.flavors, "    ");
    list("cohorts", t.cohorts, "    ");
    list("cluster_queues", t.cluster_queues, "    ");
    list("local_queues", t.local_queues, "    ");
  }
  list("device_classes", t.device_classes, "  ");
  list("resource_claim_templates", t.claim_templates, "  ");
  list("resource_claims", t.resource_claims, "  ");
  return y;
}

std::string kind_for_owner(const std::string& owner) {
  if (owner == "ReplicaSet" || owner == "StatefulSet") return "inference";
  if (owner == "PyTorchJob") return "training";
  return "batch";
}

}  // namespace

K8sImport import_k8s(const K8sImportOptions& options, const Catalog& catalog) {
  const std::vector<Object> objects = read_objects(options.paths);
  K8sImport out;
  Configs configs;
  TenancyOut tenancy;
  std::vector<const Object*> nodes, workloads;
  for (const Object& o : objects) {
    if (o.kind == "Node") nodes.push_back(&o);
    else if (read_tenancy_object(o, tenancy, out.ignored)) continue;
    else if (o.kind == "ConfigMap") {
      if (!read_config_map(o, configs))
        out.ignored.push_back(o.id() + ": neither the device plugin's nor the MIG manager's config");
    } else if (o.kind == "Pod" || o.kind == "Deployment" || o.kind == "StatefulSet" || o.kind == "Job" || o.kind == "PyTorchJob")
      workloads.push_back(&o);
    else out.ignored.push_back(o.id() + ": kind not modelled");
  }

  std::set<std::string> selected = tenancy.label_keys;
  for (const Object* w : workloads) selected_label_keys(w->node, false, selected);

  // Nodes: pools of nodes alike in instance type, GPU product and count, and configs chosen by labels.
  std::vector<PoolOut> pools;
  std::map<std::string, const Object*> first_of_pool;
  std::set<std::string> node_names;
  for (const Object* n : nodes) {
    const std::string product = label(*n, "nvidia.com/gpu.product");
    if (product.empty()) {
      out.ignored.push_back(n->id() + ": no nvidia.com/gpu.product label (not a GPU node)");
      continue;
    }
    const YAML::Node labels = at(n->node, {"metadata", "labels"});
    const GpuModel* gpu = catalog_model(catalog, product);
    if (!gpu)
      n->fail(at(labels, {"nvidia.com/gpu.product"}), "metadata.labels.nvidia.com/gpu.product",
              fmt::format("GPU product '{}' is not in gpusim's catalog (gpusim catalog lists the models)", product));
    const std::string count_text = label(*n, "nvidia.com/gpu.count");
    int count = 0;
    const auto [end, ec] = std::from_chars(count_text.data(), count_text.data() + count_text.size(), count);
    if (ec != std::errc() || end != count_text.data() + count_text.size() || count < 1)
      n->fail(at(labels, {"nvidia.com/gpu.count"}), "metadata.labels.nvidia.com/gpu.count",
              fmt::format("expected a GPU count >= 1, got '{}'", count_text));
    const auto t = std::find_if(catalog.nodes().begin(), catalog.nodes().end(),
                                [&](const NodeTemplate& c) { return c.gpu == gpu->name && c.gpus == count; });
    if (t == catalog.nodes().end())
      n->fail(at(labels, {"nvidia.com/gpu.count"}), "metadata.labels.nvidia.com/gpu.count",
              fmt::format("no catalog node template has {} x {} (gpusim catalog nodes; add one under catalog.nodes)", count,
                          gpu->name));
    PoolOut p;
    p.node_template = t->name;
    p.instance_type = label(*n, "node.kubernetes.io/instance-type");
    p.product = product;
    p.mig_config = label(*n, "nvidia.com/mig.config");
    p.plugin_config = label(*n, "nvidia.com/device-plugin.config");
    // No label: the plugin's fallbacks (its helm chart's config.fallbackStrategies, "named" then
    // "single"): a config named default, else the only config there is.
    if (p.plugin_config.empty() && !configs.device_plugin.empty()) {
      if (configs.device_plugin.count("default")) p.plugin_config = "default";
      else if (configs.device_plugin.size() == 1) p.plugin_config = configs.device_plugin.begin()->first;
      p.plugin_fallback = !p.plugin_config.empty();
    }
    p.labels = node_labels(*n, selected, t->name);
    p.taints = node_taints(*n);
    p.key = fmt::format("{}|{}|{}|{}|{}|{}", p.instance_type, t->name, p.mig_config, p.plugin_config, p.labels, p.taints);
    if (!node_names.insert(n->name).second)
      n->fail(at(n->node, {"metadata", "name"}), "metadata.name", "two Nodes have this name");
    auto it = std::find_if(pools.begin(), pools.end(), [&](const PoolOut& q) { return q.key == p.key; });
    if (it == pools.end()) {
      std::string base = p.instance_type.empty() ? t->name : p.instance_type;
      for (const std::string& c : {p.mig_config, p.plugin_config})
        if (!c.empty()) base += "-" + c;
      p.name = base;
      for (int i = 2; std::any_of(pools.begin(), pools.end(), [&](const PoolOut& q) { return q.name == p.name; }); ++i)
        p.name = fmt::format("{}-{}", base, i);
      pools.push_back(p);
      it = pools.end() - 1;
      first_of_pool[p.key] = n;
    }
    it->nodes.push_back(n->name);
  }
  if (pools.empty())
    throw InputError({options.paths.empty() ? "" : options.paths.front(), std::nullopt, "Node"},
                     "no GPU Node objects (with nvidia.com/gpu.product and nvidia.com/gpu.count labels): the cluster needs "
                     "them, e.g. kubectl get nodes -o yaml");

  // Workloads: one inline job per controller (its replicas as count or workers) or per pod.
  std::vector<JobOut> jobs;
  std::map<std::pair<std::string, std::string>, int64_t> pods_naming;  // ResourceClaims: (namespace, name)
  const std::string horizon = duration_text(options.horizon);
  const std::string duration = duration_text(options.duration);
  for (const Object* op : workloads) {
    const Object& o = *op;
    const YAML::Node spec = at(o.node, {"spec"});
    JobOut j;
    j.tenant = o.ns.empty() ? "default" : o.ns;
    std::string lower = o.kind;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    j.name = fmt::format("{}/{}/{}", lower, j.tenant, o.name);
    YAML::Node tmpl;
    std::string tmpl_field = "spec.template.";  // its path in the object, for messages
    bool serving = false;                       // replicas that run until stopped
    if (o.kind == "Pod") {
      tmpl = o.node;
      tmpl_field = "";
      const std::string phase = scalar(at(o.node, {"status", "phase"}));
      if (phase == "Succeeded" || phase == "Failed") {
        out.ignored.push_back(fmt::format("{}: {} (finished)", o.id(), phase));
        continue;
      }
      const YAML::Node owners = at(o.node, {"metadata", "ownerReferences"});
      const YAML::Node owner = owners && owners.IsSequence() && owners.size() > 0 ? owners[0]
                                                                                  : YAML::Node(YAML::NodeType::Undefined);
      j.kind = kind_for_owner(scalar(at(owner, {"kind"})));
      serving = j.kind == "inference";
      j.node = scalar(at(spec, {"nodeName"}));
      j.comment = j.node.empty() ? fmt::format("{} ({})", o.id(), phase.empty() ? "not scheduled" : phase)
                                 : fmt::format("{} ({} on {})", o.id(), phase.empty() ? "bound" : phase, j.node);
      if (owner) j.comment += fmt::format(", owned by {} {}", scalar(at(owner, {"kind"})), scalar(at(owner, {"name"})));
    } else if (o.kind == "Deployment" || o.kind == "StatefulSet") {
      tmpl = at(spec, {"template"});
      j.kind = "inference";
      serving = true;
      j.count = count_field(o, at(spec, {"replicas"}), "spec.replicas", 1);
      j.comment = fmt::format("{}: {} replicas, serving for the whole horizon", o.id(), j.count);
    } else if (o.kind == "Job") {
      tmpl = at(spec, {"template"});
      j.kind = "batch";
      const int64_t parallelism = count_field(o, at(spec, {"parallelism"}), "spec.parallelism", 1);
      j.count = count_field(o, at(spec, {"completions"}), "spec.completions", parallelism);
      j.comment = fmt::format("{}: completions {}", o.id(), j.count);
      if (parallelism < j.count)
        out.ignored.push_back(fmt::format("{}: parallelism {} (all {} completions queue at once)", o.id(), parallelism, j.count));
    } else {  // PyTorchJob (Kubeflow training operator): Master and Worker replicas, one gang
      j.kind = "training";
      const YAML::Node specs = at(spec, {"pytorchReplicaSpecs"});
      if (!specs || !specs.IsMap()) o.fail(spec, "spec.pytorchReplicaSpecs", "expected Master and/or Worker replica specs");
      j.workers = 0;
      std::optional<PodRequest> per_pod;
      std::vector<std::string> parts;
      for (const char* role : {"Master", "Worker"}) {
        const YAML::Node r = at(specs, {role});
        if (!r) continue;
        const int64_t n = count_field(o, at(r, {"replicas"}), fmt::format("spec.pytorchReplicaSpecs.{}.replicas", role), 1);
        const PodRequest q = read_pod_spec(o, at(r, {"template", "spec"}),
                                           fmt::format("spec.pytorchReplicaSpecs.{}.template.spec", role));
        if (per_pod && (q.gpus != per_pod->gpus || q.resource != per_pod->resource))
          o.fail(r, fmt::format("spec.pytorchReplicaSpecs.{}", role),
                 fmt::format("its pods ask {} x {}, the Master's {} x {}; gpusim's workers are alike", q.gpus, q.resource,
                             per_pod->gpus, per_pod->resource));
        per_pod = q;
        if (!tmpl) {
          tmpl = at(r, {"template"});
          tmpl_field = fmt::format("spec.pytorchReplicaSpecs.{}.template.", role);
        }
        j.workers += n;
        parts.push_back(fmt::format("{} {}", n, role));
      }
      if (!per_pod) o.fail(specs, "spec.pytorchReplicaSpecs", "expected Master and/or Worker replica specs");
      j.request = *per_pod;
      j.comment = fmt::format("{}: {}, gang-scheduled", o.id(), fmt::join(parts, " + "));
    }
    if (o.kind != "PyTorchJob") j.request = read_pod_spec(o, at(tmpl, {"spec"}), o.kind == "Pod" ? "spec" : "spec.template.spec");
    const PodRules rules = read_pod_rules(o, tmpl, tmpl_field, tenancy.any(), out.ignored);
    // (The API server's own classes always exist; a scenario knows them too.)
    if (!rules.priority_class.empty() && !tenancy.class_names.count(rules.priority_class) &&
        rules.priority_class != "system-cluster-critical" && rules.priority_class != "system-node-critical")
      o.fail(at(tmpl, {"spec", "priorityClassName"}), tmpl_field + "spec.priorityClassName",
             fmt::format("no PriorityClass '{}' among the objects read (Kubernetes refuses the pod)", rules.priority_class));
    if (!rules.queue.empty() && !tenancy.queues.count({j.tenant, rules.queue}))
      o.fail(rules.queue_at, fmt::format("{}metadata.labels.{}", rules.queue_at_field, kQueueLabel),
             fmt::format("no LocalQueue '{}' in namespace {} among the objects read", rules.queue, j.tenant));
    if (!rules.claims.empty()) {
      // DRA: each pod gets a claim from each template and the ResourceClaims it names; gpusim holds
      // one device request per job.
      std::size_t requests = 0;
      std::string unusable;
      for (const auto& claim : rules.claims) {
        const std::string& c = claim.first;
        const bool from_template = claim.second;
        const std::string_view kind = from_template ? "ResourceClaimTemplate" : "ResourceClaim";
        const auto t = std::find_if(tenancy.claim_sources.begin(), tenancy.claim_sources.end(), [&](const ClaimSource& x) {
          return x.name == c && x.ns == j.tenant && x.from_template == from_template;
        });
        if (t == tenancy.claim_sources.end())
          o.fail(rules.claims_at, tmpl_field + "spec.resourceClaims",
                 fmt::format("no {} '{}' in namespace {} among the objects read", kind, c, j.tenant));
        if (!t->unusable.empty()) unusable = fmt::format("claims from {} {}, which is ignored", kind, c);
        requests += t->requests;
        j.request.gpus = t->per_pod;
        if (!from_template && std::find(j.named_claims.begin(), j.named_claims.end(), c) == j.named_claims.end()) {
          j.named_claims.push_back(c);  // a pod listing a claim twice still names it once
          pods_naming[{j.tenant, c}] += j.count * j.workers;
        }
      }
      // Kubernetes lets the pods naming one ResourceClaim share its devices (status.reservedFor
      // lists them all); gpusim gives a device to one job at a time and refuses a shared claim
      // (sim/src/dra.cpp), so such a workload is reported rather than written. Across workloads: below.
      if (!j.named_claims.empty() && j.count * j.workers > 1 && unusable.empty())
        unusable = fmt::format("its {} pods name ResourceClaim {} (sharing a ResourceClaim's devices between pods is not "
                               "modelled; a ResourceClaimTemplate gives each pod its own)",
                               j.count * j.workers, j.named_claims.front());
      if (requests != 1 && unusable.empty())
        unusable = fmt::format("its claims hold {} device requests; gpusim places one kind of device per job", requests);
      if (!j.request.resource.empty())
        unusable = fmt::format("asks both {} and DRA claims; gpusim's jobs take one or the other", j.request.resource);
      if (!unusable.empty()) {
        out.ignored.push_back(fmt::format("{}: {}", o.id(), unusable));
        continue;
      }
    }
    if (!rules.hostname.empty() && j.workers > 1) {
      out.ignored.push_back(fmt::format("{}: nodeSelector {}={} (gpusim's workers of a gang take a node each; node: is for "
                                        "single pods)",
                                        o.id(), kHostname, rules.hostname));
    } else if (!rules.hostname.empty()) {
      if (j.node.empty()) j.node = rules.hostname;
      j.comment += fmt::format(", nodeSelector {}={}", kHostname, rules.hostname);
    }
    j.rules = rules.fields;
    if (j.count == 0 || j.workers == 0) {
      out.ignored.push_back(o.id() + ": no replicas");
      continue;
    }
    if (j.request.gpus == 0) {
      out.ignored.push_back(o.id() + ": asks no GPU");
      continue;
    }
    if (!j.node.empty() && !node_names.count(j.node))
      o.fail(at(spec, {"nodeName"}), "spec.nodeName", fmt::format("runs on node '{}', which is not a GPU Node read", j.node));
    // (Each worker gets a claim of its own from a template: whole devices, as nvidia.com/gpu.)
    if (j.workers > 1 && rules.claims.empty() && j.request.resource != "nvidia.com/gpu")
      o.fail(spec, "spec.pytorchReplicaSpecs", "workers of several pods take whole GPUs (nvidia.com/gpu)");
    if (const auto k = annotation(o, tmpl, "kind")) j.kind = k->first;
    j.arrival = duration_annotation(o, tmpl, "arrival", "0");
    j.deadline = duration_annotation(o, tmpl, "deadline", "");
    if (serving && !annotation(o, tmpl, "duration")) {
      j.duration = horizon;
      j.whole_horizon = true;
    } else {
      j.duration = duration_annotation(o, tmpl, "duration", duration);
    }
    j.object_id = o.id();
    jobs.push_back(std::move(j));
  }
  // A ResourceClaim named by the pods of several workloads is shared, as above: none of them is written.
  std::erase_if(jobs, [&](const JobOut& j) {
    for (const std::string& c : j.named_claims)
      if (const int64_t n = pods_naming[{j.tenant, c}]; n > 1) {
        out.ignored.push_back(fmt::format("{}: ResourceClaim {} is named by {} pods (sharing a ResourceClaim's devices "
                                          "between pods is not modelled; a ResourceClaimTemplate gives each pod its own)",
                                          j.object_id, c, n));
        return true;
      }
    return false;
  });
  const bool long_running = std::any_of(jobs.begin(), jobs.end(), [](const JobOut& j) { return j.whole_horizon; });
  if (jobs.empty())
    throw InputError({options.paths.empty() ? "" : options.paths.front(), std::nullopt, "Pod"},
                     "no workload asking for GPUs (Pods, Deployments, StatefulSets, Jobs, PyTorchJobs)");

  std::string y = fmt::format(
      "# Written by gpusim import k8s {} (docs/guide/kubernetes.md).\n"
      "# Run times: annotation gpusim.io/duration, else --duration {}; serving replicas (Deployments,\n"
      "# StatefulSets, pods of ReplicaSets) run for the whole horizon. Arrivals: gpusim.io/arrival, else 0.\n"
      "# Pods bound to a node (spec.nodeName) start there at time 0; other pods are queued at time 0.\n",
      fmt::join(options.paths, " "), duration);
  if (out.ignored.empty()) y += "# Ignored: nothing.\n";
  else {
    y += "# Ignored:\n";
    for (const std::string& i : out.ignored) y += "#   " + i + "\n";
  }
  y += fmt::format("name: {}\nversion: 1\nseed: 0\n", yaml_quoted(options.name));
  if (long_running) y += fmt::format("horizon: {}\n", yaml_quoted(horizon));
  y += "cluster:\n  pools:\n";
  for (const PoolOut& p : pools) y += pool_block(p, configs, *first_of_pool[p.key]);
  // The run times are as a pod took on the cluster, whatever GPU it got there: the same on every model
  // until the user names the GPU they were measured on.
  y += "workload:\n"
       "  reference_gpu: any   # run times hold on every GPU model; name the GPU they were measured on to scale them "
       "(docs/hardware.md#job-speed)\n"
       "  jobs:\n";
  for (const JobOut& j : jobs) y += emit_job(j);
  if (tenancy.any()) y += tenancy_block(tenancy);
  out.scenario_yaml = std::move(y);
  return out;
}

}  // namespace gpusim::cli
