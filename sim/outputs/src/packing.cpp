#include "gpusim/sim/packing.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <ostream>

#include "gpusim/core/error.hpp"
#include "gpusim/core/paged_vector.hpp"
#include "gpusim/sim/fragmentation.hpp"

namespace gpusim {

namespace {

// The cluster's idle GPU and its fragmentation, kept per node.
class FragmentationLedger {
 public:
  explicit FragmentationLedger(const Scenario& s) : mix_(typical_task_types(s.jobs, s.packing->coverage, s.packing->originals)) {}

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
    node_frag_ = PagedVector<double>(c.node_count());
    node_idle_ = PagedVector<int64_t>(c.node_count());
    c.for_each_node([&](NodeId n) {
      if (c.node(n).ready() && c.node(n).gpu_count > 0) node_changed(view, n);
    });
  }

  double frag_milli() const { return frag_total_; }
  int64_t idle_milli() const { return idle_total_; }

 private:
  TaskMix mix_;
  PagedVector<double> node_frag_;
  PagedVector<int64_t> node_idle_;
  double frag_total_ = 0;
  int64_t idle_total_ = 0;
};

// Records the packing checkpoints as pods arrive. Jobs are in arrival order, one per microsecond;
// those that can never fit anywhere arrive too (and fail), though they never reach the queue.
class PackingRecorder final : public Observer {
 public:
  explicit PackingRecorder(const Scenario& s)
      : s_(s),
        ledger_(s),
        capacity_(static_cast<double>(s.packing->capacity_milli)),
        last_percent_(static_cast<int>(std::floor(s.packing->until * 100 + 1e-9))) {}

  void decided(const RunState& view) override {
    if (arrived_ == 0) ledger_.start(view);
    for (; arrived_ < s_.jobs.jobs.size() && s_.jobs.jobs[arrived_].arrival <= view.now(); ++arrived_) {
      const Request& q = s_.jobs.jobs[arrived_].request;
      arrived_milli_ += static_cast<double>(q.gpus) * q.milli_per_gpu.value;
      const Placement& p = view.placement(static_cast<JobId>(arrived_));
      if (p.nodes.empty()) continue;
      ++placed_;
      for (NodeId n : p.nodes) ledger_.node_changed(view, n);
    }
    // Arrivals that pass several checkpoints at once (a large pod) fill them all with this state.
    // (A relative 1e-9 absorbs the rounding of until x capacity, so the last checkpoint is reached.)
    // The artifact's tuning stops just short of the target: the last arrival fills the checkpoints left.
    const bool all_arrived = arrived_ == s_.jobs.jobs.size();
    while (next_ <= last_percent_ && (all_arrived || arrived_milli_ * (1 + 1e-9) >= capacity_ * next_ / 100.0)) {
      const double idle = static_cast<double>(ledger_.idle_milli());
      checkpoints_.push_back({next_, 1.0 - idle / capacity_, ledger_.frag_milli() / 1000.0,
                              idle > 0 ? ledger_.frag_milli() / idle : 0.0, arrived_, arrived_ - placed_});
      ++next_;
    }
  }

  std::vector<PackingCheckpoint> take() { return std::move(checkpoints_); }

 private:
  const Scenario& s_;
  FragmentationLedger ledger_;
  const double capacity_;
  const int last_percent_;
  std::vector<PackingCheckpoint> checkpoints_;
  double arrived_milli_ = 0;
  uint32_t arrived_ = 0, placed_ = 0;
  int next_ = 0;
};

}  // namespace

PackingResult run_packing(const Scenario& s, Scheduler& scheduler, bool placements) {
  if (!s.packing) throw InputError({s.file, std::nullopt, "workload.packing"}, "the scenario has no packing workload");
  PackingRecorder recorder(s);
  RunOptions options;
  options.observers.push_back(&recorder);
  RunResult run = simulate(s, scheduler, options);
  // Pods never leave and a failed one is never placed later: where each pod is at the end is where
  // it went when it arrived.
  std::vector<PodPlacement> where;
  if (placements)
    for (const Job& j : s.jobs.jobs) {
      PodPlacement& out = where.emplace_back();
      out.pod = j.name;
      const PlacementView p = run.placement(j.id);
      if (p.nodes.empty()) continue;
      const Node& node = run.cluster.node(p.nodes.front());
      out.node = node.name;
      for (GpuId g : p.gpus) out.gpus.push_back(static_cast<uint16_t>(g - node.first_gpu));
    }
  return {recorder.take(), std::move(where), std::move(run)};
}

void write_pod_placements(std::ostream& out, const std::vector<PodPlacement>& placements) {
  out << "pod,node,gpus\n";
  for (const PodPlacement& p : placements) out << fmt::format("{},{},{}\n", p.pod, p.node, fmt::join(p.gpus, "+"));
}

}  // namespace gpusim
