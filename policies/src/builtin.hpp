#pragma once
// Factories of the built-in queue orders and placements, one source file each.
#include <memory>

#include "gpusim/policies/registry.hpp"

namespace gpusim::builtin {

// A placement that takes the tightest GPUs inside the node it chose (best-fit, dot-product, GPU packing).
struct TightestInside : PlacementPolicy {
  void choose_gpus(const ClusterView& view, JobId, const std::vector<GpuId>& fitting, int32_t count,
                   std::vector<GpuId>& out) const override {
    tightest_gpus(view, fitting, count, out);
  }
};

std::unique_ptr<QueueOrder> make_fifo();
std::unique_ptr<QueueOrder> make_priority();
std::unique_ptr<QueueOrder> make_sjf();
std::unique_ptr<QueueOrder> make_srtf();
std::unique_ptr<QueueOrder> make_las();
std::unique_ptr<QueueOrder> make_tiresias(const PolicyContext& context);
std::unique_ptr<Scheduler> make_preemptive(std::string name, std::unique_ptr<QueueOrder> order,
                                           std::unique_ptr<PlacementPolicy> placement);
std::unique_ptr<PlacementPolicy> make_first_fit();
std::unique_ptr<PlacementPolicy> make_best_fit();
std::unique_ptr<PlacementPolicy> make_spread();
std::unique_ptr<PlacementPolicy> make_random(const PolicyContext& context);
std::unique_ptr<PlacementPolicy> make_mig_aware();
std::unique_ptr<PlacementPolicy> make_topology_aware();
std::unique_ptr<PlacementPolicy> make_spot_aware(const PolicyContext& context);
std::unique_ptr<PlacementPolicy> make_fgd(const PolicyContext& context);
std::unique_ptr<PlacementPolicy> make_dot_product();
std::unique_ptr<PlacementPolicy> make_gpu_packing();
std::unique_ptr<PlacementPolicy> make_gpu_clustering();
}  // namespace gpusim::builtin
