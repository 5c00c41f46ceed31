// Fragmentation Gradient Descent (Weng et al., "Beware of Fragmentation", USENIX ATC'23, §5): place
// each pod on the node, and the GPU inside it, where the node's expected GPU fragmentation against
// the workload's task mix (sim/fragmentation.hpp) grows least. A node's fragmentation and the growth
// a request shape would cause are cached per node state (bucket id and epoch), so nodes in identical
// states share the work and only the node a placement changed is computed again. With
// `fgd_score: integer` nodes and GPUs are compared by the FGD artifact's 0-100 integer score of the
// growth instead of the growth itself (sim/fragmentation.hpp, fgd_integer_score), as the paper's
// figures were made.
#include <cmath>
#include <limits>

#include "builtin.hpp"
#include "gpusim/sim/fragmentation.hpp"

namespace gpusim::builtin {

namespace {

class Fgd final : public PlacementPolicy {
 public:
  explicit Fgd(const PolicyContext& c) {
    double coverage = 0.95;  // the FGD artifact's podPopularityThreshold: 95 (generate_config_and_run.py)
    if (c.params)
      if (auto f = c.params->get("fgd_coverage")) {
        coverage = f->as_number();
        if (coverage <= 0 || coverage > 1) f->fail("expected a share of the pods in (0, 1]");
      }
    // A packing run's mix: its original pods, not the ones drawn again (the artifact's typical pods).
    if (c.workload) mix_ = TaskMix(typical_task_types(*c.workload, coverage, c.packing ? c.packing->originals : SIZE_MAX));
    integer_ = integer_score(c, "fgd_score");
  }

  double score(const ClusterView& view, JobId job, NodeId node) const override {
    State& st = state(view, node);
    const uint32_t shape = view.shape(job);
    if (st.costs.size() < view.shape_count()) st.costs.resize(view.shape_count(), kUnknown);
    double& k = st.costs[shape];
    if (std::isnan(k)) k = best_choice(view, job, node, st.frag).cost;
    return k;
  }

  void choose_gpus(const ClusterView& view, JobId job, const std::vector<GpuId>& fitting, int32_t count,
                   std::vector<GpuId>& out) const override {
    const NodeId node = view.cluster().gpu(fitting.front()).node;
    if (count == 1 && view.gpu_demand(job, view.cluster().node(node).pool).milli < kWholeGpu) {
      out.assign(1, best_choice(view, job, node, state(view, node).frag).gpu);
      return;
    }
    PlacementPolicy::choose_gpus(view, job, fitting, count, out);  // whole GPUs: any free ones do
  }

 private:
  static constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();

  struct State {
    uint32_t epoch = 0;
    double frag = kUnknown;     // the node's fragmentation now
    std::vector<double> costs;  // by request shape: the cost of the least growth placing it here causes
  };
  struct Choice {
    double cost;  // of the growth, lower better
    GpuId gpu;    // for a share of one GPU: the GPU to take
  };

  double cost(double growth) const { return integer_ ? -static_cast<double>(fgd_integer_score(growth)) : growth; }

  // The cache entry of the node's state (reset when its bucket id now holds another state).
  State& state(const ClusterView& view, NodeId node) const {
    const Cluster& c = view.cluster();
    const BucketId b = *c.node(node).bucket;  // scored nodes are ready
    if (cache_.size() <= b) cache_.resize(b + 1u);
    State& st = cache_[b];
    if (st.epoch != c.bucket(b).epoch || std::isnan(st.frag)) {
      st.epoch = c.bucket(b).epoch;
      st.costs.clear();
      st.frag = mix_.node_fragmentation_milli(view, node);
    }
    return st;
  }

  // The cost of the growth of the node's fragmentation if the job went there: for a share of one GPU,
  // the best of the GPUs it fits (ties to the lower index); for whole GPUs, any free ones (all alike).
  Choice best_choice(const ClusterView& view, JobId job, NodeId node, double before) const {
    const Cluster& c = view.cluster();
    const Node& n = c.node(node);
    const std::vector<uint8_t>& access = mix_.accessible(view, n.pool);
    const GpuDemand demand = view.gpu_demand(job, n.pool);
    const int64_t cpu_after = n.free_cpu_milli - view.job(job).request.cpu_milli;
    const int32_t need = view.gpus_to_place(job);
    TaskMix::free_milli(view, node, after_);
    view.fitting_gpus(job, node, fitting_);
    if (need == 1 && demand.milli < kWholeGpu) {
      Choice best{std::numeric_limits<double>::infinity(), fitting_.front()};
      for (GpuId g : fitting_) {
        const std::size_t i = g - n.first_gpu;
        after_[i] -= static_cast<int32_t>(demand.milli.value);
        const double k = cost(node_fragmentation_milli(mix_.types(), access, cpu_after, after_) - before);
        after_[i] += static_cast<int32_t>(demand.milli.value);
        if (k < best.cost) best = {k, g};
      }
      return best;
    }
    for (int32_t k = 0; k < need && k < static_cast<int32_t>(fitting_.size()); ++k) after_[fitting_[static_cast<std::size_t>(k)] - n.first_gpu] -=
        static_cast<int32_t>(demand.milli.value);
    return {cost(node_fragmentation_milli(mix_.types(), access, cpu_after, after_) - before), GpuId{0}};
  }

  TaskMix mix_{{}};
  bool integer_ = false;
  mutable std::vector<State> cache_;  // by bucket id
  mutable std::vector<int32_t> after_;
  mutable std::vector<GpuId> fitting_;
};

}  // namespace

std::unique_ptr<PlacementPolicy> make_fgd(const PolicyContext& c) { return std::make_unique<Fgd>(c); }

PlacementRegistration fgd_placement() {
  return {"fgd",
          "fragmentation gradient descent: the node and GPU where the expected GPU fragmentation against the "
          "workload's task mix grows least (fgd_coverage: share of pods whose types form the mix, default 0.95; "
          "fgd_score: exact, or integer for the FGD artifact's 0-100 score)",
          make_fgd,
          {"fgd_coverage", "fgd_score"}};
}

}  // namespace gpusim::builtin
