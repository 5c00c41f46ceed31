// GPU packing (the FGD paper's baseline, after its artifact's GpuPackingScore): a pod goes first to
// GPUs already in use, then to free GPUs on a node already in use, then to an idle node. The tiers
// and their integer scores follow the artifact (higher is better there; negated here):
//   shares only used GPUs      100 - (sum over them of free% ) / 10, at least 50
//   takes free GPUs, node used  50 - free GPUs taken,                at least 33
//   idle node                   max(33 - its GPUs, its GPUs)
// Inside the node, the tightest GPUs. CPU-only pods score alike everywhere (the lowest node id).
#include <algorithm>

#include "builtin.hpp"

namespace gpusim::builtin {

namespace {
struct GpuPacking final : TightestInside {
  double score(const ClusterView& v, JobId job, NodeId node) const override {
    const Cluster& c = v.cluster();
    const Node& n = c.node(node);
    const int64_t milli = v.gpu_demand(job, n.pool).milli.value;
    if (v.job(job).request.gpus == 0 || milli <= 0) return 0;
    int64_t fully_free = 0;
    for (GpuId g = n.first_gpu; g < n.first_gpu + n.gpu_count; ++g) fully_free += c.gpu(g).free == kWholeGpu;
    if (fully_free == n.gpu_count) return -static_cast<double>(std::max<int64_t>(33 - fully_free, fully_free));
    std::vector<GpuId> fitting, chosen;
    v.fitting_gpus(job, node, fitting);
    tightest_gpus(v, fitting, std::min<int32_t>(v.gpus_to_place(job), static_cast<int32_t>(fitting.size())), chosen);
    int64_t free_taken = 0, free_pct = 0;
    for (GpuId g : chosen) {
      free_taken += c.gpu(g).free == kWholeGpu;
      free_pct += c.gpu(g).free.value * 100 / kWholeGpu.value;
    }
    if (free_taken > 0) return -static_cast<double>(std::max<int64_t>(50 - free_taken, 33));
    return -static_cast<double>(std::max<int64_t>(100 - free_pct / 10, 50));
  }
};
}  // namespace

std::unique_ptr<PlacementPolicy> make_gpu_packing() { return std::make_unique<GpuPacking>(); }

PlacementRegistration gpu_packing_placement() {
  return {"gpu-packing",
          "occupied GPUs first, then free GPUs on occupied nodes, then idle nodes; tightest GPU",
          [](const PolicyContext&) { return make_gpu_packing(); },
          {}};
}

}  // namespace gpusim::builtin
