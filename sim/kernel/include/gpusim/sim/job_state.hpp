#pragma once
// A job's state during a run: its status, the phase of a running job, and everything the engine
// keeps about it (one record per job, indexed by JobId).
#include <boost/container/small_vector.hpp>

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "gpusim/core/enum_table.hpp"
#include "gpusim/core/time.hpp"
#include "gpusim/hardware/topology.hpp"
#include "gpusim/sim/cluster.hpp"
#include "gpusim/sim/power.hpp"
#include "gpusim/sim/scheduler.hpp"

namespace gpusim {

// `failed`: killed (out of memory, MPS fault) and not restarted under the restart policy.
// rejected: refused for good by admission when its pods were created (over a namespace ResourceQuota).
// queued: arrived, waiting in an admission's queue (sim/admission.hpp) (suspended: no pod of it exists yet); it
// counts as pending in every figure.
enum class JobStatus : uint8_t { not_arrived, pending, running, completed, unschedulable, failed, rejected, queued };
constexpr auto enum_table(JobStatus) {
  return std::to_array<EnumName<JobStatus>>({{JobStatus::not_arrived, "not_arrived"},
                                             {JobStatus::pending, "pending"},
                                             {JobStatus::running, "running"},
                                             {JobStatus::completed, "completed"},
                                             {JobStatus::unschedulable, "unschedulable"},
                                             {JobStatus::failed, "failed"},
                                             {JobStatus::rejected, "rejected"},
                                             {JobStatus::queued, "queued"}});
}

// What a running job is doing: computing at its rate, or paused while it writes a checkpoint or
// restores one (its GPUs stay allocated and idle).
enum class JobPhase : uint8_t { computing, checkpointing, restoring };
constexpr auto enum_table(JobPhase) {
  return std::to_array<EnumName<JobPhase>>(
      {{JobPhase::computing, "computing"}, {JobPhase::checkpointing, "checkpointing"}, {JobPhase::restoring, "restoring"}});
}

// Where one claim's charges start (CostLedger): what one whole GPU of its pool had cost when the claim
// was taken, its GPU's static energy then (Metrics::static_mark), and when.
struct ClaimMark {
  double price_usd;
  EnergyMark static_energy;
  Time since;
};

// What only a job between its first placement and its end needs: its rates, links and checkpoint
// phase. Finished jobs (most of a long run's) hold none: JobFlights keeps one per job in flight.
struct JobFlight {
  // What every rate change reads (Engine::settle), together at the start.
  Time since;                 // when its remaining work was last brought up to date
  double rate = 0;            // current speed: hardware x sharing x communication, 0 while paused
  double sharing_rate = 0;    // the sharing factor alone (min over its GPUs)
  double stall_fraction = 0;  // of its computing time spent in collectives, at its current rate
  double busy_mark_usd = 0;   // CostLedger: sum over its GPUs of their pool's price integral at `since`
  DynamicMark energy_mark;    // CostLedger: sum over its GPUs of Metrics::dynamic_mark at `since`
  // Kept with its claims and placement, so that a rate change visits neither: the claims' shares
  // summed in claim order, and the pool all of its GPUs are in (kNoPool: none yet; one_pool false:
  // more than one).
  double held_gpus = 0;
  PoolId pool = kNoPool;
  bool one_pool = true;
  double compute_rate = 0;            // the speed it has (or will have again) while computing
  Link intra{LinkClass::self, 0, 0};  // the slowest within-node ring alone
  // The link its work was measured over: the best ring of as many GPUs on each of its nodes, and
  // the NICs unshared (unused when the work counts computation only).
  Link reference{LinkClass::self, 0, 0};
  // Checkpointing (issue 5).
  Time phase_end;          // when the current checkpoint or restore finishes
  Time phase_start;        // of the current checkpoint or restore
  Work saved_remaining;    // work left at its last durable checkpoint (all of it without one)
  Work writing_remaining;  // work left when the checkpoint being written was taken
  // Goodput (issue 20): the goodput it had at its last durable checkpoint and at the one being
  // written, so that a rollback knows how much of it to take back.
  GpuTime saved_kept_gpu, writing_kept_gpu;
  // What it holds on each GPU of its placement (parallel to placement.gpus), also while its
  // workers are placed one at a time; none between attempts.
  std::vector<GpuClaim> claims;
  boost::container::small_vector<ClaimMark, 1> claim_marks;  // parallel to claims; CostLedger's
  // Where it runs (or ran last, between attempts), and the MIG instances it holds there, parallel
  // to the MIG GPUs of its placement. At its end JobFlights keeps them in one shared archive.
  Placement placement;
  std::vector<MigInstance> mig;
};

// The pool of GPU `g` of the job's placement: the one pool its GPUs are in, kept in its in-flight block,
// without a visit to the GPU and its node; else the GPU's node's.
inline PoolId pool_of(const Cluster& c, const JobFlight& f, GpuId g) { return f.one_pool ? f.pool : c.node(c.gpu(g).node).pool; }

// Where a job runs or ran last: its placement's lists and the MIG instances it held (report.cpp
// names their profiles), read from its in-flight block or, once it ended, from the shared archive.
struct PlacementView {
  std::span<const NodeId> nodes;
  std::span<const GpuId> gpus;
  std::span<const std::optional<MigSlotIndex>> instances;  // empty when none of its GPUs is MIG
  std::span<const MigInstance> mig;
  // The lists as a policy gives them (tests compare placements).
  Placement copy() const {
    return {{nodes.begin(), nodes.end()}, {gpus.begin(), gpus.end()}, {instances.begin(), instances.end()}};
  }
};

// A finished job's placement in JobFlights' archive: where its nodes and GPUs start in two shared
// lists, how many, and its MIG lists (kNone without MIG), instead of per-job heap lists, each of
// which a small allocation would cost 32 bytes.
struct PlacementRef {
  static constexpr uint32_t kNone = 0xFFFFFFFFu;
  uint32_t first_node = 0, first_gpu = 0;
  uint32_t nodes = 0, gpus = 0;
  uint32_t mig = kNone;  // index into the archive's MIG entries
};

inline constexpr uint32_t kNoFlight = 0xFFFFFFFFu;

struct JobRecord {
  // The small fields first, together, so that no padding sits between them (a record per job).
  JobStatus status = JobStatus::not_arrived;
  JobPhase phase = JobPhase::computing;
  // Bits, so that the record keeps its size.
  bool evicting : 1 = false;  // its node is being reclaimed: leave once the checkpoint is written (issue 5)
  // Preemption by the scheduler (issue 7): whether the write under way ends in a suspension (else,
  // when `evicting`, in a spot eviction), and times suspended.
  bool suspending : 1 = false;
  // Told to leave by Binder::evict: when it goes, it counts as a preemption, not a spot eviction.
  bool terminating : 1 = false;
  // Its queue key is kept by its in-flight slot while it runs, not in JobLifecycle's map.
  bool key_parked : 1 = false;
  uint32_t preemptions = 0;
  uint32_t generation = 0;        // bumps when the job's completion event moves
  uint32_t attempt = 0;           // starts so far
  uint32_t kills = 0;             // times it was killed (out of memory, MPS fault)
  uint32_t phase_generation = 0;  // bumps when a phase or checkpoint event of the job goes stale
  uint32_t checkpoints = 0, evictions = 0;
  uint32_t flight = kNoFlight;  // its JobFlights slot while in flight
  PlacementRef placed;          // where it ran, once it has ended (JobFlights::placement reads it)
  Time start;                   // of the latest attempt
  Time first_start;             // of the first attempt
  Time queued_at;               // when it last entered the queue (arrival, requeue, eviction)
  Time end;
  Work remaining;     // work left at its JobFlight's `since`
  Work attempt_work;  // work left when the latest attempt started
  // The slowest link its collectives cross (the best ring over its GPUs on each node; across nodes,
  // its max-min share of the NICs when that is slower); self for one GPU.
  Link link{LinkClass::self, 0, 0};
  Work lost_work;                       // progress thrown away by kills and evictions
  GpuTime lost_gpu;                     // the same times the GPUs the job held: GPU time to redo
  GpuTime attained_gpu;                 // GPU time held over closed attempts (preemptive orders rank by it)
  GpuTime checkpoint_gpu, restore_gpu;  // GPU time spent writing and restoring
  // Cost (issue 5): what the share of capacity it held cost, and the part of it its SMs used.
  double cost_usd = 0, busy_cost_usd = 0;
  double energy_ws = 0;   // facility watt-seconds drawn for it (issue 45; CostLedger)
  GpuTime allocated_gpu;  // the share of GPUs it held x time, as Metrics counts allocation
  // Goodput (issue 20; goodput.hpp), share-weighted as allocation: GPU time held while computing
  // (rate > 0), the part of it spent waiting in collectives, and the rest of it whose progress a
  // rollback threw away (JobFlight keeps the marks a rollback needs).
  GpuTime computing_gpu, comm_stall_gpu, rerun_gpu;
  // Run time of the latest attempt over the work that attempt had to do (its run time alone on a
  // full GPU of its reference); summary.json's slowdown also counts running jobs, by the work they
  // got through so far.
  double slowdown() const { return attempt_work > Work() ? static_cast<double>((end - start).us()) / attempt_work.us() : 1.0; }
};

// The in-flight blocks, a slot per job in flight: a finished job's slot serves the next job.
class JobFlights {
 public:
  // Gives the job a fresh block (references to other blocks may not survive it).
  JobFlight& acquire(JobRecord& r) {
    if (free_.empty()) {
      r.flight = static_cast<uint32_t>(slots_.size());
      return slots_.emplace_back();
    }
    r.flight = free_.back();
    free_.pop_back();
    return slots_[r.flight] = JobFlight{};
  }
  // The job has ended: its placement moves to the archive and its slot serves the next job.
  void release(JobRecord& r) {
    if (r.flight == kNoFlight) return;
    JobFlight& f = slots_[r.flight];
    r.placed = archive(f.placement, f.mig);
    f = JobFlight{};  // its lists' memory too
    free_.push_back(r.flight);
    r.flight = kNoFlight;
  }
  // Room in the archive for this many nodes and GPUs, so that it does not grow by doubling (which
  // briefly holds both copies, and on average a third more than it uses).
  void reserve_archive(std::size_t nodes, std::size_t gpus) {
    nodes_.reserve(nodes);
    gpus_.reserve(gpus);
  }
  // Where the job runs, or ran last; empty if it never ran.
  PlacementView placement(const JobRecord& r) const {
    if (r.flight != kNoFlight) {
      const JobFlight& f = slots_[r.flight];
      return {f.placement.nodes, f.placement.gpus, f.placement.instances, f.mig};
    }
    const PlacementRef& p = r.placed;
    PlacementView v{{nodes_.data() + p.first_node, p.nodes}, {gpus_.data() + p.first_gpu, p.gpus}, {}, {}};
    if (p.mig != PlacementRef::kNone) {
      const MigEntry& m = mig_entries_[p.mig];
      v.instances = {instances_.data() + m.instances, p.gpus};
      v.mig = {mig_.data() + m.mig, m.count};
    }
    return v;
  }
  // Only for a job in flight; the const one below reads any job.
  JobFlight& operator[](const JobRecord& r) {
    assert(r.flight != kNoFlight);
    return slots_[r.flight];
  }
  // A job not in flight reads as one that never ran (rates 0).
  const JobFlight& operator[](const JobRecord& r) const { return r.flight == kNoFlight ? idle_ : slots_[r.flight]; }

