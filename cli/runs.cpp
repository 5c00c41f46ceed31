#include "runs.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <numeric>
#include <thread>

#include "gpusim/policies/registry.hpp"
#include "gpusim/sim/outputs.hpp"
#include "gpusim/sim/run.hpp"

namespace gpusim::cli {

int resolve_workers(int jobs) {
  if (jobs > 0) return jobs;
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

void parallel_for(std::size_t n, int workers, const std::function<void(std::size_t)>& work,
                  const std::vector<std::size_t>& order) {
  std::vector<std::exception_ptr> errors(n);
  std::atomic<std::size_t> next{0};
  auto loop = [&] {
    for (std::size_t k = next++; k < n; k = next++) {
      const std::size_t i = order.empty() ? k : order[k];
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

RunOutcome run_spec(const RunSpec& spec, Scheduler& scheduler) {
  RunOutcome out;
  const auto t0 = std::chrono::steady_clock::now();
  const RunOutputs outputs(spec.keep_files ? report_outputs(spec.scenario) : std::vector<std::string>{});
  const RunResult r = simulate(spec.scenario, scheduler,
                               {{}, spec.keep_files ? outputs.observers() : std::vector<Observer*>{}, spec.audit});
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out.summary = summarize(spec.scenario, r);
  if (spec.keep_files) out.files = run_files(outputs, spec.scenario, r, out.summary);
  out.summary["label"] = spec.label;
  return out;
}

std::vector<RunOutcome> run_all(const std::vector<RunSpec>& specs, int workers, Progress* progress) {
  std::vector<RunOutcome> out(specs.size());
  if (progress) progress->start_runs(specs.size());
  // Longest first (by jobs, a run's cost to first order), so a long run does not start last and
  // leave the other workers idle; results still go to their spec's place.
  std::vector<std::size_t> order(specs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return specs[a].scenario.jobs.jobs.size() > specs[b].scenario.jobs.jobs.size();
  });
  parallel_for(
      specs.size(), workers,
      [&](std::size_t i) {
        const RunSpec& spec = specs[i];
        out[i] = run_spec(spec, *Registry::global().make(spec.policy, policy_context(spec.scenario), spec.policy_where));
        if (progress) progress->run_done();
      },
      order);
  return out;
}

}  // namespace gpusim::cli
