#include "gpusim/sim/scenario.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpusim/core/config.hpp"
#include "gpusim/core/utf8.hpp"
#include "gpusim/core/yaml_documents.hpp"
#include "gpusim/sim/dra.hpp"
#include "gpusim/sim/node_placement.hpp"
#include "scenario_parts.hpp"

#ifndef GPUSIM_DEFAULT_DATA_DIR
#error "GPUSIM_DEFAULT_DATA_DIR must be defined by the build"
#endif

namespace gpusim {

std::string resolve_data_dir(const std::optional<std::string>& flag) {
  if (flag) return *flag;
  if (const char* env = std::getenv("GPUSIM_DATA"); env && *env) return env;
  return GPUSIM_DEFAULT_DATA_DIR;
}

// Applies "a.b[0].c=value" (or a.b.0.c; a.b[*].c sets c in every item of b) to the document `root` refers to (a YAML::Node is a
// handle: the edit goes through a copy of it); the value is read as YAML. A null value (null, ~) removes
// the key from its map: an optional block such as a pool's mig goes, as if never written.
static void apply_override(const ConfigNode& doc, const std::string& assignment) {
  const YAML::Node& root = doc.yaml();
  const auto eq = assignment.find('=');
  const SourceLocation where{"--set", std::nullopt, assignment};
  if (eq == std::string::npos || eq == 0) throw InputError(where, "expected path=value, e.g. cluster.pools[0].count=8");
  std::string path = assignment.substr(0, eq);
  if (const auto bad = first_invalid_utf8(assignment))
    throw InputError(where, fmt::format("byte 0x{:02X} is not UTF-8 text", static_cast<unsigned char>(assignment[*bad])));
  YAML::Node value;
  try {
    value = yaml_document(assignment.substr(eq + 1), "");
    ConfigNode::check_keys(value, "", "");
  } catch (const InputError& e) {
    throw InputError(where, fmt::format("value: {}", e.what()));
  }
  for (char& c : path)
    if (c == '[' || c == ']') c = '.';
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= path.size()) {
    const auto dot = path.find('.', start);
    std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!part.empty()) parts.push_back(part);
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (parts.empty()) throw InputError(where, "empty path");
  // parts[i] read as an index into the list `cur` (named by parts[i - 1], or the document).
  const auto index_of = [&](const YAML::Node& cur, std::size_t i) {
    std::size_t index = 0;
    const std::string& s = parts[i];
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), index);
    if (ec != std::errc() || p != s.data() + s.size())
      throw InputError(where, fmt::format("'{}' is a list: expected an index, got '{}'", i ? parts[i - 1] : "", s));
    if (index >= cur.size())
      throw InputError(where, fmt::format("index {} is out of range (the list has {} items)", index, cur.size()));
    return index;
  };
  // What `cur` (named by parts[i - 1]) is when it is neither a map nor a list.
  const auto not_a_map = [&](const YAML::Node& cur, std::size_t i) {
    throw InputError(where, fmt::format("cannot set '{}': '{}' is {}, not a map", parts[i], parts[i - 1],
                                        cur.IsScalar() ? fmt::format("the value '{}'", cur.Scalar()) : "not a map or a list"));
  };
  // The value once, then a copy for each further place a "*" makes.
  bool placed = false;
  const auto next_value = [&] {
    YAML::Node v = placed ? YAML::Clone(value) : value;
    placed = true;
    doc.note_set(v, assignment);
    return v;
  };
  // Sets parts[i..] under `node`; "*" on a list stands for each of its items.
  std::function<void(const YAML::Node&, std::size_t)> set = [&](const YAML::Node& node, std::size_t i) {
    YAML::Node cur;
    cur.reset(node);
    if (cur.IsSequence() && parts[i] == "*") {
      // As an index out of range would be: an assignment that sets nothing is refused.
      if (cur.size() == 0) throw InputError(where, fmt::format("'{}' is an empty list: '*' sets nothing", i ? parts[i - 1] : ""));
      for (std::size_t k = 0; k < cur.size(); ++k) {
        YAML::Node item;
        item.reset(cur[k]);
        if (i == parts.size() - 1) cur[k] = next_value();
        else set(item, i + 1);
      }
      return;
    }
    if (i == parts.size() - 1) {
      if (cur.IsSequence() && value.IsNull())
        throw InputError(where, fmt::format("null removes a key of a map; '{}' is a list: give a value", parts[i - 1]));
      if (cur.IsSequence()) cur[index_of(cur, i)] = next_value();
      else if (cur.IsMap() && value.IsNull()) cur.remove(parts[i]);
      else if (cur.IsMap() || cur.IsNull()) cur[parts[i]] = next_value();
      else not_a_map(cur, i);
      return;
    }
    YAML::Node next;
    if (cur.IsSequence()) {
      next.reset(cur[index_of(cur, i)]);
    } else {
      if (!cur.IsMap() && !cur.IsNull()) not_a_map(cur, i);
      if (!cur[parts[i]].IsDefined()) {
        cur[parts[i]] = YAML::Node(YAML::NodeType::Map);
        doc.note_set(cur[parts[i]], assignment);  // a map the flag made
      }
      next.reset(cur[parts[i]]);
    }
    set(next, i + 1);
  };
  set(root, 0);
}

