#include "catalog.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "gpusim/core/ascii.hpp"
#include "gpusim/core/error.hpp"
#include "gpusim/hardware/mig.hpp"
#include "gpusim/sim/execution.hpp"
#include "gpusim/sim/report.hpp"
#include "gpusim/sim/scenario.hpp"
#include "gpusim/workloads/served_model.hpp"
#include "text.hpp"

namespace gpusim::cli {

namespace {

bool matches(const std::optional<std::string>& filter, std::initializer_list<std::string_view> names,
             const std::vector<std::string>& more = {}) {
  if (!filter) return true;
  const std::string f = ascii_lower(*filter);
  for (std::string_view n : names)
    if (ascii_lower(n).find(f) != std::string::npos) return true;
  for (const std::string& n : more)
    if (ascii_lower(n).find(f) != std::string::npos) return true;
  return false;
}

// Up to three decimals, at least two: 21.96, 1.006, 2.745.
std::string usd(double v) {
  std::string s = fmt::format("{:.3f}", v);
  if (s.back() == '0') s.pop_back();
  return s;
}

std::string number(double v) { return fmt::format("{:g}", v); }

// --- what the query selects ----------------------------------------------------------------------

struct Selection {
  std::vector<const GpuModel*> gpus;
  std::vector<const NodeTemplate*> nodes;
  std::vector<const GpuModel*> mig;  // MIG-capable models among gpus
};

std::string gpu_names(const Catalog& c, bool mig_only) {
  std::vector<std::string> names;
  for (const GpuModel& g : c.gpus())
    if (!mig_only || g.has_mig()) names.push_back(g.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

Selection select_entries(const Catalog& c, const CatalogQuery& q) {
  const GpuModel* only = nullptr;
  if (q.gpu) {
    only = c.find_gpu(*q.gpu);
    const bool mig_view = q.view == CatalogView::mig;
    if (!only)
      throw InputError({"", std::nullopt, "--gpu"},
                       fmt::format("unknown GPU model '{}'; {}: {}", *q.gpu, mig_view ? "MIG-capable models" : "known",
                                   gpu_names(c, mig_view)));
    if (mig_view && !only->has_mig())
      throw InputError({"", std::nullopt, "--gpu"},
                       fmt::format("{} does not support MIG; MIG-capable models: {}", only->name, gpu_names(c, true)));
  }
  Selection s;
  for (const GpuModel& g : c.gpus()) {
    if (only && &g != only) continue;
    if (!matches(q.filter, {g.name}, g.aliases)) continue;
    s.gpus.push_back(&g);
    if (g.has_mig()) s.mig.push_back(&g);
  }
  for (const NodeTemplate& n : c.nodes()) {
    const GpuModel* g = c.find_gpu(n.gpu);
    if (only && g != only) continue;
    if (!matches(q.filter, {n.name, n.gpu})) continue;
    s.nodes.push_back(&n);
  }
  return s;
}

bool assumed(const GpuModel& g, std::string_view field) {
  return std::find(g.assumed.begin(), g.assumed.end(), field) != g.assumed.end();
}

// "58*" when the value is a documented assumption.
std::string mark(const GpuModel& g, std::string_view field, const std::string& value) {
  return assumed(g, field) ? value + "*" : value;
}

// The distinct link classes between the node's GPUs, best first: "NV18", "PIX, SYS", "PHB".
std::vector<std::string> link_classes(const NodeTopology& t) {
  std::vector<Link> links;
  for (int a = 0; a < t.gpus(); ++a)
    for (int b = a + 1; b < t.gpus(); ++b) {
      const Link& l = t.link(a, b);
      const bool seen = std::any_of(links.begin(), links.end(),
                                    [&](const Link& x) { return x.cls == l.cls && x.links == l.links; });
      if (!seen) links.push_back(l);
    }
  std::sort(links.begin(), links.end(),
            [](const Link& a, const Link& b) { return std::pair(a.cls, -a.links) < std::pair(b.cls, -b.links); });
  std::vector<std::string> out;
  out.reserve(links.size());
  for (const Link& l : links) out.push_back(link_code(l));
  return out;
}

// mig-parted's generated configs for a model, in the order `catalog mig` lists them.
struct NamedMigConfig {
  std::string name;
  bool enabled = true;
  MigCounts counts;
  std::optional<MigLayout> placement;
};

std::vector<NamedMigConfig> mig_configs(const GpuModel& g) {
  const MigTable& t = *g.mig;
  std::vector<std::string> names{"all-disabled", "all-enabled", "all-balanced"};
  for (const MigProfile& p : t.profiles) names.push_back("all-" + p.name);
  std::vector<NamedMigConfig> out;
  for (const std::string& name : names) {
    const auto counts = builtin_mig_config(g, name);
    if (!counts) continue;  // e.g. all-balanced on a four-slice GPU
    out.push_back({name, name != "all-disabled", *counts, mig_place(t, *counts)});
  }
  return out;
}

std::string config_layout(const MigTable& t, const NamedMigConfig& c) {
  if (!c.enabled) return "MIG off";
  if (std::all_of(c.counts.begin(), c.counts.end(), [](int n) { return n == 0; })) return "MIG on, no instances";
  return mig_describe(t, c.counts);
}

std::string config_placement(const MigTable& t, const NamedMigConfig& c) {
  if (!c.placement) return "-";
  std::vector<std::string> parts;
  for (const MigInstance& in : *c.placement) parts.push_back(fmt::format("{}@{}", t.profiles[in.profile].name, in.start));
  return fmt::format("{}", fmt::join(parts, " "));
}

// How a model's GPUs split: its MIG geometry, AMD's compute modes ("SPX/DPX/QPX/CPX"), else "-".
std::string partitioning(const GpuModel& g) {
  if (g.partitions) {
    std::vector<std::string_view> modes;
    for (const PartitionModes::Compute& c : g.partitions->compute) modes.push_back(c.mode);
    return fmt::format("{}", fmt::join(modes, "/"));
  }
  return g.mig ? g.mig->geometry : "-";
}

std::string all_balanced(const GpuModel& g) {
  for (const NamedMigConfig& c : mig_configs(g))
    if (c.name == "all-balanced") return config_layout(*g.mig, c);
  return "-";
}

// --- text sections -------------------------------------------------------------------------------

// The throughput classes whose ratios vary by GPU model (not those bound by nothing), in catalog order.
std::vector<const ThroughputClass*> ratio_classes(const Catalog& c) {
  std::vector<const ThroughputClass*> out;
  for (const ThroughputClass& t : c.throughput_classes())
    if (t.bound != ThroughputBound::none) out.push_back(&t);
  return out;
}

// "2.06" measured, "(3.17)" the peak ratio a class falls back on.
std::string ratio_text(const ThroughputRatio& r) {
  return r.measured ? fmt::format("{:.2f}", r.value) : fmt::format("({:.2f})", r.value);
}

// AMD's valid compute and memory partition modes of the selected models, with what a partition gets.
std::string partitions_text(const Selection& s) {
  std::vector<std::vector<std::string>> rows;
  for (const GpuModel* g : s.gpus) {
    if (!g->partitions) continue;
    for (const PartitionModes::Memory& m : g->partitions->memory)
      for (const std::string& mode : m.compute) {
        const MigProfile& p = *g->mig->find(PartitionModes::profile_name(mode, m.mode));
        rows.push_back({g->name, mode, m.mode, number(p.max_count), number(p.sms),
                        number(static_cast<double>(p.memory_mib) / 1024.0), fmt::format("amd.com/{}", p.name)});
      }
  }
  if (rows.empty()) return "";
  return "\nAMD compute and memory partitions (each GPU in one mode; docs/hardware.md#amd-compute-and-memory-partitions)\n\n" +
         aligned_table({{"GPU"},
                        {"compute"},
                        {"memory"},
                        {"partitions", true},
                        {"CUs each", true},
                        {"memory GB each", true},
                        {"mixed-strategy resource"}},
                       rows);
}

std::string gpus_text(const Catalog& c, const Selection& s) {
  const std::vector<const ThroughputClass*> classes = ratio_classes(c);
  std::vector<std::vector<std::string>> rows;
  bool any_assumed = false;
  for (const GpuModel* g : s.gpus) {
    any_assumed = any_assumed || !g->assumed.empty();
    const std::string_view fabric = to_string(g->fabric());
    rows.push_back(
        {g->name, std::string(to_string(g->vendor)), g->aliases.empty() ? "-" : fmt::format("{}", fmt::join(g->aliases, ", ")),
         mark(*g, "memory_mib", number(static_cast<double>(g->memory_mib) / 1024.0)),
         mark(*g, "sms", fmt::format("{} {}", g->sms, vendor_info(g->vendor).compute_units)),
         mark(*g, "bf16_tflops", number(g->bf16_tflops)), g->fp8_tflops ? mark(*g, "fp8_tflops", number(*g->fp8_tflops)) : "-",
         mark(*g, "fp32_tflops", number(g->fp32_tflops)),
         mark(*g, "memory_bandwidth_gb_per_s", number(g->memory_bandwidth_gb_per_s)), mark(*g, "tdp_w", number(g->tdp_w)),
         g->link_gb_per_s > 0
             ? mark(*g, fabric_fields(g->fabric()).bandwidth, fmt::format("{:g} {} ({})", g->link_gb_per_s, fabric, g->links))
             : "-",
         fmt::format("Gen{}", g->pcie_gen),
         g->vendor == Vendor::nvidia ? mark(*g, "compute_capability", fmt::format("{:.1f}", g->compute_capability)) : "-",
         partitioning(*g)});
    for (const ThroughputClass* t : classes) rows.back().push_back(ratio_text(c.throughput(*t, *g)));
  }
  std::vector<TextColumn> columns{{"name"},
                                  {"vendor"},
                                  {"aliases"},
                                  {"memory GB", true},
                                  {"compute units", true},
                                  {"BF16 TFLOPS", true},
                                  {"FP8 TFLOPS", true},
                                  {"FP32 TFLOPS", true},
                                  {"mem BW GB/s", true},
                                  {"TDP W", true},
                                  {"scale-up GB/s (links)", true},
                                  {"PCIe"},
                                  {"CC", true},
                                  {"partitions"}};
  for (const ThroughputClass* t : classes) columns.push_back({fmt::format("{} x", t->name), true});
  std::string out = fmt::format("GPU models ({})\n\n", s.gpus.size());
  out += aligned_table(columns, rows);
  out += "\n  BF16, FP8: dense tensor peaks (FP16 on T4, V100, P100); scale-up: NVLink, xGMI or Gaudi's RoCE ports, "
         "bidirectional total per GPU;\n"
         "  CC: CUDA compute capability; partitions: MIG's geometry, AMD's compute partition modes.\n";
  if (any_assumed) out += "  * assumed: no primary source confirms it (docs/hardware.md#gpu-peak-figures).\n";
  out += fmt::format(
      "  training x, inference x: throughput per GPU against {} for that class of work, measured (MLPerf, "
      "hardware/data/throughput.yaml);\n"
      "  (in parentheses) where no measurement lists the GPU: the ratio of the peak the class is bound by (compute: BF16, "
      "memory: bandwidth).\n"
      "  A job stated on GPU R runs on GPU G at x(G) / x(R) of its class; notebooks (interactive) at 1 "
      "(docs/hardware.md#job-speed).\n",
      c.throughput_reference().name);
  return out + partitions_text(s);
}

std::string nodes_table(const std::vector<const NodeTemplate*>& nodes) {
  std::vector<std::vector<std::string>> rows;
  for (const NodeTemplate* n : nodes) {
    const auto links = link_classes(n->topology);
    rows.push_back({n->name, number(n->gpus), n->gpu, links.empty() ? "-" : fmt::format("{}", fmt::join(links, ", ")),
                    number(n->topology.numa_nodes()), number(static_cast<double>(n->cpu_milli) / 1000.0),
                    number(static_cast<double>(n->memory_mib) / 1024.0),
                    n->network ? fmt::format("{} x {:g} Gb/s", n->network->nics, n->network->gbps_per_nic) : "-",
                    n->price_per_node_hour_usd ? usd(*n->price_per_node_hour_usd) : "-",
                    n->spot_price_per_node_hour_usd ? usd(*n->spot_price_per_node_hour_usd) : "-"});
  }
  return aligned_table({{"name"},
                        {"GPUs", true},
                        {"GPU model"},
                        {"GPU links"},
                        {"NUMA", true},
                        {"CPU cores", true},
                        {"memory GiB", true},
                        {"network"},
                        {"on-demand $/h", true},
                        {"spot $/h", true}},
                       rows);
}

std::string nodes_text(const Selection& s) {
  return fmt::format("Node templates ({})\n\n", s.nodes.size()) + nodes_table(s.nodes) +
         "\n  GPU links: the nvidia-smi topo -m classes between its GPUs (gpusim topo NAME prints the matrix).\n";
}

std::string prices_text(const Selection& s) {
  std::vector<std::vector<std::string>> rows;
  for (const NodeTemplate* n : s.nodes) {
    const auto& od = n->price_per_node_hour_usd;
    const auto& spot = n->spot_price_per_node_hour_usd;
    const auto per_gpu = [&](double v) { return usd(v / n->gpus); };
    rows.push_back({n->name, fmt::format("{} x {}", n->gpus, n->gpu), od ? usd(*od) : "-", od ? per_gpu(*od) : "-",
                    od ? with_commas(*od * kHoursPerMonth, 0) : "-", spot ? usd(*spot) : "-", spot ? per_gpu(*spot) : "-",
                    od && spot ? fmt::format("{:.0f}%", 100.0 * (1.0 - *spot / *od)) : "-"});
  }
  std::string out = fmt::format("Prices ({} node templates; USD, on-demand list price and typical spot price)\n\n",
                                s.nodes.size());
  out += aligned_table({{"node template"},
                        {"GPUs"},
                        {"on-demand $/h", true},
                        {"$/GPU-h", true},
                        {"$/month", true},
                        {"spot $/h", true},
                        {"spot $/GPU-h", true},
                        {"spot discount", true}},
                       rows);
  const SpotModel& spot = ExecutionModel::builtin().spot;
  std::vector<std::string> notices;
  for (const auto& [provider, d] : spot.notice) notices.push_back(fmt::format("{} {:g} s", provider, d.seconds()));
  out += fmt::format(
      "\n  Markets: an on-demand pool pays the on-demand price; a reserved pool pays it whether used or not; a spot\n"
      "  pool pays the spot price and loses nodes with a reclaim notice ({}; default provider {}).\n"
      "  A month is {:g} h. A scenario's pool may set its own price. Sources: docs/hardware.md#prices-and-spot-behaviour.\n",
      fmt::join(notices, ", "), spot.provider, kHoursPerMonth);
  return out;
}

std::string mig_summary_text(const Selection& s) {
  std::vector<std::vector<std::string>> rows;
  for (const GpuModel* g : s.mig) {
    std::vector<std::string> names;
    for (const MigProfile& p : g->mig->profiles) names.push_back(p.name);
    rows.push_back({g->name, g->mig->geometry, fmt::format("{}", fmt::join(names, " ")), all_balanced(*g)});
  }
  return fmt::format("MIG ({} models; every generated config: gpusim catalog mig --gpu MODEL)\n\n", s.mig.size()) +
         aligned_table({{"GPU model"}, {"geometry"}, {"profiles"}, {"all-balanced"}}, rows);
}

std::string mig_model_text(const GpuModel& g) {
  const MigTable& t = *g.mig;
  std::string out = fmt::format("{}: {} geometry, {} memory slices, {} compute slices (placements: gpusim mig {})\n\n", g.name,
                                t.geometry, t.memory_slices, t.compute_slices, g.name);
  std::vector<std::vector<std::string>> rows;
  for (const MigProfile& p : t.profiles)
    rows.push_back({p.assumed ? p.name + "*" : p.name, number(static_cast<double>(p.memory_mib)), number(p.sms),
                    fmt::format("{}/{}", p.compute_slices, p.memory_slices), number(p.max_count)});
  out += aligned_table({{"profile"}, {"memory MiB", true}, {"SMs", true}, {"compute/memory slices", true}, {"max", true}}, rows);
  rows.clear();
  for (const NamedMigConfig& c : mig_configs(g)) rows.push_back({c.name, config_layout(t, c), config_placement(t, c)});
  out += "\n" + aligned_table({{"config"}, {"expands to"}, {"placement (profile@start)"}}, rows);
  if (std::any_of(t.profiles.begin(), t.profiles.end(), [](const MigProfile& p) { return p.assumed; }))
    out += "\n  * assumed: no primary source confirms it (docs/hardware.md#mig-profiles-per-gpu).\n";
  return out;
}

std::string mig_text(const Selection& s) {
  std::string out;
  for (const GpuModel* g : s.mig) out += (out.empty() ? "" : "\n") + mig_model_text(*g);
  if (s.mig.empty()) out = "MIG: no MIG-capable model matches\n";
  return out;
}

// The served models whose name or alias holds the filter, in catalog order.
std::vector<const ServedModel*> select_models(const CatalogQuery& q) {
  std::vector<const ServedModel*> out;
  for (const ServedModel& m : ModelCatalog::builtin().models())
    if (matches(q.filter, {m.name}, m.aliases)) out.push_back(&m);
  return out;
}

std::string models_text(const std::vector<const ServedModel*>& models) {
  std::vector<std::vector<std::string>> llm, fixed;
  for (const ServedModel* m : models) {
    const std::string params = fmt::format("{:.1f}", static_cast<double>(m->params) / 1e9);
    const std::string weights = fmt::format("{:.1f}", m->weights_bytes() / 1e9);
    if (m->kind == ModelKind::fixed) {
      fixed.push_back({m->name, params, weights, fmt::format("{:.2f} ms", m->service_time.seconds() * 1000), m->reference_gpu,
                       number(m->max_batch), fmt::format("{:g}", m->batch_alpha)});
      continue;
    }
    llm.push_back({m->name, params, number(m->layers), number(m->heads), number(m->kv_heads), number(m->head_dim),
                   number(m->dtype_bytes), weights, with_commas(m->kv_bytes_per_token() / 1024.0, 0),
                   with_commas(m->max_model_len, 0)});
  }
  std::string out = fmt::format("Served models ({}; a service's model:, a scenario adds its own under models:)\n\n",
                                models.size());
  if (!llm.empty())
    out += aligned_table({{"LLM (vLLM)"},
                          {"params B", true},
                          {"layers", true},
                          {"heads", true},
                          {"KV heads", true},
                          {"head dim", true},
                          {"bytes", true},
                          {"weights GB", true},
                          {"KV KiB/token", true},
                          {"max len", true}},
                         llm);
  if (!fixed.empty())
    out += (llm.empty() ? "" : "\n") + aligned_table({{"fixed-time (Triton)"},
                                                      {"params B", true},
                                                      {"weights GB", true},
                                                      {"batch of 1", true},
                                                      {"on"},
                                                      {"max batch", true},
                                                      {"batch alpha", true}},
                                                     fixed);
  out += "\n  bytes: per weight and KV element; KV KiB/token: one token's KV cache on one GPU; max len: max_model_len, the "
         "context a\n"
         "  request must fit. Sources: workloads/data/models.yaml (each entry's source), docs/serving.md.\n";
  return out;
}

// --- JSON ----------------------------------------------------------------------------------------

Json optional_json(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

Json partitions_json(const PartitionModes& m) {
  Json compute = Json::array(), memory = Json::array();
  for (const PartitionModes::Compute& c : m.compute) compute.push_back({{"mode", c.mode}, {"partitions", c.partitions}});
  for (const PartitionModes::Memory& x : m.memory)
    memory.push_back({{"mode", x.mode}, {"numa_nodes", x.numa_nodes}, {"compute", x.compute}});
  return {{"xcds", m.xcds}, {"compute", compute}, {"memory", memory}, {"source", m.source}};
}

Json gpu_json(const Catalog& c, const GpuModel& g) {
  Json throughput = Json::object();
  for (const ThroughputClass* t : ratio_classes(c)) {
    const ThroughputRatio r = c.throughput(*t, g);
    throughput[t->name] = {{"ratio", r.value}, {"measured", r.measured}};
  }
  const FabricFields& fabric = fabric_fields(g.fabric());
  return {{"name", g.name},
          {"vendor", to_string(g.vendor)},
          {"aliases", g.aliases},
          {"device_resource", vendor_info(g.vendor).device_resource},
          {"memory_mib", g.memory_mib},
          {"sms", g.sms},
          {"bf16_tflops", g.bf16_tflops},
          {"fp8_tflops", optional_json(g.fp8_tflops)},
          {"fp32_tflops", g.fp32_tflops},
          {"memory_bandwidth_gb_per_s", g.memory_bandwidth_gb_per_s},
          {"tdp_w", g.tdp_w},
          {fabric.bandwidth, g.link_gb_per_s},
          {fabric.links, g.links},
          {"pcie_gen", g.pcie_gen},
          {"compute_capability", g.vendor == Vendor::nvidia ? Json(g.compute_capability) : Json(nullptr)},
          {"mig", g.has_mig() ? Json(g.mig->geometry) : Json(nullptr)},
          {"partitions", g.partitions ? partitions_json(*g.partitions) : Json(nullptr)},
          {"throughput", std::move(throughput)},
          {"assumed", g.assumed},
          {"source", g.source}};
}

Json node_json(const NodeTemplate& n) {
  return {{"name", n.name},
          {"gpu", n.gpu},
          {"gpus", n.gpus},
          {"cpu_milli", n.cpu_milli},
          {"memory_mib", n.memory_mib},
          {"topology",
           {{"links", link_classes(n.topology)}, {"numa_nodes", n.topology.numa_nodes()}, {"source", n.topology.source()}}},
          {"network", n.network ? Json{{"nics", n.network->nics}, {"gbps_per_nic", n.network->gbps_per_nic}} : Json(nullptr)},
          {"price_per_node_hour_usd", optional_json(n.price_per_node_hour_usd)},
          {"spot_price_per_node_hour_usd", optional_json(n.spot_price_per_node_hour_usd)},
          {"source", n.source}};
}

Json price_json(const NodeTemplate& n) {
  const auto& od = n.price_per_node_hour_usd;
  const auto& spot = n.spot_price_per_node_hour_usd;
  const auto per_gpu = [&](const std::optional<double>& v) { return v ? Json(*v / n.gpus) : Json(nullptr); };
  return {{"node", n.name},
          {"gpu", n.gpu},
          {"gpus", n.gpus},
          {"on_demand_per_node_hour_usd", optional_json(od)},
          {"on_demand_per_gpu_hour_usd", per_gpu(od)},
          {"on_demand_per_month_usd", od ? Json(*od * kHoursPerMonth) : Json(nullptr)},
          {"spot_per_node_hour_usd", optional_json(spot)},
          {"spot_per_gpu_hour_usd", per_gpu(spot)},
          {"spot_discount", od && spot ? Json(1.0 - *spot / *od) : Json(nullptr)}};
}

Json model_json(const ServedModel& m) {
  Json j = {{"name", m.name},
            {"aliases", m.aliases},
            {"kind", to_string(m.kind)},
            {"params", m.params},
            {"weights_bytes", m.weights_bytes()},
            {"dtype_bytes", m.dtype_bytes},
            {"source", m.source},
            {"assumed", m.assumed}};
  if (m.kind == ModelKind::fixed) {
    j["service_time_s"] = m.service_time.seconds();
    j["reference_gpu"] = m.reference_gpu;
    j["max_batch"] = m.max_batch;
    j["batch_alpha"] = m.batch_alpha;
  } else {
    j["layers"] = m.layers;
    j["hidden"] = m.hidden;
    j["heads"] = m.heads;
    j["kv_heads"] = m.kv_heads;
    j["head_dim"] = m.head_dim;
    j["max_model_len"] = m.max_model_len;
    j["kv_bytes_per_token"] = m.kv_bytes_per_token();
  }
  return j;
}

Json mig_json(const GpuModel& g) {
  const MigTable& t = *g.mig;
  Json profiles = Json::array();
  for (const MigProfile& p : t.profiles)
    profiles.push_back({{"name", p.name},
                        {"memory_mib", p.memory_mib},
                        {"sms", p.sms},
                        {"compute_slices", p.compute_slices},
                        {"memory_slices", p.memory_slices},
                        {"max_count", p.max_count},
                        {"assumed", p.assumed}});
  Json configs = Json::array();
  for (const NamedMigConfig& c : mig_configs(g)) {
    Json counts = Json::object();
    for (std::size_t i = 0; i < c.counts.size(); ++i)
      if (c.counts[i] > 0) counts[t.profiles[i].name] = c.counts[i];
    Json instances = Json::array();
    if (c.placement)
      for (const MigInstance& in : *c.placement)
        instances.push_back({{"profile", t.profiles[in.profile].name}, {"start", in.start}});
    configs.push_back({{"name", c.name},
                       {"mig_enabled", c.enabled},
                       {"layout", config_layout(t, c)},
                       {"counts", std::move(counts)},
                       {"instances", std::move(instances)}});
  }
  return {{"gpu", g.name},
          {"geometry", t.geometry},
          {"memory_slices", t.memory_slices},
          {"compute_slices", t.compute_slices},
          {"profiles", std::move(profiles)},
          {"configs", std::move(configs)}};
}

bool shows(CatalogView view, CatalogView section) { return view == CatalogView::all || view == section; }

}  // namespace

CatalogView parse_catalog_view(std::string_view name) {
  if (const auto v = parse_enum<CatalogView>(name)) return *v;
  throw InputError({"", std::nullopt, "VIEW"},
                   fmt::format("unknown catalog view '{}'; expected {}", name, enum_choices<CatalogView>(" or ")));
}

std::string catalog_text(const Catalog& catalog, const CatalogQuery& q) {
  const Selection s = select_entries(catalog, q);
  std::vector<std::string> sections;
  if (shows(q.view, CatalogView::gpus)) sections.push_back(gpus_text(catalog, s));
  if (shows(q.view, CatalogView::nodes)) sections.push_back(nodes_text(s));
  if (shows(q.view, CatalogView::prices)) sections.push_back(prices_text(s));
  if (q.view == CatalogView::all) sections.push_back(mig_summary_text(s));
  if (q.view == CatalogView::mig) sections.push_back(mig_text(s));
  if (q.view == CatalogView::models) sections.push_back(models_text(select_models(q)));
  std::string out = fmt::format("{}", fmt::join(sections, "\n"));
  if (q.view == CatalogView::all)
    out += "\nEvery value's source: docs/hardware.md (gpusim catalog --json gives each entry's `source`).\n";
  return out;
}

Json catalog_json(const Catalog& catalog, const CatalogQuery& q) {
  const Selection s = select_entries(catalog, q);
  Json out = Json::object();
  // One section per view the query shows: its entries, each as `to_json` gives it.
  const auto section = [&](CatalogView view, const char* key, const auto& entries, const auto& to_json) {
    if (!shows(q.view, view)) return;
    out[key] = Json::array();
    for (const auto* e : entries) out[key].push_back(to_json(*e));
  };
  section(CatalogView::gpus, "gpus", s.gpus, [&](const GpuModel& g) { return gpu_json(catalog, g); });
  section(CatalogView::nodes, "nodes", s.nodes, node_json);
  section(CatalogView::prices, "prices", s.nodes, price_json);
  section(CatalogView::mig, "mig", s.mig, mig_json);
  if (q.view == CatalogView::models) section(CatalogView::models, "models", select_models(q), model_json);
  return out;
}

std::string node_templates_text(const Catalog& catalog) {
  std::vector<const NodeTemplate*> nodes;
  for (const NodeTemplate& n : catalog.nodes()) nodes.push_back(&n);
  return nodes_table(nodes);
}

}  // namespace gpusim::cli
