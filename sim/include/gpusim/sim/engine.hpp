#pragma once
// The discrete-event engine: one run of a scenario under a scheduler. A run is a pure function of
// (scenario, seed, policy): the same inputs give byte-identical outputs.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gpusim/sim/cluster.hpp"
#include "gpusim/sim/job_state.hpp"
#include "gpusim/sim/metrics.hpp"
#include "gpusim/sim/node_lifecycle.hpp"
#include "gpusim/sim/observer.hpp"
#include "gpusim/sim/scenario.hpp"
#include "gpusim/sim/scheduler.hpp"
#include "gpusim/sim/service_controller.hpp"
#include "gpusim/sim/serving.hpp"
#include "gpusim/sim/tenant_ledger.hpp"
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

// Why jobs ended without completing (unschedulable, rejected by admission, failed after kills): each
// distinct reason once, and the jobs that have one, ascending.
struct JobReasons {
  std::vector<std::string> texts;
  std::vector<std::pair<JobId, uint32_t>> of_job;  // (job, index into texts)
  void add(JobId id, std::string why);
  // "" when the job has none.
  std::string_view of(JobId id) const;
};

struct RunResult {
  std::string policy;
  Time end;                               // the horizon, or the last event when there is none
  Cluster cluster;                        // final state
  std::vector<JobRecord> jobs;            // indexed by JobId
  JobFlights flights;                     // the jobs still in flight at the end, and where the others ran
  Metrics metrics;
  std::vector<std::pair<std::string, uint64_t>> unschedulable_reasons;  // reason, jobs
  JobReasons reasons;
  uint64_t events = 0;
  uint64_t decision_points = 0;
  uint64_t oom_events = 0;       // time-sliced GPUs whose residents outgrew its memory
  uint64_t mps_faults = 0;       // fatal MPS client faults
  uint64_t reconfigurations = 0; // MIG layout changes
  uint64_t rate_changes = 0;     // completion events moved because a rate changed
  std::vector<PoolActivity> pools;  // per pool
  std::optional<TenancyFigures> tenancy;  // per-namespace figures, when the scenario has a tenancy: block
  std::vector<ServiceFigures> services;   // per service, in the scenario's order
  std::vector<RequestRow> requests;       // per request, when an output asked for them (Observer::wants_requests)
  std::vector<ScalingFigures> scaling;    // per service: its pods over time, its autoscaler's decisions
  std::vector<ReplicaCount>
      replica_counts;                 // each change of a service's desired, created and ready replicas (with an autoscaler)
  std::vector<Time> replica_created;  // by replica slot: when its first pod was created (Time::max(): never)
  // When job `id` entered the system: its arrival, or a replica slot's first pod's creation.
  Time arrival(const Job& j) const {
    return j.id < replica_created.size() && replica_created[j.id] != Time::max() ? replica_created[j.id] : j.arrival;
  }
  // Where job `id` ran last (still runs, when it is running at the end); empty if it never ran.
  PlacementView placement(JobId id) const { return flights.placement(jobs[id]); }
};

RunResult simulate(const World& world, Scheduler& scheduler, const RunOptions& options = {});
// Builds the scenario's world (checking it, see build_world) and runs it.
RunResult simulate(const Scenario& scenario, Scheduler& scheduler, const RunOptions& options = {});

}  // namespace gpusim
