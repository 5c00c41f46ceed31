#pragma once
// The discrete-event engine: one run of a scenario under a scheduler. A run is a pure function of
// (scenario, seed, policy): the same inputs give byte-identical outputs.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gpusim/sim/cluster.hpp"
#include "gpusim/sim/metrics.hpp"
#include "gpusim/sim/scenario.hpp"
#include "gpusim/sim/scheduler.hpp"

namespace gpusim {

enum class JobStatus : uint8_t { not_arrived, pending, running, completed, unschedulable };
std::string_view to_string(JobStatus s);

struct JobRecord {
  JobStatus status = JobStatus::not_arrived;
  Time start;
  Time end;
  Placement placement;
  uint32_t generation = 0;  // bumps when the job's completion event moves
};

struct RunOptions {
  // Called now and then with the fraction of the run done, for a progress bar.
  std::function<void(double)> progress;
};

struct RunResult {
  std::string policy;
  Time end;                               // the horizon, or the last event when there is none
  Cluster cluster;                        // final state
  std::vector<JobRecord> jobs;            // indexed by JobId
  Metrics metrics;
  std::vector<std::pair<std::string, uint64_t>> unschedulable_reasons;  // reason, jobs
  uint64_t events = 0;
  uint64_t decision_points = 0;
};

// Checks what can be checked before running: jobs written in the scenario itself that no node of
// the cluster could ever hold are errors (trace jobs are reported as unschedulable instead).
void validate_scenario(const Scenario& scenario);

RunResult simulate(const Scenario& scenario, Scheduler& scheduler, const RunOptions& options = {});

}  // namespace gpusim
