// PriorityClasses, kube-scheduler's default preemption with PodDisruptionBudgets and graceful
// termination, and namespace ResourceQuota admission (issue 17), each on a case small enough to
// follow by hand. Nodes are l4-4x (4 GPUs); jobs without a checkpoint policy lose all they did when
// evicted; a pod's default grace period is 30 s.
#include <map>

#include <gtest/gtest.h>

#include "run_util.hpp"

using namespace gpusim;
using test::write_file;

namespace {

struct Outcome {
  Scenario scenario;
  RunResult result;
  const JobRecord& job(const std::string& name) const {
    for (const Job& j : scenario.jobs.jobs)
      if (j.name == name) return result.jobs[j.id];
    throw std::logic_error("no job " + name);
  }
};

Outcome run(int nodes, const std::string& jobs, const std::string& policy, const std::string& tenancy = "") {
  const std::string text = fmt::format("name: t\ncluster: {{pools: [{{name: p, node: l4-4x, count: {}}}]}}\n"
                                       "workload:\n  reference_gpu: any\n  jobs:\n{}policy: {}\n{}",
                                       nodes, jobs, policy, tenancy.empty() ? "" : "tenancy:\n" + tenancy);
  Scenario s = test::load(write_file("t.yaml", text));
  RunResult r = test::simulate_scenario(s);
  return {std::move(s), std::move(r)};
}

constexpr const char* kPreempt = "priority+first-fit+preempt";
// Arrives at 1 h when both nodes are full and asks a whole node.
const std::string kUrgent = "    - {name: urgent, gpus: 4, duration: 1h, arrival: 1h, priority: 100}\n";

// Two nodes, each full with 10-hour jobs placed at 0 (first-fit, in priority order); `urgent` evicts
// the jobs of one node and starts when they have left, at 3,600 + 30 s. Each case differs from the
// one before in the criterion named, and that criterion alone changes the node chosen.
TEST(DefaultPreemption, PicksTheNodeByKubeSchedulersCriteriaInOrder) {
  // 1. Fewest PDB violations: `a` (node 0) is covered by a budget with minAvailable 1 and is its only
  //    pod: evicting it violates the budget, evicting `b` (node 1) does not. Without the budget,
  //    every later criterion ties and the lowest node id, node 0, would be chosen.
  const std::string two = "    - {name: a, gpus: 4, duration: 10h, labels: {app: serve}}\n"
                          "    - {name: b, gpus: 4, duration: 10h}\n";
  const Outcome tie = run(2, two + kUrgent, kPreempt);
  EXPECT_EQ(tie.job("a").preemptions, 1u);
  EXPECT_EQ(tie.job("b").preemptions, 0u);
  const Outcome pdb = run(
      2, two + kUrgent, kPreempt,
      "  pod_disruption_budgets: [{namespace: default, selector: {match_labels: {app: serve}}, min_available: 1}]\n");
  EXPECT_EQ(pdb.job("a").preemptions, 0u);
  EXPECT_EQ(pdb.job("b").preemptions, 1u);
  EXPECT_EQ(pdb.job("urgent").start.seconds(), 3630.0);

  // 2. Lowest highest-victim priority: node 0 holds priority 10, node 1 priority 5.
  const Outcome highest = run(2,
                              "    - {name: p10, gpus: 4, duration: 10h, priority: 10}\n"
                              "    - {name: p5, gpus: 4, duration: 10h, priority: 5}\n" +
                                  kUrgent,
                              kPreempt);
  EXPECT_EQ(highest.job("p10").preemptions, 0u);
  EXPECT_EQ(highest.job("p5").preemptions, 1u);

  // 3. Smallest sum of priorities: node 0 holds (5, 5), node 1 (5, 3): both highest 5, sums 10 and 8
  //    (each plus 2 x 2^31).
  const Outcome sum = run(2,
                          "    - {name: x5, gpus: 2, duration: 10h, priority: 5}\n"
                          "    - {name: y5, gpus: 2, duration: 10h, priority: 5}\n"
                          "    - {name: z5, gpus: 2, duration: 10h, priority: 5}\n"
                          "    - {name: w3, gpus: 2, duration: 10h, priority: 3}\n" +
                              kUrgent,
                          kPreempt);
  EXPECT_EQ(sum.job("x5").preemptions + sum.job("y5").preemptions, 0u);
  EXPECT_EQ(sum.job("z5").preemptions + sum.job("w3").preemptions, 2u);

  // 4. Fewest victims: node 0 holds two 2-GPU jobs of priorities 0 and -2^31, node 1 one 4-GPU job
  //    of priority 0. Highest victim 0 on both; sums 0 + (-2^31) + 2 x 2^31 = 2^31 and 0 + 2^31 =
  //    2^31 tie (kube's offset makes a victim count 2^31); node 1 has one victim.
  const Outcome fewest = run(2,
                             "    - {name: two0, gpus: 2, duration: 10h, priority: 0}\n"
                             "    - {name: one, gpus: 4, duration: 10h, priority: 0}\n"
                             "    - {name: twomin, gpus: 2, duration: 10h, priority: -2147483648}\n" +
                                 kUrgent,
                             kPreempt);
  EXPECT_EQ(fewest.job("one").preemptions, 1u);
  EXPECT_EQ(fewest.job("two0").preemptions + fewest.job("twomin").preemptions, 0u);

  // 5. Latest start among the highest-priority victims: node 0's job started at 0, node 1's at 100 s.
  const Outcome latest = run(2,
                             "    - {name: early, gpus: 4, duration: 10h}\n"
                             "    - {name: late, gpus: 4, duration: 10h, arrival: 100}\n" +
                                 kUrgent,
                             kPreempt);
  EXPECT_EQ(latest.job("early").preemptions, 0u);
  EXPECT_EQ(latest.job("late").preemptions, 1u);
}

// One node of four 1-GPU jobs of priorities 1-4; `h` (priority 10) asks 2 GPUs. All four removed, it
// fits; reprieved most important first: 4 (3 GPUs free), 3 (2 free), then 2 and 1 would leave 1 free:
// the victims are 2 and 1. A budget covering `j1` (maxUnavailable 0) makes evicting it a violation,
// so it is reprieved first (3 free), then 4 (2 free); 3 and 2 are the victims. (The four's classes
// say Never: re-queued victims would otherwise preempt the lower ones in turn, as kube would.)
TEST(DefaultPreemption, ReprievesTheMostImportantVictimsAndThoseABudgetProtectsFirst) {
  const std::string jobs = "    - {name: j1, gpus: 1, duration: 10h, priority_class: c1, labels: {app: db}}\n"
                           "    - {name: j2, gpus: 1, duration: 10h, priority_class: c2}\n"
                           "    - {name: j3, gpus: 1, duration: 10h, priority_class: c3}\n"
                           "    - {name: j4, gpus: 1, duration: 10h, priority_class: c4}\n"
                           "    - {name: h, gpus: 2, duration: 1h, arrival: 1h, priority: 10}\n";
  std::string classes = "  priority_classes:\n";
  for (int c = 1; c <= 4; ++c) classes += fmt::format("    - {{name: c{0}, value: {0}, preemption_policy: Never}}\n", c);
  const Outcome plain = run(1, jobs, kPreempt, classes);
  EXPECT_EQ(plain.job("j1").preemptions + plain.job("j2").preemptions, 2u);
  EXPECT_EQ(plain.job("j3").preemptions + plain.job("j4").preemptions, 0u);
  EXPECT_EQ(plain.job("h").start.seconds(), 3630.0);
  const Outcome pdb = run(
      1, jobs, kPreempt,
      classes + "  pod_disruption_budgets: [{namespace: default, selector: {match_labels: {app: db}}, max_unavailable: 0}]\n");
  EXPECT_EQ(pdb.job("j1").preemptions + pdb.job("j4").preemptions, 0u);
  EXPECT_EQ(pdb.job("j2").preemptions + pdb.job("j3").preemptions, 2u);
}

// One node: `low` (4 GPUs, 10 h) runs; `small` (1 GPU, priority 0) waits from 30 min; `urgent`
// (4 GPUs, priority 100) arrives at 1 h and evicts `low` (grace 30 s). Under a fifo queue `small` is
// tried first when `low` has left at 3,630 s and would fit, but the node is nominated to `urgent`:
// it may not take the room, and `urgent` starts then, ending at 7,230 s. Then `low` (queued since 0)
// comes before `small` again: it restarts at 7,230 s and `small` starts when it ends, at 43,230 s.
TEST(DefaultPreemption, TheNominatedNodeHoldsTheRoomOfItsVictims) {
  const Outcome r = run(1,
                        "    - {name: low, gpus: 4, duration: 10h}\n"
                        "    - {name: small, gpus: 1, duration: 1h, arrival: 30m}\n" +
                            kUrgent,
                        "fifo+first-fit+preempt");
  EXPECT_EQ(r.job("urgent").start.seconds(), 3630.0);
  EXPECT_EQ(r.job("low").preemptions, 1u);
  EXPECT_EQ(r.job("small").start.seconds(), 43230.0);
  EXPECT_EQ(r.job("small").preemptions, 0u);
}

// The class sets the priority; preemptionPolicy Never makes `urgent` wait for `low` to end (10 h),
// PreemptLowerPriority lets it evict `low`; `low`'s 5-minute grace period delays it to 3,900 s.
TEST(DefaultPreemption, NeverPodsWaitAndTheGracePeriodDelaysThePreemptor) {
  const auto with = [](const std::string& policy) {
    return "  priority_classes:\n"
           "    - {name: prod, value: 1000, preemption_policy: " +
           policy +
           "}\n"
           "    - {name: batch, value: 0, global_default: true}\n";
  };
  const auto jobs = [](const std::string& low_extra) {
    return "    - {name: low, gpus: 4, duration: 10h" + low_extra +
           "}\n"
           "    - {name: urgent, gpus: 4, duration: 1h, arrival: 1h, priority_class: prod}\n";
  };
  const Outcome never = run(1, jobs(""), kPreempt, with("Never"));
  EXPECT_EQ(never.job("urgent").start.seconds(), 36000.0);
  EXPECT_EQ(never.job("low").preemptions, 0u);
  const Outcome preempting = run(1, jobs(""), kPreempt, with("PreemptLowerPriority"));
  EXPECT_EQ(preempting.job("urgent").start.seconds(), 3630.0);
  EXPECT_EQ(preempting.job("low").preemptions, 1u);
  EXPECT_EQ(preempting.scenario.jobs.jobs[1].priority, 1000);
  EXPECT_EQ(preempting.scenario.jobs.jobs[0].priority, 0);  // the global default
  const Outcome graceful = run(1, jobs(", termination_grace_period: 5m"), kPreempt, with("PreemptLowerPriority"));
  EXPECT_EQ(graceful.job("urgent").start.seconds(), 3900.0);
  // Without +preempt nothing is evicted: the priority order only orders the queue.
  const Outcome off = run(1, jobs(""), "priority+first-fit", with("PreemptLowerPriority"));
  EXPECT_EQ(off.job("urgent").start.seconds(), 36000.0);
}

// Namespace research may request 4 GPUs at once. r1 and r2 (2 each) are admitted at 0; r3 (1 GPU) at
// 10 min would make 5: rejected for good. r1 and r2 end at 1 h and give theirs back; r4 (1 GPU, 2 h)
// is admitted. prod's 4-GPU job is in another namespace.
TEST(QuotaAdmission, RejectsAJobOverItsNamespacesQuotaAndReleasesUsageWhenJobsEnd) {
  const Outcome r = run(2,
                        "    - {name: r1, namespace: research, gpus: 2, duration: 1h}\n"
                        "    - {name: r2, namespace: research, gpus: 2, duration: 1h}\n"
                        "    - {name: r3, namespace: research, gpus: 1, duration: 1h, arrival: 10m}\n"
                        "    - {name: r4, namespace: research, gpus: 1, duration: 1h, arrival: 2h}\n"
                        "    - {name: p, namespace: prod, gpus: 4, duration: 1h}\n",
                        "fifo+first-fit",
                        "  resource_quotas: [{name: research-gpus, namespace: research, hard: {requests.nvidia.com/gpu: 4}}]\n");
  EXPECT_EQ(r.job("r3").status, JobStatus::rejected);
  for (const char* n : {"r1", "r2", "r4", "p"}) EXPECT_EQ(r.job(n).status, JobStatus::completed) << n;
  using Reasons = std::map<std::string, uint64_t, std::less<>>;
  EXPECT_EQ(r.result.tenancy->rejections(), (Reasons{{"exceeded quota: research-gpus, requested: requests.nvidia.com/gpu", 1}}));
  const Json summary = summarize(r.scenario, r.result);
  EXPECT_EQ(summary["jobs_rejected"], 1);
  EXPECT_EQ(summary["jobs_completed"], 4);
}

// Other vendors' resources are quota'd by their own names: in a fleet of one L4 node and one MI300X node,
// namespace ml may request 8 amd.com/gpu at once. a (8 MI300X) is admitted; b (1 more, at 10 min) is
// rejected; c (nvidia.com/gpu) and d (no resource named: counted as nvidia.com/gpu, as Kueue counts
// it) are not counted against it.
TEST(QuotaAdmission, LimitsAnotherVendorsResourceByItsName) {
  const std::string text =
      "name: t\ncluster: {pools: [{name: l4, node: l4-4x, count: 1}, {name: amd, node: mi300x-8x, count: 1}]}\n"
      "workload:\n  reference_gpu: any\n  jobs:\n"
      "    - {name: a, namespace: ml, gpus: 8, resource: amd.com/gpu, duration: 1h}\n"
      "    - {name: b, namespace: ml, gpus: 1, resource: amd.com/gpu, duration: 1h, arrival: 10m}\n"
      "    - {name: c, namespace: ml, gpus: 2, resource: nvidia.com/gpu, duration: 1h, arrival: 10m}\n"
      "    - {name: d, namespace: ml, gpus: 2, duration: 1h, arrival: 10m}\n"
      "policy: fifo+first-fit\n"
      "tenancy:\n  resource_quotas: [{name: ml-amd, namespace: ml, hard: {requests.amd.com/gpu: 8}}]\n";
  Scenario s = test::load(write_file("t.yaml", text));
  RunResult result = test::simulate_scenario(s);
  const Outcome r{std::move(s), std::move(result)};
  EXPECT_EQ(r.job("a").status, JobStatus::completed);
  EXPECT_EQ(r.job("b").status, JobStatus::rejected);
  EXPECT_EQ(r.job("c").status, JobStatus::completed);
  EXPECT_EQ(r.job("d").status, JobStatus::completed);
  using Reasons = std::map<std::string, uint64_t, std::less<>>;
  EXPECT_EQ(r.result.tenancy->rejections(), (Reasons{{"exceeded quota: ml-amd, requested: requests.amd.com/gpu", 1}}));
}

// Scopes on PriorityClass: `low-pods` (In [low]) allows one pod of class low; `classless`
// (DoesNotExist) allows none without a class; `cpu` (no scope) 1,500 milli-CPU and 64 GiB in all.
//   a (low, 500m) admitted; b (low) rejected by low-pods; c (high, 500m) admitted, out of low-pods'
//   scope; d (no class) rejected by classless; e (high, 1 CPU) would make 2,000m: rejected by cpu.
TEST(QuotaAdmission, ScopeSelectorsOnPriorityClass) {
  const Outcome r = run(
      2,
      "    - {name: a, namespace: ml, gpus: 1, cpu_milli: 500, duration: 1h, priority_class: low}\n"
      "    - {name: b, namespace: ml, gpus: 1, duration: 1h, arrival: 1m, priority_class: low}\n"
      "    - {name: c, namespace: ml, gpus: 1, cpu_milli: 500, duration: 1h, arrival: 2m, priority_class: high}\n"
      "    - {name: d, namespace: ml, gpus: 1, duration: 1h, arrival: 3m}\n"
      "    - {name: e, namespace: ml, gpus: 1, cpu_milli: 1000, memory_mib: 1024, duration: 1h, arrival: 4m, "
      "priority_class: high}\n",
      "fifo+first-fit",
      "  priority_classes: [{name: low, value: 0}, {name: high, value: 100}]\n"
      "  resource_quotas:\n"
      "    - {name: low-pods, namespace: ml, hard: {count/pods: 1},\n"
      "       scope_selector: {match_expressions: [{scope_name: PriorityClass, operator: In, values: [low]}]}}\n"
      "    - {name: classless, namespace: ml, hard: {pods: 0},\n"
      "       scope_selector: {match_expressions: [{scope_name: PriorityClass, operator: DoesNotExist}]}}\n"
      "    - {name: cpu, namespace: ml, hard: {requests.cpu: 1500m, requests.memory: 64Gi}}\n");
  EXPECT_EQ(r.job("a").status, JobStatus::completed);
  EXPECT_EQ(r.job("b").status, JobStatus::rejected);
  EXPECT_EQ(r.job("c").status, JobStatus::completed);
  EXPECT_EQ(r.job("d").status, JobStatus::rejected);
  EXPECT_EQ(r.job("e").status, JobStatus::rejected);
  using Reasons = std::map<std::string, uint64_t, std::less<>>;
  EXPECT_EQ(r.result.tenancy->rejections(), (Reasons{{"exceeded quota: classless, requested: pods", 1},
                                                     {"exceeded quota: cpu, requested: requests.cpu", 1},
                                                     {"exceeded quota: low-pods, requested: count/pods", 1}}));
}

}  // namespace

namespace {

// The API server's classes exist without a tenancy block: a node-critical pod gets 2,000,001,000
// and preempts a cluster-critical one (2,000,000,000) on a full node; a scenario's own class of
// that name replaces the built-in one.
TEST(PriorityClasses, BuiltInSystemClasses) {
  const Outcome r = run(1,
                        "    - {name: low, gpus: 4, duration: 2h, priority_class: system-cluster-critical}\n"
                        "    - {name: high, gpus: 4, duration: 1h, arrival: 10m, priority_class: system-node-critical}\n",
                        "priority+first-fit+preempt");
  EXPECT_EQ(r.scenario.jobs.jobs[0].priority, 2'000'000'000);
  EXPECT_EQ(r.scenario.jobs.jobs[1].priority, 2'000'001'000);
  EXPECT_EQ(r.job("high").first_start.seconds(), 600 + 30);  // after the victim's 30-second grace period
  const Outcome own = run(1, "    - {name: j, gpus: 1, duration: 1h, priority_class: system-node-critical}\n", "fifo+first-fit",
                          "  priority_classes: [{name: system-node-critical, value: 7}]\n");
  EXPECT_EQ(own.scenario.jobs.jobs[0].priority, 7);
}

}  // namespace
