#pragma once
// Factories of the built-in queue orders and placements, one source file each.
#include <memory>
#include <string_view>

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
std::unique_ptr<QueueOrder> make_tiresias_gittins(const PolicyContext& context);
std::unique_ptr<QueueOrder> make_sjf_gpus();
std::unique_ptr<Scheduler> make_preemptive(std::string name, std::unique_ptr<QueueOrder> order,
                                           std::unique_ptr<PlacementPolicy> placement);
std::unique_ptr<PlacementPolicy> make_best_fit();  // also inside mig-aware and spot-aware

// A built-in placement's entry in the registry, defined beside its code as <id>_placement() and
// listed once in placements.def.
struct PlacementRegistration {
  std::string name;
  std::string description;
  Registry::PlacementFactory make;
  std::vector<std::string> params;  // the policy.params it reads
};

// A placement's score parameter `key`: `exact`, or `integer` for the FGD artifact's 0-100 Kubernetes
// score; a capacity-packing run scores as the artifact does unless told otherwise.
bool integer_score(const PolicyContext& context, std::string_view key);
}  // namespace gpusim::builtin
