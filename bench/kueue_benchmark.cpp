// Kueue admission at scale (issue 17): 1,000 ClusterQueues in 100 cohorts, 100,000 workloads and
// 10,000 nodes (40,000 GPUs), admission plus placement on one core; the same workload without Kueue
// for comparison. docs/guide/tenants.md, Kueue gives the figures.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <string>

#include "bench_util.hpp"

namespace {

using namespace gpusim;

// Two flavors (spot, on-demand) of 5,000 l4-4x nodes each. Every queue has 20 GPUs of each flavor
// (the 40,000 GPUs in all), preempts lower priority in its queue and reclaims in its cohort. Each
// queue gets 100 jobs of 1, 2 or 4 GPUs running 30 min to 3 h; even queues submit at 20 jobs an hour,
// odd ones at 10, so that even queues borrow from odd ones and are reclaimed from as those catch up.
std::string scenario(bool kueue) {
  constexpr int kCohorts = 100, kQueuesPerCohort = 10, kJobsPerQueue = 100;
  std::string s = "name: kueue-scale\nseed: 1\ncluster:\n  pools:\n"
                  "    - {name: spot, node: l4-4x, count: 5000, labels: {market: spot}}\n"
                  "    - {name: od, node: l4-4x, count: 5000, labels: {market: on-demand}}\n"
                  "workload:\n  generator:\n    classes:\n";
  std::string queues, locals;
  for (int c = 0; c < kCohorts; ++c)
    for (int q = 0; q < kQueuesPerCohort; ++q) {
      const std::string name = fmt::format("q{}-{}", c, q);
      s += fmt::format("      - {{name: {0}, count: {1}, tenant: {0}, {2}gpus: [1, 2, 4], priority: {3}, "
                       "duration: {{distribution: uniform, min: 30m, max: 3h}}, arrival: {{rate_per_hour: {4}}}}}\n",
                       name, kJobsPerQueue, kueue ? fmt::format("queue: {}, ", name) : "", q % 2, q % 2 == 0 ? 20 : 10);
      queues += fmt::format(
          "      - {{name: {0}, cohort: c{1}, preemption: {{within_cluster_queue: LowerPriority, reclaim_within_cohort: Any}}, "
          "resource_groups: [{{covered_resources: [nvidia.com/gpu], flavors: [{{name: spot, resources: [{{name: nvidia.com/gpu, "
          "nominal_quota: 20}}]}}, {{name: od, resources: [{{name: nvidia.com/gpu, nominal_quota: 20}}]}}]}}]}}\n",
          name, c);
      locals += fmt::format("      - {{name: {0}, namespace: {0}, cluster_queue: {0}}}\n", name);
    }
  if (kueue)
    s += "tenancy:\n  kueue:\n    resource_flavors: [{name: spot, node_labels: {market: spot}}, {name: od, node_labels: {market: "
         "on-demand}}]\n    cluster_queues:\n" +
         queues + "    local_queues:\n" + locals;
  return s + "policy: fifo+best-fit\n";
}

void BM_Kueue1000Queues(benchmark::State& state) {
  const Scenario s = bench::scenario_from_text("kueue-scale.yaml", scenario(true));
  bench::replay_scenario(state, s);
  state.counters["jobs"] = static_cast<double>(s.jobs.jobs.size());
}
void BM_Kueue1000QueuesWithoutKueue(benchmark::State& state) {
  const Scenario s = bench::scenario_from_text("kueue-scale-off.yaml", scenario(false));
  bench::replay_scenario(state, s);
  state.counters["jobs"] = static_cast<double>(s.jobs.jobs.size());
}
BENCHMARK(BM_Kueue1000Queues)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_Kueue1000QueuesWithoutKueue)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace
