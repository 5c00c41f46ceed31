#pragma once
// Per-namespace figures of a multi-tenant run (issue 17; README "Tenants"): how long each namespace's
// jobs waited, what it held against its fair share of the cluster over time, how fair the cluster
// was (Jain's index), who was preempted or rejected and why. Kept by an observer the engine attaches
// when the scenario has a `tenancy:` block; exact time integrals, updated at every change.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gpusim/core/time.hpp"
#include "gpusim/core/units.hpp"
#include "gpusim/sim/observer.hpp"

namespace gpusim {

// Max-min fair shares with weights (water-filling): `capacity` divided among claimants asking
// `demand[i]` with `weight[i]` > 0, none getting more than it asks, every unsatisfied one getting the
// same share per unit of weight. Sum of shares = min(capacity, sum of demands).
std::vector<double> weighted_fair_shares(double capacity, const std::vector<double>& demand, const std::vector<double>& weight);

// Jain's fairness index of x: (sum x)^2 / (n sum x^2), in [1/n, 1]; 1 when n <= 1 or all are 0.
double jain_index(const std::vector<double>& x);

struct NamespaceFigures {
  uint64_t jobs = 0, completed = 0, rejected = 0, admitted = 0;
  std::map<std::string, uint64_t, std::less<>> rejections;  // reason -> jobs
  // Arrival to first start; jobs that never started count with their wait up to the end (so the
  // maximum shows starvation).
  std::vector<double> wait_s;
  std::vector<double> admission_wait_s;  // arrival to first admission (jobs admitted by Kueue)
  double held_gpu_s = 0;                 // integral of the GPUs its jobs held
  double fair_share_gpu_s = 0;           // integral of its fair share
  double demand_gpu_s = 0;               // integral of the GPUs its arrived, unfinished jobs hold or ask
  uint64_t preemptions_received = 0, preemptions_caused = 0;
  std::map<std::string, uint64_t, std::less<>> received_by_reason, caused_by_reason;
  double lost_gpu_s = 0;  // GPU time its preempted, evicted or killed jobs must redo
};

struct TenancyFigures {
  std::vector<NamespaceFigures> namespaces;  // by tenant index (JobSet::tenants)
  // Time-weighted mean of Jain's index of held / fair share over the namespaces that want GPUs, over
  // the time at least two want some (`contended_s`); 1 when never contended.
  double jain = 1;
  double contended_s = 0;
};

class TenantLedger final : public Observer {
 public:
  explicit TenantLedger(const Scenario& s);
  // A job's status changed (JobLifecycle's hook): what it asks counts from arrival to its end.
  void status_changed(const RunState& run, JobId id, JobStatus from, JobStatus to);
  void started(const RunState& run) override;
  void job_started(const RunState& run, JobId id) override;
  void job_stopping(const RunState& run, JobId id, StopCause cause) override;
  void job_preempted(const RunState& run, JobId id) override;
  void job_evicted(const RunState& run, JobId victim, JobId by, std::string_view reason) override;
  void job_admitted(const RunState& run, JobId id) override;
  void job_rejected(const RunState& run, JobId id, std::string_view reason) override;
  void node_state(const RunState& run, NodeId node, NodeState from) override;
  void finished(const RunState& run) override;
  TenancyFigures take() { return std::move(figures_); }

 private:
  // Integrates the state that held since the last change up to now.
  void advance(Time now);
  double asked_milli(JobId id) const;

  const Scenario& scenario_;
  TenancyFigures figures_;
  std::vector<double> held_milli_, demand_milli_, weight_;
  std::vector<uint8_t> counted_;      // per job: its ask is in demand_milli_
  std::vector<Time> first_admitted_;  // per job; Time::max(): not yet
  double capacity_milli_ = 0;
  Time last_;
  bool dirty_ = true;
  std::vector<double> fair_;  // per namespace, for the current state
  double jain_now_ = 1;
  bool contended_now_ = false;
  double jain_weighted_s_ = 0;
};

}  // namespace gpusim
