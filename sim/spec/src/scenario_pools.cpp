// The fleet (`cluster:`): pools of identical nodes from node templates, with their price, spot
// reclaim process, autoscaler, kubelet and network, and pools from traces' node lists.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "gpusim/sim/market.hpp"
#include "gpusim/sim/node_placement.hpp"
#include "gpusim/sim/output_spec.hpp"
#include "gpusim/workloads/grid_series.hpp"
#include "gpusim/workloads/traces.hpp"
#include "scenario_parts.hpp"

namespace gpusim {

namespace {

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

const Section& owned_section() {
  static const Section s{"owned",
                         "What an owned node costs (market: owned; docs/guide/energy.md#owned-hardware)",
                         {
                             {"purchase_usd", Type::number().at_least(0), required, "USD", "One node's purchase price"},
                             {"amortization_years", Type::number().above(0).at_most(20), required, "years",
                              "Over how long its purchase is written off (straight line)"},
                             {"maintenance_usd_per_year", Type::number().at_least(0), "0", "USD per year",
                              "Its support, spares and hosting besides electricity"},
                         }};
  return s;
}

// An owned pool's node-hour price: its purchase written off over its amortization period, plus its
// maintenance (8,760 hours a year); its electricity is charged as it is drawn.
void read_owned(const Fields& e, PoolSpec& pool) {
  const auto o = e.get("owned");
  if (!o) {
    if (pool.market == Market::owned) e.fail("an owned pool needs an owned: block (purchase_usd, amortization_years)");
    return;
  }
  if (pool.market != Market::owned) o->fail("owned: applies to pools with market: owned");
  for (const char* price : {"price_per_gpu_hour_usd", "price_per_node_hour_usd"})
    if (auto p = e.get(price)) p->fail("an owned pool's price comes from its owned: block; give one or the other");
  const Fields f = owned_section().read(*o);
  const double purchase = f.number("purchase_usd"), years = f.number("amortization_years");
  const double maintenance = f.number("maintenance_usd_per_year");
  pool.price_per_node_hour_usd = purchase / (years * 8760) + maintenance / 8760;
  pool.price_source = fmt::format("owned: {:g} USD per node over {:g} years, {:g} USD a year maintenance", purchase, years,
                                  maintenance);
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

const Section& grid_series_section() {
  static const Section s{"grid_series",
                         "A series over time read from a CSV file (docs/guide/energy.md)",
                         {
                             {"file", Type::string(), required, "",
                              "The file: beside the scenario file, else in the data directory (--data, GPUSIM_DATA)"},
                             {"format", Type::choice({"csv", "sustaindc"}), "csv", "",
                              "csv: timestamp and `column`; sustaindc: SustainDC's carbon intensity files (column avg_CI)"},
                             {"column", Type::string(), "", "", "The value column (csv; required there)"},
                             {"start", Type::string(), "", "",
                              "Where the run's time 0 falls in the series, a UTC date (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ); "
                              "default its first timestamp. The series repeats after its end"},
                         }};
  return s;
}

// A value that may change over time: a number (constant), or a series from a file.
Type grid_value_type() { return Type::one_of({Type::number().at_least(0), Type::section(grid_series_section())}); }

std::shared_ptr<const StepSeries> read_grid_value(const ConfigNode& node, const std::string& data_dir) {
  if (node.is_scalar()) return std::make_shared<const StepSeries>(StepSeries::constant(node.as_number(Range::at_least(0))));
  const Fields f = grid_series_section().read(node);
  const std::string format = f.value("format").as_string();
  if (format == "csv" && !f.has("column")) f.fail("a csv series names its value column: column: NAME");
  if (format == "sustaindc" && f.has("column")) f.at("column").fail("a sustaindc file's column is avg_CI: give no column");
  const GridSeries g = read_grid_series(data_path(f.at("file"), data_dir),
                                        format == "csv" ? f.at("column").as_string() : "avg_CI");
  int64_t offset_s = 0;
  if (auto start = f.get("start")) {
    const auto at = parse_utc_date(start->as_string());
    if (!at) start->fail("expected a UTC date, YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ");
    if (*at < g.unix_s.front() || *at >= g.end_unix_s)
      start->fail(
          fmt::format("{} is outside the series ({} s to {} s since 1970)", start->as_string(), g.unix_s.front(), g.end_unix_s));
    offset_s = *at - g.unix_s.front();
  }
  std::vector<Duration> starts;
  for (int64_t t : g.unix_s) starts.push_back(Duration::from_seconds(t - g.unix_s.front()));
  return std::make_shared<const StepSeries>(starts, g.values, Duration::from_seconds(g.end_unix_s - g.unix_s.front()),
                                            Duration::from_seconds(offset_s));
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
          {"partition", Type::section(pool_partition_section()), "", "",
           "AMD compute and memory partitions on its GPUs (no other sharing then)"},
          {"market", Type::enumeration<Market>(), "on-demand", "", "How its nodes are bought"},
          {"owned", Type::section(owned_section()), "", "", "What an owned node costs; required with market: owned"},
          {"labels", Type::map(Type::string()), "", "",
           "Its nodes' labels (beside the ones every node has: docs/guide/tenants.md)"},
          taints_field(),
          {"price_per_gpu_hour_usd", Type::number().at_least(0), "", "USD per GPU-hour",
           "Its price; default: the node template's"},
          {"price_per_node_hour_usd", Type::number().at_least(0), "", "USD per node-hour",
           "Its price, instead of price_per_gpu_hour_usd; default: the node template's (its spot price for spot pools)"},
          {"network", Type::section(network_section()), "", "",
           "Its nodes' NICs; default: the node template's, else model.communication.default_network"},
          {"nvlink_domain_nodes", Type::int32().at_least(1), "", "",
           "Consecutive nodes sharing one NVLink domain, at most the rack's (the node template's nvlink_domain_nodes; "
           "fewer: NVLink partitions); default: the template's"},
          {"kubelet", Type::section(kubelet_section()), "", "", "Its nodes' kubelet settings"},
          {"spot", Type::section(spot_section()), "", "", "How it loses nodes; required with market: spot"},
          {"autoscale", Type::section(autoscale_section()), "", "", "Nodes come and go with demand; absent: a fixed count"},
          {"provisioning_delay", Type::duration(), "", "",
           "From a node's request to its being ready (scale-ups, replaced spot nodes); default: model.autoscaler's"},
          {"power_limit_w", Type::number().above(0), "", "W",
           "Each GPU's power limit, as nvidia-smi -pl sets it: draw held under it, tensor math slowed as the "
           "measured throttle implies (docs/guide/energy.md); default: its TDP"},
          {"pue", Type::number().at_least(1).at_most(5), "", "",
           "Its facility's power usage effectiveness (facility over IT energy); default: the cluster's"},
          {"carbon_g_per_kwh", grid_value_type(), "", "gCO2e/kWh", "Its grid's carbon intensity; default: the cluster's"},
          {"electricity_usd_per_kwh", grid_value_type(), "", "USD/kWh", "Its electricity price; default: the cluster's"},
      }};
  return s;
}

// What a pool takes from `cluster:` unless it gives its own.
struct ClusterEnergy {
  double pue = 1;
  std::shared_ptr<const StepSeries> carbon, electricity;
};

void read_pool_energy(const Fields& e, const ClusterEnergy& cluster, const std::string& data_dir, PoolSpec& pool) {
  pool.pue = e.has("pue") ? e.number("pue") : cluster.pue;
  pool.carbon_g_per_kwh = e.has("carbon_g_per_kwh") ? read_grid_value(e.at("carbon_g_per_kwh"), data_dir) : cluster.carbon;
  pool.electricity_usd_per_kwh = e.has("electricity_usd_per_kwh") ? read_grid_value(e.at("electricity_usd_per_kwh"), data_dir)
                                                                  : cluster.electricity;
}

void read_pool(const ConfigNode& node, const Catalog& catalog, const ClusterEnergy& energy, Scenario& s) {
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
    if (pool.market == Market::owned) a->fail("an owned pool's nodes are bought: it has a fixed count and cannot autoscale");
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
  pool.sharing = read_pool_sharing(e, pool.gpu, t->gpus, s.file);
  read_price(e, pool, t->gpus, t);
  if (pool.spot.trace_prices) {
    pool.price_per_node_hour_usd = pool.spot.availability->price_per_node_hour_usd.front();
    pool.price_source = fmt::format("the spot trace's prices ({})", pool.spot.availability->file);
  }
  read_network(e.get("network"), t, s.model, pool);
  pool.nvlink_domain_nodes = pool.rack_nodes = static_cast<uint32_t>(t->nvlink_domain_nodes);
  if (auto d = e.get("nvlink_domain_nodes")) {
    const int nodes = d->as_int<int>(e.range("nvlink_domain_nodes"));
    if (t->nvlink_domain_nodes == 0)
      d->fail(fmt::format("node template {} has no NVLink domain beyond the node (its nvlink_domain_nodes is not set)", t->name));
    if (nodes > t->nvlink_domain_nodes)
      d->fail(fmt::format("an NVLink domain spans at most one rack: {} nodes of {} (its nvlink_domain_nodes); got {}",
                          t->nvlink_domain_nodes, t->name, nodes));
    pool.nvlink_domain_nodes = static_cast<uint32_t>(nodes);
  }
  pool.host_power = t->host_power.value_or(s.model.power.host);
  if (auto l = e.get("power_limit_w")) {
    const double limit = e.number("power_limit_w");
    if (!pool.gpu || pool.gpu->tdp_w <= 0) l->fail("the pool's nodes have no GPU with a TDP to limit");
    if (limit > pool.gpu->tdp_w)
      l->fail(fmt::format("expected at most the GPU's TDP, {:g} W (its default limit)", pool.gpu->tdp_w));
    const GpuPower limited = s.model.power.of(*pool.gpu, limit);
    if (limited.capped_w <= limited.idle_high_w)
      l->fail(fmt::format("at {:g} W a {} would draw no more than it does idle ({:.0f} W): expected a higher limit", limit,
                          pool.gpu->name, limited.idle_high_w));
    pool.power_limit_w = limit;
  }
  read_pool_energy(e, energy, s.data_dir, pool);
  read_owned(e, pool);
  if (pool.market == Market::owned && !pool.electricity_usd_per_kwh)
    e.at("market").fail("an owned pool pays for its electricity: give electricity_usd_per_kwh on it or on the cluster");
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
void read_node_list(const ConfigNode& node, const Catalog& catalog, const ClusterEnergy& energy, Scenario& s) {
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
    pool.host_power = s.model.power.host;
    pool.pue = energy.pue;
    pool.carbon_g_per_kwh = energy.carbon;
    pool.electricity_usd_per_kwh = energy.electricity;
    // The list says nothing of links: each GPU count gets one host bridge (PHB).
    std::vector<std::shared_ptr<const NodeTopology>> by_count;
    for (const auto& n : nodes) {
      if (n.model != model) continue;
      std::shared_ptr<const NodeTopology> topology;
      if (pool.gpu && n.gpus > 0) {
        if (n.gpus > NodeTopology::kMaxGpus)
          throw InputError({path, std::nullopt, "gpus"},
                           fmt::format("node {} has {} GPUs; at most {} are supported", n.name, n.gpus, NodeTopology::kMaxGpus));
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

const Section& power_budget_section() {
  static const Section s{"power_budget",
                         "The IT power a set of pools (a rack, a hall) may hold at once (docs/guide/energy.md#power-budgets)",
                         {
                             {"name", Type::string(), required, "", "Its name, unique in the cluster"},
                             {"pools", Type::string_list(), required, "", "The pools it powers (each in at most one budget)"},
                             {"kw", Type::number().above(0), required, "kW",
                              "What their powered nodes (at idle) and running jobs (at their demand, under the cap) may hold"},
                         }};
  return s;
}

// What the pool's nodes at the start hold of a budget (node_budget_w).
double initial_budget_w(const PoolSpec& pool, const ExecutionModel& model) {
  const GpuPower gpu = pool.gpu ? model.power.of(*pool.gpu, pool.power_limit_w) : GpuPower{};
  double w = 0;
  for (uint32_t i = 0; i < pool.initial_nodes; ++i) w += node_budget_w(gpu, pool.host_power, pool.shape(i).gpus);
  return w;
}

void read_power_budgets(const ConfigNode& list, Scenario& s) {
  for (const ConfigNode& node : list.items()) {
    const Fields e = power_budget_section().read(node);
    PowerBudget b{e.at("name").as_string(), e.number("kw") * 1000.0, 0};
    for (const PowerBudget& other : s.power_budgets)
      if (other.name == b.name) e.at("name").fail(fmt::format("two power budgets are named '{}'", b.name));
    double idle_w = 0;
    for (const std::string& name : e.string_list("pools")) {
      const auto it = std::find_if(s.pools.begin(), s.pools.end(), [&](const PoolSpec& p) { return p.name == name; });
      if (it == s.pools.end()) e.at("pools").fail(fmt::format("no pool is named '{}'", name));
      const auto p = static_cast<std::size_t>(it - s.pools.begin());
      for (const PowerBudget& other : s.power_budgets)
        if (other.pool_mask >> p & 1)
          e.at("pools").fail(fmt::format("pool '{}' is already in power budget '{}'", name, other.name));
      if (b.pool_mask >> p & 1) e.at("pools").fail(fmt::format("pool '{}' is listed twice", name));
      b.pool_mask |= uint64_t{1} << p;
      idle_w += initial_budget_w(*it, s.model);
    }
    if (idle_w > b.limit_w)
      e.at("kw").fail(fmt::format("its pools' nodes at the start draw {:.3f} kW idle (GPUs with clocks up, hosts): "
                                  "expected at least that, got {:g} kW",
                                  idle_w / 1000.0, b.limit_w / 1000.0));
    s.power_budgets.push_back(std::move(b));
  }
}

}  // namespace

const Section& cluster_section() {
  static const Section s{
      "cluster",
      "The fleet: pools of nodes",
      {
          {"pools", Type::list(Type::section(pool_section())), "", "", "Pools of identical nodes"},
          {"node_lists", Type::list(Type::section(node_list_section())), "", "", "Pools from traces' node lists"},
          {"pue", Type::number().at_least(1).at_most(5), "1", "",
           "The facility's power usage effectiveness (facility over IT energy: cooling, power distribution); "
           "1: IT energy only"},
          {"carbon_g_per_kwh", grid_value_type(), "", "gCO2e/kWh",
           "The grid's carbon intensity: a number, or a series from a file; absent: no carbon figures"},
          {"electricity_usd_per_kwh", grid_value_type(), "", "USD/kWh",
           "The electricity price: a number, or a series from a file (time of use); absent: no energy cost figures"},
          {"power_budgets", Type::list(Type::section(power_budget_section())), "", "",
           "Power budgets over sets of pools: jobs and new nodes wait for room (docs/guide/energy.md#power-budgets)"},
      }};
  return s;
}

void read_cluster(const ConfigNode& node, Scenario& s) {
  const Fields cluster = cluster_section().read(node);
  ClusterEnergy energy;
  energy.pue = cluster.number("pue");
  if (auto c = cluster.get("carbon_g_per_kwh")) energy.carbon = read_grid_value(*c, s.data_dir);
  if (auto p = cluster.get("electricity_usd_per_kwh")) energy.electricity = read_grid_value(*p, s.data_dir);
  if (auto pools = cluster.get("pools"))
    for (const auto& e : pools->items()) read_pool(e, *s.catalog, energy, s);
  if (auto lists = cluster.get("node_lists"))
    for (const auto& e : lists->items()) read_node_list(e, *s.catalog, energy, s);
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
  if (auto budgets = cluster.get("power_budgets")) read_power_budgets(*budgets, s);
}

}  // namespace gpusim
