#pragma once
// The discrete-event kernel: one run of a world under a scheduler, with the admissions and modules
// the run composes (sim/run.hpp's simulate() is what callers use). A run is a pure function of
// (scenario, seed, policy): the same inputs give byte-identical outputs.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gpusim/sim/admission.hpp"
#include "gpusim/sim/cluster.hpp"
#include "gpusim/sim/job_state.hpp"
#include "gpusim/sim/metrics.hpp"
#include "gpusim/sim/module.hpp"
#include "gpusim/sim/node_lifecycle.hpp"
#include "gpusim/sim/observer.hpp"
#include "gpusim/sim/power_budgets.hpp"
#include "gpusim/sim/scheduler.hpp"
#include "gpusim/sim/world.hpp"

namespace gpusim {

struct RunOptions {
  // Called now and then with the fraction of the run done, for a progress bar.
  std::function<void(double)> progress;
  // Attached to this run only (metrics-like recorders, output writers, the audit); not owned.
  std::vector<Observer*> observers;
  // Check the run's invariants after every event (sim/audit.hpp); throws AuditError on the first broken.
  bool audit = false;
};

// What runs beside the kernel (not owned): admissions, asked in order, and modules.
struct RunExtensions {
  std::vector<Admission*> admissions;
  std::vector<Module*> modules;
};

// Why jobs ended without completing (unschedulable, rejected by admission, failed after kills): each
// distinct reason once, and the jobs that have one, ascending.
struct JobReasons {
  std::vector<std::string> texts;
  std::vector<std::pair<JobId, uint32_t>> of_job;  // (job, index into texts)
  void add(JobId id, std::string why);
  // "" when the job has none.
  std::string_view of(JobId id) const;
};

// What the kernel leaves at the end of a run.
struct KernelResult {
  std::string policy;
  Time end;                     // the horizon, or the last event when there is none
  Cluster cluster;              // final state
  std::vector<JobRecord> jobs;  // indexed by JobId
  JobFlights flights;           // the jobs still in flight at the end, and where the others ran
  Metrics metrics;
  std::vector<std::pair<std::string, uint64_t>> unschedulable_reasons;  // reason, jobs
  JobReasons reasons;
  uint64_t events = 0;  // the kernel's and its modules'
  uint64_t decision_points = 0;
  uint64_t oom_events = 0;          // time-sliced GPUs whose residents outgrew its memory
  uint64_t mps_faults = 0;          // fatal MPS client faults
  uint64_t reconfigurations = 0;    // MIG layout changes
  uint64_t rate_changes = 0;        // completion events moved because a rate changed
  std::vector<PoolActivity> pools;  // per pool
  // Per job, its energy weighed by its grids' carbon intensity and electricity price (CostLedger).
  PagedVector<FactorSums> job_factors;
  std::vector<PowerBudgetUse> power_budgets;  // per cluster.power_budgets entry
  // Where job `id` ran last (still runs, when it is running at the end); empty if it never ran.
  PlacementView placement(JobId id) const { return flights.placement(jobs[id]); }
};

// `cluster` is the world's at time 0: a copy, or the world's own when the world is not kept.
KernelResult run_kernel(const World& world, Cluster cluster, Scheduler& scheduler, const RunOptions& options,
                        const RunExtensions& extensions);

}  // namespace gpusim
