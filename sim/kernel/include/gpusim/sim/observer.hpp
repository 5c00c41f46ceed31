#pragma once
// Observers (docs/design/architecture.md): attached to one engine instance and called at its state changes. Output
// writers, the packing recorder and the audit are observers; two runs never share one, so two
// runs in one process never see each other. An observer reads the run through RunState and
// changes nothing: the engine stays the only place state changes.
#include <cstdint>
#include <string_view>
#include <vector>

#include "gpusim/core/enum_table.hpp"

#include "gpusim/sim/job_state.hpp"
#include "gpusim/sim/scheduler.hpp"

namespace gpusim {

class Admission;
class Metrics;
class PowerBudgets;
struct Sample;
struct Scenario;

// The run as observers see it: what the scheduler sees, plus every job's record and the metrics.
class RunState : public ClusterView {
 public:
  virtual const Scenario& scenario() const = 0;
  virtual const JobRecord& record(JobId id) const = 0;
  // What the job holds on each GPU of its placement (JobFlight::claims); none when it holds nothing.
  virtual const std::vector<GpuClaim>& claims(JobId id) const = 0;
  // Where the job runs, or ran last (also once it has ended); empty if it never ran.
  virtual PlacementView last_placement(JobId id) const = 0;
  virtual const Metrics& metrics() const = 0;
  // The fraction of one whole GPU's SMs the job keeps busy now on each GPU it holds (its active demand
  // times its sharing rate; a replica's demand is its engine's); 0 when it is not computing.
  virtual double busy_share(JobId id) const = 0;
  // The fraction of GPU g's time spent switching between time-sliced contexts now (0 unless
  // time-sliced): not work, but busy to DCGM's GPU utilization.
  virtual double switching(GpuId g) const = 0;
  // The run's admissions, in the order they are asked (sim/admission.hpp); an observer of one finds
  // it by its type (kueue_state() in sim/tenancy_admission.hpp).
  virtual const std::vector<Admission*>& admissions() const = 0;
  // The cluster's power budgets and what they hold now (sim/power_budgets.hpp).
  virtual const PowerBudgets& power_budgets() const = 0;
  // What the job's busy time is bound by for its draw: its kind's mix, or its module's (a serving
  // replica's follows its batch).
  virtual BoundMix power_mix(JobId id) const = 0;
};

// Observer::job_transition's cause when an admission (sim/admission.hpp) let the job into the
// scheduler's queue.
inline constexpr std::string_view kAdmitted = "admitted";

// Why a running job released its GPUs.
enum class StopCause : uint8_t {
  completed,
  killed,       // out of memory on a time-sliced GPU, or an MPS fault: the restart policy applies
  evicted,      // its spot node was reclaimed
  suspended,    // preempted by the scheduler, its state saved
  scaled_down,  // a replica whose pod its service deleted
};
constexpr auto enum_table(StopCause) {
  return std::to_array<EnumName<StopCause>>({{StopCause::completed, "completed"},
                                             {StopCause::killed, "killed"},
                                             {StopCause::evicted, "evicted"},
                                             {StopCause::suspended, "suspended"},
                                             {StopCause::scaled_down, "scaled_down"}});
}

class Observer {
 public:
  virtual ~Observer() = default;
  // Before the first event (initial nodes are up, nothing placed).
  virtual void started(const RunState&) {}
  // The job runs now on last_placement(job) (its last worker placed).
  virtual void job_started(const RunState&, JobId) {}
  // The job is about to release everything it holds; last_placement(job) still shows where it ran.
  virtual void job_stopping(const RunState&, JobId, StopCause) {}
  // A running job began or finished writing a checkpoint or restoring one (record(job).phase is
  // the new phase), or was told to leave (preempted, or its node reclaimed).
  virtual void job_phase(const RunState&, JobId, JobPhase /*from*/) {}
  virtual void job_preempted(const RunState&, JobId) {}
  // A policy or admission told the running job to leave within a grace period (Binder::evict), to
  // make room for `by` (kNoJob: none); `reason` names the rule. job_preempted comes first.
  virtual void job_evicted(const RunState&, JobId /*victim*/, JobId /*by*/, std::string_view /*reason*/) {}
  // Every change of a job's status (JobLifecycle's transitions; record(job).status is `to`). `cause`:
  // for `to` rejected, the admission's reason; kAdmitted when an admission let the job into the
  // scheduler's queue; otherwise empty.
  virtual void job_transition(const RunState&, JobId, JobStatus /*from*/, JobStatus /*to*/, std::string_view /*cause*/) {}
  virtual void node_state(const RunState&, NodeId, NodeState /*from*/) {}
  // A drained MIG GPU took a new layout (reconfiguring until the delay passes).
  virtual void mig_reconfigured(const RunState&, GpuId) {}
  // The GPU's busy fraction changed (a job's rate or demand, a job placed or gone): its residents'
  // busy_share are the new ones.
  virtual void gpu_busy_changed(const RunState&, GpuId) {}
  // After each decision point, and at every time jobs arrive even when no decision was taken.
  virtual void decided(const RunState&) {}
  // After each event is applied (`what` names it: an EventKind, "arrival" or "decision"), and for
  // observers that ask for it: per-event calls cost time.
  virtual bool wants_every_event() const { return false; }
  virtual void event_applied(const RunState&, std::string_view /*what*/, uint32_t /*target*/) {}
  // At each time-series sample (every outputs.timeseries_step, metrics().samples()), once the run has
  // moved past its time: the cluster and the records still show the state that held then (now() is
  // the last event before it), and metrics().gpu_busy(g, sample.time) is exact.
  virtual void sampled(const RunState&, const Sample&) {}
  // At the end: now() is the end of the run; jobs still running are still placed.
  virtual void finished(const RunState&) {}
};

}  // namespace gpusim
