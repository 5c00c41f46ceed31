#include "gpusim/sim/packing.hpp"

#include <cmath>

#include "gpusim/core/error.hpp"
#include "gpusim/sim/fragmentation.hpp"

namespace gpusim {

namespace {

// The cluster's idle GPU and its fragmentation, kept per node.
class FragmentationLedger {
 public:
  explicit FragmentationLedger(const Scenario& s) : mix_(typical_task_types(s.jobs, s.packing->coverage)) {}

  void node_changed(const ClusterView& view, NodeId n) {
    const Cluster& c = view.cluster();
    const Node& node = c.node(n);
    int64_t idle = 0;
    for (GpuId g = node.first_gpu; g < node.first_gpu + node.gpu_count; ++g) idle += c.gpu(g).free.value;
    const double frag = mix_.node_fragmentation_milli(view, n);
    frag_total_ += frag - node_frag_[n];
    idle_total_ += idle - node_idle_[n];
    node_frag_[n] = frag;
    node_idle_[n] = idle;
  }

  // The state before the first arrival.
  void start(const ClusterView& view) {
    const Cluster& c = view.cluster();
    node_frag_.assign(c.nodes().size(), 0.0);
    node_idle_.assign(c.nodes().size(), 0);
    for (NodeId n = 0; n < c.nodes().size(); ++n)
      if (c.node(n).ready() && c.node(n).gpu_count > 0) node_changed(view, n);
  }

  double frag_milli() const { return frag_total_; }
  int64_t idle_milli() const { return idle_total_; }

 private:
  TaskMix mix_;
  std::vector<double> node_frag_;
  std::vector<int64_t> node_idle_;
  double frag_total_ = 0;
  int64_t idle_total_ = 0;
};

}  // namespace

PackingResult run_packing(const Scenario& s, Scheduler& scheduler) {
  if (!s.packing) throw InputError({s.file, std::nullopt, "workload.packing"}, "the scenario has no packing workload");
  const double capacity = static_cast<double>(s.packing->capacity_milli);
  const int last_percent = static_cast<int>(std::floor(s.packing->until * 100 + 1e-9));
  std::vector<PackingCheckpoint> checkpoints;
  FragmentationLedger ledger(s);
  double arrived_milli = 0;
  uint32_t arrived = 0, placed = 0;
  int next = 0;
  RunOptions options;
  // Jobs are in arrival order, one per microsecond; those that can never fit anywhere arrive too
  // (and fail), though they never reach the queue.
  options.after_decision = [&](const ClusterView& view) {
    if (arrived == 0) ledger.start(view);
    for (; arrived < s.jobs.jobs.size() && s.jobs.jobs[arrived].arrival <= view.now(); ++arrived) {
      const Request& q = s.jobs.jobs[arrived].request;
      arrived_milli += static_cast<double>(q.gpus) * q.milli_per_gpu.value;
      const Placement& p = view.placement(static_cast<JobId>(arrived));
      if (p.nodes.empty()) continue;
      ++placed;
      for (NodeId n : p.nodes) ledger.node_changed(view, n);
    }
    // Arrivals that pass several checkpoints at once (a large pod) fill them all with this state.
    // (A relative 1e-9 absorbs the rounding of until x capacity, so the last checkpoint is reached.)
    while (next <= last_percent && arrived_milli * (1 + 1e-9) >= capacity * next / 100.0) {
      const double idle = static_cast<double>(ledger.idle_milli());
      checkpoints.push_back({next, 1.0 - idle / capacity, ledger.frag_milli() / 1000.0,
                                 idle > 0 ? ledger.frag_milli() / idle : 0.0, arrived, arrived - placed});
      ++next;
    }
  };
  RunResult run = simulate(s, scheduler, options);
  return {std::move(checkpoints), std::move(run)};
}

}  // namespace gpusim
