// Whole replays of the shipped scenarios, timed without loading (loading is its own benchmark).
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <sys/resource.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "gpusim/policies/registry.hpp"
#include "gpusim/sim/packing.hpp"
#include "gpusim/sim/run.hpp"
#include "gpusim/sim/scenario.hpp"

namespace {

using namespace gpusim;

std::string path(const char* rel) { return fmt::format("{}/{}", GPUSIM_SOURCE_DIR, rel); }

Scenario load(const char* rel, std::vector<std::string> overrides = {}) {
  return load_scenario(path(rel), {std::move(overrides), path("data"), {}, {}});
}

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

void replay(benchmark::State& state, const Scenario& s, const char* policy) {
  uint64_t events = 0;
  for (auto _ : state) {
    auto scheduler = Registry::global().make(policy, policy_context(s), {});
    const RunResult r = simulate(s, *scheduler);
    events = r.events;
    benchmark::DoNotOptimize(r.jobs.data());
  }
  state.counters["jobs"] = static_cast<double>(s.jobs.jobs.size());
  state.counters["events"] = static_cast<double>(events);
  state.counters["peak_rss_mib"] = peak_rss_mib();
}
void replay(benchmark::State& state, const char* scenario, const char* policy) { replay(state, load(scenario), policy); }

void BM_OpenbDefaultBestFit(benchmark::State& s) { replay(s, "scenarios/openb-default.yaml", "fifo+best-fit"); }
void BM_OpenbDefaultFirstFit(benchmark::State& s) { replay(s, "scenarios/openb-default.yaml", "fifo+first-fit"); }
void BM_Synthetic1MBestFit(benchmark::State& s) { replay(s, "scenarios/synthetic-1m.yaml", "fifo+best-fit"); }
BENCHMARK(BM_OpenbDefaultBestFit)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OpenbDefaultFirstFit)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Synthetic1MBestFit)->Unit(benchmark::kSecond)->Iterations(1);

// The contended scale scenario (scenarios/scale/contended-10m.yaml: 10 M jobs on 100,000 GPUs, the queue
// non-empty most of the time) at 1/20 with overrides: 500,000 jobs on 5,000 GPUs, the same load per GPU.
// tests/contended_scale_test.py scales it the same way to 1/100.
void BM_Contended(benchmark::State& state, const char* policy) {
  constexpr int kScale = 20;
  struct Class {
    int64_t count;
    double rate_per_hour;
  };
  std::vector<Class> classes{{5280000, 40000}, {3664000, 27760}};
  classes.resize(13, {96000, 19200});  // the eleven bursts
  std::vector<std::string> sets{fmt::format("cluster.pools[0].count={}", 12500 / kScale)};
  for (std::size_t i = 0; i < classes.size(); ++i) {
    sets.push_back(fmt::format("workload.generator.classes[{}].count={}", i, classes[i].count / kScale));
    sets.push_back(fmt::format("workload.generator.classes[{}].arrival.rate_per_hour={}", i, classes[i].rate_per_hour / kScale));
  }
  replay(state, load("scenarios/scale/contended-10m.yaml", std::move(sets)), policy);
}
BENCHMARK_CAPTURE(BM_Contended, best_fit, "fifo+best-fit")->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_Contended, fgd, "fifo+fgd")->Unit(benchmark::kSecond)->Iterations(1);

// Philly (82,247 jobs on 744 GPUs) under each queue order of docs/fidelity.md's table. The preemptive
// orders replay for seconds (every suspension rebinds multi-node jobs and re-shares the network),
// so they run once.
void BM_Philly(benchmark::State& s, const char* policy) { replay(s, "scenarios/philly.yaml", policy); }
BENCHMARK_CAPTURE(BM_Philly, fifo, "fifo+first-fit")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Philly, sjf, "sjf+first-fit")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Philly, srtf, "srtf+first-fit")->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_Philly, las, "las+first-fit")->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_Philly, tiresias, "tiresias+first-fit")->Unit(benchmark::kSecond)->Iterations(1);

// The FGD paper's experiment: the openb default pod list packed to 130% of its 6,212 GPUs (10,785
// arrivals), recording allocation and fragmentation after each one. Target: under 1 s on one core
// (docs/design/performance.md; the paper's Go simulator takes about 10 minutes on 2 vCPUs).
void packing(benchmark::State& state, const char* policy) {
  const Scenario s = load("scenarios/fgd-openb.yaml");
  double allocated = 0;
  for (auto _ : state) {
    auto scheduler = Registry::global().make(policy, policy_context(s), {});
    const PackingResult r = run_packing(s, *scheduler);
    allocated = r.checkpoints.back().allocation_ratio;
  }
  state.counters["pods"] = static_cast<double>(s.jobs.jobs.size());
  state.counters["alloc_at_130pct"] = allocated;
}
void BM_FgdPackingOpenbDefault(benchmark::State& s) { packing(s, "fifo+fgd"); }
void BM_BestFitPackingOpenbDefault(benchmark::State& s) { packing(s, "fifo+best-fit"); }
BENCHMARK(BM_FgdPackingOpenbDefault)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BestFitPackingOpenbDefault)->Unit(benchmark::kMillisecond);

void BM_LoadScenario(benchmark::State& state, const char* scenario) {
  for (auto _ : state) benchmark::DoNotOptimize(load(scenario).jobs.jobs.size());
}
BENCHMARK_CAPTURE(BM_LoadScenario, openb_default, "scenarios/openb-default.yaml")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LoadScenario, philly, "scenarios/philly.yaml")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LoadScenario, synthetic_1m, "scenarios/synthetic-1m.yaml")->Unit(benchmark::kSecond)->Iterations(1);

// The cost of a decision must not grow with the number of idle identical nodes (docs/design/performance.md): the
// same 20,000 one-GPU jobs (about 300 GPUs busy at a time, so 64 nodes carry them) on 64 to 16,384
// eight-GPU nodes; time per job should stay flat.
void BM_DecisionCostVsIdleNodes(benchmark::State& state) {
  const auto text = fmt::format(R"(
name: idle-nodes
seed: 3
cluster: {{pools: [{{name: h100, node: hgx-h100, count: {}}}]}}
workload:
  generator:
    classes: [{{name: j, count: 20000, arrival: {{rate_per_hour: 600}}, gpus: 1, duration: {{distribution: exponential, mean: 30m}}}}]
policy: fifo+best-fit
)", state.range(0));
  const auto file = std::filesystem::temp_directory_path() / "gpusim-bench-idle.yaml";
  std::ofstream(file) << text;
  const Scenario s = load_scenario(file.string(), {});
  for (auto _ : state) {
    auto scheduler = Registry::global().make(s.policy, policy_context(s), {});
    benchmark::DoNotOptimize(simulate(s, *scheduler).events);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(s.jobs.jobs.size()));
}
BENCHMARK(BM_DecisionCostVsIdleNodes)->Arg(64)->Arg(1024)->Arg(16384)->Unit(benchmark::kMillisecond);

}  // namespace
