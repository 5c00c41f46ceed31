// Taints and tolerations, nodeSelector and node affinity (issue 17): each matching rule by hand, the
// ExtendedResourceToleration admission plugin, kube-scheduler's preference scores, and a small run
// where the routing shows.
#include <gtest/gtest.h>

#include "gpusim/sim/node_placement.hpp"
#include "run_util.hpp"

using namespace gpusim;
using test::write_file;

namespace {

const Labels kA100{{"gpu", "a100"}, {"nvidia.com/gpu.memory", "81920"}, {"odd", "x7"}, {"zone", "a"}};

SelectorRequirement req(std::string key, SelectorOperator op, std::vector<std::string> values = {}) {
  return {std::move(key), op, std::move(values)};
}

TEST(NodeRules, EachSelectorOperator) {
  using enum SelectorOperator;
  EXPECT_TRUE(matches(req("gpu", in, {"t4", "a100"}), kA100));
  EXPECT_FALSE(matches(req("gpu", in, {"t4"}), kA100));
  EXPECT_FALSE(matches(req("absent", in, {"a100"}), kA100));
  EXPECT_FALSE(matches(req("gpu", not_in, {"a100"}), kA100));
  EXPECT_TRUE(matches(req("gpu", not_in, {"t4"}), kA100));
  EXPECT_TRUE(matches(req("absent", not_in, {"a100"}), kA100));  // NotIn: an absent label matches
  EXPECT_TRUE(matches(req("zone", exists), kA100));
  EXPECT_FALSE(matches(req("absent", exists), kA100));
  EXPECT_TRUE(matches(req("absent", does_not_exist), kA100));
  EXPECT_FALSE(matches(req("zone", does_not_exist), kA100));
  // Gt / Lt compare integers: 81920 > 40000, not > 81920; absent and non-integer labels match neither.
  EXPECT_TRUE(matches(req("nvidia.com/gpu.memory", gt, {"40000"}), kA100));
  EXPECT_FALSE(matches(req("nvidia.com/gpu.memory", gt, {"81920"}), kA100));
  EXPECT_TRUE(matches(req("nvidia.com/gpu.memory", lt, {"81921"}), kA100));
  EXPECT_FALSE(matches(req("nvidia.com/gpu.memory", lt, {"-5"}), kA100));
  EXPECT_FALSE(matches(req("absent", gt, {"0"}), kA100));
  EXPECT_FALSE(matches(req("odd", gt, {"0"}), kA100));
  EXPECT_FALSE(matches(req("odd", lt, {"0"}), kA100));
}

TEST(NodeRules, TermsAndSelectors) {
  using enum SelectorOperator;
  // A term ANDs its expressions; required terms are ORed; an empty term matches nothing.
  const SelectorTerm both{{req("gpu", in, {"a100"}), req("zone", in, {"b"})}};
  EXPECT_FALSE(matches(both, kA100));
  EXPECT_FALSE(matches(SelectorTerm{}, kA100));
  NodeRules r;
  r.required = {both, SelectorTerm{{req("zone", in, {"a"})}}};
  EXPECT_TRUE(selects(r, kA100));
  r.required.pop_back();
  EXPECT_FALSE(selects(r, kA100));
  // nodeSelector: every label with its value, and required affinity as well.
  NodeRules s;
  s.node_selector = {{"gpu", "a100"}, {"zone", "a"}};
  EXPECT_TRUE(selects(s, kA100));
  s.node_selector = {{"gpu", "a100"}, {"zone", "b"}};
  EXPECT_FALSE(selects(s, kA100));
  s.node_selector = {{"gpu", "a100"}};
  s.required = {SelectorTerm{{req("zone", in, {"b"})}}};
  EXPECT_FALSE(selects(s, kA100));
}

TEST(NodeRules, Tolerations) {
  using enum TaintEffect;
  using enum TolerationOperator;
  const Taint gpu{"nvidia.com/gpu", "present", no_schedule};
  EXPECT_TRUE(tolerates({"nvidia.com/gpu", equal, "present", no_schedule}, gpu));
  EXPECT_FALSE(tolerates({"nvidia.com/gpu", equal, "absent", no_schedule}, gpu));  // Equal: same value
  EXPECT_TRUE(tolerates({"nvidia.com/gpu", exists, "", no_schedule}, gpu));        // Exists: any value
  EXPECT_FALSE(tolerates({"other", exists, "", no_schedule}, gpu));                // another key
  EXPECT_FALSE(tolerates({"nvidia.com/gpu", exists, "", no_execute}, gpu));        // another effect
  EXPECT_TRUE(tolerates({"nvidia.com/gpu", exists, "", std::nullopt}, gpu));       // no effect: all effects
  EXPECT_TRUE(tolerates({"", exists, "", std::nullopt}, gpu));                     // empty key + Exists: everything
  EXPECT_TRUE(tolerates({"", exists, "", std::nullopt}, Taint{"x", "", no_execute}));
  EXPECT_FALSE(tolerates({"", exists, "", prefer_no_schedule}, gpu));
}

// kube-scheduler's scores over the candidate pools: 2 x NodeAffinity + 3 x TaintToleration, each
// normalised to 0-100 over the candidates (integer division).
//   A: weight 80, no PreferNoSchedule taint; B: weight 20, 1 taint; C: weight 0, 2 taints.
//   All three: max weight 80, max taints 2: A = 2*100 + 3*(100-0) = 500, B = 2*25 + 3*(100-50) = 200,
//   C = 0 + 3*(100-100) = 0. Only B and C: B = 2*100 + 3*50 = 350, C = 0.
//   D: weight 100 with 1 taint against E: no weight, no taint: D = 200 + 0, E = 0 + 300: fewer
//   PreferNoSchedule taints outweigh the preferred term (weight 3 against 2).
TEST(NodeRules, PreferenceScores) {
  const std::vector<PoolPreference> per_pool{{80, 0}, {20, 1}, {0, 2}, {100, 1}, {0, 0}};
  std::vector<int64_t> out;
  const std::vector<PoolId> all{PoolId{0}, PoolId{1}, PoolId{2}};
  preference_scores(per_pool, all, out);
  EXPECT_EQ(out, (std::vector<int64_t>{500, 200, 0}));
  const std::vector<PoolId> two{PoolId{1}, PoolId{2}};
  preference_scores(per_pool, two, out);
  EXPECT_EQ(out, (std::vector<int64_t>{350, 0}));
  const std::vector<PoolId> de{PoolId{3}, PoolId{4}};
  preference_scores(per_pool, de, out);
  EXPECT_EQ(out, (std::vector<int64_t>{200, 300}));
}

// ExtendedResourceToleration: each pod asking an extended resource tolerates NoSchedule taints keyed
// by it (operator Exists); a CPU-only pod gets nothing, so it stays off the tainted nodes.
TEST(NodeRules, ExtendedResourceToleration) {
  const std::string text = R"(name: ert
cluster: {pools: [{name: p, node: a10-1x, count: 1}]}
tenancy: {extended_resource_toleration: true}
workload:
  jobs:
    - {name: gpu, gpus: 1, duration: 1h}
    - {name: gpu2, gpus: 1, duration: 1h}
    - {name: mig, gpus: 1, resource: nvidia.com/mig-1g.10gb, duration: 1h}
    - {name: cpu, gpus: 0, cpu_milli: 1000, duration: 1h}
)";
  const Scenario s = test::load(write_file("ert.yaml", text));
  const JobSet& jobs = s.jobs;
  const auto tolerations = [&](std::size_t j) { return jobs.pod(jobs.jobs[j])->node_rules->tolerations; };
  using enum TolerationOperator;
  EXPECT_EQ(tolerations(0), (std::vector<Toleration>{{"nvidia.com/gpu", exists, "", TaintEffect::no_schedule}}));
  EXPECT_EQ(jobs.jobs[0].pod, jobs.jobs[1].pod);  // one pod spec for both
  EXPECT_EQ(tolerations(2), (std::vector<Toleration>{{"nvidia.com/mig-1g.10gb", exists, "", TaintEffect::no_schedule}}));
  EXPECT_EQ(jobs.pod(jobs.jobs[3]), nullptr);
}

