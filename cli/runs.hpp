#pragma once
// Many independent runs (compare, check, sweep) on N worker threads. Each run owns its scheduler and
// engine (nothing is shared between runs), and results come back in the order the runs were
// given, so the output is the same whatever N.
#include <functional>
#include <string>
#include <vector>

#include "gpusim/sim/report.hpp"
#include "gpusim/sim/scenario.hpp"
#include "gpusim/sim/scheduler.hpp"
#include "html_report.hpp"
#include "progress.hpp"

namespace gpusim::cli {

struct RunSpec {
  std::string label;
  Scenario scenario;
  std::string policy;  // QUEUE+PLACEMENT; the scenario's params apply
  SourceLocation policy_where{"--policies", std::nullopt, ""};  // named by an error about the policy
  bool audit = false;                                           // check invariants after every event
  bool keep_files = false;  // keep the run directory's texts, occupancy.json included (compare --report)
};

struct RunOutcome {
  Json summary;    // with "label" added
  double seconds;  // wall time of the run (never written into outputs that must reproduce)
  RunFiles files;  // with keep_files: the files the report reads, as --out would write them
};

// One spec under `scheduler`, in the calling thread: run_all makes the scheduler spec.policy names;
// Python passes one of its own (a policy written in Python runs where the GIL is held).
RunOutcome run_spec(const RunSpec& spec, Scheduler& scheduler);

// Runs every spec on `workers` threads (at least 1). A bad policy name or a failed run rethrows the
// first error in spec order after every worker has stopped. `progress`, when given, counts the runs.
std::vector<RunOutcome> run_all(const std::vector<RunSpec>& specs, int workers, Progress* progress = nullptr);

// --jobs: 0 means one worker per core.
int resolve_workers(int jobs);

// Calls work(i) for i in [0, n) on `workers` threads, starting them in `order` (a permutation of
// [0, n); empty: 0, 1, ...); the first exception (by index) is rethrown after all have stopped.
void parallel_for(std::size_t n, int workers, const std::function<void(std::size_t)>& work,
                  const std::vector<std::size_t>& order = {});

}  // namespace gpusim::cli
