#include "gpusim/hardware/topology.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "gpusim/hardware/catalog.hpp"

namespace gpusim {

std::string link_code(const Link& link) {
  if (link.cls == LinkClass::nvlink) return fmt::format("{}{}", to_string(link.cls), link.links);
  return std::string(to_string(link.cls));
}

double pcie_x16_gb_per_s(int generation) {
  switch (generation) {
    case 3: return 15.75;
    case 4: return 31.5;
    case 5: return 63.0;
  }
  return 0;
}

const Section& network_section() {
  static const Section s{"network",
                         "A node's network: the NICs that carry the traffic of jobs spanning nodes",
                         {
                             {"nics", Type::int32().at_least(1), required, "", "Compute NICs per node"},
                             {"gbps_per_nic", Type::number().above(0), required, "Gb/s", "Line rate of each NIC"},
                             source_field(),
                         }};
  return s;
}

NetworkSpec NetworkSpec::parse(const ConfigNode& node) {
  const Fields n = network_section().read(node);
  NetworkSpec s;
  s.nics = n.integer<int>("nics");
  s.gbps_per_nic = n.number("gbps_per_nic");
  return s;
}

namespace {
Type fabric_links() { return Type::one_of({Type::choice({"all"}), Type::list(Type::list(Type::int32().at_least(0)))}); }
}  // namespace

const Section& topology_section() {
  static const Section s{
      "topology",
      "How a node template's GPUs are linked, as nvidia-smi topo -m classifies them",
      {
          {"pcie", Type::list(Type::string("^[^/]+(/[^/]+)+$")), required, "",
           "Each GPU's PCIe path, outermost first: NUMA-node/host-bridge[/switch...], e.g. cpu0/rc0/sw0"},
          {"nvlink", fabric_links(), "", "", "all (an NVSwitch fabric) or bonded [gpu, gpu, links] pairs; absent: no NVLink"},
          {"xgmi", fabric_links(), "", "",
           "AMD Infinity Fabric: all (a full mesh of direct links) or bonded [gpu, gpu, links] pairs"},
          {"roce", fabric_links(), "", "",
           "Intel Gaudi's scale-up RoCE ports: all (a full mesh of direct links) or bonded [gpu, gpu, links] pairs"},
          {"inter_socket_gb_per_s", Type::number().above(0), "", "GB/s",
           "GPU-to-GPU bandwidth across sockets (SYS); needed when the GPUs span NUMA nodes"},
          {"pcie_gen", Type::integer().at_least(3).at_most(5), "", "",
           "PCIe generation of the GPUs' host links; default: the GPU model's"},
          source_field(required),
      }};
  return s;
}

namespace {

std::vector<std::string> split_path(const ConfigNode& n) {
  const std::string text = n.as_string();
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto slash = text.find('/', start);
    parts.push_back(text.substr(start, slash == std::string::npos ? std::string::npos : slash - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  if (parts.size() < 2 || std::any_of(parts.begin(), parts.end(), [](const std::string& p) { return p.empty(); }))
    n.fail(fmt::format("expected NUMA-node/host-bridge[/switch...], e.g. cpu0/rc0/sw0, got '{}'", text));
  return parts;
}

// nvidia-smi's classification of the PCIe path between two GPUs.
LinkClass pcie_class(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  if (a[0] != b[0]) return LinkClass::sys;
  if (a[1] != b[1]) return LinkClass::node;
  std::size_t common = 0;
  while (2 + common < a.size() && 2 + common < b.size() && a[2 + common] == b[2 + common]) ++common;
  if (common == 0) return LinkClass::phb;
  if (a.size() == 2 + common && b.size() == 2 + common) return LinkClass::pix;
  return LinkClass::pxb;
}

}  // namespace

NodeTopology NodeTopology::parse(const ConfigNode& node, const GpuModel& gpu, int gpus) {
  const Fields n = topology_section().read(node);
  if (gpus > kMaxGpus) n.fail(fmt::format("at most {} GPUs per node are supported", kMaxGpus));
  NodeTopology t;
  t.gpus_ = gpus;
  t.source_ = n.at("source").as_string();
  const auto paths_node = n.at("pcie");
  const auto items = paths_node.items();
  if (static_cast<int>(items.size()) != gpus)
    paths_node.fail(fmt::format("expected one PCIe path per GPU ({}), got {}", gpus, items.size()));
  std::vector<std::vector<std::string>> paths;
  paths.reserve(items.size());
  for (const auto& i : items) paths.push_back(split_path(i));
  const int gen = n.has("pcie_gen") ? n.integer<int>("pcie_gen") : gpu.pcie_gen;
  if (pcie_x16_gb_per_s(gen) == 0)
    (n.has("pcie_gen") ? n.at("pcie_gen") : n.node()).fail(fmt::format("expected PCIe generation 3, 4 or 5, got {}", gen));
  const double pcie = pcie_x16_gb_per_s(gen);

  for (const auto& p : paths) {
    if (std::find(t.numa_labels_.begin(), t.numa_labels_.end(), p[0]) == t.numa_labels_.end()) t.numa_labels_.push_back(p[0]);
    t.numa_.push_back(static_cast<int>(std::find(t.numa_labels_.begin(), t.numa_labels_.end(), p[0]) - t.numa_labels_.begin()));
  }
  t.numa_nodes_ = static_cast<int>(t.numa_labels_.size());
  double inter_socket = 0;
  if (auto s = n.get("inter_socket_gb_per_s")) {
    inter_socket = s->as_number(n.range("inter_socket_gb_per_s"));
  } else if (t.numa_nodes_ > 1) {
    n.fail("the GPUs span NUMA nodes: give inter_socket_gb_per_s, the GPU-to-GPU bandwidth across sockets (SYS)");
  }

  t.links_.assign(pair_index(gpus, 0, gpus), Link{});
  for (int a = 0; a < gpus; ++a)
    for (int b = 0; b < gpus; ++b) {
      Link& l = t.links_[pair_index(a, b, gpus)];
      if (a == b) {
        l = {LinkClass::self, 0, std::numeric_limits<double>::infinity()};
        continue;
      }
      l.cls = pcie_class(paths[static_cast<std::size_t>(a)], paths[static_cast<std::size_t>(b)]);
      l.gb_per_s = l.cls == LinkClass::sys ? std::min(pcie, inter_socket) : pcie;
    }

  const Fabric fabric = gpu.fabric();
  for (Fabric other : {Fabric::nvlink, Fabric::xgmi, Fabric::roce})
    if (other != fabric && n.has(to_string(other)))
      n.at(to_string(other)).fail(fmt::format("{} is linked by {}, not {}", gpu.name, to_string(fabric), to_string(other)));
  if (auto nv = n.get(to_string(fabric))) {
    if (gpu.links == 0) nv->fail(fmt::format("{} has no {} links", gpu.name, to_string(fabric)));
    const double per_link = gpu.link_gb_per_s / 2.0 / gpu.links;  // per direction
    const LinkClass cls = fabric == Fabric::nvlink ? LinkClass::nvlink
                          : fabric == Fabric::xgmi ? LinkClass::xgmi
                                                   : LinkClass::roce;
    const auto bond = [&](int a, int b, int links) {
      for (auto [x, y] : {std::pair{a, b}, std::pair{b, a}}) t.links_[pair_index(x, y, gpus)] = {cls, links, per_link * links};
    };
    if (nv->is_scalar()) {
      if (nv->as_string() != "all") nv->fail("expected all or a list of [gpu, gpu, links]");
      // NVSwitch: every pair at a GPU's full NVLink bandwidth. A mesh: each GPU's links shared out
      // evenly over its peers (MI300X: 7 xGMI links, one per peer; Gaudi: 21 RoCE ports, three per peer).
      int per_pair = gpu.links;
      if (fabric != Fabric::nvlink && gpus > 1) {
        per_pair = gpu.links / (gpus - 1);
        if (per_pair == 0)
          nv->fail(fmt::format("a full mesh of {} GPUs needs {} links per GPU; {} has {}", gpus, gpus - 1, gpu.name, gpu.links));
      }
      for (int a = 0; a < gpus; ++a)
        for (int b = a + 1; b < gpus; ++b) bond(a, b, per_pair);
    } else {
      std::vector<int> used(static_cast<std::size_t>(gpus), 0);
      for (const auto& e : nv->items()) {
        const auto v = e.items();
        if (v.size() != 3) e.fail("expected [gpu, gpu, links]");
        const Range r = n.range(to_string(fabric));
        const int a = v[0].as_int<int>(r), b = v[1].as_int<int>(r), links = v[2].as_int<int>({Bound(1), r.maximum});
        if (a >= gpus || b >= gpus || a == b) e.fail(fmt::format("expected two different GPUs below {}", gpus));
        used[static_cast<std::size_t>(a)] += links;
        used[static_cast<std::size_t>(b)] += links;
        if (used[static_cast<std::size_t>(a)] > gpu.links || used[static_cast<std::size_t>(b)] > gpu.links)
          e.fail(fmt::format("{} has {} {} links per GPU; this bonds more", gpu.name, gpu.links, to_string(fabric)));
        bond(a, b, links);
      }
    }
  }
  t.finish();
  return t;
}

NodeTopology NodeTopology::single_host_bridge(const GpuModel& gpu, int gpus) {
  NodeTopology t;
  t.gpus_ = std::min(gpus, kMaxGpus);
  t.source_ = fmt::format("no topology given: all GPUs behind one PCIe Gen{} host bridge (PHB)", gpu.pcie_gen);
  t.numa_.assign(static_cast<std::size_t>(t.gpus_), 0);
  t.numa_labels_ = {"cpu0"};
  t.numa_nodes_ = 1;
  t.links_.assign(pair_index(t.gpus_, 0, t.gpus_), Link{LinkClass::phb, 0, pcie_x16_gb_per_s(gpu.pcie_gen)});
  for (int a = 0; a < t.gpus_; ++a)
    t.links_[pair_index(a, a, t.gpus_)] = {LinkClass::self, 0, std::numeric_limits<double>::infinity()};
  t.finish();
  return t;
}

int NodeTopology::numa_span(uint32_t mask) const {
  int span = 0;
  for (uint32_t m : numa_masks_) span += (m & mask) != 0;
  return span;
}

void NodeTopology::finish() {
  numa_masks_.assign(static_cast<std::size_t>(numa_nodes_), 0);
  for (int g = 0; g < gpus_; ++g) numa_masks_[static_cast<std::size_t>(numa_[static_cast<std::size_t>(g)])] |= 1u << g;
  uniform_ = true;
  for (int a = 0; a < gpus_; ++a)
    for (int b = 0; b < gpus_; ++b)
      if (a != b && (link(a, b).cls != link(0, 1).cls || link(a, b).gb_per_s != link(0, 1).gb_per_s)) uniform_ = false;
  subsets_.assign(static_cast<std::size_t>(gpus_) + 1, {});
  ring_.clear();
  if (gpus_ > kPrecomputeGpus) return;
  const uint32_t all = gpus_ == 32 ? ~0u : (1u << gpus_) - 1;
  ring_.resize(static_cast<std::size_t>(all) + 1);
  for (uint32_t mask = 1; mask <= all; ++mask) {
    ring_[mask] = compute_ring(mask);
    subsets_[static_cast<std::size_t>(std::popcount(mask))].push_back(mask);
  }
  for (auto& list : subsets_)
    std::stable_sort(list.begin(), list.end(), [&](uint32_t a, uint32_t b) {
      if (ring_[a].gb_per_s != ring_[b].gb_per_s) return ring_[a].gb_per_s > ring_[b].gb_per_s;
      return numa_span(a) < numa_span(b);
    });
}

Link NodeTopology::ring_bottleneck(uint32_t mask) const {
  if (!ring_.empty()) return ring_[mask];
  return compute_ring(mask);
}

// The best ring maximises its slowest link: the largest bandwidth T such that the links of at least
// T contain a Hamiltonian cycle through the GPUs (bitmask DP; up to kPrecomputeGpus GPUs). Larger
// sets take their slowest pair, a lower bound.
Link NodeTopology::compute_ring(uint32_t mask) const {
  std::vector<int> ids;
  for (int g = 0; g < gpus_; ++g)
    if (mask >> g & 1) ids.push_back(g);
  const int k = static_cast<int>(ids.size());
  if (k <= 1) return {LinkClass::self, 0, std::numeric_limits<double>::infinity()};
  Link worst = link(ids[0], ids[1]);
  bool mesh = true;
  for (int a = 0; a < k; ++a)
    for (int b = a + 1; b < k; ++b) {
      const Link& l = link(ids[a], ids[b]);
      if (l.gb_per_s < worst.gb_per_s) worst = l;
      mesh = mesh && (l.cls == LinkClass::xgmi || l.cls == LinkClass::roce);
    }
  if (mesh) {
    // Direct links to every peer: a collective sends to all of them at once (its reduce-scatter and
    // all-gather a chunk per peer), so each GPU's bandwidth is the sum of its links into the set.
    Link least{worst.cls, 0, std::numeric_limits<double>::infinity()};
    for (int a = 0; a < k; ++a) {
      Link sum{worst.cls, 0, 0};
      for (int b = 0; b < k; ++b)
        if (b != a) {
          sum.links += link(ids[a], ids[b]).links;
          sum.gb_per_s += link(ids[a], ids[b]).gb_per_s;
        }
      if (sum.gb_per_s < least.gb_per_s) least = sum;
    }
    return least;
  }
  if (k <= 3 || k > kPrecomputeGpus) return worst;
  std::vector<Link> candidates;
  for (int a = 0; a < k; ++a)
    for (int b = a + 1; b < k; ++b) candidates.push_back(link(ids[a], ids[b]));
  // Among equal bandwidths the worse class names the bottleneck.
  std::sort(candidates.begin(), candidates.end(), [](const Link& x, const Link& y) {
    return x.gb_per_s != y.gb_per_s ? x.gb_per_s > y.gb_per_s : x.cls > y.cls;
  });
  const std::size_t full = (std::size_t{1} << k) - 1;
  std::vector<uint32_t> reach(full + 1);  // reach[set] = ends of paths from ids[0] covering set
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    const Link& threshold = candidates[c];
    if (c > 0 && candidates[c - 1].gb_per_s == threshold.gb_per_s) continue;
    std::fill(reach.begin(), reach.end(), 0u);
    reach[1] = 1;
    for (std::size_t set = 1; set <= full; ++set) {
      if (!(set & 1) || !reach[set]) continue;
      for (int end = 0; end < k; ++end) {
        if (!(reach[set] >> end & 1)) continue;
        for (int next = 1; next < k; ++next)
          if (!(set >> next & 1) && link(ids[end], ids[next]).gb_per_s >= threshold.gb_per_s)
            reach[set | std::size_t{1} << next] |= 1u << next;
      }
    }
    for (int end = 1; end < k; ++end)
      if (reach[full] >> end & 1 && link(ids[end], ids[0]).gb_per_s >= threshold.gb_per_s) return threshold;
  }
  return worst;
}

}  // namespace gpusim
