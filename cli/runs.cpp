#include "runs.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <thread>

#include "gpusim/policies/registry.hpp"
#include "gpusim/sim/engine.hpp"
#include "gpusim/sim/outputs.hpp"

namespace gpusim::cli {

int resolve_workers(int jobs) {
  if (jobs > 0) return jobs;
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

void parallel_for(std::size_t n, int workers, const std::function<void(std::size_t)>& work) {
  std::vector<std::exception_ptr> errors(n);
  std::atomic<std::size_t> next{0};
  auto loop = [&] {
    for (std::size_t i = next++; i < n; i = next++) {
      try {
        work(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  const std::size_t threads_wanted = std::min<std::size_t>(static_cast<std::size_t>(std::max(1, workers)), n);
  std::vector<std::thread> threads;
  for (std::size_t t = 1; t < threads_wanted; ++t) threads.emplace_back(loop);
  loop();
  for (auto& t : threads) t.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

std::vector<RunOutcome> run_all(const std::vector<RunSpec>& specs, int workers, Progress* progress) {
  std::vector<RunOutcome> out(specs.size());
  if (progress) progress->start_runs(specs.size());
  parallel_for(specs.size(), workers, [&](std::size_t i) {
    const RunSpec& spec = specs[i];
    auto scheduler = Registry::global().make(spec.policy, policy_context(spec.scenario), spec.policy_where);
    const auto t0 = std::chrono::steady_clock::now();
    const RunOutputs outputs(spec.keep_files ? std::vector<std::string>{"occupancy"} : std::vector<std::string>{});
    const RunResult r = simulate(spec.scenario, *scheduler,
                                 {{}, spec.keep_files ? outputs.observers() : std::vector<Observer*>{}, spec.audit});
    out[i].seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    out[i].summary = summarize(spec.scenario, r);
    if (spec.keep_files) out[i].files = run_files(outputs, spec.scenario, r, out[i].summary);
    out[i].summary["label"] = spec.label;
    if (progress) progress->run_done();
  });
  return out;
}

}  // namespace gpusim::cli
