#pragma once
// The scheduler interface. At each decision point the engine hands the
// scheduler a read-only ClusterView and a Binder; the scheduler decides, the engine validates each
// binding and applies it. A policy can never change cluster state any other way.
#include <compare>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusim/core/chunked_set.hpp"
#include "gpusim/core/time.hpp"
#include "gpusim/sim/cluster.hpp"
#include "gpusim/sim/execution.hpp"
#include "gpusim/sim/fit.hpp"
#include "gpusim/sim/scheduling_options.hpp"
#include "gpusim/workloads/job.hpp"

namespace gpusim {

// Pending jobs are kept ordered by (key, job id): smaller first.
struct QueueKey {
  int64_t primary = 0;
  int64_t secondary = 0;
  constexpr auto operator<=>(const QueueKey&) const = default;
};

// What a walk of the pending jobs does after a visit.
enum class PendingVisit : uint8_t { next, drop_shape, stop };

class ClusterView {
 public:
  virtual ~ClusterView() = default;
  virtual Time now() const = 0;
  virtual const Cluster& cluster() const = 0;
  virtual const Job& job(JobId id) const = 0;
  // Pending jobs in queue order; `visit` returns false to stop early.
  virtual void for_each_pending(const std::function<bool(JobId)>& visit) const = 0;
  // The same walk, where `visit` may also drop the rest of a job's request shape (shape()): the jobs
  // of dropped shapes are not visited, and cost nothing to pass over (a long queue of jobs too big
  // to fit is not walked at every decision).
  virtual void for_each_pending_by_shape(const std::function<PendingVisit(JobId)>& visit) const = 0;
  // Jobs that arrived since the previous decision point, in queue order (some may be bound already).
  virtual const std::vector<JobId>& new_arrivals() const = 0;
  virtual bool is_pending(JobId id) const = 0;
  // When a pending job last entered the queue (its arrival, or its eviction or restart).
  virtual Time pending_since(JobId id) const = 0;
  // How long it has been in the queue over all its waits up to now: since its arrival, less the time
  // it has held GPUs (an eviction does not start the count again).
  virtual Duration waited(JobId id) const = 0;
  // How long after its arrival it must have ended (issue 23); nullopt: no deadline.
  virtual std::optional<Duration> deadline(JobId id) const = 0;
  // The job's checkpoint policy: its own, else its kind's default (disabled when it has none).
  virtual const CheckpointPolicy& checkpoint(JobId id) const = 0;
  // Did capacity become free (or get added) since the previous decision point? If not, jobs that
  // were pending then still cannot fit: only new arrivals need a look.
  virtual bool capacity_grew() const = 0;
  // Jobs with equal requests share a shape id in [0, shape_count()).
  virtual uint32_t shape(JobId id) const = 0;
  virtual uint32_t shape_count() const = 0;
  // How many distinct shapes the still-pending jobs have: once that many have failed in a pass,
  // nothing else pending can fit and the pass may stop.
  virtual uint32_t pending_shapes() const = 0;

