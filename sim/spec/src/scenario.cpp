#include "gpusim/sim/scenario.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <limits>
#include <numeric>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "gpusim/core/config.hpp"
#include "gpusim/core/random.hpp"
#include "gpusim/core/utf8.hpp"
#include "gpusim/sim/node_placement.hpp"
#include "gpusim/sim/open_metrics.hpp"
#include "gpusim/sim/outputs.hpp"
#include "gpusim/workloads/csv.hpp"
#include "gpusim/workloads/spec.hpp"
#include "gpusim/workloads/traces.hpp"

#ifndef GPUSIM_DEFAULT_DATA_DIR
#error "GPUSIM_DEFAULT_DATA_DIR must be defined by the build"
#endif

namespace gpusim {

namespace fs = std::filesystem;

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
  if (eq == std::string::npos || eq == 0)
    throw InputError(where, "expected path=value, e.g. cluster.pools[0].count=8");
  std::string path = assignment.substr(0, eq);
  if (const auto bad = first_invalid_utf8(assignment))
    throw InputError(where, fmt::format("byte 0x{:02X} is not UTF-8 text", static_cast<unsigned char>(assignment[*bad])));
  YAML::Node value;
  try {
    value = YAML::Load(assignment.substr(eq + 1));
    ConfigNode::check_keys(value, "", "");
  } catch (const YAML::Exception& e) {
    throw InputError(where, fmt::format("value is not valid YAML: {}", e.msg));
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

SharingConfig read_sharing_name(const ConfigNode& n) {
  const auto s = n.as_string();
  const auto mode = parse_enum<Sharing>(s);
  if (mode != Sharing::exclusive && mode != Sharing::fractional)
    n.fail(fmt::format("expected {}, or a device-plugin sharing block (timeSlicing: or mps:), got '{}'",
                       enum_choices({Sharing::exclusive, Sharing::fractional}), s));
  SharingConfig c;
  c.mode = *mode;
  return c;
}

const Section& sharing_resource_section() {
  static const Section s{
      "sharing_resource",
      "The resource the device plugin shares",
      {
          {"name", Type::choice({kGpuResource}), required, "", "nvidia.com/gpu (sharing MIG devices is not modelled)"},
          {"replicas", Type::integer().at_least(2).at_most(1000), required, "",
           "Pods per GPU; MPS allows at most 48 clients (16 below compute capability 7.5)"},
          {"devices", Type::choice({"all"}), "all", "", "The GPUs it applies to: every GPU of a node"},
      }};
  return s;
}

const Section& sharing_config_section() {
  static const Section s{
      "sharing_config",
      "The device plugin's time-slicing or MPS configuration",
      {
          {"renameByDefault", Type::boolean(), "false", "", "Advertise the shared GPUs as nvidia.com/gpu.shared"},
          {"failRequestsGreaterThanOne", Type::boolean(), "false", "", "Reject pods asking for more than one shared GPU"},
          {"resources", Type::list(Type::section(sharing_resource_section())), required, "", "One resource, nvidia.com/gpu"},
      }};
  return s;
}

const Section& device_plugin_sharing_section() {
  static const Section s{
      "device_plugin_sharing",
      "The NVIDIA device plugin's sharing: exactly one of timeSlicing or mps",
      {
          {"timeSlicing", Type::section(sharing_config_section()), "", "", "CUDA time-slicing: replicas take turns on a GPU"},
          {"mps", Type::section(sharing_config_section()), "", "", "MPS: replicas run at once, with thread and memory limits"},
      }};
  return s;
}

// The device plugin's `sharing:` block: {timeSlicing: {...}} or {mps: {...}} (docs/hardware.md#time-slicing, #mps).
SharingConfig read_device_plugin_sharing(const ConfigNode& node, const GpuModel* gpu) {
  const Fields n = device_plugin_sharing_section().read(node);
  if (n.has("timeSlicing") == n.has("mps")) n.fail("expected exactly one of timeSlicing or mps (they are mutually exclusive)");
  const bool mps = n.has("mps");
  const Fields b = sharing_config_section().read(n.at(mps ? "mps" : "timeSlicing"));
  SharingConfig c;
  c.mode = mps ? Sharing::mps : Sharing::time_slicing;
  c.rename_by_default = b.value("renameByDefault").as_bool();
  c.fail_requests_greater_than_one = b.value("failRequestsGreaterThanOne").as_bool();
  const auto resources = b.at("resources").items();
  if (resources.size() != 1) b.at("resources").fail("expected one resource, nvidia.com/gpu");
  const Fields r = sharing_resource_section().read(resources.front());
  if (r.at("name").as_string() != kGpuResource)
    r.at("name").fail(fmt::format("expected nvidia.com/gpu (sharing MIG devices is not modelled), got '{}'", r.at("name").as_string()));
  if (auto d = r.get("devices"); d && !(d->is_scalar() && d->as_string() == "all"))
    d->fail("expected devices: all (one sharing config applies to every GPU of a node)");
  const int replicas = r.integer<int>("replicas");
  if (mps) {
    const int limit = gpu && gpu->compute_capability >= 7.5 ? 48 : 16;
    if (replicas > limit)
      r.at("replicas")
          .fail(fmt::format("MPS allows at most {} clients on {} (compute capability {}); got {}", limit,
                            gpu ? gpu->name : "this GPU", gpu ? gpu->compute_capability : 0.0, replicas));
  }
  c.replicas = replicas;
  return c;
}

// A pool's price: per GPU-hour or per node-hour in the scenario, else the node template's (its spot
// price for spot pools).
void read_price(const Fields& e, PoolSpec& pool, int gpus_per_node, const NodeTemplate* tmpl) {
  const auto per_gpu = e.get("price_per_gpu_hour_usd");
  const auto per_node = e.get("price_per_node_hour_usd");
  if (per_gpu && per_node) e.fail("give price_per_gpu_hour_usd or price_per_node_hour_usd, not both");
  if (per_gpu) {
    if (gpus_per_node == 0) per_gpu->fail("a pool without GPUs cannot be priced per GPU-hour");
    pool.price_per_node_hour_usd = per_gpu->as_number(e.range("price_per_gpu_hour_usd")) * gpus_per_node;
    pool.price_source = fmt::format("scenario ({} USD per GPU-hour)", per_gpu->as_number());
  } else if (per_node) {
    pool.price_per_node_hour_usd = per_node->as_number(e.range("price_per_node_hour_usd"));
    pool.price_source = "scenario";
  } else if (pool.market == Market::spot && tmpl && tmpl->spot_price_per_node_hour_usd) {
    pool.price_per_node_hour_usd = *tmpl->spot_price_per_node_hour_usd;
    pool.price_source = fmt::format("node template {} (typical spot price): {}", tmpl->name, tmpl->source);
  } else if (pool.market != Market::spot && tmpl && tmpl->price_per_node_hour_usd) {
    pool.price_per_node_hour_usd = *tmpl->price_per_node_hour_usd;
    pool.price_source = fmt::format("node template {}: {}", tmpl->name, tmpl->source);
  }
}

const Section& availability_section() {
  static const Section s{"spot_availability",
                         "A recorded spot availability trace (SkyPilot's \"Can't Be Late\" format)",
                         {
                             {"path", Type::string(), required, "",
                              "The trace file: beside the scenario file, else in the data directory (--data, GPUSIM_DATA)"},
                             {"format", Type::choice({"skypilot"}), "skypilot", "", "The trace's format"},
                             {"scale", Type::integer().at_least(1).at_most(10000), "1", "", "Nodes per available instance"},
                             {"prices", Type::boolean(), "false", "", "Bill the trace's prices"},
                             {"offset", Type::duration(), "0", "",
                              "Where the run's time 0 falls in the trace, rounded up to a whole tick (as Can't Be Late's "
                              "simulator starts it): sweep it to start the same run at many points of one trace"},
                         }};
  return s;
}

const Section& spot_section() {
  static const Section s{
      "spot",
      "A spot pool's reclaim process: one of interruptions_per_node_month, aws_frequency or availability",
      {
          {"interruptions_per_node_month", Type::number().at_least(0), "", "interruptions per node-month", "A Poisson process"},
          {"aws_frequency", Type::string(), "", "",
           "An AWS Spot Instance Advisor bucket, e.g. \"10-15%\" (model.spot.aws_frequency lists them)"},
          {"availability", Type::section(availability_section()), "", "", "A recorded trace"},
          {"provider", Type::string(), "", "", "aws, gcp or azure (model.spot.notice); default: model.spot.provider"},
          {"notice", Type::duration(), "", "", "Warning before a node is taken back; default: the provider's"},
      }};
  return s;
}

// Drops the ticks before `offset` (a partial tick counts whole); at least one tick must remain.
void skip_ticks(AvailabilitySeries& series, const ConfigNode& offset) {
  const Duration by = offset.as_duration();  // 0 or more: the type refuses negative durations
  const int64_t ticks = (by.us() + series.gap.us() - 1) / series.gap.us();
  const auto length = static_cast<int64_t>(series.available.size());
  if (ticks >= length)
    offset.fail(fmt::format("the trace {} has {} ticks of {:g} s ({:g} h): expected an offset before its last tick", series.file,
                            length, series.gap.seconds(), (series.gap * length).hours()));
  series.available.erase(series.available.begin(), series.available.begin() + ticks);
  if (!series.price_per_node_hour_usd.empty())
    series.price_per_node_hour_usd.erase(series.price_per_node_hour_usd.begin(), series.price_per_node_hour_usd.begin() + ticks);
}

// A spot pool's `spot:` block: one reclaim process, and the notice it gives.
SpotConfig read_spot(const ConfigNode& node, const ExecutionModel& model, const std::string& data_dir) {
  const Fields n = spot_section().read(node);
  SpotConfig c;
  const int given = n.has("interruptions_per_node_month") + n.has("aws_frequency") + n.has("availability");
  if (given != 1)
    n.fail("expected exactly one reclaim process: interruptions_per_node_month (Poisson), aws_frequency (an AWS Spot "
           "Instance Advisor bucket such as \"10-15%\") or availability (a recorded trace)");
  if (auto r = n.get("interruptions_per_node_month")) {
    c.process = SpotConfig::Process::poisson;
    c.hazard_per_node_hour = hazard_from_monthly_rate(r->as_number(n.range("interruptions_per_node_month")));
  } else if (auto f = n.get("aws_frequency")) {
    const auto p = model.spot.aws_bucket(f->as_string());
    if (!p) {
      std::string known;
      for (const auto& [b, v] : model.spot.aws_frequency) known += (known.empty() ? "" : ", ") + b;
      f->fail(fmt::format("unknown AWS interruption-frequency bucket '{}'; known: {}", f->as_string(), known));
    }
    c.process = SpotConfig::Process::poisson;
    c.hazard_per_node_hour = hazard_from_monthly_probability(*p);
  } else {
    const Fields a = availability_section().read(n.at("availability"));
    if (const ConfigNode format = a.value("format"); format.as_string() != "skypilot")
      format.fail(fmt::format("expected format skypilot, got '{}'", format.as_string()));
    c.process = SpotConfig::Process::trace;
    AvailabilitySeries series = read_skypilot_series(data_path(a.at("path"), data_dir));
    if (auto o = a.get("offset")) skip_ticks(series, *o);
    c.availability = std::make_shared<const AvailabilitySeries>(std::move(series));
    c.scale = a.integer<int32_t>("scale");
    const ConfigNode prices = a.value("prices");
    c.trace_prices = prices.as_bool();
    if (c.trace_prices && c.availability->price_per_node_hour_usd.empty())
      prices.fail(fmt::format("the trace {} has no prices", c.availability->file));
  }
  c.provider = model.spot.provider;
  if (auto p = n.get("provider")) {
    c.provider = p->as_string();
    if (!model.spot.notice_of(c.provider)) {
      std::string known;
      for (const auto& [name, t] : model.spot.notice) known += (known.empty() ? "" : ", ") + name;
      p->fail(fmt::format("unknown provider '{}'; known: {} (or give notice:)", c.provider, known));
    }
  }
  c.notice = model.spot.notice_of(c.provider).value_or(Duration());
  if (auto t = n.get("notice")) {
    c.notice = t->as_duration();
  }
  return c;
}

const Section& autoscale_section() {
  static const Section s{
      "autoscale",
      "The cluster autoscaler on a pool: nodes come and go with the pending pods",
      {
          {"min", Type::integer().at_least(0).at_most(1'000'000), "0", "", "The fewest nodes"},
          {"max", Type::integer().at_least(1).at_most(1'000'000), required, "", "The most nodes"},
          {"scale_up_delay", Type::duration(), "", "",
           "A pod unschedulable this long asks for a node; default: model.autoscaler's"},
          {"scale_down_after", Type::duration(), "", "", "An empty node is removed after this long; default: model.autoscaler's"},
      }};
  return s;
}

AutoscaleConfig read_autoscale(const ConfigNode& node, const ExecutionModel& model) {
  const Fields n = autoscale_section().read(node);
  AutoscaleConfig a;
  a.enabled = true;
  a.min_nodes = n.integer<uint32_t>("min");
  a.max_nodes = n.at("max").as_int<uint32_t>(n.range("max"));
  if (a.min_nodes > a.max_nodes) n.fail(fmt::format("expected min <= max, got min {} and max {}", a.min_nodes, a.max_nodes));
  a.scale_up_delay = model.autoscaler.scale_up_delay;
  a.scale_down_after = model.autoscaler.scale_down_after;
  for (auto [key, field] : {std::pair{"scale_up_delay", &a.scale_up_delay}, {"scale_down_after", &a.scale_down_after}})
    if (auto v = n.get(key)) {
      *field = v->as_duration();
    }
  return a;
}

const Section& pool_mig_section() {
  static const Section s{
      "pool_mig",
      "MIG on a pool's GPUs: a mig-parted config and the device plugin's strategy",
      {
          {"strategy", Type::enumeration<MigStrategy>(), "", "", "The device plugin's MIG strategy (not with partitionable)"},
          {"config", Type::string(), "", "",
           "A config of `file` or `mig-configs`, or a name mig-parted generates: all-disabled, all-enabled, all-balanced, "
           "all-<profile> (not with partitionable)"},
          {"partitionable", Type::boolean(), "false", "",
           "No fixed layout: NVIDIA's DRA driver publishes every MIG placement (KEP 4815, DynamicMIG) and creates a "
           "device when a claim is allocated it; DRA claims only"},
          {"file", Type::string(), "", "", "A mig-parted file, relative to the scenario"},
          [] {
            Field f = mig_parted_section().field("mig-configs");
            f.absent = "";
            return f;
          }(),
      }};
  return s;
}

// A pool's `mig:` block: a mig-parted config (inline `mig-configs`, a `file` beside the scenario, or
// one of mig-parted's generated names) and the device plugin's strategy.
SharingConfig read_mig(const ConfigNode& node, const GpuModel* gpu, int gpus, const std::string& scenario_file) {
  const Fields m = pool_mig_section().read(node);
  if (!gpu || !gpu->mig) m.fail(fmt::format("GPU model {} does not support MIG", gpu ? gpu->name : "(none)"));
  SharingConfig c;
  c.mode = Sharing::mig;
  if (m.value("partitionable").as_bool()) {
    for (const char* key : {"strategy", "config", "file", "mig-configs"})
      if (m.has(key))
        m.at(key).fail("a partitionable GPU has no fixed layout and no device plugin: leave out strategy, config, file "
                       "and mig-configs");
    c.mig_partitionable = true;
    c.mig_config = "partitionable";
    c.mig_layouts.assign(static_cast<std::size_t>(gpus), mig_placements(*gpu->mig));
    return c;
  }
  c.mig_strategy = m.value("strategy").as_enum<MigStrategy>(" or ");
  c.mig_config = m.value("config").as_string();
  if (m.has("file") && m.has("mig-configs")) m.fail("give file or mig-configs, not both");
  std::optional<ConfigNode> doc;
  if (auto f = m.get("file")) {
    fs::path p(f->as_string());
    if (p.is_relative()) p = fs::path(scenario_file).parent_path() / p;
    if (std::error_code ec; !fs::is_regular_file(p, ec)) f->fail(fmt::format("mig-parted file '{}' not found", p.string()));
    doc = mig_parted_configs(ConfigNode::load_file(p.string()));
  } else if (auto inline_doc = m.get("mig-configs")) {
    doc = *inline_doc;
  }
  if (doc && doc->has(c.mig_config)) {
    c.mig_layouts = mig_node_config(doc->at(c.mig_config), c.mig_config, *gpu, gpus).per_gpu;
  } else if (auto counts = builtin_mig_config(*gpu, c.mig_config)) {
    const bool enabled = c.mig_config != "all-disabled";
    c.mig_layouts.assign(static_cast<std::size_t>(gpus), enabled ? mig_place(*gpu->mig, *counts) : std::nullopt);
  } else {
    m.at("config").fail(fmt::format("no MIG config '{}'{}; mig-parted's generated names are all-disabled, all-enabled, "
                                    "all-balanced and all-<profile>",
                                    c.mig_config, doc ? " in the given mig-configs" : ""));
  }
  if (c.mig_strategy == MigStrategy::single) {
    std::optional<int> profile;
    for (const auto& layout : c.mig_layouts) {
      if (!layout) m.at("strategy").fail("the single strategy needs MIG enabled on every GPU of the node");
      for (const MigInstance& in : *layout) {
        if (profile && *profile != in.profile)
          m.at("strategy").fail(fmt::format("the single strategy needs one profile on every GPU; config '{}' mixes {} and {} "
                                            "(use strategy: mixed)",
                                            c.mig_config, gpu->mig->profiles[*profile].name, gpu->mig->profiles[in.profile].name));
        profile = in.profile;
      }
    }
  }
  return c;
}

const Section& kubelet_section() {
  static const Section s{
      "kubelet",
      "The kubelet settings of a pool's nodes (KubeletConfiguration)",
      {
          {"topologyManagerPolicy", Type::enumeration<TopologyPolicy>(), "none", "", "The Topology Manager's policy"},
          {"topologyManagerScope", Type::choice({"pod", "container"}), "", "", "Accepted; a pod's GPUs are aligned together"},
      }};
  return s;
}

// The kubelet settings a pool's nodes run with (KubeletConfiguration field names).
TopologyPolicy read_kubelet(const ConfigNode& node) {
  const Fields k = kubelet_section().read(node);
  const auto p = k.value("topologyManagerPolicy").as_enum<TopologyPolicy>();
  if (auto v = k.get("topologyManagerScope"); v && v->as_string() != "pod" && v->as_string() != "container")
    v->fail(fmt::format("expected pod or container, got '{}'", v->as_string()));
  return p;
}

// The pool's network: its own `network:`, else the node template's NICs, else the model's default.
void read_network(const std::optional<ConfigNode>& n, const NodeTemplate* t, const ExecutionModel& model, PoolSpec& pool) {
  if (n) pool.network = NetworkSpec::parse(*n);
  else if (t && t->network) pool.network = *t->network;
  else pool.network = model.communication.default_network;
}

// A pool's `sharing:`: a name, or the device plugin's block.
Type sharing_type() {
  return Type::one_of(
      {Type::enumeration({Sharing::exclusive, Sharing::fractional}), Type::section(device_plugin_sharing_section())});
}

const Section& pool_section() {
  static const Section s{
      "pool",
      "A pool of identical nodes",
      {
          {"name", Type::string(), required, "", "The pool's name, unique in the cluster"},
          {"node", Type::string(), required, "", "Its node template (built in, or from catalog.nodes)"},
          {"count", Type::integer().at_least(0).at_most(1'000'000), "", "",
           "Nodes at the start: at least 1; with autoscale between its min and max, default its min"},
          {"node_names", Type::string_list(), "", "",
           "Its nodes' names, one per node (count: their number), instead of <pool>-<i>; not with autoscale or spot"},
          {"sharing", sharing_type(), "exclusive", "",
           "How pods share a GPU: exclusive, fractional (milli-GPU shares), or the device plugin's timeSlicing or mps block"},
          {"runtime", Type::enumeration({Sharing::mps, Sharing::time_slicing}), "mps", "",
           "What enforces fractional shares (sharing: fractional only)"},
          {"mig", Type::section(pool_mig_section()), "", "", "MIG on its GPUs (no other sharing then)"},
          {"market", Type::enumeration<Market>(), "on-demand", "", "How its nodes are bought"},
          {"labels", Type::map(Type::string()), "", "",
           "Its nodes' labels (beside the ones every node has: docs/guide/tenants.md)"},
          taints_field(),
          {"price_per_gpu_hour_usd", Type::number().at_least(0), "", "USD per GPU-hour",
           "Its price; default: the node template's"},
          {"price_per_node_hour_usd", Type::number().at_least(0), "", "USD per node-hour",
           "Its price, instead of price_per_gpu_hour_usd; default: the node template's (its spot price for spot pools)"},
          {"network", Type::section(network_section()), "", "",
           "Its nodes' NICs; default: the node template's, else model.communication.default_network"},
          {"kubelet", Type::section(kubelet_section()), "", "", "Its nodes' kubelet settings"},
          {"spot", Type::section(spot_section()), "", "", "How it loses nodes; required with market: spot"},
          {"autoscale", Type::section(autoscale_section()), "", "", "Nodes come and go with demand; absent: a fixed count"},
          {"provisioning_delay", Type::duration(), "", "",
           "From a node's request to its being ready (scale-ups, replaced spot nodes); default: model.autoscaler's"},
      }};
  return s;
}

void read_pool(const ConfigNode& node, const Catalog& catalog, Scenario& s) {
  const Fields e = pool_section().read(node);
  PoolSpec pool;
  pool.name = e.at("name").as_string();
  const auto tname = e.at("node").as_string();
  const NodeTemplate* t = catalog.find_node(tname);
  if (!t) {
    std::string known;
    for (const auto& n : catalog.nodes()) known += (known.empty() ? "" : ", ") + n.name;
    e.at("node").fail(fmt::format("unknown node template '{}'; known: {}", tname, known));
  }
  pool.node_template = t->name;
  pool.gpu = catalog.find_gpu(t->gpu);
  pool.market = e.value("market").as_enum<Market>();
  if (auto l = e.get("labels")) {
    for (const auto& [key, value] : l->entries()) pool.labels.emplace_back(key, value.as_string());
    std::sort(pool.labels.begin(), pool.labels.end());
  }
  if (auto a = e.get("autoscale")) {
    if (pool.market == Market::reserved) a->fail("a reserved pool is a fixed commitment and cannot autoscale");
    pool.autoscale = read_autoscale(*a, s.model);
  }
  int64_t count = pool.autoscale.min_nodes;
  if (auto c = e.get("count")) {
    // Without an autoscaler a pool has at least one node.
    const Range declared = e.range("count");
    count = c->as_int(pool.autoscale.enabled ? declared : Range{Bound(1), declared.maximum});
    if (pool.autoscale.enabled && (count < pool.autoscale.min_nodes || count > pool.autoscale.max_nodes))
      c->fail(fmt::format("expected a starting count between autoscale.min {} and autoscale.max {}", pool.autoscale.min_nodes,
                          pool.autoscale.max_nodes));
  } else if (!pool.autoscale.enabled && !e.has("node_names")) {
    e.at("count");  // required: fails naming the field
  }
  const std::vector<std::string> names = e.string_list("node_names");
  if (auto n = e.get("node_names")) {
    // Named nodes are fixed ones (a cluster snapshot's): no slot appears or is replaced later.
    if (pool.autoscale.enabled || pool.market == Market::spot)
      n->fail("named nodes are fixed: not with autoscale or market: spot");
    if (names.empty()) n->fail("expected at least one node name");
    if (e.has("count") && count != static_cast<int64_t>(names.size()))
      n->fail(fmt::format("{} names for count {}; give one name per node", names.size(), count));
    count = static_cast<int64_t>(names.size());
  }
  if (auto sp = e.get("spot")) {
    if (pool.market != Market::spot) sp->fail("spot: applies to pools with market: spot");
    pool.spot = read_spot(*sp, s.model, s.data_dir);
  } else if (pool.market == Market::spot) {
    e.fail("a spot pool needs a spot: block with its reclaim process (interruptions_per_node_month, aws_frequency or "
           "availability)");
  }
  pool.provisioning_delay = s.model.autoscaler.provisioning_delay;
  if (auto d = e.get("provisioning_delay")) {
    pool.provisioning_delay = d->as_duration();
  }
  if (auto m = e.get("mig")) {
    if (auto sh = e.get("sharing"); sh && !(sh->is_scalar() && parse_enum<Sharing>(sh->as_string()) == Sharing::exclusive))
      sh->fail(sh->is_map() && Fields(device_plugin_sharing_section(), *sh).has("mps")
                   ? "MPS is not supported on MIG-enabled GPUs (docs/hardware.md#mps); drop mig: or sharing:"
                   : "a MIG pool takes no other sharing (sharing of MIG devices is not modelled)");
    pool.sharing = read_mig(*m, pool.gpu, t->gpus, s.file);
  } else if (auto sh = e.get("sharing")) {
    pool.sharing = sh->is_map() ? read_device_plugin_sharing(*sh, pool.gpu) : read_sharing_name(*sh);
  }
  if (e.has("runtime") && pool.sharing.mode != Sharing::fractional)
    e.at("runtime").fail("runtime applies to sharing: fractional only");
  if (pool.sharing.mode == Sharing::fractional) {
    const ConfigNode r = e.value("runtime");
    const auto v = r.as_string();
    const auto runtime = parse_enum<Sharing>(v);
    if (runtime != Sharing::mps && runtime != Sharing::time_slicing)
      r.fail(fmt::format("expected {}, got '{}'", enum_choices({Sharing::mps, Sharing::time_slicing}, " or "), v));
    pool.sharing.runtime = *runtime;
  }
  read_price(e, pool, t->gpus, t);
  if (pool.spot.trace_prices) {
    pool.price_per_node_hour_usd = pool.spot.availability->price_per_node_hour_usd.front();
    pool.price_source = fmt::format("the spot trace's prices ({})", pool.spot.availability->file);
  }
  read_network(e.get("network"), t, s.model, pool);
  if (auto k = e.get("kubelet")) pool.topology_manager = read_kubelet(*k);
  add_node_labels(pool, *t);
  if (auto taints = e.get("taints")) pool.taints = read_taints(*taints);
  const auto topology = t->gpus > 0 ? std::make_shared<const NodeTopology>(t->topology) : nullptr;
  pool.initial_nodes = static_cast<uint32_t>(count);
  pool.node_count = static_cast<uint32_t>(std::max<int64_t>(count, pool.autoscale.max_nodes));
  if (names.empty())
    pool.nodes.push_back({PoolSpec::template_node_name(pool.name, 0), t->cpu_milli, t->memory_mib, t->gpus, topology});
  for (const std::string& name : names) pool.nodes.push_back({name, t->cpu_milli, t->memory_mib, t->gpus, topology});
  s.pools.push_back(std::move(pool));
}

const Section& node_list_section() {
  static const Section s{
      "node_list",
      "Pools from a trace's node list: one per GPU model (and one for CPU-only nodes)",
      {
          {"format", Type::choice({"openb"}), required, "", "The list's format (Alibaba GPU v2023 openb_node_list)"},
          {"path", Type::string(), required, "",
           "The file: beside the scenario file, else in the data directory (--data, GPUSIM_DATA)"},
          {"sharing", Type::enumeration({Sharing::exclusive, Sharing::fractional}), "exclusive", "", "How pods share a GPU"},
          {"market", Type::enumeration({Market::on_demand, Market::reserved}), "on-demand", "", "How its nodes are bought"},
          {"name", Type::string(), "openb", "", "Prefix of its pools' names: NAME-<GPU model>, NAME-cpu"},
      }};
  return s;
}

// Pools from a trace's node list: one pool per GPU model (and one for CPU-only nodes).
void read_node_list(const ConfigNode& node, const Catalog& catalog, Scenario& s) {
  const Fields e = node_list_section().read(node);
  const auto format = e.at("format").as_string();
  if (format != "openb") e.at("format").fail(fmt::format("expected format openb, got '{}'", format));
  const std::string path = data_path(e.at("path"), s.data_dir);
  const std::string prefix = e.value("name").as_string();
  const SharingConfig sharing = read_sharing_name(e.value("sharing"));
  const Market market = e.value("market").as_enum<Market>();
  if (market == Market::spot) e.at("market").fail("a node list has no reclaim process; give spot pools under cluster.pools");
  const auto nodes = read_openb_nodes(path);
  std::vector<std::string> order;  // pool models in first-seen order
  for (const auto& n : nodes)
    if (std::find(order.begin(), order.end(), n.model) == order.end()) order.push_back(n.model);
  for (const auto& model : order) {
    PoolSpec pool;
    pool.name = fmt::format("{}-{}", prefix, model.empty() ? "cpu" : model);
    pool.node_template = "openb node list";
    pool.sharing = sharing;
    pool.market = market;
    if (!model.empty()) {
      pool.gpu = catalog.find_gpu(model);
      if (!pool.gpu)
        throw InputError({path, std::nullopt, "model"},
                         fmt::format("GPU model '{}' is not in the catalog; define it under catalog.gpus "
                                     "(with an alias '{}') in the scenario",
                                     model, model));
    }
    read_network(std::nullopt, nullptr, s.model, pool);
    // The list says nothing of links: each GPU count gets one host bridge (PHB).
    std::vector<std::shared_ptr<const NodeTopology>> by_count;
    for (const auto& n : nodes) {
      if (n.model != model) continue;
      std::shared_ptr<const NodeTopology> topology;
      if (pool.gpu && n.gpus > 0) {
        if (n.gpus > NodeTopology::kMaxGpus)
          throw InputError({path, std::nullopt, "gpus"}, fmt::format("node {} has {} GPUs; at most {} are supported", n.name,
                                                                     n.gpus, NodeTopology::kMaxGpus));
        if (by_count.size() <= static_cast<std::size_t>(n.gpus)) by_count.resize(static_cast<std::size_t>(n.gpus) + 1);
        auto& slot = by_count[static_cast<std::size_t>(n.gpus)];
        if (!slot) slot = std::make_shared<const NodeTopology>(NodeTopology::single_host_bridge(*pool.gpu, n.gpus));
        topology = slot;
      }
      pool.nodes.push_back({n.name, n.cpu_milli, n.memory_mib, n.gpus, topology});
    }
    pool.initial_nodes = pool.node_count = static_cast<uint32_t>(pool.nodes.size());
    s.pools.push_back(std::move(pool));
  }
}

const Section& trace_section() {
  static const Section s{
      "trace", "Jobs from a public trace",
      join_fields(
          {{
               {"format", Type::choice({"openb", "philly", "csv"}), required, "",
                "openb (Alibaba GPU v2023 pods), philly (Microsoft Philly jobs) or csv (arrival_s, duration_s, gpus, ...)"},
               {"path", Type::string(), required, "",
                "The file: beside the scenario file, else in the data directory (--data, GPUSIM_DATA)"},
               {"kind", Type::enumeration<JobKind>(), "", "", "The kind of every job; default: the format's"},
               {"u", Type::number().at_least(0).at_most(1), "", "", "The compute demand of every job; default: its kind's"},
               {"multi_node", Type::boolean(), "", "", "May multi-GPU jobs span nodes; default: the format's"},
               {"limit", Type::integer().at_least(1), "", "", "Keep the first N jobs (in arrival order)"},
               {"virtual_clusters", Type::string_list(), "", "",
                "philly: keep only these virtual clusters' rows, arrival counted from the earliest kept"},
           },
           job_speed_fields()})};
  return s;
}

TraceOptions read_trace_options(const Fields& e) {
  TraceOptions o;
  if (auto k = e.get("kind")) o.kind = k->as_enum<JobKind>();
  if (auto u = e.get("u")) o.u = u->as_number(e.range("u"));
  if (auto m = e.get("multi_node")) o.multi_node = m->as_bool();
  if (auto l = e.get("limit")) o.limit = l->as_int(e.range("limit"));
  o.virtual_clusters = e.string_list("virtual_clusters");
  return o;
}

// A job's (or the workload's) speed settings name GPU models and a throughput class of the catalog;
// `where` is the entry that gives them.
void check_speed(const Catalog& catalog, const JobSpeed& speed, SourceLocation where) {
  const auto fail = [&](std::string_view field, const std::string& what) {
    where.field += fmt::format(".{}", field);
    throw InputError(where, what);
  };
  const auto known_gpus = [&] {
    std::vector<std::string> known;
    for (const GpuModel& g : catalog.gpus()) known.push_back(g.name);
    return fmt::format("{}", fmt::join(known, ", "));
  };
  if (!speed.reference_gpu.empty() && speed.reference_gpu != JobSpeed::kAny && !catalog.find_gpu(speed.reference_gpu))
    fail("reference_gpu", fmt::format("unknown GPU model '{}'; expected any or one of: {}", speed.reference_gpu, known_gpus()));
  if (!speed.throughput_class.empty() && !catalog.find_throughput_class(speed.throughput_class)) {
    std::vector<std::string> known;
    for (const ThroughputClass& c : catalog.throughput_classes()) known.push_back(c.name);
    fail("throughput_class", fmt::format("unknown throughput class '{}'; known: {} (a scenario adds its own under "
                                         "catalog.throughput)",
                                         speed.throughput_class, fmt::join(known, ", ")));
  }
  for (const auto& [gpu, ratio] : speed.speedup)
    if (!catalog.find_gpu(gpu)) fail("speedup", fmt::format("unknown GPU model '{}'; known: {}", gpu, known_gpus()));
}

// The jobs of a trace, every one with the trace's speed settings. The openb and philly traces give
// the lifetimes their jobs had on their own clusters, whose GPU per job they do not record: replayed as
// published, a job takes as long on every model (reference_gpu any) unless the entry says otherwise.
JobSet with_trace_speed(JobSet set, const Fields& e, bool recorded_on_own_cluster) {
  std::optional<JobSpeed> speed = read_job_speed(e);
  if (recorded_on_own_cluster && (!speed || speed->reference_gpu.empty())) {
    if (!speed) speed.emplace();
    if (!speed->speedup.empty())
      e.at("speedup").fail("this trace's durations hold on every GPU model unless the entry names its reference_gpu: expected "
                           "a reference_gpu with speedup");
    speed->reference_gpu = JobSpeed::kAny;
  }
  if (speed) {
    const uint32_t index = JobSet::add(set.speeds, std::move(*speed));
    for (Job& j : set.jobs) j.speed = index;
  }
  return set;
}

JobSet read_trace(const ConfigNode& node, const std::string& data_dir, bool untimed) {
  const Fields e = trace_section().read(node);
  const auto format = e.at("format").as_string();
  TraceOptions o = read_trace_options(e);
  o.untimed = untimed;
  if (format == "openb") return with_trace_speed(read_openb_pods(data_path(e.at("path"), data_dir), o), e, true);
  if (!o.virtual_clusters.empty() && format != "philly")
    e.at("virtual_clusters").fail("only the philly format has virtual clusters");
  if (format == "philly") {
    JobSet set = read_philly_jobs(data_path(e.at("path"), data_dir), o);
    for (const auto& vc : o.virtual_clusters)
      if (std::find(set.tenants.begin(), set.tenants.end(), vc) == set.tenants.end())
        e.at("virtual_clusters").fail(fmt::format("no row of virtual cluster '{}' in the trace", vc));
    return with_trace_speed(std::move(set), e, true);
  }
  if (format == "csv") return with_trace_speed(read_generic_csv(data_path(e.at("path"), data_dir), o), e, false);
  e.at("format").fail(fmt::format("expected a trace format openb, philly or csv, got '{}'", format));
}

const Section& packing_section() {
  static const Section s{"packing",
                         "The FGD paper's capacity-packing experiment: pods drawn from the workload arrive and never leave",
                         {
                             {"until", Type::number().above(0).at_most(100), "1.3", "",
                              "Stop when the GPUs asked for reach this multiple of the cluster's GPU capacity (the paper's "
                              "workloadTuningConfig.ratio)"},
                             {"coverage", Type::number().above(0).at_most(1), "0.95", "",
                              "Share of the pods whose task types fragmentation is measured against (typical_task_types)"},
                             {"tuning", Type::choice({"artifact", "passes"}), "artifact", "",
                              "artifact: the pods shuffled, then pods drawn with replacement appended (the FGD "
                              "artifact's -tune); passes: shuffled passes over the pods"},
                             {"order", Type::string(), "", "",
                              "A CSV of pod names (header pod), one per arrival: pods arrive in exactly this order "
                              "instead of the tuning's (a replayed run); relative to the scenario"},
                             {"node_ranks", Type::string(), "", "",
                              "A CSV (header node,rank) giving every node a tie rank: ties: order goes to the tied node "
                              "of lowest rank instead of a seeded order; relative to the scenario"},
                         }};
  return s;
}

const Section& cluster_section() {
  static const Section s{
      "cluster",
      "The fleet: pools of nodes",
      {
          {"pools", Type::list(Type::section(pool_section())), "", "", "Pools of identical nodes"},
          {"node_lists", Type::list(Type::section(node_list_section())), "", "", "Pools from traces' node lists"},
      }};
  return s;
}

const Section& workload_section() {
  static const Section s{
      "workload",
      "The jobs: at least one of jobs, traces, generator, services",
      {
          {"jobs", Type::list(Type::section(job_section())), "", "", "Inline jobs"},
          {"traces", Type::list(Type::section(trace_section())), "", "", "Jobs from public traces"},
          {"generator", Type::section(generator_section()), "", "", "Synthetic jobs"},
          {"packing", Type::section(packing_section()), "", "", "Run the capacity-packing experiment on these jobs instead"},
          {"services", Type::list(Type::section(service_section())), "", "",
           "Inference services: replicas placed as pods, serving requests (docs/guide/services.md)"},
          {"reference_gpu", Type::string(), "", "",
           "The GPU model the durations of jobs that name none are stated on, or any (as long on every model); absent: "
           "model.speed.reference_gpu, A100-80GB-SXM (docs/hardware.md#job-speed)"},
      }};
  return s;
}

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

// timeseries_step, and `NAME: true` for each output written on request (the output table).
const Section& outputs_section() {
  static const Section s = [] {
    std::vector<Field> fields{
        {"timeseries_step", Type::duration(), "1h", "", "Time between rows of timeseries.csv (and samples of metrics.om)"},
        {"metrics_start", Type::string(), kDefaultMetricsStart.data(), "",
         "The date simulated time 0 is in metrics.om: YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ (UTC)"}};
    for (const OutputSpec& o : output_table())
      if (!o.by_default)
        fields.push_back(
            {o.name, Type::boolean(), "false", "", fmt::format("Also write {} with --out: {}", o.file, o.description)});
    return Section("outputs", "What a run directory holds besides the default files", std::move(fields));
  }();
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

// A packing CSV (workload.packing.order, node_ranks), its path relative to the scenario, read as
// the trace readers read theirs (workloads/csv.hpp): the rows after the header, each with its line.
struct PackingCsv {
  std::string file;
  struct Row {
    int line;
    std::vector<std::string> cells;
  };
  std::vector<Row> rows;
  [[noreturn]] void fail(int line, const std::string& what) const { throw InputError({file, line, ""}, what); }
};

PackingCsv read_packing_csv(const ConfigNode& field, const std::string& scenario_file,
                            const std::vector<std::string_view>& header) {
  fs::path p(field.as_string());
  if (p.is_relative()) p = fs::path(scenario_file).parent_path() / p;
  if (std::error_code ec; !fs::is_regular_file(p, ec)) field.fail(fmt::format("file '{}' not found", p.string()));
  csv::Reader r(p.string());
  PackingCsv out{p.string(), {}};
  std::vector<std::string_view> f;
  if (!r.next(f) || f != header) r.fail(fmt::format("expected the header '{}'", fmt::join(header, ",")));
  while (r.next(f)) {
    if (f.size() != header.size())
      r.fail(fmt::format("expected {} column{} ({}), got {}", header.size(), header.size() == 1 ? "" : "s",
                         fmt::join(header, ","), f.size()));
    out.rows.push_back({r.line(), std::vector<std::string>(f.begin(), f.end())});
  }
  return out;
}

// workload.packing.node_ranks: a rank for each of the cluster's nodes, by node id (slots never
// built rank after them).
std::vector<uint32_t> read_node_ranks(const ConfigNode& field, const Scenario& s) {
  const PackingCsv csv = read_packing_csv(field, s.file, {"node", "rank"});
  std::unordered_map<std::string, NodeId> ids;
  uint32_t slots = 0;
  for (const PoolSpec& p : s.pools) {
    for (uint32_t i = 0; i < p.initial_nodes; ++i) ids.emplace(p.node(i).name, static_cast<NodeId>(slots + i));
    slots += p.node_count;
  }
  std::vector<uint32_t> ranks(slots, std::numeric_limits<uint32_t>::max());
  std::vector<int> given_at(slots, 0);
  std::unordered_map<uint32_t, int> rank_at;
  for (const PackingCsv::Row& row : csv.rows) {
    const std::string& name = row.cells[0];
    const auto it = ids.find(name);
    if (it == ids.end()) csv.fail(row.line, fmt::format("unknown node '{}': not one of the cluster's nodes", name));
    if (given_at[it->second] != 0)
      csv.fail(row.line, fmt::format("node '{}' is ranked twice (first on line {})", name, given_at[it->second]));
    uint32_t rank = 0;
    const std::string& r = row.cells[1];
    if (const auto [end, ec] = std::from_chars(r.data(), r.data() + r.size(), rank);
        ec != std::errc() || end != r.data() + r.size() || rank == std::numeric_limits<uint32_t>::max())
      csv.fail(row.line, fmt::format("expected a rank 0-4294967294 for node '{}', got '{}'", name, r));
    if (const auto [at, fresh] = rank_at.emplace(rank, row.line); !fresh)
      csv.fail(row.line, fmt::format("rank {} is given twice (first on line {}): ties would stay ties", rank, at->second));
    ranks[it->second] = rank;
    given_at[it->second] = row.line;
  }
  slots = 0;
  for (const PoolSpec& p : s.pools) {  // in id order: the first node missing is named
    for (uint32_t i = 0; i < p.initial_nodes; ++i)
      if (given_at[slots + i] == 0)
        throw InputError({csv.file, std::nullopt, ""}, fmt::format("node '{}' has no rank", p.node(i).name));
    slots += p.node_count;
  }
  return ranks;
}

// workload.packing.order: indices into `pods` (by name; a name may repeat), in arrival order.
std::vector<std::size_t> read_pod_order(const ConfigNode& field, const std::string& scenario_file, const std::vector<Job>& pods) {
  const PackingCsv csv = read_packing_csv(field, scenario_file, {"pod"});
  std::unordered_map<std::string_view, std::size_t> index;
  for (std::size_t k = 0; k < pods.size(); ++k) index.emplace(pods[k].name, k);  // a repeated trace name: its first pod
  std::vector<std::size_t> order;
  for (const PackingCsv::Row& row : csv.rows) {
    const auto it = index.find(row.cells[0]);
    if (it == index.end()) csv.fail(row.line, fmt::format("unknown pod '{}': not one of the workload's pods", row.cells[0]));
    order.push_back(it->second);
  }
  return order;
}

// Replaces the jobs by the packing experiment's arrivals (see PackingSpec).
void pack_workload(Scenario& s, const Fields& workload) {
  PackingSpec& spec = *s.packing;
  for (const auto& p : s.pools)
    for (uint32_t i = 0; i < p.initial_nodes; ++i)
      spec.capacity_milli += static_cast<uint64_t>(p.shape(i).gpus) * static_cast<uint64_t>(kWholeGpu.value);
  if (spec.capacity_milli == 0) workload.at("packing").fail("the cluster has no GPUs to pack");
  if (std::none_of(s.jobs.jobs.begin(), s.jobs.jobs.end(), [](const Job& j) { return j.request.gpus > 0; }))
    workload.at("packing").fail("the workload asks for no GPU: nothing to pack");
  const auto target = static_cast<double>(spec.capacity_milli) * spec.until;
  // Work long enough never to end within the run (ten years), so pods only arrive.
  const Duration forever = Duration::from_seconds(int64_t{10} * 365 * 86400);
  Rng rng = make_stream(s.seed, "workload/packing");
  // The copies keep indexing the set's tables.
  const std::vector<Job> pods = std::exchange(s.jobs.jobs, {});
  const auto draw = [&](std::size_t n) { return static_cast<std::size_t>(uniform01(rng) * static_cast<double>(n)); };
  const auto asked = [](const Job& j) { return static_cast<double>(j.request.gpus) * j.request.milli_per_gpu.value; };
  std::vector<std::size_t> order(pods.size());
  const auto shuffle = [&] {
    std::iota(order.begin(), order.end(), 0);
    for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[draw(i)]);  // Fisher-Yates
  };
  std::vector<std::size_t> picked;  // indices into pods, in arrival order
  double demand = 0;
  const Fields fields = packing_section().read(workload.at("packing"));
  if (auto file = fields.get("order")) {
    picked = read_pod_order(*file, s.file, pods);
    // The original pods are those before the first repeat (a replayed artifact run lists its
    // shuffled originals once, then the pods drawn again).
    std::unordered_set<std::size_t> seen;
    while (spec.originals < picked.size() && seen.insert(picked[spec.originals]).second) ++spec.originals;
  } else if (spec.tuning == PackingSpec::Tuning::artifact) {
    shuffle();
    picked = order;
    for (std::size_t k : picked) demand += asked(pods[k]);
    while (demand > target && !picked.empty()) {  // tuneDownPods: a random pod out
      const auto it = picked.begin() + static_cast<std::ptrdiff_t>(draw(picked.size()));
      demand -= asked(pods[*it]);
      picked.erase(it);
    }
    spec.originals = picked.size();
    // tuneUpPods: the stop test compares the demand plus the drawn pod's per-GPU share (not its
    // whole request) with the target, and that pod is not added.
    for (;;) {
      const std::size_t k = draw(pods.size());
      const Request& q = pods[k].request;
      if (demand + (q.gpus == 0 ? 0 : q.milli_per_gpu.value) > target) break;
      demand += asked(pods[k]);
      picked.push_back(k);
    }
  } else {
    while (demand < target) {
      shuffle();
      for (std::size_t k = 0; k < order.size() && demand < target; ++k) {
        picked.push_back(order[k]);
        demand += asked(pods[order[k]]);
      }
    }
    spec.originals = picked.size();
  }
  for (std::size_t k : picked) {
    Job j = pods[k];
    j.arrival = Time::from_us(static_cast<int64_t>(s.jobs.jobs.size()));
    j.work = forever;
    j.strict = false;
    s.jobs.jobs.push_back(std::move(j));
  }
  s.jobs.finalize();
  s.horizon = Time::from_us(static_cast<int64_t>(s.jobs.jobs.size()));
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

  if (auto v = root.get("variants")) {
    for (const auto& item : v->items()) {
      const Fields e = variant_section().read(item);
      Scenario::Variant variant{e.at("name").as_string(), e.string_list("set"), e.get("set").value_or(item).where()};
      for (const auto& other : s.variants)
        if (other.name == variant.name) e.at("name").fail(fmt::format("two variants are named '{}'", variant.name));
      s.variants.push_back(std::move(variant));
    }
  }
  s.model = ExecutionModel::builtin();
  if (auto m = root.get("model")) s.model.apply(*m);
  // model.speed names catalog entries, which the scenario may add.
  {
    const std::optional<ConfigNode> speed = root.get("model") ? root.at("model").get("speed") : std::nullopt;
    const SourceLocation where{speed ? speed->where().file : path, speed ? speed->where().line : std::nullopt, "model.speed"};
    check_speed(*catalog, JobSpeed{s.model.speed.reference_gpu, {}, {}}, where);
    if (s.model.speed.reference_gpu == JobSpeed::kAny)
      throw InputError(where, "expected a GPU model as the default reference_gpu, not any");
    for (const std::string& c : s.model.speed.classes) check_speed(*catalog, JobSpeed{{}, c, {}}, where);
  }

  const Fields cluster = cluster_section().read(root.at("cluster"));
  if (auto pools = cluster.get("pools"))
    for (const auto& e : pools->items()) read_pool(e, *catalog, s);
  if (auto lists = cluster.get("node_lists"))
    for (const auto& e : lists->items()) read_node_list(e, *catalog, s);
  uint64_t node_total = 0;
  for (std::size_t i = 0; i < s.pools.size(); ++i) {
    node_total += s.pools[i].node_count;
    for (std::size_t k = 0; k < i; ++k)
      if (s.pools[k].name == s.pools[i].name) cluster.fail(fmt::format("two pools are named '{}'", s.pools[i].name));
  }
  // A job's `node:` names one of them: listed names are unique in the cluster.
  std::unordered_set<std::string_view> listed;
  for (const PoolSpec& p : s.pools)
    if (p.one_per_slot())
      for (const PoolSpec::NodeSpec& n : p.nodes)
        if (!listed.insert(n.name).second) cluster.fail(fmt::format("two nodes are named '{}'", n.name));
  if (node_total == 0) cluster.fail("the cluster is empty: give at least one pool with count >= 1, or a node list");
  if (s.pools.size() > 64) cluster.fail("at most 64 pools are supported");

  const Fields workload = workload_section().read(root.at("workload"));
  if (auto packing = workload.get("packing")) {
    const Fields p = packing_section().read(*packing);
    s.packing.emplace();
    s.packing->until = p.number("until");
    s.packing->coverage = p.number("coverage");
    s.packing->tuning = p.value("tuning").as_string() == "passes" ? PackingSpec::Tuning::passes : PackingSpec::Tuning::artifact;
    if (auto ranks = p.get("node_ranks")) s.packing->node_ranks = read_node_ranks(*ranks, s);
  }
  auto models = std::make_shared<ModelCatalog>(ModelCatalog::builtin());
  if (auto m = root.get("models")) {
    models->add_document(*m);
    for (const ConfigNode& entry : m->items())
      if (auto gpu = entry.get("reference_gpu"); gpu && !catalog->find_gpu(gpu->as_string()))
        gpu->fail(fmt::format("GPU model '{}' is not in the catalog; define it under catalog.gpus", gpu->as_string()));
  }
  s.models = models;
  // First, arriving at 0: after finalize the replicas are the first jobs, service by service.
  if (auto services = workload.get("services")) {
    if (s.packing) services->fail("the capacity-packing experiment places jobs only: no services");
    s.services = read_services(*services, *models, s.data_dir, s.seed, s.jobs);
  }
  if (auto jobs = workload.get("jobs")) s.jobs.append(parse_inline_jobs(*jobs));
  if (auto traces = workload.get("traces"))
    for (const auto& t : traces->items()) s.jobs.append(read_trace(t, s.data_dir, s.packing.has_value()));
  if (auto g = workload.get("generator")) s.jobs.append(generate_jobs(*g, s.seed));
  if (!workload.has("jobs") && !workload.has("traces") && !workload.has("generator") && !workload.has("services"))
    workload.fail("expected at least one of jobs, traces, generator, services");
  if (auto r = workload.get("reference_gpu")) {
    s.reference_gpu = r->as_string();
    check_speed(*catalog, JobSpeed{s.reference_gpu, {}, {}}, {r->where().file, r->where().line, "workload"});
  }
  // Each job's settings (one entry of JobSet::speeds per inline entry, class or trace), checked once.
  std::vector<bool> checked(s.jobs.speeds.size(), false);
  for (const Job& j : s.jobs.jobs)
    if (j.speed != Job::kNone && !checked[j.speed]) {
      checked[j.speed] = true;
      check_speed(*catalog, s.jobs.speeds[j.speed], s.jobs.where(j));
    }
  s.jobs.finalize();
  if (s.packing) pack_workload(s, workload);
  if (s.jobs.jobs.size() > 0xFFFFFFF0u) workload.fail("too many jobs");
  s.tenancy = read_tenancy(root.get("tenancy"), s);
  if (s.tenancy.extended_resource_toleration) add_extended_resource_tolerations(s.jobs);
  apply_dra(s);

  // An absent policy is its default, named by the field without a line.
  if (const ConfigNode p = root.value("policy"); p.is_map()) {
    const Fields policy = policy_section().read(p);
    s.policy = policy.at("name").as_string();
    s.policy_where = policy.at("name").where();
    s.policy_params = policy.get("params");
  } else {
    s.policy = p.as_string();
    s.policy_where = p.where();
  }
  const Fields scheduling = scheduling_section().read(root.value("scheduling"));
  s.scheduling.gang = scheduling.value("gang").as_bool();
  s.scheduling.queue = scheduling.value("queue").as_enum<QueueMode>(" or ");
  const Fields out = outputs_section().read(root.value("outputs"));
  const ConfigNode step = out.value("timeseries_step");
  s.timeseries_step = step.as_duration();
  if (s.timeseries_step <= Duration()) step.fail("expected a positive step");
  const ConfigNode start = out.value("metrics_start");
  const auto start_s = parse_utc_date(start.as_string());
  if (!start_s) start.fail(fmt::format("expected {}, got '{}'", kUtcDateExpected, start.as_string()));
  s.metrics_start_unix_s = *start_s;
  for (const OutputSpec& o : output_table())
    if (!o.by_default && out.value(o.name).as_bool()) s.outputs.emplace_back(o.name);
  if (s.tenancy.given && std::find(s.outputs.begin(), s.outputs.end(), "tenants") == s.outputs.end())
    s.outputs.emplace_back("tenants");
  if (!s.services.empty() && std::find(s.outputs.begin(), s.outputs.end(), "services") == s.outputs.end())
    s.outputs.emplace_back("services");
  if (std::any_of(s.services.begin(), s.services.end(), [](const ServiceSpec& v) { return v.autoscaler.has_value(); }) &&
      std::find(s.outputs.begin(), s.outputs.end(), "replicas") == s.outputs.end())
    s.outputs.emplace_back("replicas");
  return s;
}

Json scenario_schema(const std::vector<std::string>& policy_params) {
  Json schema = json_schema(scenario_section(), "gpusim scenario");
  // The parameters policies declare live in the policy registry, a layer above this one.
  schema["$defs"]["policy"]["properties"]["params"]["propertyNames"] = {{"enum", policy_params}};
  return schema;
}

namespace {

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

std::optional<MigCounts> builtin_mig_config(const GpuModel& model, std::string_view name) {
  if (!model.mig) return std::nullopt;
  const MigTable& t = *model.mig;
  MigCounts counts(t.profiles.size(), 0);
  if (name == "all-disabled" || name == "all-enabled") return counts;
  if (name == "all-balanced" && t.compute_slices == 7) {
    // The smallest profile of each class 1g, 2g, 3g (docs/hardware.md#mig-parted-configs).
    for (auto [cls, n] : {std::pair{"1g", 2}, {"2g", 1}, {"3g", 1}}) {
      // A named capture: clang (and so clang-tidy) before 16 cannot capture a structured binding.
      auto p = std::find_if(t.profiles.begin(), t.profiles.end(),
                            [&name = cls](const MigProfile& x) { return x.class_name == name; });
      if (p == t.profiles.end()) return std::nullopt;
      counts[static_cast<std::size_t>(p - t.profiles.begin())] = n;
    }
    return counts;
  }
  if (name.starts_with("all-")) {
    const MigProfile* p = t.find(name.substr(4));
    if (!p) return std::nullopt;
    int& c = counts[static_cast<std::size_t>(p - t.profiles.data())];
    while (c < p->max_count) {
      ++c;
      if (!mig_place(t, counts)) {
        --c;
        break;
      }
    }
    return counts;
  }
  return std::nullopt;
}

}  // namespace gpusim
