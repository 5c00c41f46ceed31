#pragma once
// The module seam (docs/design/architecture.md, "Add a module"): something that runs beside the
// jobs, with its own clock, and owns some of them. Serving is one: its replicas are jobs the kernel
// places like any other, that never complete and whose demand on their GPUs is their engine's. The
// kernel calls a module at fixed points of each instant and for the jobs it owns; a module changes
// the run only through its ModuleHost.
#include <cstdint>
#include <optional>
#include <vector>

#include "gpusim/core/time.hpp"
#include "gpusim/sim/cluster.hpp"
#include "gpusim/sim/job_state.hpp"
#include "gpusim/sim/power.hpp"

namespace gpusim {

class RunState;

// What the kernel offers a module: the run as observers see it, and the few changes it may ask for.
class ModuleHost {
 public:
  virtual ~ModuleHost() = default;
  virtual const RunState& state() const = 0;
  // What the job holds and how fast it runs, while it is placed.
  virtual const JobFlight& flight(JobId id) const = 0;
  // The SM demand the job puts on each of its GPUs now (0 unless it computes).
  virtual double demand(JobId id) const = 0;
  // Brings what the job's busy GPU share cost up to now, at the demand it had (before it changes).
  virtual void settle(JobId id) = 0;
  // The demand of jobs on these GPUs changed: their sharing rates are worked out again.
  virtual void demand_changed(std::vector<GpuId> gpus) = 0;
  // Brings the job's energy up to now at the power mix it had (Module::power_mix, before it changes).
  virtual void settle_energy(JobId id) = 0;
  // The power mix of jobs on these GPUs changed (not their demand): their draw is worked out again.
  virtual void power_changed(std::vector<GpuId> gpus) = 0;
  // The job's first pod is created: it arrives now (Module::arrives, admission, then the queue).
  virtual void arrive(JobId id) = 0;
  // A new pod of a job that arrived before: admission, then the queue.
  virtual void pod_created(JobId id) = 0;
  // Its pod is deleted before it runs: a pending job leaves the queue, one backing off stays parked;
  // what admission charged it is given back.
  virtual void pod_deleted(JobId id) = 0;
  // A running job's pod is terminating (JobRecord::terminating); with `leave_at`, it leaves then
  // unless it has left before.
  virtual void terminating(JobId id, std::optional<Time> leave_at) = 0;
  // The running job leaves its GPUs now (Module::leaving says where it goes).
  virtual void leave(JobId id) = 0;
  // One event of the module applied by the kernel (counted in the run's events).
  virtual void count_event() = 0;
};

// Where a job a module owns goes when it leaves its GPUs.
enum class Departure : uint8_t {
  restart,  // as any job: back to the queue (or its back-off)
  parked,   // its pod is gone: it waits until the module creates one again (Module::parked)
};

class Module {
 public:
  virtual ~Module() = default;
  // Its jobs: ids [first_job, end_job).
  JobId first_job{0}, end_job{0};
  bool owns(JobId id) const { return id >= first_job && id < end_job; }

  // Before the first event.
  virtual void start(ModuleHost& host) = 0;
  // When it next has something due (none: nothing). `idle`: nothing else is to come (no arrival, no
  // kernel event); a module that could only repeat itself then says none.
  virtual std::optional<Time> next_time(bool idle) = 0;
  // May a run without a horizon end (its work is over)? Its jobs that have not ended are not waited for.
  virtual bool done() const = 0;
  // How many of its jobs have not ended (failed or rejected for good): the run does not wait for them.
  virtual uint32_t live_jobs() const = 0;
  // At each instant after the kernel's events (before the decision point), and after the decision point.
  virtual void advance(Time now) = 0;
  virtual void decided(Time now) = 0;
  // Applies its own instants before `until` that would change nothing the kernel sees (most of a serving
  // run's instants are one replica's step); it stops after the first that changes something the kernel
  // sees, which next_time() then names, for the kernel to finish that instant. The kernel calls it only
  // where nothing of its own falls before `until` and an instant of the module's alone would leave its
  // decision point nothing to do (its metrics sum spans of constant values: such instants are none of
  // theirs).
  struct Ahead {
    uint64_t instants = 0;  // applied
    Time last;              // the last of them
    bool operator==(const Ahead&) const = default;
  };
  virtual Ahead run_ahead(Time /*until*/) { return {}; }

  // --- its jobs ---
  // Does the job arrive at its arrival time (a slot with no pod does not)?
  virtual bool arrives(JobId id) = 0;
  // The SM demand it puts on each GPU it holds while computing.
  virtual double demand(JobId id) const = 0;
  // What its busy time is bound by for its draw (sim/power.hpp), when it is not its kind's.
  virtual std::optional<BoundMix> power_mix(JobId) const { return std::nullopt; }
  // What it holds of `gpu` of `pool` when placed there, when that differs from its request's claim.
  virtual void adjust_claim(JobId id, const Pool& pool, const Gpu& gpu, GpuClaim& claim) const = 0;
  virtual void placed(JobId id, Time now) = 0;
  // Its share of its GPUs changed (a neighbour came, left or changed its demand).
  virtual void share_changed(JobId id, Time now) = 0;
  virtual void stopping(JobId id, Time now) = 0;
  // Its node will be gone: true when the module handles it (the kernel's checkpoint rules do not apply).
  virtual bool notice(JobId id, Time now) = 0;
  virtual Departure leaving(JobId id) const = 0;
  // The job left with Departure::parked, or its restart back-off began after its pod was deleted.
  virtual void parked(JobId id, Time now) = 0;
  // Is its restart, due after back-off number `kills`, still wanted?
  virtual bool restart_due(JobId id, uint32_t kills) const = 0;
  // Failed or rejected for good.
  virtual void ended(JobId id) = 0;
  // Events it applied itself (requests, iterations), counted in the run's events.
  virtual uint64_t events() const = 0;
};

}  // namespace gpusim
