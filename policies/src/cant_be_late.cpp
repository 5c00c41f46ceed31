// Deadline-aware spot placements (issue 23): the policies of "Can't Be Late" (Wu et al., NSDI '24)
// for jobs with a deadline that may run on spot or on-demand pools (cant_be_late.hpp has the rules).
// At every decision point, also when nothing is pending, each job is where its rule wants it: a
// pending job is placed on spot, on-demand or left idle; an on-demand job the rule sends to spot is
// preempted (the engine's one path: it saves its state and queues again) and placed on spot in the
// same pass. Every start pays the job's checkpoint.restart_overhead (the paper's changeover delay d).
// A job without a deadline is never sent to on-demand (except by cbl-on-demand). Best-fit inside.
#include <algorithm>

#include "builtin.hpp"
#include "gpusim/policies/cant_be_late.hpp"

namespace gpusim::builtin {

namespace {

using cbl::Rule;
using cbl::Where;

struct CantBeLate final : PlacementPolicy {
  Rule rule;
  std::unique_ptr<PlacementPolicy> best_fit = make_best_fit();
  JobId placing = kNoJob;  // the job place() is placing, and where it goes
  Where target = Where::idle;

  explicit CantBeLate(Rule r) : rule(r) {}

  static bool is_spot(const ClusterView& v, PoolId pool) { return v.cluster().pool(pool).market == Market::spot; }
  Rule rule_for(const ClusterView& v, JobId job) const {
    if (v.deadline(job) || rule == Rule::on_demand) return rule;
    return Rule::spot;
  }
  static cbl::JobClock clock(const ClusterView& v, JobId job) {
    const Job& j = v.job(job);
    return {j.work, v.deadline(job).value_or(kMaxSpan), v.now() - j.arrival,
            Duration::from_us(static_cast<int64_t>(v.remaining_work(job).us() + 0.5)), v.checkpoint(job).restart_overhead};
  }
  // Is a spot node free for the whole job now? One look per group of a pool's ready nodes in the same
  // state (the cluster's buckets), not per node.
  static bool spot_free(const ClusterView& v, JobId job) {
    const Cluster& c = v.cluster();
    for (BucketId b : c.live_buckets()) {
      const PoolId p = c.node(c.bucket(b).representative()).pool;
      if (c.pool(p).market == Market::spot && v.pool_allowed(job, p) && v.fits_in_bucket(job, b)) return true;
    }
    return false;
  }
  static Where at(const ClusterView& v, JobId job) {
    const Placement& p = v.placement(job);
    if (p.nodes.empty()) return Where::idle;
    return is_spot(v, v.cluster().node(p.nodes.front()).pool) ? Where::spot : Where::on_demand;
  }
  Where wanted(const ClusterView& v, JobId job) const {
    return cbl::decide(rule_for(v, job), at(v, job), spot_free(v, job), clock(v, job));
  }

  bool every_pass() const override { return true; }
  // On-demand jobs the rule sends to spot leave now; a decision point when the next one would.
  void before_pass(const ClusterView& v, Binder& binder) override {
    std::vector<JobId> on_demand;
    for (JobId id : v.running_jobs())  // ascending
      if (at(v, id) == Where::on_demand && v.preemptible(id)) on_demand.push_back(id);
    Time next = Time::max();
    for (JobId id : on_demand) {
      if (wanted(v, id) == Where::spot) {
        binder.preempt(id);
      } else if (rule_for(v, id) == Rule::uniform_progress && spot_free(v, id)) {
        if (auto t = cbl::hysteresis_at(clock(v, id))) next = std::min(next, v.job(id).arrival + *t);
      }
    }
    if (next != Time::max()) binder.recheck_at(next);
  }
  std::optional<Placement> place(const ClusterView& v, JobId job) override {
    target = wanted(v, job);
    if (target == Where::idle) return std::nullopt;
    placing = job;
    auto p = PlacementPolicy::place(v, job);
    placing = kNoJob;
    return p;
  }
  bool admits_pool(const ClusterView& v, JobId job, PoolId pool) const override {
    const Where w = job == placing ? target : wanted(v, job);
    return w != Where::idle && (w == Where::spot) == is_spot(v, pool);
  }
  double score(const ClusterView& v, JobId job, NodeId node) const override { return best_fit->score(v, job, node); }
  void choose_gpus(const ClusterView& v, JobId job, const std::vector<GpuId>& fitting, int32_t count,
                   std::vector<GpuId>& out) const override {
    best_fit->choose_gpus(v, job, fitting, count, out);
  }
  // Jobs of one shape that go to different places are tried apart.
  uint32_t variants() const override { return 3; }
  uint32_t variant(const ClusterView& v, JobId job) const override { return static_cast<uint32_t>(wanted(v, job)); }
  // A decision point when the next idle job reaches the Safety Net or falls behind uniform progress.
  void after_pass(const ClusterView& v, Binder& binder, const std::vector<JobId>&) override {
    Time next = Time::max();
    v.for_each_pending([&](JobId id) {
      const Rule r = rule_for(v, id);
      if (r == Rule::spot || r == Rule::on_demand) return true;
      const cbl::JobClock c = clock(v, id);
      const Time arrival = v.job(id).arrival;
      if (auto t = cbl::safety_net_at(c)) next = std::min(next, arrival + *t);
      if (r != Rule::greedy)
        if (auto t = cbl::behind_at(c)) next = std::min(next, arrival + *t);
      return true;
    });
    if (next != Time::max()) binder.recheck_at(next);
  }
};

PlacementRegistration registration(std::string name, Rule rule, std::string description) {
  return {std::move(name),
          std::move(description),
          [rule](const PolicyContext&) -> std::unique_ptr<PlacementPolicy> { return std::make_unique<CantBeLate>(rule); },
          {}};
}

}  // namespace

PlacementRegistration cbl_greedy_placement() {
  return registration("cbl-greedy", Rule::greedy,
                      "Can't Be Late's greedy: a job with a deadline runs on spot whenever it is free and, once idle with "
                      "no more slack than two restart overheads, on on-demand to the end");
}
PlacementRegistration cbl_uniform_plain_placement() {
  return registration("cbl-uniform-plain", Rule::uniform_plain,
                      "Can't Be Late's Uniform Progress without hysteresis: spot whenever free (also from on-demand); "
                      "on-demand while idle and behind uniform progress; greedy's safety net");
}
PlacementRegistration cbl_uniform_progress_placement() {
  return registration("cbl-uniform-progress", Rule::uniform_progress,
                      "Can't Be Late's Uniform Progress (the paper's policy): cbl-uniform-plain, but an on-demand job "
                      "moves to spot only once two restart overheads ahead of uniform progress");
}
PlacementRegistration cbl_on_demand_placement() {
  return registration("cbl-on-demand", Rule::on_demand, "on-demand (non-spot) pools only; best-fit inside");
}
PlacementRegistration cbl_spot_placement() {
  return registration("cbl-spot", Rule::spot, "spot pools only, whatever the deadline; best-fit inside");
}

}  // namespace gpusim::builtin