namespace {

constexpr int kScenarioVersion = 1;

const Section& policy_section() {
  static const Section s{
      "policy",
      "A policy with parameters",
      {
          {"name", Type::string(), required, "", "QUEUE+PLACEMENT, e.g. fifo+best-fit (gpusim policies)"},
          {"params", Type::map(Type::any()), "", "",
           "Parameters of the policies; one no policy declares is an error, one the chosen policy does not read is ignored"},
      }};
  return s;
}

const Section& scheduling_section() {
  static const Section s{
      "scheduling",
      "How the scheduler serves its queue",
      {
          {"gang", Type::boolean(), "true", "",
           "A job's workers are placed all together or not at all; false: one at a time as they fit, holding their GPUs"},
          {"queue", Type::enumeration<QueueMode>(), "kubernetes", "",
           "kubernetes: a job that does not fit is skipped; strict: it blocks the queue; backfill: it blocks, smaller jobs that "
           "end before it could start go ahead"},
      }};
  return s;
}

const Section& variant_section() {
  static const Section s{"variant",
                         "A named set of overrides gpusim compare runs side by side",
                         {
                             {"name", Type::string(), required, "", "The variant's name, unique in the scenario"},
                             {"set", Type::string_list(), "", "", "Overrides path=value, as --set gives them"},
                         }};
  return s;
}

const Section& scenario_section() {
  static const Section s{
      "scenario",
      "A gpusim scenario: a cluster, a workload and a policy",
      {
          {"name", Type::string(), required, "", "The scenario's name"},
          {"description", Type::string(), "", "", "What it shows"},
          {"version", Type::integer().at_least(kScenarioVersion).at_most(kScenarioVersion), "1", "",
           "The scenario format's version; this gpusim reads version 1"},
          {"seed", Type::integer().at_least(0), "0", "",
           "Seed of every random stream (each is named, so one change leaves the others)"},
          {"horizon", Type::duration(), "", "", "Simulated time; absent: until every job that can finish has finished"},
          {"catalog", Type::section(catalog_section()), "", "", "GPU models and node templates added to the built-in ones"},
          {"models", Type::list(Type::section(served_model_section())), "", "",
           "Served models added to the built-in ones (workloads/data/models.yaml), for workload.services"},
          {"cluster", Type::section(cluster_section()), required, "", "The fleet"},
          {"model", Type::section(model_section()), "", "", "Overrides of the execution model's constants (sim/data/model.yaml)"},
          {"workload", Type::section(workload_section()), required, "", "The jobs"},
          {"policy", Type::one_of({Type::string(), Type::section(policy_section())}), "fifo+first-fit", "",
           "The scheduling policy, QUEUE+PLACEMENT (gpusim policies), or {name, params}"},
          {"scheduling", Type::section(scheduling_section()), "{}", "", "How the queue is served"},
          {"tenancy", Type::section(tenancy_section()), "", "", "Kubernetes objects of a shared cluster (docs/guide/tenants.md)"},
          {"outputs", Type::section(outputs_section()), "{}", "", "What a run directory holds"},
          {"variants", Type::list(Type::section(variant_section())), "", "",
           "Named sets of overrides gpusim compare runs side by side"},
      }};
  return s;
}

// `variants:`: named sets of overrides, their names unique.
void read_variants(const Fields& root, Scenario& s) {
  if (auto v = root.get("variants")) {
    for (const auto& item : v->items()) {
      const Fields e = variant_section().read(item);
      Scenario::Variant variant{e.at("name").as_string(), e.string_list("set"), e.get("set").value_or(item).where()};
      for (const auto& other : s.variants)
        if (other.name == variant.name) e.at("name").fail(fmt::format("two variants are named '{}'", variant.name));
      s.variants.push_back(std::move(variant));
    }
  }
}

// `model.include`: the file's `model:` map, else its top-level map (gpusim calibrate's output),
// its path relative to the scenario's folder. One level only: an include in it is refused.
ConfigNode included_model(const ConfigNode& include, const std::string& scenario_file) {
  const std::filesystem::path path = std::filesystem::path(scenario_file).parent_path() / include.as_string();
  if (!std::filesystem::is_regular_file(path)) include.fail(fmt::format("expected a file, {} is none", path.string()));
  const ConfigNode doc = ConfigNode::load_file(path.string());
  ConfigNode model = doc.get("model").value_or(doc);
  if (auto nested = model.get("include")) nested->fail("expected no include in an included file");
  return model;
}

// The execution model: the built-in constants, then `model.include`'s file, then the scenario's
// own `model:` keys.
void read_model(const Fields& root, Scenario& s) {
  s.model = ExecutionModel::builtin();
  if (auto m = root.get("model")) {
    if (auto include = m->get("include")) s.model.apply(included_model(*include, s.file));
    s.model.apply(*m);
  }
  // model.speed names catalog entries, which the scenario may add.
  const std::optional<ConfigNode> speed = root.get("model") ? root.at("model").get("speed") : std::nullopt;
  const SourceLocation where{speed ? speed->where().file : s.file, speed ? speed->where().line : std::nullopt, "model.speed"};
  check_speed(*s.catalog, JobSpeed{s.model.speed.reference_gpu, {}, {}}, where);
  if (s.model.speed.reference_gpu == JobSpeed::kAny)
    throw InputError(where, "expected a GPU model as the default reference_gpu, not any");
  for (const std::string& c : s.model.speed.classes) check_speed(*s.catalog, JobSpeed{{}, c, {}}, where);
}

// An absent policy is its default, named by the field without a line.
void read_policy(const ConfigNode& p, Scenario& s) {
  if (p.is_map()) {
    const Fields policy = policy_section().read(p);
    s.policy = policy.at("name").as_string();
    s.policy_where = policy.at("name").where();
    s.policy_params = policy.get("params");
  } else {
    s.policy = p.as_string();
    s.policy_where = p.where();
  }
}

SchedulingOptions read_scheduling(const ConfigNode& node) {
  const Fields scheduling = scheduling_section().read(node);
  SchedulingOptions o;
  o.gang = scheduling.value("gang").as_bool();
  o.queue = scheduling.value("queue").as_enum<QueueMode>(" or ");
  return o;
}

// The scenario with variant `v`'s overrides applied before options.overrides.
Scenario load_as(const std::string& path, const LoadOptions& options, const Scenario::Variant& v) {
  LoadOptions o = options;
  o.overrides.insert(o.overrides.begin(), v.overrides.begin(), v.overrides.end());
  try {
    Scenario s = load_scenario(path, o);
    s.variant = v.name;
    return s;
  } catch (const InputError& e) {
    // An error the variant's own assignment caused is named by the variant, not by a --set flag.
    const std::string& field = e.where().field;
    const bool own = e.where().file == "--set" && std::any_of(v.overrides.begin(), v.overrides.end(), [&](const auto& s) {
                       return field == s || field.starts_with(s + ": ");
                     });
    if (!own) throw;
    throw InputError(v.where, fmt::format("variant '{}': {}: {}", v.name, field, e.reason()));
  }
}

}  // namespace

