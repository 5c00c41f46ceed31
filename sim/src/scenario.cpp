#include "gpusim/sim/scenario.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <numeric>

#include "gpusim/core/config.hpp"
#include "gpusim/core/random.hpp"
#include "gpusim/sim/outputs.hpp"
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

void apply_override(const YAML::Node& root, const std::string& assignment) {
  const auto eq = assignment.find('=');
  const SourceLocation where{"--set", std::nullopt, assignment};
  if (eq == std::string::npos || eq == 0)
    throw InputError(where, "expected path=value, e.g. cluster.pools[0].count=8");
  std::string path = assignment.substr(0, eq);
  YAML::Node value;
  try {
    value = YAML::Load(assignment.substr(eq + 1));
  } catch (const YAML::Exception& e) {
    throw InputError(where, fmt::format("value is not valid YAML: {}", e.msg));
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
  YAML::Node cur;
  cur.reset(root);
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    YAML::Node next;
    if (cur.IsSequence()) {
      std::size_t index = 0;
      try {
        index = std::stoul(parts[i]);
      } catch (const std::exception&) {
        throw InputError(where, fmt::format("'{}' is a list: expected an index, got '{}'", parts[i - 1], parts[i]));
      }
      if (index >= cur.size())
        throw InputError(where, fmt::format("index {} is out of range (the list has {} items)", index, cur.size()));
      next.reset(cur[index]);
    } else {
      if (!cur.IsMap() && !cur.IsNull()) throw InputError(where, fmt::format("'{}' is not a map", parts[i - 1]));
      if (!cur[parts[i]].IsDefined()) cur[parts[i]] = YAML::Node(YAML::NodeType::Map);
      next.reset(cur[parts[i]]);
    }
    cur.reset(next);
  }
  if (cur.IsSequence()) {
    std::size_t index = 0;
    try {
      index = std::stoul(parts.back());
    } catch (const std::exception&) {
      throw InputError(where, fmt::format("expected a list index, got '{}'", parts.back()));
    }
    if (index >= cur.size()) throw InputError(where, fmt::format("index {} is out of range", index));
    cur[index] = value;
  } else {
    cur[parts.back()] = value;
  }
}

