// Topology (issue 4): the per-template precomputation of best rings, the choice of the best k-GPU
// subset of a node's free GPUs (a walk of the precomputed list), and a replay of multi-GPU,
// multi-node communicating jobs on a PCIe fleet under fifo+topology.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <bit>

#include "bench_util.hpp"
#include "gpusim/core/random.hpp"
#include "gpusim/hardware/catalog.hpp"

namespace {

using namespace gpusim;

const char* kEightGpuTopology = R"(
pcie: [cpu0/rc0/sw0/sw0a, cpu0/rc0/sw0/sw0b, cpu0/rc1/sw1, cpu0/rc1/sw1,
       cpu1/rc2/sw2/sw2a, cpu1/rc2/sw2/sw2b, cpu1/rc3/sw3, cpu1/rc3/sw3]
nvlink: [[0, 1, 12], [2, 3, 12], [4, 5, 12], [6, 7, 12]]
inter_socket_gb_per_s: 16
source: bench)";

void BM_TopologyPrecompute(benchmark::State& state) {
  const ConfigNode doc = ConfigNode::parse(kEightGpuTopology, "bench.yaml");
  const GpuModel& gpu = *Catalog::builtin().find_gpu("A100-80GB-PCIe");
  for (auto _ : state) {
    const NodeTopology t = NodeTopology::parse(doc, gpu, 8);
    benchmark::DoNotOptimize(t.best_subsets(4).data());
  }
}
BENCHMARK(BM_TopologyPrecompute)->Unit(benchmark::kMicrosecond);

// The best `k` GPUs among a node's free ones: the first precomputed subset inside the free mask.
void BM_BestSubsetChoice(benchmark::State& state) {
  const NodeTopology& t = Catalog::builtin().find_node("a100-80gb-pcie-8x")->topology;
  const int k = static_cast<int>(state.range(0));
  Rng rng = make_stream(1, "bench/free-masks");
  std::vector<uint32_t> free_masks;
  while (free_masks.size() < 1024) {
    const auto m = static_cast<uint32_t>(rng() & 0xFF);
    if (std::popcount(m) >= k) free_masks.push_back(m);
  }
  std::size_t i = 0;
  for (auto _ : state) {
    const uint32_t free = free_masks[i++ & 1023];
    uint32_t chosen = 0;
    for (uint32_t m : t.best_subsets(k))
      if ((m & ~free) == 0) {
        chosen = m;
        break;
      }
    benchmark::DoNotOptimize(t.ring_bottleneck(chosen).gb_per_s);
  }
}
BENCHMARK(BM_BestSubsetChoice)->Arg(2)->Arg(4)->Arg(6);

// 20,000 jobs of 1-16 GPUs (training, default communication profile) on 256 8-GPU PCIe servers.
void BM_TopologyFleetReplay(benchmark::State& state) {
  const Scenario s = bench::scenario_from_text("topology.yaml", R"(name: bench-topology
seed: 3
cluster:
  pools: [{name: pcie, node: a100-80gb-pcie-8x, count: 256, kubelet: {topologyManagerPolicy: best-effort}}]
workload:
  generator:
    classes:
      - name: train
        kind: training
        count: 20000
        arrival: {rate_per_hour: 250}
        gpus: [1, 2, 4, 8, 16]
        gpu_weights: [8, 4, 3, 2, 1]
        multi_node: true
        duration: {distribution: exponential, mean: 2h}
policy: fifo+topology
)");
  bench::replay_scenario(state, s);
}
BENCHMARK(BM_TopologyFleetReplay)->Unit(benchmark::kMillisecond);

}  // namespace
