// Per-namespace, ClusterQueue and cohort figures (sim/tenant_ledger.hpp): fair shares (the cluster's
// and Kueue's quota tree's), Jain's index, and runs whose figures are worked by hand.
#include <gtest/gtest.h>

#include "run_util.hpp"

using namespace gpusim;
using test::write_file;

namespace {

// Capacity 10 over demands 2, 8, 8. Equal weights: 2 is satisfied, the other two split 8: 2, 4, 4.
// Weights 1, 1, 2: 2 first (2 per unit of weight), then the weight-2 claimant (4 per unit) gets
// 8 x 2/3 = 5.33, the last 2.67. Capacity above the demands: each gets what it asks.
TEST(Tenancy, WeightedFairSharesFillWater) {
  const std::vector<double> equal = weighted_fair_shares(10, {2, 8, 8}, {1, 1, 1});
  EXPECT_DOUBLE_EQ(equal[0], 2);
  EXPECT_DOUBLE_EQ(equal[1], 4);
  EXPECT_DOUBLE_EQ(equal[2], 4);
  const std::vector<double> weighted = weighted_fair_shares(10, {2, 8, 8}, {1, 1, 2});
  EXPECT_DOUBLE_EQ(weighted[0], 2);
  EXPECT_NEAR(weighted[1], 8.0 / 3, 1e-12);
  EXPECT_NEAR(weighted[2], 16.0 / 3, 1e-12);
  const std::vector<double> ample = weighted_fair_shares(10, {2, 3, 0}, {1, 1, 1});
  EXPECT_DOUBLE_EQ(ample[0], 2);
  EXPECT_DOUBLE_EQ(ample[1], 3);
  EXPECT_DOUBLE_EQ(ample[2], 0);
}

// (sum x)^2 / (n sum x^2): equal shares 1; one of two gets all 0.5; 2 and 1: 9 / 10.
TEST(Tenancy, JainIndex) {
  EXPECT_DOUBLE_EQ(jain_index({1, 1}), 1);
  EXPECT_DOUBLE_EQ(jain_index({1, 0}), 0.5);
  EXPECT_DOUBLE_EQ(jain_index({2, 1}), 0.9);
  EXPECT_DOUBLE_EQ(jain_index({3}), 1);
}

// Two 1-GPU nodes; namespace a runs two 2-hour jobs from 0, namespace b's 1-hour job waits for one
// of them (fifo) and runs 2-3 h.
//   0-2 h: a wants 2 GPUs and holds 2, b wants 1 and holds 0; fair shares 1 and 1 (b's demand is
//          met first, a gets the rest); held / fair 2 and 0: Jain 4 / (2 x 4) = 0.5, contended.
//   2-3 h: only b wants GPUs (not contended).
// a: held 4 GPU-h, fair share 2 GPU-h (mean 0.667 GPUs over 3 h); b: held 1, fair 3, waited 7,200 s.
TEST(Tenancy, FiguresOfATwoNamespaceRun) {
  const std::string text = "name: two\ncluster: {pools: [{name: p, node: a10-1x, count: 2}]}\n"
                           "tenancy: {}\n"
                           "workload:\n  reference_gpu: any\n  jobs:\n"
                           "    - {name: a, count: 2, gpus: 1, duration: 2h, namespace: a}\n"
                           "    - {name: b, gpus: 1, duration: 1h, namespace: b}\n";
  const Scenario s = test::load(write_file("two.yaml", text));
  const RunResult r = test::simulate_scenario(s);
  ASSERT_TRUE(r.tenancy);
  EXPECT_DOUBLE_EQ(r.tenancy->jain, 0.5);
  EXPECT_DOUBLE_EQ(r.tenancy->contended_s, 7200);
  ASSERT_EQ(s.jobs.tenants, (std::vector<std::string>{"default", "a", "b"}));
  const GroupFigures& a = r.tenancy->namespaces[1];
  const GroupFigures& b = r.tenancy->namespaces[2];
  EXPECT_DOUBLE_EQ(a.held_gpu_s, 4 * 3600.0);
  EXPECT_DOUBLE_EQ(a.fair_share_gpu_s, 2 * 3600.0);
  EXPECT_DOUBLE_EQ(b.held_gpu_s, 3600.0);
  EXPECT_DOUBLE_EQ(b.fair_share_gpu_s, 3 * 3600.0);
  EXPECT_EQ(b.wait_s, std::vector<double>{7200.0});
  EXPECT_EQ(a.completed, 2u);
  const Json summary = summarize(s, r);
  EXPECT_EQ(summary["tenancy"]["fairness_jain"], 0.5);
  EXPECT_EQ(summary["tenants"][1]["wait_s"]["max"], 7200.0);
}

// Kueue's quota tree in GPUs (quota_scale 1): one flavor, nvidia.com/gpu only.
KueueResourceGroup gpu_quota(int64_t nominal, std::optional<int64_t> borrowing_limit = std::nullopt) {
  return {{"nvidia.com/gpu"}, {{0, {{"nvidia.com/gpu", nominal, borrowing_limit, std::nullopt}}}}};
}
KueueClusterQueue cluster_queue(std::string name, std::string cohort, int64_t nominal, double weight = 1,
                                std::optional<int64_t> borrowing_limit = std::nullopt) {
  KueueClusterQueue q;
  q.name = std::move(name);
  q.cohort = std::move(cohort);
  q.resource_groups = {gpu_quota(nominal, borrowing_limit)};
  q.weight = weight;
  return q;
}

// Flat cohort org: a (nominal 2, weight 2), b (2, weight 1), c (2) idle. Demands 6, 4, 0: the tree's
// 6 GPUs; a and b first get their nominal 2 each, the 2 left go 2:1 by weight: a 3.33, b 2.67.
//   a's borrowing limit 1: a stops at 3, b gets the other 1: 3 and 3.
//   b's weight 0: it yields, a takes both: 4 and 2.
// A ClusterQueue without a cohort gets what it asks up to its nominal quota: 5 of 7 -> 5, 9 -> 7.
TEST(Tenancy, KueueFairSharesFlat) {
  KueueSpec k;
  k.cohorts.push_back({"org", "", {}, 1, false});
  k.cluster_queues = {cluster_queue("a", "org", 2, 2), cluster_queue("b", "org", 2), cluster_queue("c", "org", 2),
                      cluster_queue("alone", "", 7)};
  std::vector<double> q, c;
  KueueFairShares(k, 1).compute({6, 4, 0, 5}, q, c);
  EXPECT_NEAR(q[0], 10.0 / 3, 1e-12);
  EXPECT_NEAR(q[1], 8.0 / 3, 1e-12);
  EXPECT_EQ(q[2], 0);
  EXPECT_EQ(q[3], 5);
  EXPECT_EQ(c[0], 6);
  KueueFairShares(k, 1).compute({6, 4, 0, 9}, q, c);
  EXPECT_EQ(q[3], 7);
  k.cluster_queues[0] = cluster_queue("a", "org", 2, 2, 1);
  KueueFairShares(k, 1).compute({6, 4, 0, 0}, q, c);
  EXPECT_DOUBLE_EQ(q[0], 3);
  EXPECT_DOUBLE_EQ(q[1], 3);
  k.cluster_queues[0] = cluster_queue("a", "org", 2, 2);
  k.cluster_queues[1] = cluster_queue("b", "org", 2, 0);
  KueueFairShares(k, 1).compute({6, 4, 0, 0}, q, c);
  EXPECT_DOUBLE_EQ(q[0], 4);
  EXPECT_DOUBLE_EQ(q[1], 2);
}

// Hierarchical: org holds c (nominal 2, idle) and cohorts x (a: nominal 4) and y (b1, b2: 1 each).
// Demands a 8, b1 4, b2 0. org's tree has 8 GPUs: x gets its 4, y its 2, and the 2 left split
// evenly (x and y both want more): x 5, y 3. In y, b1 gets its 1 and the 2 left: 3.
TEST(Tenancy, KueueFairSharesHierarchical) {
  KueueSpec k;
  k.cohorts = {{"org", "", {}, 1, true}, {"x", "org", {}, 1, true}, {"y", "org", {}, 1, true}};
  k.cluster_queues = {cluster_queue("c", "org", 2), cluster_queue("a", "x", 4), cluster_queue("b1", "y", 1),
                      cluster_queue("b2", "y", 1)};
  const KueueFairShares shares(k, 1);
  EXPECT_EQ(shares.cohort_nominal(0), 8);
  EXPECT_EQ(shares.cohort_nominal(2), 2);
  std::vector<double> q, c;
  shares.compute({0, 8, 4, 0}, q, c);
  EXPECT_DOUBLE_EQ(c[0], 8);
  EXPECT_DOUBLE_EQ(c[1], 5);
  EXPECT_DOUBLE_EQ(c[2], 3);
  EXPECT_DOUBLE_EQ(q[0], 0);
  EXPECT_DOUBLE_EQ(q[1], 5);
  EXPECT_DOUBLE_EQ(q[2], 3);
  EXPECT_DOUBLE_EQ(q[3], 0);
}

// One l4-4x node (4 GPUs); ClusterQueues a (nominal 1) and b (nominal 3) in cohort org. a's four
// 1-hour jobs are admitted at 0 (three borrowed from b); b's 1-hour job arrives at 2 h.
//   a: held 4 GPU-h, quota used 4, borrowed 3 GPU-h; fair share 4 for the first hour (1 nominal + the
//      3 b does not want), so held / fair 1.
//   b: lent 3 GPU-h (all that was borrowed: it alone had unused quota), held 1.
//   org: nominal 4, borrowed and lent 3 (the sums), Jain 1 (never two members wanting at once).
// Over the 3-hour run: a's mean quota used 4/3 GPUs.
TEST(Tenancy, ClusterQueueAndCohortFigures) {
  const std::string quota = "resource_groups: [{covered_resources: [nvidia.com/gpu], flavors: [{name: l4, resources: "
                            "[{name: nvidia.com/gpu, nominal_quota: ";
  const std::string text =
      "name: kq\ncluster: {pools: [{name: p, node: l4-4x, count: 1, labels: {gpu: l4}}]}\n"
      "workload:\n  reference_gpu: any\n  jobs:\n"
      "    - {name: a, count: 4, gpus: 1, duration: 1h, namespace: a, queue: a}\n"
      "    - {name: b, gpus: 1, duration: 1h, arrival: 2h, namespace: b, queue: b}\n"
      "tenancy:\n  kueue:\n"
      "    resource_flavors: [{name: l4, node_labels: {gpu: l4}}]\n"
      "    cluster_queues:\n"
      "      - {name: a, cohort: org, " +
      quota +
      "1}]}]}]}\n"
      "      - {name: b, cohort: org, " +
      quota +
      "3}]}]}]}\n"
      "    local_queues: [{name: a, namespace: a, cluster_queue: a}, {name: b, namespace: b, cluster_queue: b}]\n";
  const Scenario s = test::load(write_file("kq.yaml", text));
  const RunResult r = test::simulate_scenario(s);
  ASSERT_TRUE(r.tenancy);
  ASSERT_EQ(r.tenancy->cluster_queues.size(), 2u);
  ASSERT_EQ(r.tenancy->cohorts.size(), 1u);
  const GroupFigures& a = r.tenancy->cluster_queues[0];
  const GroupFigures& b = r.tenancy->cluster_queues[1];
  const GroupFigures& org = r.tenancy->cohorts[0];
  EXPECT_EQ(a.jobs, 4u);
  EXPECT_EQ(a.nominal_gpus, 1);
  EXPECT_DOUBLE_EQ(a.held_gpu_s, 4 * 3600.0);
  EXPECT_DOUBLE_EQ(a.fair_share_gpu_s, 4 * 3600.0);
  EXPECT_DOUBLE_EQ(a.quota_used_gpu_hours, 4);
  EXPECT_DOUBLE_EQ(a.borrowed_gpu_hours, 3);
  EXPECT_DOUBLE_EQ(a.lent_gpu_hours, 0);
  EXPECT_DOUBLE_EQ(b.lent_gpu_hours, 3);
  EXPECT_DOUBLE_EQ(b.held_gpu_s, 3600.0);
  EXPECT_EQ(org.jobs, 5u);
  EXPECT_EQ(org.nominal_gpus, 4);
  EXPECT_DOUBLE_EQ(org.borrowed_gpu_hours, 3);
  EXPECT_DOUBLE_EQ(org.lent_gpu_hours, 3);
  EXPECT_DOUBLE_EQ(org.jain, 1);
  const Json summary = summarize(s, r);
  EXPECT_EQ(summary["tenancy"]["cluster_queues"][0]["name"], "a");
  EXPECT_EQ(summary["tenancy"]["cluster_queues"][0]["cohort"], "org");
  EXPECT_NEAR(summary["tenancy"]["cluster_queues"][0]["mean_quota_used_gpus"].get<double>(), 4.0 / 3, 1e-6);
  EXPECT_EQ(summary["tenancy"]["cohorts"][0]["gpu_hours_lent"], 3.0);
}

// A job Kueue never admits still counts: quota 1 GPU, two 10-hour jobs, a 5-hour horizon. The
// second waits for admission (and to start) until the end: wait and admission wait max 5 h.
TEST(Tenancy, JobNeverAdmittedByKueueCountsUntilTheEnd) {
  const std::string text =
      "name: starve\nhorizon: 5h\ncluster: {pools: [{name: p, node: l4-4x, count: 1, labels: {gpu: l4}}]}\n"
      "workload:\n  reference_gpu: any\n  jobs:\n"
      "    - {name: a, count: 2, gpus: 1, duration: 10h, namespace: a, queue: a}\n"
      "tenancy:\n  kueue:\n"
      "    resource_flavors: [{name: l4, node_labels: {gpu: l4}}]\n"
      "    cluster_queues: [{name: a, resource_groups: [{covered_resources: [nvidia.com/gpu], flavors: [{name: l4, "
      "resources: [{name: nvidia.com/gpu, nominal_quota: 1}]}]}]}]\n"
      "    local_queues: [{name: a, namespace: a, cluster_queue: a}]\n";
  const Scenario s = test::load(write_file("starve.yaml", text));
  const RunResult r = test::simulate_scenario(s);
  ASSERT_TRUE(r.tenancy);
  for (const GroupFigures* f : {&r.tenancy->namespaces[1], &r.tenancy->cluster_queues[0]}) {
    EXPECT_EQ(f->wait_s, (std::vector<double>{0.0, 5 * 3600.0}));
    EXPECT_EQ(f->admission_wait_s, (std::vector<double>{0.0, 5 * 3600.0}));
    EXPECT_DOUBLE_EQ(f->demand_gpu_s, 2 * 5 * 3600.0);  // both want a GPU the whole time
  }
}

// Without a tenancy: block nothing is kept and the summary has no tenancy key.
TEST(Tenancy, OffWithoutATenancyBlock) {
  const Scenario s = test::load(write_file("none.yaml", "name: none\ncluster: {pools: [{name: p, node: a10-1x, count: 1}]}\n"
                                                        "workload: {jobs: [{name: j, gpus: 1, duration: 1h}]}\n"));
  const RunResult r = test::simulate_scenario(s);
  EXPECT_FALSE(r.tenancy);
  EXPECT_FALSE(summarize(s, r).contains("tenancy"));
}

}  // namespace
