// Iteration-level serving at scale (issue 18; docs/design/performance.md): every replica steps vLLM's
// continuous batching one iteration per due event, so a run costs per iteration, not per request.
// Targets: the Azure conversation hour on 16 replicas well under a second; a day at 100 requests/s
// (8.64 M requests) on 64 replicas under 60 s on one core; a day of prefix-cached Mooncake traffic
// under 10 s. The scenarios are scenarios/scale/serving-*.yaml and scenarios/serving-prefix-cache.yaml.
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <sys/resource.h>

#include <string>
#include <vector>

#include "gpusim/policies/registry.hpp"
#include "gpusim/sim/run.hpp"
#include "gpusim/sim/scenario.hpp"

namespace {

using namespace gpusim;

std::string path(const char* rel) { return fmt::format("{}/{}", GPUSIM_SOURCE_DIR, rel); }

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

// Loading (reading the trace, or nothing: the generator draws while the run goes) is outside the timing.
void serve(benchmark::State& state, const Scenario& s) {
  uint64_t requests = 0, iterations = 0;
  for (auto _ : state) {
    auto scheduler = Registry::global().make(s.policy, policy_context(s), {});
    const RunResult r = simulate(s, *scheduler);
    requests = iterations = 0;
    for (const ServiceFigures& f : r.services) {
      requests += f.arrived;
      iterations += f.iterations;
    }
    benchmark::DoNotOptimize(r.services.data());
  }
  const auto runs = static_cast<double>(state.iterations());
  state.counters["requests"] = static_cast<double>(requests);
  state.counters["iterations"] = static_cast<double>(iterations);
  state.counters["requests_per_s"] = benchmark::Counter(static_cast<double>(requests) * runs, benchmark::Counter::kIsRate);
  state.counters["iterations_per_s"] = benchmark::Counter(static_cast<double>(iterations) * runs, benchmark::Counter::kIsRate);
  state.counters["peak_rss_mib"] = peak_rss_mib();
}

void serve(benchmark::State& state, const char* scenario, std::vector<std::string> overrides = {}) {
  serve(state, load_scenario(path(scenario), {std::move(overrides), path("data"), {}, {}}));
}

// 19,366 requests of the Azure LLM 2023 conversation trace on 16 llama-3-8b replicas (whole A100-80GBs).
void BM_ServingAzureConvHour(benchmark::State& s) { serve(s, "scenarios/scale/serving-azure-conv.yaml"); }
BENCHMARK(BM_ServingAzureConvHour)->Unit(benchmark::kMillisecond);

// scenarios/inference-sharing.yaml's time-slicing variant: seven replicas on one A100, their steps
// taking the GPU's turns slice by slice (SliceRoundRobin), 200,001 iterations.
void BM_ServingTimeSliced(benchmark::State& s) {
  serve(s, load_variant(path("scenarios/inference-sharing.yaml"), {{}, path("data"), {}, {}}, "time-slicing", {}));
}
BENCHMARK(BM_ServingTimeSliced)->Unit(benchmark::kMillisecond);

// 24 h of Poisson arrivals at 100 requests/s (8.64 M requests) on 64 llama-3-8b replicas; one run.
void BM_ServingDay100Rps(benchmark::State& s) { serve(s, "scenarios/scale/serving-24h.yaml"); }
BENCHMARK(BM_ServingDay100Rps)->Unit(benchmark::kSecond)->Iterations(1);

// A day at the Mooncake hour's rate with prefix caching on 16 replicas (289,622 requests of 13,500 prompt tokens
// on average): the issue 44 target, under 10 s.
void BM_ServingPrefixCacheDay(benchmark::State& s) { serve(s, "scenarios/scale/serving-prefix-cache-24h.yaml"); }
BENCHMARK(BM_ServingPrefixCacheDay)->Unit(benchmark::kSecond)->Iterations(1);

// scenarios/inference-autoscale.yaml's HPA on running requests: a day of 1.04 M requests on 1 to 10
// replicas that the HPA resizes every 15 s (the autoscaler's readings and the Deployment's pods on
// top of the serving model).
void BM_ServingAutoscaledDay(benchmark::State& s) {
  serve(s, "scenarios/inference-autoscale.yaml",
        {"workload.services[0].replicas=1",
         "workload.services[0].autoscaler={hpa: {minReplicas: 1, maxReplicas: 10, metrics: [{type: Pods, pods: {metric: "
         "{name: 'vllm:num_requests_running'}, target: {type: AverageValue, averageValue: '16'}}}]}}"});
}
BENCHMARK(BM_ServingAutoscaledDay)->Unit(benchmark::kSecond)->Iterations(1);

// Prefix caching (issue 44): the Mooncake conversation hour (12,031 requests, 12,035 prompt tokens on
// average) on 16 llama-3.1-8b replicas, caching off, on, and on with prefix-affinity routing: the cost of
// keeping every replica's KV blocks (about 9 M blocks hashed, cached and evicted an hour). Target: a day
// under 10 s on one core, which this hour x 24 is not yet (docs/design/performance.md).
void BM_ServingPrefixCacheHour(benchmark::State& s, const char* variant) {
  serve(s, load_variant(path("scenarios/serving-prefix-cache.yaml"), {{}, path("data"), {}, {}}, variant, {}));
}
BENCHMARK_CAPTURE(BM_ServingPrefixCacheHour, no_cache, "no-cache")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ServingPrefixCacheHour, cache, "cache")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ServingPrefixCacheHour, cache_affinity, "cache-affinity")->Unit(benchmark::kMillisecond);

}  // namespace
