// Topology-aware placement: on one node, the GPU set whose best ring has the fastest slowest link
// (precomputed per node template), preferring nodes where that link is fastest, then best-fit;
// across nodes, the fewest nodes (the default). Composes with any queue order: fifo+topology.
#include <algorithm>
#include <bit>
#include <limits>
#include <numeric>

#include "builtin.hpp"

namespace gpusim::builtin {

namespace {

// The `count` GPUs of `fitting` (all on `node`) with the best ring, as a node-local mask.
uint32_t best_set(const NodeTopology& t, uint32_t fitting, int32_t count) {
  if (count >= std::popcount(fitting)) return fitting;
  for (uint32_t mask : t.best_subsets(count))
    if ((mask & ~fitting) == 0) return mask;
  // Nodes too large for the table: fill the NUMA nodes with most fitting GPUs first.
  std::vector<int> numa(static_cast<std::size_t>(t.numa_nodes()));
  std::iota(numa.begin(), numa.end(), 0);
  std::stable_sort(numa.begin(), numa.end(), [&](int a, int b) {
    return std::popcount(fitting & t.numa_mask(a)) > std::popcount(fitting & t.numa_mask(b));
  });
  uint32_t out = 0;
  for (int n : numa)
    for (int g = 0; g < t.gpus() && std::popcount(out) < count; ++g)
      if ((fitting & t.numa_mask(n)) >> g & 1) out |= 1u << g;
  return out;
}

struct TopologyAware final : PlacementPolicy {
  double score(const ClusterView& v, JobId job, NodeId node) const override {
    const int32_t count = v.gpus_to_place(job);
    const double fit = leftover_after(v, job, node) * 1e-3;  // breaks ties only: bandwidths differ by far more
    const Node& n = v.cluster().node(node);
    // Across nodes (count beyond this node) only the fit counts; the fewest nodes decide first.
    if (count <= 1 || !n.topology || count > n.gpu_count) return fit;
    std::vector<GpuId> aligned;
    v.aligned_gpus(job, node, count, aligned);
    if (static_cast<int32_t>(aligned.size()) < count) return fit;
    const double ring = n.topology->ring_bottleneck(best_set(*n.topology, v.cluster().gpu_mask(node, aligned), count)).gb_per_s;
    return -ring + fit;
  }
  void choose_gpus(const ClusterView& v, JobId, const std::vector<GpuId>& fitting, int32_t count,
                   std::vector<GpuId>& out) const override {
    out.clear();
    if (fitting.empty() || count <= 0) return;
    const NodeId node = v.cluster().gpu(fitting.front()).node;
    const Node& n = v.cluster().node(node);
    const uint32_t chosen = best_set(*n.topology, v.cluster().gpu_mask(node, fitting), count);
    for (GpuId g : fitting)
      if (chosen >> (g - n.first_gpu) & 1) out.push_back(g);
  }
};

}  // namespace

std::unique_ptr<PlacementPolicy> make_topology_aware() { return std::make_unique<TopologyAware>(); }

PlacementRegistration topology_aware_placement() {
  return {"topology",
          "GPUs whose ring's slowest link is fastest (NVLink over PCIe over SYS), then best-fit; fewest nodes across nodes",
          [](const PolicyContext&) { return make_topology_aware(); },
          {}};
}

}  // namespace gpusim::builtin
