// Carbon- and price-aware placement (issue 45; docs/guide/energy.md#shifting-work). A deferrable job
// (kind batch or training, with a deadline) starts when its grid is cleanest (or, with
// `shift_by: price`, its electricity cheapest) within what its deadline allows, as "Let's Wait Awhile"
// (Wiesner et al., Middleware '21) shifts work in time: among the start times from now to the latest
// that still meets its deadline (now and each time the grid's series changes in between), the one
// whose expected run (its work left at its ideal speed, plus its restart overhead) sees the lowest
// mean intensity, the earliest of equals. It waits until then, with a decision point then; other jobs
// are placed at once. The grid is that of the pools the job may use, the best of them. The series is
// known ahead (a forecast that is always right: the figures are the most shifting can save). Best-fit
// inside.
#include <algorithm>
#include <limits>
#include <unordered_map>

#include "builtin.hpp"

namespace gpusim::builtin {

namespace {

struct CarbonAware final : PlacementPolicy {
  EnergyFactor shift_by;
  std::unique_ptr<PlacementPolicy> best_fit = make_best_fit();
  // This pass's answers (a job's hold is asked for each pool and bucket): job -> when it may start.
  mutable Time cached_at = Time::max();
  mutable std::unordered_map<uint32_t, Time> start_at;

  explicit CarbonAware(EnergyFactor by) : shift_by(by) {}

  const StepSeries* series(const Pool& p) const {
    return (shift_by == EnergyFactor::carbon ? p.carbon_g_per_kwh : p.electricity_usd_per_kwh).get();
  }
  // When the job should start: now, unless it is deferrable and a later start within its slack sees
  // a lower mean intensity on some pool it may use.
  Time start_time(const ClusterView& v, JobId job) const {
    if (cached_at != v.now()) {
      start_at.clear();
      cached_at = v.now();
    }
    if (const auto it = start_at.find(static_cast<uint32_t>(job)); it != start_at.end()) return it->second;
    const Job& j = v.job(job);
    Time best = v.now();
    const std::optional<Duration> deadline = v.deadline(job);
    if (deadline && (j.kind == JobKind::batch || j.kind == JobKind::training)) {
      const Duration run = Duration::from_us(static_cast<int64_t>(v.remaining_work(job).us())) +
                           v.checkpoint(job).restart_overhead;
      const Time latest = j.arrival + *deadline - run;
      double best_mean = std::numeric_limits<double>::infinity();
      for (PoolId p{0}; p < v.cluster().pools().size(); ++p) {
        const StepSeries* f = series(v.cluster().pool(p));
        if (!f || !v.pool_allowed(job, p) || run <= Duration()) continue;
        for (Time s = v.now(); s <= latest; s = f->next_change(s)) {
          const double mean = (f->integral(s + run) - f->integral(s)) / run.seconds();
          const bool lower = mean < best_mean - 1e-9, equal = !lower && mean <= best_mean + 1e-9;
          if (lower || (equal && s < best)) {
            best = s;
            if (lower) best_mean = mean;
          }
        }
      }
    }
    start_at.emplace(static_cast<uint32_t>(job), best);
    return best;
  }
  bool waits(const ClusterView& v, JobId job) const { return start_time(v, job) > v.now(); }

  std::optional<Placement> place(const ClusterView& v, JobId job) override {
    if (waits(v, job)) return std::nullopt;
    return PlacementPolicy::place(v, job);
  }
  // A waiting job takes no pool, so the autoscaler adds no node for it either.
  bool admits_pool(const ClusterView& v, JobId job, PoolId) const override { return !waits(v, job); }
  double score(const ClusterView& v, JobId job, NodeId node) const override { return best_fit->score(v, job, node); }
  void choose_gpus(const ClusterView& v, JobId job, const std::vector<GpuId>& fitting, int32_t count,
                   std::vector<GpuId>& out) const override {
    best_fit->choose_gpus(v, job, fitting, count, out);
  }
  // Jobs of one shape that wait and jobs that go now are tried apart.
  uint32_t variants() const override { return 2; }
  uint32_t variant(const ClusterView& v, JobId job) const override { return waits(v, job) ? 1 : 0; }
  // A decision point when the first waiting job's hour comes.
  void after_pass(const ClusterView& v, Binder& binder, const std::vector<JobId>&) override {
    Time next = Time::max();
    v.for_each_pending([&](JobId id) {
      if (const Time t = start_time(v, id); t > v.now()) next = std::min(next, t);
      return true;
    });
    if (next != Time::max()) binder.recheck_at(next);
  }
};

}  // namespace

PlacementRegistration carbon_aware_placement() {
  return {"carbon-aware",
          "a batch or training job with a deadline starts in the hours of lowest grid carbon intensity (shift_by: "
          "price: lowest electricity price) its deadline allows; others at once; best-fit inside",
          [](const PolicyContext& context) -> std::unique_ptr<PlacementPolicy> {
            EnergyFactor by = EnergyFactor::carbon;
            if (context.params)
              if (auto s = context.params->get("shift_by")) {
                const std::string name = s->as_string();
                if (name == "price") by = EnergyFactor::electricity;
                else if (name != "carbon") s->fail("expected carbon or price");
              }
            return std::make_unique<CarbonAware>(by);
          },
          {"shift_by"}};
}

}  // namespace gpusim::builtin