 private:
  struct MigEntry {
    uint32_t instances = 0, mig = 0, count = 0;  // offsets into instances_ and mig_, and mig's length
  };
  static uint32_t checked(std::size_t offset) {
    // Past 4 G entries (some billion jobs) a uint32 offset would wrap: refuse rather than misreport.
    if (offset > 0xFFFFFFFFu) throw std::length_error("placement archive over 2^32 entries");
    return static_cast<uint32_t>(offset);
  }
  PlacementRef archive(const Placement& p, const std::vector<MigInstance>& mig) {
    PlacementRef ref{checked(nodes_.size()), checked(gpus_.size()), static_cast<uint32_t>(p.nodes.size()),
                     static_cast<uint32_t>(p.gpus.size())};
    nodes_.insert(nodes_.end(), p.nodes.begin(), p.nodes.end());
    gpus_.insert(gpus_.end(), p.gpus.begin(), p.gpus.end());
    checked(std::max(nodes_.size(), gpus_.size()));
    if (!p.instances.empty() || !mig.empty()) {
      ref.mig = checked(mig_entries_.size());
      mig_entries_.push_back({checked(instances_.size()), checked(mig_.size()), static_cast<uint32_t>(mig.size())});
      instances_.insert(instances_.end(), p.instances.begin(), p.instances.end());
      instances_.resize(instances_.size() + (p.gpus.size() - p.instances.size()));  // listed once one GPU is MIG
      mig_.insert(mig_.end(), mig.begin(), mig.end());
    }
    return ref;
  }

  std::vector<JobFlight> slots_;
  std::vector<uint32_t> free_;
  JobFlight idle_;
  // Finished jobs' placements: their nodes and GPUs, and for MIG jobs their instance lists.
  std::vector<NodeId> nodes_;
  std::vector<GpuId> gpus_;
  std::vector<std::optional<MigSlotIndex>> instances_;
  std::vector<MigInstance> mig_;
  std::vector<MigEntry> mig_entries_;
};

}  // namespace gpusim
