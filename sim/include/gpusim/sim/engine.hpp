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

// `failed`: killed (out of memory, MPS fault) and not restarted under the restart policy.
enum class JobStatus : uint8_t { not_arrived, pending, running, completed, unschedulable, failed };
std::string_view to_string(JobStatus s);

struct JobRecord {
  JobStatus status = JobStatus::not_arrived;
  Time start;               // of the latest attempt
  Time end;
  Placement placement;
  uint32_t generation = 0;  // bumps when the job's completion event moves
  uint32_t attempt = 0;     // starts so far
  uint32_t kills = 0;       // times it was killed (out of memory, MPS fault)
  double remaining_us = 0;  // work left at `since`, in microseconds at rate 1
  Time since;
  double rate = 0;          // current speed: hardware x sharing factor
  double sharing_rate = 0;  // the sharing factor alone (min over its GPUs)
  // The slowest link its collectives cross (the best ring over its GPUs on each node; across nodes,
  // its max-min share of the NICs when that is slower); self for one GPU.
  Link link{LinkClass::self, 0, 0};
  Link intra{LinkClass::self, 0, 0};  // the slowest within-node ring alone
  // The link its work was measured over: the best ring of as many GPUs on each of its nodes, and
  // the NICs unshared (unused when the work counts computation only).
  Link reference{LinkClass::self, 0, 0};
  double lost_work_us = 0;  // progress thrown away by kills
  std::vector<MigInstance> mig;  // the MIG instances it holds, parallel to the MIG GPUs of its placement
  // Run time of the latest attempt over its work (run time alone on a full GPU of its reference);
  // summary.json's slowdown also counts running jobs, by the work they got through so far.
  double slowdown(Time work) const { return work > Time() ? (end - start).seconds() / work.seconds() : 1.0; }
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
  uint64_t oom_events = 0;       // time-sliced GPUs whose residents outgrew its memory
  uint64_t mps_faults = 0;       // fatal MPS client faults
  uint64_t reconfigurations = 0; // MIG layout changes
  uint64_t rate_changes = 0;     // completion events moved because a rate changed
};

// Checks what can be checked before running: jobs written in the scenario itself that no node of
// the cluster could ever hold are errors (trace jobs are reported as unschedulable instead).
void validate_scenario(const Scenario& scenario);

RunResult simulate(const Scenario& scenario, Scheduler& scheduler, const RunOptions& options = {});

}  // namespace gpusim
