// Sharing: MIG layout enumeration and placement, rate recomputation, and whole replays on MIG and
// time-sliced fleets (each start or finish recomputes the rates of the jobs on that GPU only).
#include <benchmark/benchmark.h>

#include "bench_util.hpp"
#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "gpusim/hardware/mig.hpp"
#include "gpusim/policies/registry.hpp"
#include "gpusim/sim/execution.hpp"
#include "gpusim/sim/run.hpp"
#include "gpusim/sim/scenario.hpp"

namespace {

using namespace gpusim;

const MigTable& a100() { return *Catalog::builtin().find_gpu("A100-80GB-SXM")->mig; }

void BM_MigEnumerateLayouts(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(mig_enumerate(a100()).size());
}
BENCHMARK(BM_MigEnumerateLayouts)->Unit(benchmark::kMicrosecond);

void BM_MigPlaceCounts(benchmark::State& state) {
  MigCounts c(a100().profiles.size(), 0);
  c[0] = 2;  // 2 x 1g.10gb + 2g.20gb + 3g.40gb, the driver's failing creation order
  c[3] = 1;
  c[4] = 1;
  for (auto _ : state) benchmark::DoNotOptimize(mig_place(a100(), c));
}
BENCHMARK(BM_MigPlaceCounts);

void BM_TimeSlicingRates(benchmark::State& state) {
  const std::vector<double> u(static_cast<std::size_t>(state.range(0)), 0.5);
  std::vector<double> rates(u.size());
  const TimeSlicingModel& ts = ExecutionModel::builtin().time_slicing.of(*Catalog::builtin().find_gpu("H200"));
  for (auto _ : state) {
    time_slicing_rates(u, ts, rates);
    benchmark::DoNotOptimize(rates.data());
  }
}
BENCHMARK(BM_TimeSlicingRates)->Arg(2)->Arg(8)->Arg(32);

// 100,000 jobs on 256 DGX A100 nodes (2,048 GPUs) that are MIG all-1g.10gb or time-sliced x4.
void BM_SharedFleetReplay(benchmark::State& state) {
  const bool mig = state.range(0) == 1;
  const Scenario s = bench::scenario_from_text(mig ? "mig.yaml" : "ts.yaml", fmt::format(R"(name: shared-fleet
seed: 3
cluster:
  pools:
    - name: a100
      node: dgx-a100-80gb
      count: 256
      {}
workload:
  generator:
    classes:
      - name: small
        kind: inference
        count: 100000
        arrival: {{rate_per_hour: 40000}}
        gpus: 1
        {}
        duration: {{distribution: exponential, mean: 1h}}
policy: fifo+best-fit
)",
                                      mig ? "mig: {strategy: mixed, config: all-1g.10gb}"
                                          : "sharing: {timeSlicing: {resources: [{name: nvidia.com/gpu, replicas: 4}]}}",
                                      mig ? "resource: nvidia.com/mig-1g.10gb" : ""));
  bench::replay_scenario(state, s);
}
BENCHMARK(BM_SharedFleetReplay)->Arg(1)->Arg(0)->ArgName("mig")->Unit(benchmark::kMillisecond);

}  // namespace