Scenario load_scenario(const std::string& path, const LoadOptions& options) {
  ConfigNode node = options.text ? ConfigNode::parse(*options.text, path) : ConfigNode::load_file(path);
  if (!node.is_map()) node.fail("expected a scenario: a map with name, cluster, workload, ...");
  for (const auto& o : options.overrides) apply_override(node, o);
  const Fields root(scenario_section(), node);
  // Before the other fields: a later format fails on its version, not on a field this gpusim does not know.
  if (auto v = root.get("version"); v && !(v->is_scalar() && v->as_string() == std::to_string(kScenarioVersion)))
    v->fail(fmt::format("this gpusim reads scenario format version {} only{}", kScenarioVersion,
                        v->is_scalar() ? fmt::format(", got '{}'", v->as_string()) : ""));
  scenario_section().check(node);

  Scenario s;
  s.file = path;
  s.data_dir = resolve_data_dir(options.data_dir);
  s.resolved = ConfigNode(YAML::Clone(node.yaml()), std::make_shared<const std::string>(path), "");
  s.name = root.at("name").as_string();
  if (auto d = root.get("description")) d->as_string();
  s.seed = static_cast<uint64_t>(root.value("seed").as_non_negative_int());
  s.seed_given = root.has("seed");
  if (auto h = root.get("horizon")) {
    s.horizon = Time() + h->as_duration();
    if (*s.horizon <= Time()) h->fail("expected a positive horizon");
  }

  auto catalog = std::make_shared<Catalog>(Catalog::builtin());
  if (auto c = root.get("catalog")) catalog->add_document(*c);
  s.catalog = catalog;
  check_footprint(
      estimate_footprint(node, *catalog, parse_duration(outputs_section().field("timeseries_step").absent.value->Scalar())),
      options.memory_limit.value_or(MemoryLimit::machine_default()));

  read_variants(root, s);
  read_model(root, s);
  read_cluster(root.at("cluster"), s);
  read_workload(root, s);
  s.tenancy = read_tenancy(root.get("tenancy"), s);
  if (s.tenancy.extended_resource_toleration) add_extended_resource_tolerations(s.jobs);
  apply_dra(s);
  read_policy(root.value("policy"), s);
  s.scheduling = read_scheduling(root.value("scheduling"));
  read_outputs(root.value("outputs"), s);
  return s;
}

Json scenario_schema(const std::vector<std::string>& policy_params) {
  Json schema = json_schema(scenario_section(), "gpusim scenario");
  // The parameters policies declare live in the policy registry, a layer above this one.
  schema["$defs"]["policy"]["properties"]["params"]["propertyNames"] = {{"enum", policy_params}};
  return schema;
}

std::vector<std::pair<std::string, Scenario>> load_variants(const std::string& path, const LoadOptions& options) {
  Scenario base = load_scenario(path, options);
  std::vector<std::pair<std::string, Scenario>> out;
  for (const auto& v : base.variants) out.emplace_back(v.name, load_as(path, options, v));
  if (out.empty()) out.emplace_back("", std::move(base));
  return out;
}

Scenario load_variant(const std::string& path, const LoadOptions& options, const std::string& name, const SourceLocation& where) {
  const Scenario base = load_scenario(path, options);
  std::vector<std::string> known;
  for (const auto& v : base.variants) {
    if (v.name == name) return load_as(path, options, v);
    known.push_back(v.name);
  }
  throw InputError(where, known.empty()
                              ? fmt::format("{} has no variants", path)
                              : fmt::format("{} has no variant '{}'; its variants: {}", path, name, fmt::join(known, ", ")));
}

}  // namespace gpusim