// The well-known labels of a pool (kubelet, GPU Feature Discovery); written labels win.
TEST(NodeRules, NodeLabels) {
  const std::string text = R"(name: labels
cluster:
  pools:
    - {name: a, node: dgx-a100-80gb, count: 1, labels: {team: ml, kubernetes.io/os: custom}}
    - {name: t, node: t4-8x, count: 1, sharing: {timeSlicing: {resources: [{name: nvidia.com/gpu, replicas: 4}]}}}
workload: {jobs: [{name: j, gpus: 1, duration: 1h}]}
)";
  const Scenario s = test::load(write_file("labels.yaml", text));
  const Labels& a = s.pools[0].labels;
  EXPECT_EQ(label(a, "team"), "ml");
  EXPECT_EQ(label(a, "kubernetes.io/os"), "custom");
  EXPECT_EQ(label(a, "node.kubernetes.io/instance-type"), "dgx-a100-80gb");
  EXPECT_EQ(label(a, "nvidia.com/gpu.product"), "NVIDIA-A100-SXM4-80GB");
  EXPECT_EQ(label(a, "nvidia.com/gpu.count"), "8");
  EXPECT_EQ(label(a, "nvidia.com/gpu.memory"), "81920");
  EXPECT_EQ(label(a, "nvidia.com/gpu.compute.major"), "8");
  EXPECT_EQ(label(a, "nvidia.com/gpu.sharing-strategy"), "none");
  const Labels& t = s.pools[1].labels;
  EXPECT_EQ(label(t, "nvidia.com/gpu.product"), "Tesla-T4-SHARED");
  EXPECT_EQ(label(t, "nvidia.com/gpu.replicas"), "4");
  EXPECT_EQ(label(t, "nvidia.com/gpu.sharing-strategy"), "time-slicing");
  EXPECT_EQ(label(t, "nvidia.com/gpu.compute.minor"), "5");
}

