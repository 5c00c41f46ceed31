// Spot-aware (issue 5): training that can checkpoint prefers spot pools; inference and jobs that
// cannot checkpoint stay off spot; a job that prefers spot falls back to the other pools once it has
// waited `spot_fallback_after` in the queue, counted over all its waits (issue 23: counted from its
// last eviction, a job evicted again and again never fell back). Best-fit inside the pools a job may use.
#include <algorithm>

#include "builtin.hpp"

namespace gpusim::builtin {

namespace {

// Assumed default: an hour of waiting for spot capacity before a training job pays on-demand.
constexpr Duration kDefaultFallback = Duration::from_seconds(3600);

struct SpotAware final : PlacementPolicy {
  Duration fallback_after;
  std::unique_ptr<PlacementPolicy> best_fit = make_best_fit();

  explicit SpotAware(Duration fallback) : fallback_after(fallback) {}

  static bool prefers_spot(const ClusterView& v, JobId job) {
    return v.job(job).kind == JobKind::training && v.checkpoint(job).enabled;
  }
  bool may_fall_back(const ClusterView& v, JobId job) const { return v.waited(job) >= fallback_after; }
  static bool is_spot(const ClusterView& v, PoolId pool) { return v.cluster().pool(pool).market == Market::spot; }

  bool admits_pool(const ClusterView& v, JobId job, PoolId pool) const override {
    if (!prefers_spot(v, job)) return !is_spot(v, pool);
    return is_spot(v, pool) || may_fall_back(v, job);
  }
  // Spot nodes before any other (best-fit's score is at most 2).
  double score(const ClusterView& v, JobId job, NodeId node) const override {
    return best_fit->score(v, job, node) + (is_spot(v, v.cluster().node(node).pool) ? 0.0 : 10.0);
  }
  void choose_gpus(const ClusterView& v, JobId job, const std::vector<GpuId>& fitting, int32_t count,
                   std::vector<GpuId>& out) const override {
    best_fit->choose_gpus(v, job, fitting, count, out);
  }
  uint32_t variants() const override { return 3; }
  uint32_t variant(const ClusterView& v, JobId job) const override {
    return !prefers_spot(v, job) ? 0 : may_fall_back(v, job) ? 2 : 1;
  }
  // A decision point when the next waiting spot job may fall back, even if nothing else happens then.
  void after_pass(const ClusterView& v, Binder& binder, const std::vector<JobId>&) override {
    Time next = Time::max();
    v.for_each_pending([&](JobId id) {
      if (prefers_spot(v, id) && !may_fall_back(v, id)) next = std::min(next, v.now() + (fallback_after - v.waited(id)));
      return true;
    });
    if (next != Time::max()) binder.recheck_at(next);
  }
};

}  // namespace

std::unique_ptr<PlacementPolicy> make_spot_aware(const PolicyContext& context) {
  Duration fallback = kDefaultFallback;
  if (context.params)
    if (auto f = context.params->get("spot_fallback_after")) fallback = f->as_duration();
  return std::make_unique<SpotAware>(fallback);
}

PlacementRegistration spot_aware_placement() {
  return {"spot-aware",
          "checkpointable training on spot pools first, inference and jobs without checkpoints off spot; a spot job "
          "falls back to other pools once it has waited spot_fallback_after (default 1h) in all; best-fit inside",
          make_spot_aware,
          {"spot_fallback_after"}};
}

}  // namespace gpusim::builtin