namespace {

std::string data_path(const ConfigNode& field, const std::string& data_dir) {
  const std::string rel = field.as_string();
  fs::path p(rel);
  if (p.is_relative()) p = fs::path(data_dir) / p;
  if (!fs::is_regular_file(p))
    field.fail(fmt::format("trace file '{}' not found (looked in the data directory {}; set --data or GPUSIM_DATA)",
                           rel, data_dir));
  return p.string();
}

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

// The device plugin's `sharing:` block: {timeSlicing: {...}} or {mps: {...}} (hardware.md §2-3).
SharingConfig read_device_plugin_sharing(const ConfigNode& n, const GpuModel* gpu) {
  n.allow_only({"timeSlicing", "mps"});
  if (n.has("timeSlicing") == n.has("mps")) n.fail("expected exactly one of timeSlicing or mps (they are mutually exclusive)");
  const bool mps = n.has("mps");
  const ConfigNode b = n.at(mps ? "mps" : "timeSlicing");
  b.allow_only({"renameByDefault", "failRequestsGreaterThanOne", "resources"});
  SharingConfig c;
  c.mode = mps ? Sharing::mps : Sharing::time_slicing;
  if (auto r = b.get("renameByDefault")) c.rename_by_default = r->as_bool();
  if (auto r = b.get("failRequestsGreaterThanOne")) c.fail_requests_greater_than_one = r->as_bool();
  const auto resources = b.at("resources").items();
  if (resources.size() != 1) b.at("resources").fail("expected one resource, nvidia.com/gpu");
  const ConfigNode& r = resources.front();
  r.allow_only({"name", "replicas", "devices"});
  if (r.at("name").as_string() != kGpuResource)
    r.at("name").fail(fmt::format("expected nvidia.com/gpu (sharing MIG devices is not modelled), got '{}'", r.at("name").as_string()));
  if (auto d = r.get("devices"); d && !(d->is_scalar() && d->as_string() == "all"))
    d->fail("expected devices: all (one sharing config applies to every GPU of a node)");
  const auto replicas = r.at("replicas").as_int();
  if (replicas < 2) r.at("replicas").fail(fmt::format("expected replicas >= 2, got {}", replicas));
  if (mps) {
    const int limit = gpu && gpu->compute_capability >= 7.5 ? 48 : 16;
    if (replicas > limit)
      r.at("replicas").fail(fmt::format("MPS allows at most {} clients on {} (compute capability {}); got {}", limit,
                                        gpu ? gpu->name : "this GPU", gpu ? gpu->compute_capability : 0.0, replicas));
  } else if (replicas > 1000) {
    r.at("replicas").fail("expected at most 1000 replicas");
  }
  c.replicas = static_cast<int>(replicas);
  return c;
}

// A pool's price: per GPU-hour or per node-hour in the scenario, else the node template's (its spot
// price for spot pools).
void read_price(const ConfigNode& e, PoolSpec& pool, int gpus_per_node, const NodeTemplate* tmpl) {
  const auto per_gpu = e.get("price_per_gpu_hour_usd");
  const auto per_node = e.get("price_per_node_hour_usd");
  if (per_gpu && per_node) e.fail("give price_per_gpu_hour_usd or price_per_node_hour_usd, not both");
  if (per_gpu) {
    if (gpus_per_node == 0) per_gpu->fail("a pool without GPUs cannot be priced per GPU-hour");
    pool.price_per_node_hour_usd = per_gpu->as_non_negative_number() * gpus_per_node;
    pool.price_source = fmt::format("scenario ({} USD per GPU-hour)", per_gpu->as_number());
  } else if (per_node) {
    pool.price_per_node_hour_usd = per_node->as_non_negative_number();
    pool.price_source = "scenario";
  } else if (pool.market == Market::spot && tmpl && tmpl->spot_price_per_node_hour_usd) {
    pool.price_per_node_hour_usd = *tmpl->spot_price_per_node_hour_usd;
    pool.price_source = fmt::format("node template {} (typical spot price): {}", tmpl->name, tmpl->source);
  } else if (pool.market != Market::spot && tmpl && tmpl->price_per_node_hour_usd) {
    pool.price_per_node_hour_usd = *tmpl->price_per_node_hour_usd;
    pool.price_source = fmt::format("node template {}: {}", tmpl->name, tmpl->source);
  }
}

// A spot pool's `spot:` block: one reclaim process, and the notice it gives.
SpotConfig read_spot(const ConfigNode& n, const ExecutionModel& model, const std::string& data_dir) {
  n.allow_only({"interruptions_per_node_month", "aws_frequency", "availability", "provider", "notice"});
  SpotConfig c;
  const int given = n.has("interruptions_per_node_month") + n.has("aws_frequency") + n.has("availability");
  if (given != 1)
    n.fail("expected exactly one reclaim process: interruptions_per_node_month (Poisson), aws_frequency (an AWS Spot "
           "Instance Advisor bucket such as \"10-15%\") or availability (a recorded trace)");
  if (auto r = n.get("interruptions_per_node_month")) {
    c.process = SpotConfig::Process::poisson;
    c.hazard_per_node_hour = hazard_from_monthly_rate(r->as_non_negative_number());
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
    const ConfigNode a = n.at("availability");
    a.allow_only({"path", "format", "scale", "prices"});
    if (auto fmt_ = a.get("format"); fmt_ && fmt_->as_string() != "skypilot")
      fmt_->fail(fmt::format("expected format skypilot, got '{}'", fmt_->as_string()));
    c.process = SpotConfig::Process::trace;
    c.availability = std::make_shared<const AvailabilitySeries>(read_skypilot_series(data_path(a.at("path"), data_dir)));
    if (auto sc = a.get("scale")) {
      const auto v = sc->as_positive_int();
      if (v > 10000) sc->fail("expected at most 10000 nodes per available instance");
      c.scale = static_cast<int32_t>(v);
    }
    if (auto pr = a.get("prices")) {
      c.trace_prices = pr->as_bool();
      if (c.trace_prices && c.availability->price_per_node_hour_usd.empty())
        pr->fail(fmt::format("the trace {} has no prices", c.availability->file));
    }
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
  c.notice = model.spot.notice_of(c.provider).value_or(Time());
  if (auto t = n.get("notice")) {
    c.notice = t->as_duration();
    if (c.notice < Time()) t->fail("expected a notice >= 0");
  }
  return c;
}

AutoscaleConfig read_autoscale(const ConfigNode& n, const ExecutionModel& model) {
  n.allow_only({"min", "max", "scale_up_delay", "scale_down_after"});
  AutoscaleConfig a;
  a.enabled = true;
  a.min_nodes = static_cast<uint32_t>(n.has("min") ? n.at("min").as_non_negative_int() : 0);
  const auto max = n.at("max").as_positive_int();
  if (max > 1'000'000) n.at("max").fail("more than 1,000,000 nodes in one pool");
  a.max_nodes = static_cast<uint32_t>(max);
  if (a.min_nodes > a.max_nodes) n.fail(fmt::format("expected min <= max, got min {} and max {}", a.min_nodes, a.max_nodes));
  a.scale_up_delay = model.autoscaler.scale_up_delay;
  a.scale_down_after = model.autoscaler.scale_down_after;
  for (auto [key, field] : {std::pair{"scale_up_delay", &a.scale_up_delay}, {"scale_down_after", &a.scale_down_after}})
    if (auto v = n.get(key)) {
      *field = v->as_duration();
      if (*field < Time()) v->fail("expected a duration >= 0");
    }
  return a;
}

// A pool's `mig:` block: a mig-parted config (inline `mig-configs`, a `file` beside the scenario, or
// one of mig-parted's generated names) and the device plugin's strategy.
SharingConfig read_mig(const ConfigNode& m, const GpuModel* gpu, int gpus, const std::string& scenario_file) {
  m.allow_only({"strategy", "config", "file", "mig-configs"});
  if (!gpu || !gpu->mig) m.fail(fmt::format("GPU model {} does not support MIG", gpu ? gpu->name : "(none)"));
  SharingConfig c;
  c.mode = Sharing::mig;
  c.mig_strategy = m.at("strategy").as_enum<MigStrategy>(" or ");
  c.mig_config = m.at("config").as_string();
  if (m.has("file") && m.has("mig-configs")) m.fail("give file or mig-configs, not both");
  std::optional<ConfigNode> doc;
  if (auto f = m.get("file")) {
    fs::path p(f->as_string());
    if (p.is_relative()) p = fs::path(scenario_file).parent_path() / p;
    if (!fs::is_regular_file(p)) f->fail(fmt::format("mig-parted file '{}' not found", p.string()));
    doc = ConfigNode::load_file(p.string());
    doc->allow_only({"version", "mig-configs"});
    if (doc->at("version").as_string() != "v1") doc->at("version").fail("expected version: v1");
    doc = doc->at("mig-configs");
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

// The kubelet settings a pool's nodes run with (KubeletConfiguration field names).
TopologyPolicy read_kubelet(const ConfigNode& k) {
  k.allow_only({"topologyManagerPolicy", "topologyManagerScope"});
  TopologyPolicy p = TopologyPolicy::none;
  if (auto v = k.get("topologyManagerPolicy")) p = v->as_enum<TopologyPolicy>();
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

void read_pool(const ConfigNode& e, const Catalog& catalog, Scenario& s) {
  e.allow_only({"name", "node", "count", "sharing", "runtime", "mig", "market", "price_per_gpu_hour_usd",
                "price_per_node_hour_usd", "network", "kubelet", "spot", "autoscale", "provisioning_delay"});
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
  if (auto m = e.get("market")) pool.market = m->as_enum<Market>();
  if (auto a = e.get("autoscale")) {
    if (pool.market == Market::reserved) a->fail("a reserved pool is a fixed commitment and cannot autoscale");
    pool.autoscale = read_autoscale(*a, s.model);
  }
  int64_t count = pool.autoscale.min_nodes;
  if (auto c = e.get("count")) {
    count = pool.autoscale.enabled ? c->as_non_negative_int() : c->as_positive_int();
    if (count > 1'000'000) c->fail("more than 1,000,000 nodes in one pool");
    if (pool.autoscale.enabled && (count < pool.autoscale.min_nodes || count > pool.autoscale.max_nodes))
      c->fail(fmt::format("expected a starting count between autoscale.min {} and autoscale.max {}", pool.autoscale.min_nodes,
                          pool.autoscale.max_nodes));
  } else if (!pool.autoscale.enabled) {
    e.at("count");  // required: fails naming the field
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
    if (pool.provisioning_delay < Time()) d->fail("expected a duration >= 0");
  }
  if (auto m = e.get("mig")) {
    if (auto sh = e.get("sharing"); sh && !(sh->is_scalar() && parse_enum<Sharing>(sh->as_string()) == Sharing::exclusive))
      sh->fail(sh->is_map() && sh->has("mps") ? "MPS is not supported on MIG-enabled GPUs (hardware.md §3); drop mig: or sharing:"
                                                : "a MIG pool takes no other sharing (sharing of MIG devices is not modelled)");
    pool.sharing = read_mig(*m, pool.gpu, t->gpus, s.file);
  } else if (auto sh = e.get("sharing")) {
    pool.sharing = sh->is_map() ? read_device_plugin_sharing(*sh, pool.gpu) : read_sharing_name(*sh);
  }
  if (auto r = e.get("runtime")) {
    if (pool.sharing.mode != Sharing::fractional) r->fail("runtime applies to sharing: fractional only");
    const auto v = r->as_string();
    const auto runtime = parse_enum<Sharing>(v);
    if (runtime != Sharing::mps && runtime != Sharing::time_slicing)
      r->fail(fmt::format("expected {}, got '{}'", enum_choices({Sharing::mps, Sharing::time_slicing}, " or "), v));
    pool.sharing.runtime = *runtime;
  }
  read_price(e, pool, t->gpus, t);
  if (pool.spot.trace_prices) {
    pool.price_per_node_hour_usd = pool.spot.availability->price_per_node_hour_usd.front();
    pool.price_source = fmt::format("the spot trace's prices ({})", pool.spot.availability->file);
  }
  read_network(e.get("network"), t, s.model, pool);
  if (auto k = e.get("kubelet")) pool.topology_manager = read_kubelet(*k);
  const auto topology = t->gpus > 0 ? std::make_shared<const NodeTopology>(t->topology) : nullptr;
  pool.initial_nodes = static_cast<uint32_t>(count);
  const int64_t slots = std::max<int64_t>(count, pool.autoscale.max_nodes);
  for (int64_t i = 0; i < slots; ++i)
    pool.nodes.push_back({fmt::format("{}-{}", pool.name, i), t->cpu_milli, t->memory_mib, t->gpus, topology});
  s.pools.push_back(std::move(pool));
}

// Pools from a trace's node list: one pool per GPU model (and one for CPU-only nodes).
void read_node_list(const ConfigNode& e, const Catalog& catalog, Scenario& s) {
  e.allow_only({"format", "path", "sharing", "market", "name"});
  const auto format = e.at("format").as_string();
  if (format != "openb") e.at("format").fail(fmt::format("expected format openb, got '{}'", format));
  const std::string path = data_path(e.at("path"), s.data_dir);
  const std::string prefix = e.string_or("name", "openb");
  const SharingConfig sharing = e.has("sharing") ? read_sharing_name(e.at("sharing")) : SharingConfig{};
  const Market market = e.has("market") ? e.at("market").as_enum<Market>() : Market::on_demand;
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
    pool.initial_nodes = static_cast<uint32_t>(pool.nodes.size());
    s.pools.push_back(std::move(pool));
  }
}

TraceOptions read_trace_options(const ConfigNode& e) {
  TraceOptions o;
  if (auto k = e.get("kind")) o.kind = k->as_enum<JobKind>();
  if (auto u = e.get("u")) {
    o.u = u->as_number();
    if (*o.u < 0 || *o.u > 1) u->fail("expected a compute demand between 0 and 1");
  }
  if (auto m = e.get("multi_node")) o.multi_node = m->as_bool();
  if (auto l = e.get("limit")) o.limit = l->as_positive_int();
  return o;
}

JobSet read_trace(const ConfigNode& e, const std::string& data_dir, bool untimed) {
  e.allow_only({"format", "path", "kind", "u", "multi_node", "limit"});
  const auto format = e.at("format").as_string();
  TraceOptions o = read_trace_options(e);
  o.untimed = untimed;
  if (format == "openb") return read_openb_pods(data_path(e.at("path"), data_dir), o);
  if (format == "philly") return read_philly_jobs(data_path(e.at("path"), data_dir), o);
  if (format == "csv") return read_generic_csv(data_path(e.at("path"), data_dir), o);
  e.at("format").fail(fmt::format("expected a trace format openb, philly or csv, got '{}'", format));
}

// Replaces the jobs by the packing experiment's arrivals (see PackingSpec).
void pack_workload(Scenario& s, const ConfigNode& workload) {
  PackingSpec& spec = *s.packing;
  for (const auto& p : s.pools)
    for (std::size_t i = 0; i < p.initial_nodes && i < p.nodes.size(); ++i)
      spec.capacity_milli += static_cast<uint64_t>(p.nodes[i].gpus) * static_cast<uint64_t>(kWholeGpu.value);
  if (spec.capacity_milli == 0) workload.at("packing").fail("the cluster has no GPUs to pack");
  if (std::none_of(s.jobs.jobs.begin(), s.jobs.jobs.end(), [](const Job& j) { return j.request.gpus > 0; }))
    workload.at("packing").fail("the workload asks for no GPU: nothing to pack");
  const auto target = static_cast<double>(spec.capacity_milli) * spec.until;
  // Work long enough never to end within the run (ten years), so pods only arrive.
  const Time forever = Time::from_seconds(int64_t{10} * 365 * 86400);
  Rng rng = make_stream(s.seed, "workload/packing");
  JobSet packed;
  packed.tenants = s.jobs.tenants;
  std::vector<std::size_t> order(s.jobs.jobs.size());
  double demand = 0;
  while (demand < target) {
    std::iota(order.begin(), order.end(), 0);
    for (std::size_t i = order.size(); i > 1; --i)  // Fisher-Yates
      std::swap(order[i - 1], order[static_cast<std::size_t>(uniform01(rng) * static_cast<double>(i))]);
    for (std::size_t k = 0; k < order.size() && demand < target; ++k) {
      Job j = s.jobs.jobs[order[k]];
      j.arrival = Time::from_us(static_cast<int64_t>(packed.jobs.size()));
      j.work = forever;
      j.strict = false;
      demand += static_cast<double>(j.request.gpus) * j.request.milli_per_gpu.value;
      packed.jobs.push_back(std::move(j));
    }
  }
  packed.finalize();
  s.jobs = std::move(packed);
  s.horizon = Time::from_us(static_cast<int64_t>(s.jobs.jobs.size()));
}

}  // namespace

Scenario load_scenario(const std::string& path, const LoadOptions& options) {
  ConfigNode root = options.text ? ConfigNode::parse(*options.text, path) : ConfigNode::load_file(path);
  if (!root.is_map()) root.fail("expected a scenario: a map with name, cluster, workload, ...");
  for (const auto& o : options.overrides) apply_override(root.yaml(), o);
  root.allow_only({"name", "description", "seed", "horizon", "catalog", "cluster", "model", "workload", "policy",
                   "scheduling", "outputs", "variants"});

  Scenario s;
  s.file = path;
  s.data_dir = resolve_data_dir(options.data_dir);
  s.resolved = YAML::Clone(root.yaml());
  s.name = root.at("name").as_string();
  if (auto d = root.get("description")) d->as_string();
  s.seed = root.has("seed") ? static_cast<uint64_t>(root.at("seed").as_non_negative_int()) : 0;
  if (auto h = root.get("horizon")) {
    s.horizon = h->as_duration();
    if (*s.horizon <= Time()) h->fail("expected a positive horizon");
  }

  auto catalog = std::make_shared<Catalog>(Catalog::builtin());
  if (auto c = root.get("catalog")) catalog->add_document(*c);
  s.catalog = catalog;

  if (auto v = root.get("variants")) {
    for (const auto& e : v->items()) {
      e.allow_only({"name", "set"});
      Scenario::Variant variant{e.at("name").as_string(), e.string_list("set")};
      for (const auto& other : s.variants)
        if (other.name == variant.name) e.at("name").fail(fmt::format("two variants are named '{}'", variant.name));
      s.variants.push_back(std::move(variant));
    }
  }
  s.model = ExecutionModel::builtin();
  if (auto m = root.get("model")) s.model.apply(*m);

  const ConfigNode cluster = root.at("cluster");
  cluster.allow_only({"pools", "node_lists"});
  if (auto pools = cluster.get("pools"))
    for (const auto& e : pools->items()) read_pool(e, *catalog, s);
  if (auto lists = cluster.get("node_lists"))
    for (const auto& e : lists->items()) read_node_list(e, *catalog, s);
  std::size_t node_total = 0;
  for (std::size_t i = 0; i < s.pools.size(); ++i) {
    node_total += s.pools[i].nodes.size();
    for (std::size_t k = 0; k < i; ++k)
      if (s.pools[k].name == s.pools[i].name) cluster.fail(fmt::format("two pools are named '{}'", s.pools[i].name));
  }
  if (node_total == 0) cluster.fail("the cluster is empty: give at least one pool with count >= 1, or a node list");
  if (s.pools.size() > 64) cluster.fail("at most 64 pools are supported");

  const ConfigNode workload = root.at("workload");
  workload.allow_only({"jobs", "traces", "generator", "packing"});
  if (auto p = workload.get("packing")) {
    p->allow_only({"until", "coverage"});
    s.packing.emplace();
    if (auto u = p->get("until")) {
      s.packing->until = u->as_number();
      if (s.packing->until <= 0 || s.packing->until > 100) u->fail("expected a multiple of cluster GPU capacity in (0, 100]");
    }
    if (auto c = p->get("coverage")) {
      s.packing->coverage = c->as_number();
      if (s.packing->coverage <= 0 || s.packing->coverage > 1) c->fail("expected a share of the pods in (0, 1]");
    }
  }
  if (auto jobs = workload.get("jobs")) s.jobs.append(parse_inline_jobs(*jobs));
  if (auto traces = workload.get("traces"))
    for (const auto& t : traces->items()) s.jobs.append(read_trace(t, s.data_dir, s.packing.has_value()));
  if (auto g = workload.get("generator")) s.jobs.append(generate_jobs(*g, s.seed));
  if (!workload.has("jobs") && !workload.has("traces") && !workload.has("generator"))
    workload.fail("expected at least one of jobs, traces, generator");
  s.jobs.finalize();
  if (s.packing) pack_workload(s, workload);
  if (s.jobs.jobs.size() > 0xFFFFFFF0u) workload.fail("too many jobs");

  if (auto p = root.get("policy")) {
    if (p->is_map()) {
      p->allow_only({"name", "params"});
      s.policy = p->at("name").as_string();
      s.policy_where = p->at("name").where();
      s.policy_params = p->get("params");
    } else {
      s.policy = p->as_string();
      s.policy_where = p->where();
    }
  } else {
    s.policy = "fifo+first-fit";
    s.policy_where = {path, std::nullopt, "policy"};
  }
  if (auto sc = root.get("scheduling")) {
    sc->allow_only({"gang", "queue"});
    if (auto g = sc->get("gang")) s.scheduling.gang = g->as_bool();
    if (auto q = sc->get("queue")) s.scheduling.queue = q->as_enum<QueueMode>(" or ");
  }
  s.timeseries_step = Time::from_seconds(3600);
  if (auto out = root.get("outputs")) {
    // timeseries_step, and `NAME: true` for each output written on request (the output table).
    std::vector<std::string_view> fields{"timeseries_step"};
    for (const OutputSpec& o : output_table())
      if (!o.by_default) fields.push_back(o.name);
    out->allow_only(fields);
    if (auto step = out->get("timeseries_step")) {
      s.timeseries_step = step->as_duration();
      if (s.timeseries_step <= Time()) step->fail("expected a positive step");
    }
    for (std::size_t i = 1; i < fields.size(); ++i)
      if (auto on = out->get(fields[i]); on && on->as_bool()) s.outputs.emplace_back(fields[i]);
  }
  return s;
}

std::vector<std::pair<std::string, Scenario>> load_variants(const std::string& path, const LoadOptions& options) {
  Scenario base = load_scenario(path, options);
  std::vector<std::pair<std::string, Scenario>> out;
  for (const auto& v : base.variants) {
    LoadOptions o = options;
    o.overrides.insert(o.overrides.begin(), v.overrides.begin(), v.overrides.end());
    out.emplace_back(v.name, load_scenario(path, o));
  }
  if (out.empty()) out.emplace_back("", std::move(base));
  return out;
}

std::optional<MigCounts> builtin_mig_config(const GpuModel& model, std::string_view name) {
  if (!model.mig) return std::nullopt;
  const MigTable& t = *model.mig;
  MigCounts counts(t.profiles.size(), 0);
  if (name == "all-disabled" || name == "all-enabled") return counts;
  if (name == "all-balanced" && t.compute_slices == 7) {
    // The smallest profile of each class 1g, 2g, 3g (hardware.md §1).
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

Cluster build_cluster(const Scenario& s) {
  Cluster c;
  for (const auto& p : s.pools) {
    Pool pool;
    pool.name = p.name;
    pool.node_template = p.node_template;
    pool.gpu = p.gpu;
    pool.sharing = p.sharing;
    pool.network = p.network;
    pool.topology_manager = p.topology_manager;
    pool.market = p.market;
    pool.price_per_node_hour_usd = p.price_per_node_hour_usd;
    pool.price_source = p.price_source;
    pool.gpus_per_node = p.nodes.empty() ? 0 : static_cast<uint16_t>(p.nodes.front().gpus);
    const PoolId id = c.add_pool(std::move(pool));
    for (std::size_t i = 0; i < p.nodes.size(); ++i) {
      const auto& n = p.nodes[i];
      c.add_node(id, n.name, n.cpu_milli, n.memory_mib, n.gpus, n.topology, i < p.initial_nodes ? NodeState::ready : NodeState::off);
    }
  }
  return c;
}

}  // namespace gpusim
