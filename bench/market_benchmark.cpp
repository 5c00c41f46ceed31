// Spot reclaims, checkpoints and the autoscaler (issue 5): the scale-up estimate alone, and whole
// replays of a spot fleet that the market keeps taking nodes from.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "bench_util.hpp"
#include "gpusim/sim/autoscaler.hpp"

namespace {

using namespace gpusim;

// The scale-up plan for `range(0)` pending one-to-eight-GPU jobs over two pools of 8-GPU nodes.
void BM_ScaleUpPlan(benchmark::State& state) {
  const auto jobs = static_cast<int32_t>(state.range(0));
  for (auto _ : state) {
    ScaleUpPlan plan;
    plan.add_pool(PoolId{0}, {8, 81920, 256000, 1 << 21}, 4, 100000, 3.43);
    plan.add_pool(PoolId{1}, {8, 81920, 256000, 1 << 21}, 0, 100000, 1.23);
    for (int32_t i = 0; i < jobs; ++i) {
      const int32_t gpus = 1 << (i % 4);
      plan.place({{PoolId{0}, gpus, kWholeGpu, 0, 4000, 16384, 1, false, false},
                  {PoolId{1}, gpus, kWholeGpu, 0, 4000, 16384, 1, false, false}});
    }
    benchmark::DoNotOptimize(plan.added(PoolId{1}));
  }
  state.SetItemsProcessed(state.iterations() * jobs);
}
BENCHMARK(BM_ScaleUpPlan)->Arg(100)->Arg(1000)->Unit(benchmark::kMicrosecond);

// 20,000 training jobs of 1-8 GPUs over a week, checkpointing every 30 minutes, on spot nodes
// interrupted 30 times a node-month (up to 256 nodes) with an on-demand fallback (up to 256 nodes),
// both autoscaled, under fifo+spot-aware.
void BM_SpotFleetReplay(benchmark::State& state) {
  const Scenario s = bench::scenario_from_text("spot-fleet.yaml", R"(
name: spot-fleet
seed: 5
cluster:
  pools:
    - {name: spot, node: dgx-a100-80gb, market: spot, autoscale: {min: 0, max: 256}, spot: {interruptions_per_node_month: 30}}
    - {name: od, node: dgx-a100-80gb, autoscale: {min: 0, max: 256}}
workload:
  generator:
    classes:
      - name: t
        count: 20000
        kind: training
        arrival: {rate_per_hour: 120}
        gpus: [1, 2, 4, 8]
        duration: {distribution: lognormal, median: 2h, sigma: 1.0}
        checkpoint: {interval: 30m, cost: 1m, restore: 1m}
policy: {name: fifo+spot-aware, params: {spot_fallback_after: 30m}}
)");
  bench::replay_scenario(state, s);
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(s.jobs.jobs.size()));
}
BENCHMARK(BM_SpotFleetReplay)->Unit(benchmark::kMillisecond);

// The shipped spot-training batch at its harshest sweep point: about 10,000 reclaims.
void BM_SpotTraining1000PerMonth(benchmark::State& state) {
  const Scenario s = load_scenario(
      fmt::format("{}/scenarios/spot-training.yaml", GPUSIM_SOURCE_DIR),
      {{"cluster.pools.0.market=spot", "cluster.pools.0.spot={interruptions_per_node_month: 1000}"}, {}, {}, {}});
  bench::replay_scenario(state, s);
}
BENCHMARK(BM_SpotTraining1000PerMonth)->Unit(benchmark::kMillisecond);

}  // namespace
