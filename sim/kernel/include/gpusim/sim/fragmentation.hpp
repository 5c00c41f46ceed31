#pragma once
// GPU fragmentation as the FGD paper measures it (Weng et al., "Beware of Fragmentation", USENIX
// ATC'23, §4): against the target workload's mix of task types, a node's fragmentation is the
// expected amount of its idle GPU (milli-GPU) that a task drawn from the mix could not use. For a
// task that fits the node (CPU, enough GPUs with room, an allowed GPU model) the GPUs with less room
// than its per-GPU request are fragments; for one that does not fit (or asks no GPU) all idle GPU
// is. Pure functions: the FGD placement and the capacity-packing experiment both use them.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gpusim/sim/scheduler.hpp"
#include "gpusim/workloads/job.hpp"

namespace gpusim {

// One kind of task: its CPU, GPU count and per-GPU share, and how often it comes (weights sum to 1).
struct TaskType {
  int64_t cpu_milli = 0;
  int32_t gpus = 0;
  int32_t milli_per_gpu = 0;        // 0 for CPU-only tasks
  std::vector<std::string> models;  // allowed GPU models; empty = any
  JobId example{0};                 // a job of this type (to ask which pools it may use)
  double weight = 0;
};

// The most frequent task types (same CPU, GPUs, per-GPU share and allowed models) until they cover
// `coverage` of the jobs, weights renormalised over them. Ties in frequency go to the smaller
// request, so the cut is deterministic. The FGD artifact uses 0.95 (its podPopularityThreshold: 95).
// Only the first `first` jobs count (a packing run's original pods, PackingSpec::originals).
std::vector<TaskType> typical_task_types(const JobSet& jobs, double coverage, std::size_t first = SIZE_MAX);

// Expected unusable idle GPU of a node (milli-GPU). `accessible[i]`: may type i use this node's GPU
// model; `free_milli`: each GPU's free share.
double node_fragmentation_milli(std::span<const TaskType> types, std::span<const uint8_t> accessible, int64_t free_cpu_milli,
                                std::span<const int32_t> free_milli);

// The FGD artifact's node score (hkust-adsl/kubernetes-scheduler-simulator, fgd_score.go): a
// Kubernetes integer score, floor(100 x sigmoid(-growth / 1000)) with the growth in milli-GPU, higher
// better. Growths within about 40 milli-GPU of each other near zero score alike, and Kubernetes then
// picks among the tied nodes.
int64_t fgd_integer_score(double growth_milli);

// A workload's task mix applied to a cluster: which types may use each pool (asked once per pool,
// through a job of the type) and the fragmentation of a node as it is now.
class TaskMix {
 public:
  explicit TaskMix(std::vector<TaskType> types) : types_(std::move(types)) {}
  const std::vector<TaskType>& types() const { return types_; }
  const std::vector<uint8_t>& accessible(const ClusterView& view, PoolId pool) const;
  // Each GPU's free share on the node (into `out`).
  static void free_milli(const ClusterView& view, NodeId node, std::vector<int32_t>& out);
  double node_fragmentation_milli(const ClusterView& view, NodeId node) const;

 private:
  std::vector<TaskType> types_;
  mutable std::vector<std::vector<uint8_t>> by_pool_;
  mutable std::vector<int32_t> free_;
};

}  // namespace gpusim
