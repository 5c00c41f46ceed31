// Per-namespace figures (sim/tenant_ledger.hpp): fair shares, Jain's index, and a run whose
// figures are worked by hand.
#include <gtest/gtest.h>

#include "test_util.hpp"

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
                           "workload:\n  jobs:\n"
                           "    - {name: a, count: 2, gpus: 1, duration: 2h, namespace: a}\n"
                           "    - {name: b, gpus: 1, duration: 1h, namespace: b}\n";
  const Scenario s = test::load(write_file("two.yaml", text));
  auto sched = Registry::global().make(s.policy, policy_context(s), s.policy_where);
  const RunResult r = simulate(s, *sched);
  ASSERT_TRUE(r.tenancy);
  EXPECT_DOUBLE_EQ(r.tenancy->jain, 0.5);
  EXPECT_DOUBLE_EQ(r.tenancy->contended_s, 7200);
  ASSERT_EQ(s.jobs.tenants, (std::vector<std::string>{"default", "a", "b"}));
  const NamespaceFigures& a = r.tenancy->namespaces[1];
  const NamespaceFigures& b = r.tenancy->namespaces[2];
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

// Without a tenancy: block nothing is kept and the summary has no tenancy key.
TEST(Tenancy, OffWithoutATenancyBlock) {
  const Scenario s = test::load(write_file("none.yaml", "name: none\ncluster: {pools: [{name: p, node: a10-1x, count: 1}]}\n"
                                                        "workload: {jobs: [{name: j, gpus: 1, duration: 1h}]}\n"));
  auto sched = Registry::global().make(s.policy, policy_context(s), s.policy_where);
  const RunResult r = simulate(s, *sched);
  EXPECT_FALSE(r.tenancy);
  EXPECT_FALSE(summarize(s, r).contains("tenancy"));
}

}  // namespace