  // Fit queries (the same rules the engine validates with).
  virtual bool pool_allowed(JobId id, PoolId pool) const = 0;
  // Its node preferences per pool (preferred node affinity, PreferNoSchedule taints); empty: none.
  // Placements rank nodes by them first (PlacementPolicy::keep_preferred).
  virtual const std::vector<PoolPreference>& preferences(JobId id) const = 0;
  virtual GpuDemand gpu_demand(JobId id, PoolId pool) const = 0;
  virtual bool gpu_fits(JobId id, GpuId gpu) const = 0;
  // MIG slots of `gpu` the job fits, smallest instance first (memory slices, then SMs, then start).
  virtual void fitting_instances(JobId id, GpuId gpu, std::vector<MigSlotIndex>& out) const = 0;
  virtual const ExecutionModel& model() const = 0;
  virtual const SchedulingOptions& scheduling() const = 0;
  // GPUs the job's next placement takes: all it still lacks, or one worker's when gang is off.
  virtual int32_t gpus_to_place(JobId id) const = 0;
  // GPU time the job has held while running, over all its attempts, up to now (what LAS orders by).
  virtual GpuTime attained_gpu(JobId id) const = 0;
  // What its attempts before the current one attained (all of attained_gpu when it is not running):
  // attained_gpu is this plus GpuTime::of(now - start_time, its placement's GPUs), to the bit, so an
  // order can work out a running job's GPU time at another instant of the attempt.
  virtual GpuTime attained_gpu_before(JobId id) const = 0;
  // Its work left now, at its ideal speed (what SRTF orders by; an oracle, like sjf's).
  virtual Work remaining_work(JobId id) const = 0;
  // How fast a running job's remaining work falls now: work per unit of time (0 while it writes or
  // restores a checkpoint). It changes only when the engine settles the job (a running change).
  virtual double progress_rate(JobId id) const = 0;
  // When a running job's current attempt started (kube-scheduler's preemption prefers victims started last).
  virtual Time start_time(JobId id) const = 0;
  // Is it running and not on its way out (suspending after a preemption, or evicted at a notice)?
  virtual bool preemptible(JobId id) const = 0;
  // Where a job runs (its nodes, GPUs and MIG instances); empty unless it is running.
  virtual const Placement& placement(JobId id) const = 0;
  // Running jobs and when each will end at its current rate.
  virtual void for_each_running(const std::function<void(JobId, Time)>& visit) const = 0;
  // The running jobs, ascending (the same as for_each_running's, without working out their ends): a
  // policy that looks at every running job at every decision point reads them here.
  virtual const ChunkedSet<JobId>& running_jobs() const = 0;
  // Jobs that started or stopped running, stopped being preemptible, or changed progress_rate, since
  // the previous decision pass began (those of the pass itself included; a job may be named more than
  // once): what a scheduler that keeps its own index of the running jobs reads to update it. Kept only
  // for a scheduler that watches_running().
  virtual const std::vector<JobId>& running_changes() const = 0;
  // Does the job's CPU/memory fit the node, is the node ready, and is it in a pool the job may use?
  virtual bool node_admits(JobId id, NodeId node) const = 0;
  // How many GPUs of `node` can take one of the job's GPUs, counted up to `limit`.
  virtual int32_t count_fitting_gpus(JobId id, NodeId node, int32_t limit) const;
  // GPUs of `node` that can take one of the job's GPUs, in index order.
  void fitting_gpus(JobId id, NodeId node, std::vector<GpuId>& out) const;
  // The fitting GPUs the node's kubelet lets the job take `count` of under its pool's Topology
  // Manager policy (all fitting GPUs under none); empty when the policy refuses.
  void aligned_gpus(JobId id, NodeId node, int32_t count, std::vector<GpuId>& out) const;
  // Can the whole job run on this one node?
  bool fits_on_node(JobId id, NodeId node) const;
  // Can it run on the representative of live bucket `b` (so on any of its nodes, unless the job is
  // bound to one)? Policies ask this for every bucket of every decision; the engine remembers the
  // answer per request shape and bucket state.
  virtual bool fits_in_bucket(JobId id, BucketId b) const { return fits_on_node(id, cluster().bucket(b).representative()); }
};

class Binder {
 public:
  virtual ~Binder() = default;
  // Starts `job` on `placement`. Throws PolicyError, naming the rule broken, if it is invalid.
  virtual void bind(JobId job, const Placement& placement) = 0;
  // Gives an empty MIG GPU a new layout; it takes no job until the reconfiguration delay has passed.
  // Throws PolicyError if the GPU is not an idle MIG GPU or the layout is not valid.
  virtual void reconfigure(GpuId gpu, const MigLayout& layout) = 0;
  // Asks for a decision point at `t` (> now) even if nothing else changes then, e.g. when a job's
  // wait reaches a policy's threshold.
  virtual void recheck_at(Time t) = 0;
  // Suspends a running job: it saves its state (its checkpoint cost, else model.preemption.suspend)
  // holding its GPUs, then releases them and queues again with its progress; it pays its restore
  // (else model.preemption.resume) when it starts again. Throws PolicyError unless preemptible().
  virtual void preempt(JobId job) = 0;
  // Tells a running job to leave within `grace` (its pod's terminationGracePeriodSeconds), as
  // kube-scheduler's preemption and an admission's eviction do: it writes a checkpoint if it has a policy and
  // the write ends within the grace period, else it stops when the period ends and loses what it
  // computed since its last checkpoint; then it queues again, as after a spot reclaim. It counts as a
  // preemption. `by` is the job it makes room for (kNoJob: none) and `reason` why, for observers (a
  // string literal). Throws PolicyError unless preemptible().
  virtual void evict(JobId job, Duration grace, JobId by, std::string_view reason) = 0;
};

// A scheduler serves one run: it may keep per-job state between decision points.
class Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual std::string name() const = 0;
  // Called once, when a job arrives.
  virtual QueueKey queue_key(const Job& job) const = 0;
  // Called once per timestamp at which something changed, when jobs are pending (or always, when
  // decides_when_idle()).
  virtual void decide(const ClusterView& view, Binder& binder) = 0;
  // Does it want every decision point, also those where nothing is pending? (Tiresias' simulator
  // demotes running jobs and reorders its queues at each event, so their order later depends on it.)
  virtual bool decides_when_idle() const { return false; }
  // Does it read ClusterView::running_changes()?
  virtual bool watches_running() const { return false; }
  // Would this policy place the job on `pool` now (beyond the job's own constraints)? The autoscaler
  // asks before it adds a node for a pending job, as the Cluster Autoscaler simulates the scheduler.
  virtual bool would_use(const ClusterView&, JobId, PoolId) const { return true; }
};

}  // namespace gpusim
