// The subcommands that read the hardware catalog: mig (profiles, layouts, mig-parted files) and topo.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "catalog.hpp"
#include "commands.hpp"
#include "gpusim/core/error.hpp"
#include "gpusim/core/json.hpp"
#include "gpusim/hardware/catalog.hpp"
#include "gpusim/hardware/mig.hpp"

namespace gpusim::cli {

namespace {

Json layout_json(const MigTable& t, const MigLayoutOption& o) {
  Json instances = Json::array();
  for (const MigInstance& in : o.placement) instances.push_back({{"profile", t.profiles[in.profile].name}, {"start", in.start}});
  return {{"layout", mig_describe(t, o.counts)}, {"maximal", o.maximal}, {"instances", std::move(instances)}};
}

}  // namespace

// gpusim mig MODEL [--layouts [--maximal]] [--json]
int cmd_mig(const std::string& name, bool layouts, bool maximal_only, bool json) {
  const GpuModel& g = require_mig_model(Catalog::builtin(), name);
  const MigTable& t = *g.mig;
  if (!layouts) {
    if (json) {
      Json profiles = Json::array();
      for (const MigProfile& p : t.profiles)
        profiles.push_back({{"name", p.name},
                            {"profile_id", p.profile_id ? Json(*p.profile_id) : Json(nullptr)},
                            {"memory_mib", p.memory_mib},
                            {"sms", p.sms},
                            {"compute_slices", p.compute_slices},
                            {"memory_slices", p.memory_slices},
                            {"starts", p.starts},
                            {"max_count", p.max_count},
                            {"media_extensions", p.media_extensions}});
      std::cout << Json{{"gpu", g.name},
                        {"memory_slices", t.memory_slices},
                        {"compute_slices", t.compute_slices},
                        {"profiles", std::move(profiles)}}
                       .dump(2)
                << '\n';
      return 0;
    }
    std::cout << fmt::format("{}: {} memory slices, {} compute slices, {} SMs, {} MiB ({})\n\n", g.name, t.memory_slices,
                             t.compute_slices, g.sms, g.memory_mib, g.source);
    std::cout << fmt::format("  {:<12} {:>3} {:>10} {:>5} {:>8} {:>8} {:>14} {:>5}\n", "profile", "id", "memory MiB", "SMs",
                             "compute", "memory", "starts", "max");
    for (const MigProfile& p : t.profiles)
      std::cout << fmt::format("  {:<12} {:>3} {:>10} {:>5} {:>8} {:>8} {:>14} {:>5}\n", p.name,
                               p.profile_id ? fmt::format("{}", *p.profile_id) : "-", p.memory_mib, p.sms, p.compute_slices,
                               p.memory_slices, fmt::format("{{{}}}", fmt::join(p.starts, ",")), p.max_count);
    std::cout << "\n  compute/memory: slices one instance takes; starts: first memory slice it may occupy.\n"
                 "  At most one +me instance per GPU"
              << (t.allows_4g_with_3g ? "" : "; 4g and 3g cannot be combined (pre-R510)") << ".\n";
    return 0;
  }
  const auto all = mig_enumerate(t);
  std::size_t maximal = 0;
  for (const auto& o : all) maximal += o.maximal;
  if (json) {
    Json out = Json::array();
    for (const auto& o : all)
      if (!maximal_only || o.maximal) out.push_back(layout_json(t, o));
    std::cout << Json{{"gpu", g.name}, {"layouts", all.size()}, {"maximal", maximal}, {"items", std::move(out)}}.dump(2) << '\n';
    return 0;
  }
  std::cout << fmt::format("{}: {} valid layouts, {} of them maximal (no further instance fits){}\n\n", g.name, all.size(),
                           maximal, maximal_only ? "; showing the maximal ones" : "; * = maximal");
  for (const auto& o : all) {
    if (maximal_only && !o.maximal) continue;
    std::string where;
    for (const MigInstance& in : o.placement) where += fmt::format(" {}@{}", t.profiles[in.profile].name, in.start);
    std::cout << fmt::format("  {} {:<44} {}\n", o.maximal ? '*' : ' ', mig_describe(t, o.counts), where);
  }
  return 0;
}

// gpusim mig validate FILE --node TEMPLATE: every config of a mig-parted file against a node.
int cmd_mig_validate(const std::string& file, const std::string& node) {
  const NodeTemplate* t = Catalog::builtin().find_node(node);
  if (!t) throw InputError({"", std::nullopt, "--node"}, fmt::format("unknown node template '{}'", node));
  const GpuModel& g = *Catalog::builtin().find_gpu(t->gpu);
  const auto report = mig_check_file(ConfigNode::load_file(file), g, t->gpus);
  for (const auto& cfg : report.valid) {
    std::vector<std::string> gpus;
    for (std::size_t i = 0; i < cfg.per_gpu.size(); ++i)
      gpus.push_back(cfg.per_gpu[i]
                         ? fmt::format("{}: {}", i, g.mig ? mig_describe(*g.mig, mig_counts(*g.mig, *cfg.per_gpu[i])) : "")
                         : fmt::format("{}: MIG off", i));
    std::cout << fmt::format("ok   {}: {}\n", cfg.name, fmt::join(gpus, "; "));
  }
  for (const auto& p : report.problems) std::cout << fmt::format("FAIL {}\n", p);
  std::cout << fmt::format("{}: {} of {} configs fit node {} ({} x {})\n", file, report.valid.size(),
                           report.valid.size() + report.problems.size(), t->name, t->gpus, g.name);
  return report.problems.empty() ? 0 : 2;
}

// gpusim topo TEMPLATE: the GPU link matrix as `nvidia-smi topo -m` prints it (same codes and
// legend), then the bandwidths and the network. Without a template: the templates it knows.
int cmd_topo(const std::string& name, const std::optional<std::string>& scenario) {
  Catalog catalog = Catalog::builtin();
  if (scenario) {
    const Scenario s = load_scenario(*scenario, {});
    catalog = *s.catalog;
  }
  if (name.empty()) {
    std::cout << "Node templates (gpusim topo NAME prints one's GPU link matrix):\n\n" << cli::node_templates_text(catalog);
    return 0;
  }
  const NodeTemplate* t = catalog.find_node(name);
  if (!t) {
    std::vector<std::string> known;
    for (const auto& n : catalog.nodes()) known.push_back(n.name);
    throw InputError({"", std::nullopt, "NODE_TEMPLATE"},
                     fmt::format("unknown node template '{}'; known: {}", name, fmt::join(known, ", ")));
  }
  const NodeTopology& topo = t->topology;
  const int n = topo.gpus();
  const int64_t cores = t->cpu_milli / 1000;
  std::string out;
  for (int g = 0; g < n; ++g) out += fmt::format("\tGPU{}", g);
  out += "\tCPU Affinity\tNUMA Affinity\n";
  for (int a = 0; a < n; ++a) {
    out += fmt::format("GPU{}", a);
    for (int b = 0; b < n; ++b) out += a == b ? "\t X " : fmt::format("\t{}", link_code(topo.link(a, b)));
    // Cores split evenly over the NUMA nodes, in order.
    const int64_t per = cores / topo.numa_nodes(), numa = topo.numa_of(a);
    out += fmt::format("\t{}-{}\t{}\n", numa * per, (numa + 1) * per - 1, numa);
  }
  out += "\nLegend:\n\n"
         "  X    = Self\n"
         "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)\n"
         "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node\n"
         "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
         "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)\n"
         "  PIX  = Connection traversing at most a single PCIe bridge\n"
         "  NV#  = Connection traversing a bonded set of # NVLinks\n";
  // Other vendors' fabrics (rocm-smi --showtopotype's XGMI; Gaudi's scale-up RoCE ports).
  const Fabric fabric = catalog.find_gpu(t->gpu)->fabric();
  if (fabric == Fabric::xgmi) out += "  XGMI = Connection traversing AMD Infinity Fabric (xGMI) links\n";
  if (fabric == Fabric::roce) out += "  RoCE = Connection traversing Gaudi's on-chip RoCE scale-up ports\n";
  out += "\nBus bandwidth per direction (GB/s), as collectives see it:\n";
  for (int g = 0; g < n; ++g) out += fmt::format("\tGPU{}", g);
  out += '\n';
  for (int a = 0; a < n; ++a) {
    out += fmt::format("GPU{}", a);
    for (int b = 0; b < n; ++b) out += a == b ? "\t -" : fmt::format("\t{:g}", topo.link(a, b).gb_per_s);
    out += '\n';
  }
  // All of the node's GPUs in one collective: on a mesh, each GPU's links to the others together.
  const uint32_t all = n >= 32 ? ~0u : (1u << n) - 1;
  if (n > 1)
    out += fmt::format("\nA collective over all {} GPUs: {:g} GB/s per direction ({})\n", n, topo.ring_bottleneck(all).gb_per_s,
                       link_code(topo.ring_bottleneck(all)));
  out += fmt::format("\nNode {}: {} x {}; {}\n", t->name, n, t->gpu, topo.source());
  if (t->nvlink_domain_nodes > 0)
    out += fmt::format("NVLink domain: {} nodes of a rack ({} GPUs) on its NVLink switches, {:g} GB/s per GPU and direction\n",
                       t->nvlink_domain_nodes, t->nvlink_domain_nodes * n, catalog.find_gpu(t->gpu)->link_gb_per_s / 2);
  if (t->network)
    out += fmt::format("Network: {} x {:g} Gb/s NICs = {:g} GB/s per direction, shared by the node's multi-node jobs\n",
                       t->network->nics, t->network->gbps_per_nic, t->network->gb_per_s());
  else out += "Network: not described (give the pool a network: to run jobs across nodes with it)\n";
  std::cout << out;
  return 0;
}

}  // namespace gpusim::cli
