// Kueue admission (sim/kueue.hpp) on small cases followed by hand. Clusters of l4-4x nodes (4 GPUs
// each); jobs ask 1 GPU unless said; fifo+first-fit places what Kueue admits. Preempted workloads
// leave at once (their pods' termination_grace_period: 0, kNoGrace) unless said.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "gpusim/sim/tenancy_admission.hpp"
#include "run_util.hpp"

using namespace gpusim;
using test::write_file;

namespace {

struct Eviction {
  std::string victim, by, reason;
  double at_s;
};

class Recorder final : public Observer {
 public:
  void job_evicted(const RunState& s, JobId victim, JobId by, std::string_view reason) override {
    evictions.push_back({s.job(victim).name, s.job(by).name, std::string(reason), s.now().seconds()});
  }
  void job_transition(const RunState& s, JobId id, JobStatus, JobStatus, std::string_view cause) override {
    if (cause != kAdmitted) return;
    ++admissions;
    if (kueue_state(s)->admitted_at(id) != s.now()) ADD_FAILURE() << "admitted_at is not now";
    const KueueState& k = *kueue_state(s);
    for (uint32_t q = 0; q < k.queue_count(); ++q) shares[std::string(k.queue(q).name)] = k.queue(q).share;
  }
  void finished(const RunState& s) override {
    const KueueState& k = *kueue_state(s);
    for (uint32_t q = 0; q < k.queue_count(); ++q)
      borrowed_gpu_hours[std::string(k.queue(q).name)] = k.totals(q, s.now()).borrowed_gpu_hours;
  }
  std::vector<Eviction> evictions;
  int admissions = 0;
  std::map<std::string, double> borrowed_gpu_hours;
  std::map<std::string, double> shares;  // status.fairSharing.weightedShare after the last admission
};

struct Outcome {
  explicit Outcome(Scenario s) : scenario(std::move(s)) {}
  const Scenario scenario;
  Recorder recorder;
  std::optional<RunResult> result;
  double start(const std::string& job) const { return result->jobs[id(job)].first_start.seconds(); }
  JobId id(const std::string& job) const {
    for (const Job& j : scenario.jobs.jobs)
      if (j.name == job) return j.id;
    ADD_FAILURE() << "no job " << job;
    return JobId{0};
  }
};

// `nodes` l4-4x nodes in pool "p" (labels given), the jobs, and tenancy.kueue.
std::unique_ptr<Outcome> run(int nodes, const std::string& jobs, const std::string& kueue, const std::string& pools = "") {
  const std::string text =
      "name: k\ncluster:\n  pools:\n" +
      (pools.empty() ? "    - {name: p, node: l4-4x, count: " + std::to_string(nodes) + ", labels: {gpu: l4}}\n" : pools) +
      "workload:\n  reference_gpu: any\n  jobs:\n" + jobs + "tenancy:\n  kueue:\n" + kueue + "policy: fifo+first-fit\n";
  auto r = std::make_unique<Outcome>(test::load(write_file("k.yaml", text)));
  auto sched = Registry::global().make(r->scenario.policy, policy_context(r->scenario), r->scenario.policy_where);
  RunOptions o;
  o.observers.push_back(&r->recorder);
  o.audit = true;
  r->result.emplace(simulate(r->scenario, *sched, o));
  return r;
}

// A ClusterQueue of `gpus` nominal GPUs on flavor l4 (extra: more of its fields, YAML flow).
std::string queue(const std::string& name, int gpus, const std::string& extra = "", const std::string& quota_extra = "") {
  return "      - {name: " + name + ", " + extra +
         "resource_groups: [{covered_resources: [nvidia.com/gpu], flavors: [{name: l4, resources: [{name: nvidia.com/gpu, "
         "nominal_quota: " +
         std::to_string(gpus) + quota_extra + "}]}]}]}\n";
}
const std::string kFlavor = "    resource_flavors: [{name: l4, node_labels: {gpu: l4}}]\n";
std::string locals(std::initializer_list<const char*> names) {
  std::string s = "    local_queues:\n";
  for (const char* n : names) s += std::string("      - {name: ") + n + ", namespace: " + n + ", cluster_queue: " + n + "}\n";
  return s;
}
const std::string kNoGrace = "termination_grace_period: 0, ";
// `count` jobs named <prefix><i> of tenant (and queue) `team`, leaving at once when evicted.
std::string jobs(const std::string& prefix, int count, const std::string& team, const std::string& fields) {
  std::string s;
  for (int i = 0; i < count; ++i)
    s += "    - {name: " + prefix + std::to_string(i) + ", tenant: " + team + ", queue: " + team + ", " + kNoGrace + fields +
         "}\n";
  return s;
}

// Nominal quota 2 of a 4-GPU node: the third 1-hour job waits for quota (not GPUs) until 1 h.
TEST(Kueue, NominalQuotaAdmits) {
  const auto r = run(1, jobs("j", 3, "a", "gpus: 1, duration: 1h"),
                     kFlavor + "    cluster_queues:\n" + queue("a", 2) + locals({"a"}));
  EXPECT_EQ(r->start("j0"), 0);
  EXPECT_EQ(r->start("j1"), 0);
  EXPECT_EQ(r->start("j2"), 3600);
  EXPECT_EQ(r->recorder.admissions, 3);
}

// a (nominal 1) and b (nominal 3) in one cohort; b has no jobs. Four 1-hour jobs of a:
//   no limits: a borrows b's 3 GPUs, all four start at 0 (3 GPU-hours borrowed);
//   borrowing_limit 1 on a: a uses at most 1 + 1, two start at 0, two at 1 h;
//   lending_limit 1 on b: b lends 1 of its 3, the same.
TEST(Kueue, BorrowingAndLendingLimits) {
  const std::string four = jobs("j", 4, "a", "gpus: 1, duration: 1h");
  const auto both = [&](const std::string& a_extra, const std::string& b_extra) {
    return run(1, four,
               kFlavor + "    cluster_queues:\n" + queue("a", 1, "cohort: org, ", a_extra) +
                   queue("b", 3, "cohort: org, ", b_extra) + locals({"a", "b"}));
  };
  const auto free = both("", "");
  for (const char* j : {"j0", "j1", "j2", "j3"}) EXPECT_EQ(free->start(j), 0) << j;
  EXPECT_DOUBLE_EQ(free->recorder.borrowed_gpu_hours.at("a"), 3.0);
  for (const auto& limited : {both(", borrowing_limit: 1", ""), both("", ", lending_limit: 1")}) {
    EXPECT_EQ(limited->start("j0"), 0);
    EXPECT_EQ(limited->start("j1"), 0);
    EXPECT_EQ(limited->start("j2"), 3600);
    EXPECT_EQ(limited->start("j3"), 3600);
  }
}

// a and b each nominal 2 in a cohort of 4 GPUs. a's four 10-hour jobs start at 0 (two borrowed).
// b's two 1-hour jobs arrive at 1 h:
//   reclaim_within_cohort Any: b reclaims its quota, evicting two of a's (InCohortReclamation), and
//   its jobs start at 1 h; the evicted ones are admitted again when b's end at 2 h.
//   Never: b waits until a's jobs end at 10 h.
TEST(Kueue, ReclaimWithinCohort) {
  const std::string js = jobs("a", 4, "a", "gpus: 1, duration: 10h") + jobs("b", 2, "b", "gpus: 1, duration: 1h, arrival: 1h");
  const auto with = [&](const char* policy) {
    return run(1, js,
               kFlavor + "    cluster_queues:\n" + queue("a", 2, "cohort: org, ") +
                   queue("b", 2, std::string("cohort: org, preemption: {reclaim_within_cohort: ") + policy + "}, ") +
                   locals({"a", "b"}));
  };
  const auto any = with("Any");
  EXPECT_EQ(any->start("b0"), 3600);
  EXPECT_EQ(any->start("b1"), 3600);
  ASSERT_EQ(any->recorder.evictions.size(), 2u);
  for (const Eviction& e : any->recorder.evictions) {
    EXPECT_EQ(e.reason, "InCohortReclamation");
    EXPECT_EQ(e.victim[0], 'a');
    EXPECT_EQ(e.at_s, 3600);
  }
  // Candidates admitted most recently go first; all were admitted at 0, so the ties are by id, a0 and a1.
  EXPECT_EQ(any->result->jobs[any->id("a0")].preemptions, 1u);
  EXPECT_EQ(any->result->jobs[any->id("a0")].start.seconds(), 2 * 3600);
  const auto never = with("Never");
  EXPECT_EQ(never->start("b0"), 10 * 3600);
  EXPECT_TRUE(never->recorder.evictions.empty());
}

// One queue of nominal 1: a low-priority 10-hour job runs; a high-priority one arrives at 1 h.
//   within_cluster_queue LowerPriority: it preempts (InClusterQueue) and starts at 1 h;
//   Never: it waits until 10 h. An equal-priority newcomer never preempts under LowerPriority.
TEST(Kueue, WithinClusterQueue) {
  const auto two = [](const char* high_priority) {
    return "    - {name: low, tenant: a, queue: a, " + kNoGrace + "gpus: 1, duration: 10h, priority: 1}\n" +
           "    - {name: high, tenant: a, queue: a, " + kNoGrace +
           "gpus: 1, duration: 1h, arrival: 1h, priority: " + high_priority + "}\n";
  };
  const std::string js = two("5");
  const auto with = [&](const std::string& extra, const std::string& j) {
    return run(1, j, kFlavor + "    cluster_queues:\n" + queue("a", 1, extra) + locals({"a"}));
  };
  const auto lower = with("preemption: {within_cluster_queue: LowerPriority}, ", js);
  EXPECT_EQ(lower->start("high"), 3600);
  ASSERT_EQ(lower->recorder.evictions.size(), 1u);
  EXPECT_EQ(lower->recorder.evictions[0].reason, "InClusterQueue");
  EXPECT_EQ(lower->recorder.evictions[0].victim, "low");
  EXPECT_EQ(with("", js)->start("high"), 10 * 3600);
  EXPECT_EQ(with("preemption: {within_cluster_queue: LowerPriority}, ", two("1"))->start("high"), 10 * 3600);
}

// A workload admitted but not placed yet (a job outside Kueue holds the node) and preempted before it
// runs is a preemption like any other: in its record, its namespace's preemptions_received and the
// summary's preemptions, as in preemptions_received_by_reason. While it waits for admission again it
// counts as pending (status queued), also at the end of a run with a horizon.
TEST(Kueue, APreemptionBeforeThePodRunsCountsEverywhere) {
  const std::string js = "    - {name: blocker, tenant: other, gpus: 4, duration: 3h}\n"
                         "    - {name: low, tenant: a, queue: a, " +
                         kNoGrace + "gpus: 1, duration: 1h, priority: 1}\n" + "    - {name: high, tenant: a, queue: a, " +
                         kNoGrace + "gpus: 1, duration: 10h, arrival: 1h, priority: 5}\n";
  const auto r = run(
      1, js,
      kFlavor + "    cluster_queues:\n" + queue("a", 1, "preemption: {within_cluster_queue: LowerPriority}, ") + locals({"a"}));
  ASSERT_EQ(r->recorder.evictions.size(), 1u);
  EXPECT_EQ(r->recorder.evictions[0].victim, "low");
  EXPECT_EQ(r->recorder.evictions[0].at_s, 3600);
  const JobRecord& low = r->result->jobs[r->id("low")];
  EXPECT_EQ(low.preemptions, 1u);
  EXPECT_EQ(r->start("low"), 13 * 3600);  // after high, which waited for the node until 3 h
  const Json summary = summarize(r->scenario, *r->result);
  EXPECT_EQ(summary["preemptions"], 1);
  const Json& ns = summary["tenants"][1];  // default, then a
  ASSERT_EQ(ns["name"], "a");
  EXPECT_EQ(ns["preemptions_received"], 1);
  EXPECT_EQ(ns["preemptions_received_by_reason"]["InClusterQueue"], 1);
  // With a 2-hour horizon, low waits in its queue at the end: pending, as in the time series.
  const std::string text = "name: k\nhorizon: 2h\ncluster: {pools: [{name: p, node: l4-4x, count: 1, labels: {gpu: l4}}]}\n"
                           "workload:\n  reference_gpu: any\n  jobs:\n" +
                           js + "tenancy:\n  kueue:\n" + kFlavor + "    cluster_queues:\n" +
                           queue("a", 1, "preemption: {within_cluster_queue: LowerPriority}, ") + locals({"a"}) +
                           "outputs: {timeseries_step: 30m}\n";
  const Scenario cut = test::load(write_file("cut.yaml", text));
  const RunResult end = test::simulate_scenario(cut);
  EXPECT_EQ(end.jobs[1].status, JobStatus::queued);  // low, by arrival order after blocker
  const Json s2 = summarize(cut, end);
  EXPECT_EQ(s2["jobs_pending_at_end"], 2);  // low (queued) and high (admitted, waiting for the node)
  EXPECT_EQ(s2["jobs_not_arrived"], 0);
  EXPECT_EQ(end.metrics.samples().back().pending, 2u);
}

// Cohort of a, b, c with nominal 2 each (6 of 8 GPUs). b runs four priority-1 jobs (borrowing c's 2),
// a runs two priority-10 jobs, and a third priority-10 job of a arrives at 1 h. It fits a's nominal
// quota alone (1 <= 2) but a is at its nominal quota, so reclaim alone may not take from b:
//   borrow_within_cohort LowerPriority (threshold 5): one of b's jobs is evicted
//   (InCohortReclaimWhileBorrowing) and it starts at 1 h;
//   without it, or with max_priority_threshold 0 (b's priority 1 is above it), it waits until 10 h.
TEST(Kueue, BorrowWithinCohort) {
  const std::string js = jobs("b", 4, "b", "gpus: 1, duration: 10h, priority: 1") +
                         jobs("a", 2, "a", "gpus: 1, duration: 10h, priority: 10") + "    - {name: late, tenant: a, queue: a, " +
                         kNoGrace + "gpus: 1, duration: 1h, arrival: 1h, priority: 10}\n";
  const auto with = [&](const std::string& borrow) {
    return run(2, js,
               kFlavor + "    cluster_queues:\n" +
                   queue("a", 2, "cohort: org, preemption: {reclaim_within_cohort: Any" + borrow + "}, ") +
                   queue("b", 2, "cohort: org, ") + queue("c", 2, "cohort: org, ") + locals({"a", "b", "c"}));
  };
  const auto on = with(", borrow_within_cohort: {policy: LowerPriority, max_priority_threshold: 5}");
  EXPECT_EQ(on->start("late"), 3600);
  ASSERT_EQ(on->recorder.evictions.size(), 1u);
  EXPECT_EQ(on->recorder.evictions[0].reason, "InCohortReclaimWhileBorrowing");
  EXPECT_EQ(on->recorder.evictions[0].victim[0], 'b');
  EXPECT_EQ(with("")->start("late"), 10 * 3600);
  EXPECT_EQ(with(", borrow_within_cohort: {policy: LowerPriority, max_priority_threshold: 0}")->start("late"), 10 * 3600);
}

// Nominal 2. A 10-hour 1-GPU job runs from 0; a 2-GPU 1-hour job arrives at 1 s and does not fit
// (1 left); a 1-GPU 1-hour job arrives at 2 s.
//   BestEffortFIFO: the small one passes the big one and starts at 2 s;
//   StrictFIFO: it waits behind the big one, which is admitted at 10 h; the small one at 11 h.
TEST(Kueue, StrictVersusBestEffortFifo) {
  const std::string js = "    - {name: long, tenant: a, queue: a, gpus: 1, duration: 10h}\n"
                         "    - {name: big, tenant: a, queue: a, gpus: 2, duration: 1h, arrival: 1}\n"
                         "    - {name: small, tenant: a, queue: a, gpus: 1, duration: 1h, arrival: 2}\n";
  const auto with = [&](const char* strategy) {
    return run(
        1, js,
        kFlavor + "    cluster_queues:\n" + queue("a", 2, std::string("queueing_strategy: ") + strategy + ", ") + locals({"a"}));
  };
  const auto best = with("BestEffortFIFO");
  EXPECT_EQ(best->start("small"), 2);
  EXPECT_EQ(best->start("big"), 10 * 3600);
  const auto strict = with("StrictFIFO");
  EXPECT_EQ(strict->start("big"), 10 * 3600);
  EXPECT_EQ(strict->start("small"), 11 * 3600);
}

// Two pools of one node each, labelled spot and on-demand; flavors in that order. Queue a has 1
// GPU of spot and 2 of on-demand; queue b (same cohort) 1 of spot. Three jobs of a at 0:
//   whenCanBorrow Borrow: the second borrows b's spot GPU, the third goes to on-demand;
//   whenCanBorrow TryNextFlavor: the second and third go to on-demand (a fit without borrowing).
TEST(Kueue, FlavorFungibility) {
  const std::string pools = "    - {name: spot, node: l4-4x, count: 1, labels: {market: spot}}\n"
                            "    - {name: od, node: l4-4x, count: 1, labels: {market: on-demand}}\n";
  const std::string flavors =
      "    resource_flavors: [{name: spot, node_labels: {market: spot}}, {name: od, node_labels: {market: on-demand}}]\n";
  const auto with = [&](const char* when) {
    const std::string qs =
        std::string("      - {name: a, cohort: org, flavor_fungibility: {when_can_borrow: ") + when +
        "}, resource_groups: [{covered_resources: [nvidia.com/gpu], flavors: [{name: spot, resources: [{name: nvidia.com/gpu, "
        "nominal_quota: 1}]}, {name: od, resources: [{name: nvidia.com/gpu, nominal_quota: 2}]}]}]}\n"
        "      - {name: b, cohort: org, resource_groups: [{covered_resources: [nvidia.com/gpu], flavors: [{name: spot, "
        "resources: "
        "[{name: nvidia.com/gpu, nominal_quota: 1}]}]}]}\n";
    return run(0, jobs("j", 3, "a", "gpus: 1, duration: 1h"), flavors + "    cluster_queues:\n" + qs + locals({"a", "b"}), pools);
  };
  const auto pool_of = [](const Outcome& r, const char* job) {
    return r.result->cluster.pool_of(r.result->placement(r.id(job)).nodes.front()).name;
  };
  const auto borrow = with("Borrow");
  EXPECT_EQ(pool_of(*borrow, "j0"), "spot");
  EXPECT_EQ(pool_of(*borrow, "j1"), "spot");
  EXPECT_EQ(pool_of(*borrow, "j2"), "od");
  const auto next = with("TryNextFlavor");
  EXPECT_EQ(pool_of(*next, "j0"), "spot");
  EXPECT_EQ(pool_of(*next, "j1"), "od");
  EXPECT_EQ(pool_of(*next, "j2"), "od");
}

// Fair sharing in a flat cohort: c lends 6 GPUs and runs nothing; a (weight 2) and b (weight 1)
// have no quota and submit six 10-hour jobs each at 0. One head per queue per cycle: 3 + 3 are
// admitted. Shares (borrowed x 1000 / 6 lendable / weight): a 250, b 500. a preempts one of b's:
// a with its 4th is 333 <= b without one, 333 (LessThanOrEqualToFinalShare), InCohortFairSharing;
// then a with a 5th (417) is above b without another (167) and above b's 333: it stops at 4 : 2.
TEST(Kueue, FairSharingWeightsFlat) {
  const std::string js = jobs("a", 6, "a", "gpus: 1, duration: 10h") + jobs("b", 6, "b", "gpus: 1, duration: 10h");
  const std::string fair = "    fair_sharing: {enable: true}\n";
  const auto r = run(2, js,
                     kFlavor + fair + "    cluster_queues:\n" +
                         queue("a", 0, "cohort: org, fair_sharing: {weight: 2}, preemption: {reclaim_within_cohort: Any}, ") +
                         queue("b", 0, "cohort: org, preemption: {reclaim_within_cohort: Any}, ") +
                         queue("c", 6, "cohort: org, ") + locals({"a", "b", "c"}));
  ASSERT_EQ(r->recorder.evictions.size(), 1u);
  EXPECT_EQ(r->recorder.evictions[0].reason, "InCohortFairSharing");
  EXPECT_EQ(r->recorder.evictions[0].victim[0], 'b');
  int a_at_0 = 0, b_kept = 0;
  for (int i = 0; i < 6; ++i) {
    a_at_0 += r->start(fmt::format("a{}", i)) == 0 ? 1 : 0;
    const JobRecord& b = r->result->jobs[r->id(fmt::format("b{}", i))];
    b_kept += b.first_start.seconds() == 0 && b.preemptions == 0 ? 1 : 0;
  }
  EXPECT_EQ(a_at_0, 4);
  EXPECT_EQ(b_kept, 2);
}

// Hierarchical: root cohort "org" holds c (lends 8) and cohorts x (a) and y (b1, b2), all weight 1
// and without quota. Each of a, b1, b2 submits eight 10-hour jobs. Cycles admit a, b1, b2 twice, then
// a (x with it: 3/8 = 375 against y's 625) and b1: 3, 3, 2. a then preempts from y: x with a 4th is
// 500 <= y without one, 500; it takes b1's (the larger share in y). Fair at both levels: x 4, y 4
// (b1 2, b2 2).
TEST(Kueue, FairSharingHierarchical) {
  const std::string js = jobs("a", 8, "a", "gpus: 1, duration: 10h") + jobs("b1_", 8, "b1", "gpus: 1, duration: 10h") +
                         jobs("b2_", 8, "b2", "gpus: 1, duration: 10h");
  const std::string any = "preemption: {reclaim_within_cohort: Any}, ";
  const auto r = run(2, js,
                     kFlavor +
                         "    fair_sharing: {enable: true}\n    cohorts: [{name: x, parent: org}, {name: y, parent: org}]\n" +
                         "    cluster_queues:\n" + queue("a", 0, "cohort: x, " + any) + queue("b1", 0, "cohort: y, " + any) +
                         queue("b2", 0, "cohort: y, " + any) + queue("c", 8, "cohort: org, ") + locals({"a", "b1", "b2", "c"}));
  std::map<std::string, int> running_at_0;
  for (const Job& j : r->scenario.jobs.jobs) {
    const JobRecord& rec = r->result->jobs[j.id];
    if (rec.first_start.seconds() == 0 && rec.preemptions == 0) ++running_at_0[r->scenario.jobs.tenants[j.tenant]];
  }
  EXPECT_EQ(running_at_0["a"], 4);
  EXPECT_EQ(running_at_0["b1"], 2);
  EXPECT_EQ(running_at_0["b2"], 2);
  // (When the first jobs end at 10 h the queues rebalance again; only time 0 is followed here.)
  ASSERT_GE(r->recorder.evictions.size(), 1u);
  EXPECT_EQ(r->recorder.evictions[0].at_s, 0);
  if (r->recorder.evictions.size() > 1) {
    EXPECT_GT(r->recorder.evictions[1].at_s, 0);
  }
  EXPECT_EQ(r->recorder.evictions[0].reason, "InCohortFairSharing");
  EXPECT_EQ(r->recorder.evictions[0].victim.substr(0, 2), "b1");
}

// LowerOrNewerEqualPriority (withinClusterQueue): also equal-priority workloads admitted after the
// preemptor was queued. Nominal 2, all priority 5: "filler" (1 GPU, 10 s) runs from 0; "old" (2 GPUs)
// arrives at 1 s and waits (filler is older, so never a candidate); "new" (1 GPU, 1 h) arrives at 2 s
// and fits. At 10 s filler ends: old still needs new's GPU.
//   LowerOrNewerEqualPriority: new (newer, equal priority) is evicted at 10 s (InClusterQueue) and old
//   starts at 10 s; new runs again when old ends, at 10 s + 1 h.
//   LowerPriority: old waits for new to end, at 2 s + 1 h.
TEST(Kueue, WithinClusterQueueLowerOrNewerEqualPriority) {
  const std::string js = "    - {name: filler, tenant: a, queue: a, " + kNoGrace + "gpus: 1, duration: 10, priority: 5}\n" +
                         "    - {name: old, tenant: a, queue: a, " + kNoGrace +
                         "gpus: 2, duration: 1h, arrival: 1, priority: 5}\n" + "    - {name: new, tenant: a, queue: a, " +
                         kNoGrace + "gpus: 1, duration: 1h, arrival: 2, priority: 5}\n";
  const auto with = [&](const char* policy) {
    return run(1, js,
               kFlavor + "    cluster_queues:\n" +
                   queue("a", 2, std::string("preemption: {within_cluster_queue: ") + policy + "}, ") + locals({"a"}));
  };
  const auto newer = with("LowerOrNewerEqualPriority");
  EXPECT_EQ(newer->start("new"), 2);
  EXPECT_EQ(newer->start("old"), 10);
  ASSERT_EQ(newer->recorder.evictions.size(), 1u);
  EXPECT_EQ(newer->recorder.evictions[0].victim, "new");
  EXPECT_EQ(newer->recorder.evictions[0].by, "old");
  EXPECT_EQ(newer->recorder.evictions[0].reason, "InClusterQueue");
  EXPECT_EQ(newer->recorder.evictions[0].at_s, 10);
  EXPECT_EQ(newer->result->jobs[newer->id("new")].start.seconds(), 10 + 3600);
  const auto lower = with("LowerPriority");
  EXPECT_EQ(lower->start("old"), 2 + 3600);
  EXPECT_TRUE(lower->recorder.evictions.empty());
}

// A workload Kueue evicts has its pods deleted: they terminate within their own
// termination_grace_period (Kubernetes' default 30 s), and its quota is released when they are gone.
// ReclaimWithinCohort's case: b0 reclaims at 1 h; a's evicted job takes 5 min (its grace period, no
// checkpoint to write), so b0 starts at 1 h 5 min. b0 stays its queue's head while it waits (Kueue
// requeues a preemptor as pending), so b1 preempts only then and starts at 1 h 10 min. With the
// default grace period: 1 h 30 s.
TEST(Kueue, EvictionWaitsForThePodsGracePeriod) {
  const auto with = [&](const std::string& grace) {
    const std::string a = [&] {
      std::string s;
      for (int i = 0; i < 4; ++i)
        s += "    - {name: a" + std::to_string(i) + ", tenant: a, queue: a, " + grace + "gpus: 1, duration: 10h}\n";
      return s;
    }();
    return run(1, a + jobs("b", 2, "b", "gpus: 1, duration: 1h, arrival: 1h"),
               kFlavor + "    cluster_queues:\n" + queue("a", 2, "cohort: org, ") +
                   queue("b", 2, "cohort: org, preemption: {reclaim_within_cohort: Any}, ") + locals({"a", "b"}));
  };
  const auto five_minutes = with("termination_grace_period: 5m, ");
  ASSERT_EQ(five_minutes->recorder.evictions.size(), 2u);
  EXPECT_EQ(five_minutes->recorder.evictions[0].at_s, 3600);
  EXPECT_EQ(five_minutes->recorder.evictions[1].at_s, 3600 + 300);
  EXPECT_EQ(five_minutes->start("b0"), 3600 + 300);
  EXPECT_EQ(five_minutes->start("b1"), 3600 + 600);
  const auto by_default = with("");
  EXPECT_EQ(by_default->start("b0"), 3600 + 30);
}

// A workload Kueue evicts is requeued as soon as its quota is released, and may be admitted again at
// that instant. Queue a (within_cluster_queue: LowerPriority) has 1 GPU of flavor x (pool x) and 1
// of flavor y (pool y). At 0, v (priority 1, 10 h) takes x and w (priority 1, 1 h) falls back to y.
// At 1 h w ends and p (priority 5, 1 h, nodeSelector gpu: x, so only flavor x) arrives: x is full,
// so p evicts v (InClusterQueue) and starts at 1 h. v, evicted, fits y (freed by w): it starts
// again at 1 h, not at the next event (p's end at 2 h).
TEST(Kueue, VictimRequeuedAtOnce) {
  const std::string pools = "    - {name: x, node: l4-4x, count: 1, labels: {gpu: x}}\n"
                            "    - {name: y, node: l4-4x, count: 1, labels: {gpu: y}}\n";
  const std::string flavors = "    resource_flavors: [{name: x, node_labels: {gpu: x}}, {name: y, node_labels: {gpu: y}}]\n";
  const std::string qs =
      "      - {name: a, preemption: {within_cluster_queue: LowerPriority}, resource_groups: [{covered_resources: "
      "[nvidia.com/gpu], flavors: [{name: x, resources: [{name: nvidia.com/gpu, nominal_quota: 1}]}, {name: y, resources: "
      "[{name: nvidia.com/gpu, nominal_quota: 1}]}]}]}\n";
  const std::string js = "    - {name: v, tenant: a, queue: a, " + kNoGrace + "gpus: 1, duration: 10h, priority: 1}\n" +
                         "    - {name: w, tenant: a, queue: a, " + kNoGrace + "gpus: 1, duration: 1h, priority: 1}\n" +
                         "    - {name: p, tenant: a, queue: a, " + kNoGrace +
                         "gpus: 1, duration: 1h, arrival: 1h, priority: 5, node_selector: {gpu: x}}\n";
  const auto r = run(0, js, flavors + "    cluster_queues:\n" + qs + locals({"a"}), pools);
  ASSERT_EQ(r->recorder.evictions.size(), 1u);
  EXPECT_EQ(r->recorder.evictions[0].victim, "v");
  EXPECT_EQ(r->recorder.evictions[0].by, "p");
  EXPECT_EQ(r->recorder.evictions[0].reason, "InClusterQueue");
  EXPECT_EQ(r->recorder.evictions[0].at_s, 3600);
  EXPECT_EQ(r->start("p"), 3600);
  const JobRecord& v = r->result->jobs[r->id("v")];
  EXPECT_EQ(v.preemptions, 1u);
  EXPECT_EQ(v.start.seconds(), 3600);
  EXPECT_EQ(r->result->cluster.pool_of(r->result->placement(r->id("v")).nodes.front()).name, "y");
  EXPECT_EQ(r->recorder.admissions, 4);
}

// Kueue's dominant resource share, checked against pkg/cache/scheduler/fair_sharing_test.go
// (TestDominantResourceShare; its DrValue is status.fairSharing.weightedShare, the weighted share
// rounded up). ClusterQueue cq and lending-cq in one cohort, one flavor; GPUs stand for its
// example.com/gpu, cpu for cpu.
//   "usage above nominal": quotas cq {cpu 2, gpu 5}, lending-cq {cpu 8, gpu 5}; cq uses cpu 3, gpu 7:
//     gpu (7 - 5) x 1000 / 10 = 200 beats cpu (3 - 2) x 1000 / 10 = 100: 200.
//   "one resource above nominal": cq uses cpu 3, gpu 3: (3 - 2) x 1000 / 10 = 100.
TEST(Kueue, DominantResourceShareAsKueue) {
  const auto with = [&](int cpu_jobs, int gpu_only_jobs) {
    const std::string qs = "      - {name: cq, cohort: test-cohort, resource_groups: [{covered_resources: [nvidia.com/gpu, cpu], "
                           "flavors: [{name: l4, resources: [{name: nvidia.com/gpu, nominal_quota: 5}, {name: cpu, "
                           "nominal_quota: 2}]}]}]}\n"
                           "      - {name: lending-cq, cohort: test-cohort, resource_groups: [{covered_resources: "
                           "[nvidia.com/gpu, cpu], flavors: [{name: l4, resources: [{name: nvidia.com/gpu, nominal_quota: 5}, "
                           "{name: cpu, nominal_quota: 8}]}]}]}\n";
    return run(3,
               jobs("cpu", cpu_jobs, "cq", "gpus: 1, cpu_milli: 1000, duration: 1h") +
                   jobs("gpu", gpu_only_jobs, "cq", "gpus: 1, duration: 1h"),
               kFlavor + "    cluster_queues:\n" + qs + "    local_queues: [{name: cq, namespace: cq, cluster_queue: cq}]\n");
  };
  const auto above = with(3, 4);
  EXPECT_EQ(above->recorder.admissions, 7);
  EXPECT_EQ(above->recorder.shares.at("cq"), 200);
  EXPECT_EQ(above->recorder.shares.at("lending-cq"), 0);
  EXPECT_EQ(with(3, 0)->recorder.shares.at("cq"), 100);
}

// The same test's cases where integer division used to hide borrowing (Kueue #6925, "Fix Rounding
// Bug"): cq nominal 500 GPUs, lending-cq 1000 (weight 300), lendable 1500.
//   "usage slightly above nominal in a cohort with large quotas": cq uses 501: 1 x 1000 / 1500 = 0.67,
//     rounded up 1;
//   "usage way above nominal in a cohort with large quotas and weights": cq (weight 300) uses 800:
//     300 x 1000 / 1500 / 300 = 0.67, rounded up 1.
// 501 GPUs: a job of 62 workers x 8 GPUs and five of 1, on 100 8-GPU nodes.
TEST(Kueue, DominantResourceShareRoundsUp) {
  const auto with = [&](const std::string& cq_weight, int big_workers, int small) {
    const std::string pools = "    - {name: p, node: hgx-h100, count: 100, labels: {gpu: h100}}\n";
    const std::string qs =
        "      - {name: cq, cohort: c, " + cq_weight +
        "resource_groups: [{covered_resources: [nvidia.com/gpu], flavors: [{name: h100, resources: "
        "[{name: nvidia.com/gpu, nominal_quota: 500}]}]}]}\n"
        "      - {name: lending-cq, cohort: c, fair_sharing: {weight: 300}, resource_groups: [{covered_resources: "
        "[nvidia.com/gpu], flavors: [{name: h100, resources: [{name: nvidia.com/gpu, nominal_quota: 1000}]}]}]}\n";
    const std::string js = "    - {name: big, tenant: cq, queue: cq, workers: " + std::to_string(big_workers) +
                           ", gpus: 8, duration: 1h}\n" + jobs("s", small, "cq", "gpus: 1, duration: 1h");
    return run(0, js,
               "    resource_flavors: [{name: h100, node_labels: {gpu: h100}}]\n    cluster_queues:\n" + qs +
                   "    local_queues: [{name: cq, namespace: cq, cluster_queue: cq}]\n",
               pools);
  };
  EXPECT_EQ(with("", 62, 5)->recorder.shares.at("cq"), 1);                                // 501
  EXPECT_EQ(with("fair_sharing: {weight: 300}, ", 100, 0)->recorder.shares.at("cq"), 1);  // 800
}

// Kueue's own fair-sharing preemption cases (pkg/scheduler/preemption/preemption_fair_test.go,
// TestFairPreemptions, kueue at ff69552), GPUs for its CPUs. Its `admitted` workloads arrive at 0
// (10 h long) and are admitted, as they fit their cohort's quota; `incoming` arrives at 1 h in its
// target queue. Result: the evictions it causes then, "victim:reason", sorted.
struct Wl {
  std::string name, cq;
  int gpus = 1;
  int priority = 0;
};
std::vector<std::string> fair_case(const std::string& queues, const std::vector<Wl>& admitted, const Wl& incoming,
                                   const std::string& extra = "") {
  std::string js;
  std::set<std::string> names;
  const auto line = [&](const Wl& w, const char* when) {
    names.insert(w.cq);
    js += "    - {name: " + w.name + ", tenant: " + w.cq + ", queue: " + w.cq + ", " + kNoGrace +
          "workers: " + std::to_string(w.gpus) + ", gpus: 1, priority: " + std::to_string(w.priority) + ", " + when + "}\n";
  };
  for (const Wl& w : admitted) line(w, "duration: 10h");
  line(incoming, "duration: 1h, arrival: 1h");
  std::string local = "    local_queues:\n";
  for (const std::string& n : names) local += "      - {name: " + n + ", namespace: " + n + ", cluster_queue: " + n + "}\n";
  const auto r = run(8, js, kFlavor + extra + "    cluster_queues:\n" + queues + local);
  std::vector<std::string> out;
  for (const Eviction& e : r->recorder.evictions)
    if (e.by == incoming.name && e.at_s == 3600) out.push_back(e.victim + ":" + e.reason);
  std::sort(out.begin(), out.end());
  for (const Wl& w : admitted) EXPECT_EQ(r->start(w.name), 0) << w.name << " was not admitted at 0";
  return out;
}
using Names = std::vector<std::string>;

// baseCQs: a, b, c of nominal 3 (withinClusterQueue LowerPriority, reclaimWithinCohort Any,
// borrowWithinCohort LowerPriority up to -3) and "preemptible" of 0, in cohort "all"; fair sharing
// with the default strategies. (Half-CPU cases are doubled: quotas 6, sizes x 2.)
std::string base_cqs(int scale = 1, const std::string& a_extra = "", bool borrow_within = true) {
  const std::string pre =
      std::string("cohort: all, preemption: {within_cluster_queue: LowerPriority, reclaim_within_cohort: Any") +
      (borrow_within ? ", borrow_within_cohort: {policy: LowerPriority, max_priority_threshold: -3}" : "") + "}, ";
  return queue("a", 3 * scale, pre + a_extra) + queue("b", 3 * scale, pre) + queue("c", 3 * scale, pre) +
         queue("preemptible", 0, "cohort: all, ");
}
const std::string kFair = "    fair_sharing: {enable: true}\n";
std::vector<Wl> units(const std::string& cq, int from, int to, int priority = 0) {
  std::vector<Wl> out;
  for (int i = from; i <= to; ++i) out.push_back({cq + std::to_string(i), cq, 1, priority});
  return out;
}
std::vector<Wl> operator+(std::vector<Wl> a, const std::vector<Wl>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(KueueFairSharing, KueueTestCasesFlat) {
  const std::string q = base_cqs();
  // "reclaim nominal from user using the most": c, within its nominal quota with the newcomer,
  // reclaims from b (5 of 3) regardless of shares.
  EXPECT_EQ(fair_case(q, units("a", 1, 3) + units("b", 1, 5) + units("c", 1, 1), {"in", "c"}, kFair),
            Names{"b1:InCohortReclamation"});
  // "reclaim borrowable quota from user using the most": a with it borrows 1 (111) <= b without b1 (111).
  EXPECT_EQ(fair_case(q, units("a", 1, 3) + units("b", 1, 5) + units("c", 1, 1), {"in", "a"}, kFair),
            Names{"b1:InCohortFairSharing"});
  // "can't preempt when everyone under nominal".
  EXPECT_EQ(fair_case(q, units("a", 1, 3) + units("b", 1, 3) + units("c", 1, 3), {"in", "c"}, kFair), Names{});
  // "can't preempt when it would switch the imbalance": a with 2 more (222) > b without one (111).
  EXPECT_EQ(fair_case(q, units("a", 1, 3) + units("b", 1, 5), {"in", "a", 2}, kFair), Names{});
  // "can preempt lower priority workloads from same CQ".
  EXPECT_EQ(fair_case(q, std::vector<Wl>{{"a1_low", "a", 1, -1}, {"a2_low", "a", 1, -1}} + units("a", 3, 4) + units("b", 1, 5),
                      {"in", "a", 2}, kFair),
            (Names{"a1_low:InClusterQueue", "a2_low:InClusterQueue"}));
  // "can preempt a combination of same CQ and highest user".
  EXPECT_EQ(fair_case(q, std::vector<Wl>{{"a_low", "a", 1, -1}} + units("a", 2, 3) + units("b", 1, 6), {"in", "a", 2}, kFair),
            (Names{"a_low:InClusterQueue", "b1:InCohortFairSharing"}));
  // "preempt huge workload if there is no other option, as long as the target CQ gets a lower share".
  EXPECT_EQ(fair_case(q, {{"b1", "b", 9}}, {"in", "a", 2}, kFair), Names{"b1:InCohortReclamation"});
  // "can't preempt huge workload if the incoming is also huge".
  EXPECT_EQ(fair_case(q, {{"a1", "a", 2}, {"b1", "b", 7}}, {"in", "a", 5}, kFair), Names{});
  // "can't preempt 2 smaller workloads if the incoming is huge".
  EXPECT_EQ(fair_case(q, {{"b1", "b", 2}, {"b2", "b", 2}, {"b3", "b", 3}}, {"in", "a", 6}, kFair), Names{});
  // "preempt from target and others even if over nominal".
  EXPECT_EQ(fair_case(q, {{"a1_low", "a", 2, -1}, {"a2_low", "a", 1, -1}, {"b1", "b", 3}, {"b2", "b", 3}}, {"in", "a", 4}, kFair),
            (Names{"a1_low:InClusterQueue", "b1:InCohortFairSharing"}));
  // "cannot preempt if it would make the candidate CQ go under nominal after preempting one element".
  EXPECT_EQ(fair_case(q, {{"b1", "b", 3}, {"b2", "b", 3}, {"c1", "c", 3}}, {"in", "a", 4}, kFair), Names{});
  // "workloads under priority threshold not capriciously preempted": borrowWithinCohort plays no
  // part in fair sharing; preemptible's -3 workloads are taken only as the shares allow, not enough.
  EXPECT_EQ(fair_case(q, units("a", 1, 3) + units("b", 1, 3) + units("preemptible", 1, 3, -3), {"in", "a", 2}, kFair), Names{});
}

TEST(KueueFairSharing, KueueTestCasesHalves) {
  const std::string q = base_cqs(2);
  // "prefer to preempt workloads that don't make the target CQ have the biggest share" (x 2): b1 4,
  // b2 2, b3 4, c1 2; a_incoming 7. Taking b2 leaves b at 8 (share 2/18) >= a's 1/18 and fits.
  EXPECT_EQ(fair_case(q, {{"b1", "b", 4}, {"b2", "b", 2}, {"b3", "b", 4}, {"c1", "c", 2}}, {"in", "a", 7}, kFair),
            Names{"b2:InCohortFairSharing"});
  // "preempt from different cluster queues if the end result has a smaller max share" (x 2).
  EXPECT_EQ(fair_case(q, {{"b1", "b", 4}, {"b2", "b", 5}, {"c1", "c", 4}, {"c2", "c", 5}}, {"in", "a", 7}, kFair),
            (Names{"b1:InCohortFairSharing", "c1:InCohortFairSharing"}));
  // "scenario above does not flap" (x 2): b can't take back from a.
  EXPECT_EQ(fair_case(q, {{"a1", "a", 7}, {"b2", "b", 5}, {"c2", "c", 5}}, {"in", "b", 4}, kFair), Names{});
}

// The two strategies on one case: a1 3 in a; b_low (priority 0) 5 and b_high (priority 1) 1 in b
// (b borrows 3: 333); a_incoming 1 makes a borrow 1 (111).
//   [LessThanInitialShare] ("preempt lower priority first, even if big"): b_low first in
//   candidate order, 111 < 333: b_low.
//   [LessThanOrEqualToFinalShare] ("preempt workload that doesn't transfer the imbalance, even if
//   high priority"): without b_low b's share is 0 < 111, refused; without b_high 222 >= 111: b_high.
TEST(KueueFairSharing, PreemptionStrategies) {
  const std::string q = base_cqs();
  const std::vector<Wl> admitted{{"a1", "a", 3}, {"b_low", "b", 5, 0}, {"b_high", "b", 1, 1}};
  EXPECT_EQ(
      fair_case(q, admitted, {"in", "a"}, "    fair_sharing: {enable: true, preemption_strategies: [LessThanInitialShare]}\n"),
      Names{"b_low:InCohortFairSharing"});
  EXPECT_EQ(fair_case(q, admitted, {"in", "a"},
                      "    fair_sharing: {enable: true, preemption_strategies: [LessThanOrEqualToFinalShare]}\n"),
            Names{"b_high:InCohortFairSharing"});
}

// "CQ with higher weight can preempt more": a of weight 2 (no borrowWithinCohort), b borrows 3;
// a_incoming 2: a with it borrows 2 (222 / 2 = 111) and may take two of b's (b then 111).
TEST(KueueFairSharing, HigherWeightPreemptsMore) {
  EXPECT_EQ(
      fair_case(base_cqs(1, "fair_sharing: {weight: 2}, ", false), units("a", 1, 3) + units("b", 1, 6), {"in", "a", 2}, kFair),
      (Names{"b1:InCohortFairSharing", "b2:InCohortFairSharing"}));
}

// "hierarchical preemption": ROOT (quota 5) holds c (1) and cohorts LEFT (5, weight 2: a 1 with
// weight 2, b 1) and RIGHT (5: d 1, e 1 with weight 0.99); b, c, d and e run five unit workloads
// each, priorities 1 to 5. a_incoming of 5: b1, b2, c1, c2 and e1 (InCohortFairSharing).
TEST(KueueFairSharing, KueueTestCaseHierarchical) {
  const std::string any = "preemption: {reclaim_within_cohort: Any}, ";
  const std::string cohorts =
      "    cohorts:\n"
      "      - {name: ROOT, resource_groups: [{covered_resources: [nvidia.com/gpu], flavors: [{name: l4, "
      "resources: [{name: nvidia.com/gpu, nominal_quota: 5}]}]}]}\n"
      "      - {name: LEFT, parent: ROOT, fair_sharing: {weight: 2}, resource_groups: [{covered_resources: "
      "[nvidia.com/gpu], flavors: [{name: l4, resources: [{name: nvidia.com/gpu, nominal_quota: 5}]}]}]}\n"
      "      - {name: RIGHT, parent: ROOT, resource_groups: [{covered_resources: [nvidia.com/gpu], flavors: "
      "[{name: l4, resources: [{name: nvidia.com/gpu, nominal_quota: 5}]}]}]}\n";
  const std::string q = queue("a", 1, "cohort: LEFT, fair_sharing: {weight: 2}, " + any) + queue("b", 1, "cohort: LEFT, ") +
                        queue("c", 1, "cohort: ROOT, ") + queue("d", 1, "cohort: RIGHT, ") +
                        queue("e", 1, "cohort: RIGHT, fair_sharing: {weight: 0.99}, ");
  std::vector<Wl> admitted;
  for (const char* cq : {"b", "c", "d", "e"})
    for (int i = 1; i <= 5; ++i) admitted.push_back({cq + std::to_string(i), cq, 1, i});
  EXPECT_EQ(fair_case(q, admitted, {"in", "a", 5}, kFair + cohorts),
            (Names{"b1:InCohortFairSharing", "b2:InCohortFairSharing", "c1:InCohortFairSharing", "c2:InCohortFairSharing",
                   "e1:InCohortFairSharing"}));
}

// Bad input: the reader names the field and what it expected.
TEST(Kueue, BadInput) {
  const auto error = [](const std::string& kueue, const std::string& job_queue = "a") {
    const std::string text = "name: k\ncluster: {pools: [{name: p, node: l4-4x, count: 1, labels: {gpu: l4}}]}\nworkload:\n  "
                             "reference_gpu: any\n  jobs:\n"
                             "    - {name: j, tenant: a, queue: " +
                             job_queue +
                             ", gpus: 1, duration: 1h}\n"
                             "tenancy:\n  kueue:\n" +
                             kueue + "policy: fifo+first-fit\n";
    return test::input_error([&] { test::load(write_file("bad.yaml", text)); });
  };
  const std::string good_queue = "    cluster_queues:\n" + queue("a", 1) + locals({"a"});
  // A flavor whose labels no pool has could never run what it admits.
  EXPECT_NE(error("    resource_flavors: [{name: l4, node_labels: {gpu: h100}}]\n" + good_queue)
                .find("no pool has all of ResourceFlavor 'l4''s node labels"),
            std::string::npos);
  EXPECT_NE(error(kFlavor + good_queue, "nope").find("unknown LocalQueue 'nope'"), std::string::npos);
  EXPECT_NE(error(good_queue).find("unknown ResourceFlavor 'l4'"), std::string::npos);
  EXPECT_NE(error(kFlavor + "    cohorts: [{name: x, parent: y}, {name: y, parent: x}]\n" + good_queue)
                .find("the cohorts' parents form a cycle: x -> y -> x; expected a tree"),
            std::string::npos);
  // A cycle above a chain is reported at its first declared member; a cohort its own parent too.
  EXPECT_NE(
      error(kFlavor + "    cohorts: [{name: a, parent: b}, {name: b, parent: c}, {name: c, parent: d}, {name: d, parent: c}]\n" +
            good_queue)
          .find("cycle: c -> d -> c;"),
      std::string::npos);
  EXPECT_NE(error(kFlavor + "    cohorts: [{name: s, parent: s}]\n" + good_queue).find("cycle: s -> s;"), std::string::npos);
  EXPECT_NE(error(kFlavor + "    cluster_queues:\n" + queue("a", 1, "", ", borrowing_limit: -1") + locals({"a"}))
                .find("borrowing_limit"),
            std::string::npos);
}

}  // namespace

// Two ClusterQueues return at once and each must reclaim from the borrower.
// x (nominal 4) runs eight 1-GPU 10-hour jobs from 0 (borrowing b's and c's 2 + 2); its pods take
// 5 min to go (termination_grace_period). At 1 h, b0 (2 workers) arrives in b and c0 (2 workers) in
// c, both ReclaimWithinCohort: Any. Kueue (scheduler.go schedule/processEntry): b0 is processed first
// and preempts two of x's; c0's targets (computed from the same snapshot) overlap b0's, so with
// RecomputeAssignmentUponPreemptionTargetsOverlap (main, v0.20 beta, on) c0's targets are recomputed
// with b0's victims counted gone and b0's quota counted used: two other x jobs; they do not overlap
// and c0 fits, so both preempt in the same cycle: four evictions at 1 h, b0 and c0 start at 1 h 5 min.
TEST(Kueue, SeveralQueuesReclaimInOneCycle) {
  std::string js;
  for (int i = 0; i < 8; ++i)
    js += "    - {name: x" + std::to_string(i) + ", tenant: x, queue: x, termination_grace_period: 5m, gpus: 1, duration: 10h}\n";
  for (const char* q : {"b", "c"})
    js += std::string("    - {name: ") + q + "0, tenant: " + q + ", queue: " + q + ", " + kNoGrace +
          "workers: 2, gpus: 1, duration: 1h, arrival: 1h}\n";
  const std::string reclaim = "cohort: org, preemption: {reclaim_within_cohort: Any}, ";
  const auto r = run(2, js,
                     kFlavor + "    cluster_queues:\n" + queue("x", 4, "cohort: org, ") + queue("b", 2, reclaim) +
                         queue("c", 2, reclaim) + locals({"x", "b", "c"}));
  ASSERT_EQ(r->recorder.evictions.size(), 4u);
  std::set<std::string> victims;
  for (const Eviction& e : r->recorder.evictions) {
    EXPECT_EQ(e.at_s, 3600) << e.victim;
    EXPECT_EQ(e.reason, "InCohortReclamation");
    victims.insert(e.victim);
  }
  EXPECT_EQ(victims.size(), 4u);
  EXPECT_EQ(r->start("b0"), 3600 + 300);
  EXPECT_EQ(r->start("c0"), 3600 + 300);  // not 3600 + 600: one preemption per tree and cycle, as before
}

// KEP-1714's story 3 (keps/1714-fair-sharing, "Story 3"): under the top cohort, CS lends 300 GPUs
// (its one queue s runs nothing), C1 holds 1A, 1B and 1C (weight 3), C2 holds 2A: fair sharing gives
// C1 and C2 150 each, and 1A 30, 1B 30, 1C 90. Here 2A's backlog takes all 300 from 0 and C1's
// queues return at 1 h (every workload 1 GPU, 10 h; pods gone 30 s after an eviction, Kubernetes'
// default). Each cycle, 1A's, 1B's and 1C's heads preempt together, their targets distinct
// (pkg/scheduler/scheduler.go), so C1 regains three GPUs per grace period: 150 by 1 h + 49 x 30 s.
// Then 1C takes its share from 1A and 1B, one a period, 90 at 1 h + 87 x 30 s. A queue's next head
// is tried once its first is admitted, after its victim's grace period, as in Kueue
// (kubernetes-sigs/kueue#6143). With one preemption per cohort tree and cycle, C1 regained one GPU
// a period and the shares settled at 1 h + 149 x 30 s (2 h 14.5 min).
TEST(Kueue, Kep1714Story3LateReturn) {
  std::string js;
  for (int i = 0; i < 400; ++i) js += "    - {name: x" + std::to_string(i) + ", tenant: 2A, queue: 2A, gpus: 1, duration: 10h}\n";
  for (const auto& [q, n] : std::vector<std::pair<std::string, int>>{{"1A", 60}, {"1B", 60}, {"1C", 150}})
    for (int i = 0; i < n; ++i)
      js += "    - {name: " + q + "_" + std::to_string(i) + ", tenant: " + q + ", queue: " + q +
            ", gpus: 1, duration: 10h, arrival: 1h}\n";
  const std::string any = "preemption: {reclaim_within_cohort: Any}, ";
  const auto r = run(75, js,
                     kFlavor +
                         "    fair_sharing: {enable: true}\n"
                         "    cohorts: [{name: CS, parent: org}, {name: C1, parent: org}, {name: C2, parent: org}]\n" +
                         "    cluster_queues:\n" + queue("s", 300, "cohort: CS, ") + queue("1A", 0, "cohort: C1, " + any) +
                         queue("1B", 0, "cohort: C1, " + any) + queue("1C", 0, "cohort: C1, fair_sharing: {weight: 3}, " + any) +
                         queue("2A", 0, "cohort: C2, " + any) + locals({"s", "1A", "1B", "1C", "2A"}));
  // GPUs each queue holds (each eviction moves one from its victim's queue to its preemptor's).
  std::map<std::string, int> held{{"1A", 0}, {"1B", 0}, {"1C", 0}, {"2A", 300}};
  const auto queue_of = [](const std::string& job) { return job[0] == 'x' ? std::string("2A") : job.substr(0, 2); };
  std::optional<double> c1_restored, settled;
  std::set<std::string> first_preemptors;
  for (const Eviction& e : r->recorder.evictions) {
    if (e.at_s >= 10 * 3600) break;  // 2A's jobs end at 10 h
    --held[queue_of(e.victim)];
    ++held[queue_of(e.by)];
    if (e.at_s == 3600) first_preemptors.insert(queue_of(e.by));
    if (!c1_restored && held["2A"] == 150) c1_restored = e.at_s;
    if (held["1A"] == 30 && held["1B"] == 30 && held["1C"] == 90) settled = e.at_s;
  }
  EXPECT_EQ(first_preemptors, (std::set<std::string>{"1A", "1B", "1C"}));
  EXPECT_EQ(c1_restored, 3600 + 49 * 30);
  EXPECT_EQ(settled, 3600 + 87 * 30);
  EXPECT_EQ(held["2A"], 150);
}
