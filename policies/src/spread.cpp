// Spread (worst-fit): the node left with the most free capacity, and inside it the GPUs with most room.
#include <algorithm>

#include "builtin.hpp"

namespace gpusim::builtin {

namespace {
struct Spread final : PlacementPolicy {
  double score(const ClusterView& v, JobId job, NodeId node) const override { return -leftover_after(v, job, node); }
  void choose_gpus(const ClusterView& v, JobId, const std::vector<GpuId>& fitting, int32_t count,
                   std::vector<GpuId>& out) const override {
    out = fitting;
    std::stable_sort(out.begin(), out.end(),
                     [&](GpuId a, GpuId b) { return v.cluster().gpu(a).free > v.cluster().gpu(b).free; });
    out.resize(static_cast<std::size_t>(count));
  }
};
}  // namespace

std::unique_ptr<PlacementPolicy> make_spread() { return std::make_unique<Spread>(); }

PlacementRegistration spread_placement() {
  return {"spread",
          "worst-fit: node left with the most free GPU+CPU share; emptiest GPUs inside it",
          [](const PolicyContext&) { return make_spread(); },
          {}};
}

}  // namespace gpusim::builtin