// Three pools: 2 A100 nodes and 2 T4 nodes, both tainted nvidia.com/gpu=present:NoSchedule, and a
// CPU-only pool; ExtendedResourceToleration on. LLM inference requires an A100 (required affinity on
// GFD's product label), small models select T4s (nodeSelector), a CPU-only pod tolerates nothing:
// it can only go to the CPU pool. A pod preferring T4 (weight 50) but able to run anywhere lands on
// T4 with first-fit, although the A100 pool comes first.
constexpr const char* kRouting = R"(name: routing
catalog:
  nodes: [{name: cpu-32, gpu: T4, gpus: 0, cpu_milli: 32000, memory_mib: 131072, source: test}]
cluster:
  pools:
    - {name: a100, node: dgx-a100-80gb, count: 2, taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]}
    - {name: t4, node: t4-8x, count: 2, taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]}
    - {name: cpu, node: cpu-32, count: 1}
tenancy: {extended_resource_toleration: true}
workload:
  jobs:
    - name: llm
      count: 2
      gpus: 4
      kind: inference
      duration: 1h
      node_affinity:
        required: [{match_expressions: [{key: nvidia.com/gpu.product, operator: In, values: [NVIDIA-A100-SXM4-80GB]}]}]
    - {name: small, count: 3, gpus: 1, kind: inference, duration: 1h, node_selector: {nvidia.com/gpu.product: Tesla-T4}}
    - {name: etl, gpus: 0, cpu_milli: 4000, duration: 1h}
    - name: flexible
      gpus: 1
      duration: 1h
      node_affinity:
        preferred: [{weight: 50, preference: {match_expressions: [{key: nvidia.com/gpu.memory, operator: Lt, values: ["20000"]}]}}]
policy: fifo+first-fit
)";

TEST(NodeRules, RoutingRun) {
  const Scenario s = test::load(write_file("routing.yaml", kRouting));
  const RunResult r = test::simulate_scenario(s);
  const auto pool_of = [&](uint32_t id) { return r.cluster.pool(r.cluster.node(r.placement(JobId{id}).nodes[0]).pool).name; };
  ASSERT_EQ(r.jobs.size(), 7u);
  EXPECT_EQ(pool_of(0), "a100");
  EXPECT_EQ(pool_of(1), "a100");
  for (uint32_t j = 2; j < 5; ++j) EXPECT_EQ(pool_of(j), "t4") << j;
  EXPECT_EQ(pool_of(5), "cpu");
  EXPECT_EQ(pool_of(6), "t4");
  for (const JobRecord& j : r.jobs) EXPECT_EQ(j.status, JobStatus::completed);
  // Every placement ranks the preferred pool first.
  for (const char* p : {"fifo+best-fit", "fifo+spread", "fifo+random", "fifo+fgd", "fifo+gpu-clustering", "fifo+dot-product"}) {
    auto other = Registry::global().make(p, policy_context(s), s.policy_where);
    const RunResult o = simulate(s, *other);
    EXPECT_EQ(o.cluster.pool(o.cluster.node(o.placement(JobId{6}).nodes[0]).pool).name, "t4") << p;
  }
}

// Without ExtendedResourceToleration the GPU pods tolerate nothing: a job that no pool admits says why.
TEST(NodeRules, NeverFitsSaysWhy) {
  std::string text = kRouting;
  text.replace(text.find("tenancy: {extended_resource_toleration: true}"), 46, "");
  const std::string message = test::input_error([&] {
    const Scenario s = test::load(write_file("untolerated.yaml", text));
    auto sched = Registry::global().make(s.policy, policy_context(s), s.policy_where);
    simulate(s, *sched);
  });
  EXPECT_NE(message.find("job 'llm-0' can never run"), std::string::npos) << message;
  EXPECT_NE(message.find("does not tolerate the taint nvidia.com/gpu=present:NoSchedule of pool a100"), std::string::npos)
      << message;
  EXPECT_NE(message.find("required node affinity"), std::string::npos) << message;
}

}  // namespace
