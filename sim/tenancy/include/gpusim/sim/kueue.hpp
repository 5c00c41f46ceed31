#pragma once
// Kueue admission in front of the scheduler (DESIGN §7; docs/guide/tenants.md, Kueue). A job that names a
// LocalQueue arrives in its ClusterQueue's queue, not the scheduler's. At each decision point the
// engine runs Kueue's scheduling cycles (kueue pkg/scheduler/scheduler.go): the heads of the
// ClusterQueues are nominated, a flavor is assigned per resource group (pkg/scheduler/flavorassigner),
// quota is reserved from the hierarchical quota tree (pkg/cache: resource_node.go, available /
// potentialAvailable), or preemptions are issued (pkg/scheduler/preemption: classic and fair sharing),
// by every head of a cycle whose targets do not overlap an earlier head's.
// An admitted job enters the scheduler's queue restricted to its flavors' pools (Kueue injects the
// flavors' node labels as a nodeSelector) and holds its quota until it finishes or Kueue evicts it.
//
// Only what changed is looked at again: a ClusterQueue is re-examined when a job arrives in it or
// quota is released in its cohort tree; its pending jobs are kept per distinct request, so a head
// is found without walking the queue.
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "gpusim/core/time.hpp"
#include "gpusim/sim/fit.hpp"
#include "gpusim/sim/kueue_spec.hpp"
#include "gpusim/sim/scheduler.hpp"

namespace gpusim {

struct Scenario;

// A ClusterQueue now, for observers (the tenant report). GPUs: nvidia.com/gpu over all flavors.
struct KueueQueueStatus {
  std::string_view name;
  std::string_view cohort;  // "": none
  int64_t nominal_gpus = 0;
  int64_t usage_gpus = 0;     // of the jobs admitted and not yet gone
  int64_t borrowed_gpus = 0;  // usage above its nominal quota, per flavor
  int64_t lent_gpus = 0;      // its share of what its cohort tree borrows (see KueueTotals)
  double weight = 1;          // fair_sharing.weight
  double share = 0;           // Kueue's status.fairSharing.weightedShare: DRS per 1000 / weight, rounded up
  uint32_t pending = 0;       // jobs waiting in it for admission
  uint32_t admitted = 0;      // jobs holding its quota
};

// Time integrals per ClusterQueue up to the last change (borrowed and lent GPU-hours, exact).
// "Lent" has no attribution in Kueue: what a cohort tree borrows is counted as lent by the queues
// below their nominal quota, in proportion to the unused quota each of them may lend.
struct KueueTotals {
  double borrowed_gpu_hours = 0;
  double lent_gpu_hours = 0;
  double usage_gpu_hours = 0;
  uint64_t admissions = 0;
  uint64_t preemptions = 0;  // workloads it evicted (as the preemptor's queue)
  uint64_t preempted = 0;    // its workloads evicted by Kueue
};

// What observers may read of Kueue's state (RunState::kueue()).
class KueueState {
 public:
  virtual ~KueueState() = default;
  virtual uint32_t queue_count() const = 0;
  virtual KueueQueueStatus queue(uint32_t cq) const = 0;
  // Integrals up to `now`.
  virtual KueueTotals totals(uint32_t cq, Time now) const = 0;
  // The ClusterQueue of a job that names a queue; none for others.
  virtual std::optional<uint32_t> queue_of(JobId id) const = 0;
  // When Kueue last admitted the job; none if it never has.
  virtual std::optional<Time> admitted_at(JobId id) const = 0;
};

// One preemption Kueue decided: evict `victim` for `by`, for Kueue's reason.
struct KueueEviction {
  JobId victim;
  JobId by;
  std::string_view reason;  // InClusterQueue, InCohortReclamation, InCohortFairSharing, InCohortReclaimWhileBorrowing
};

class Kueue final : public KueueState {
 public:
  // `shapes`: the world's; Kueue keeps a copy to which it adds each job's shape restricted to each
  // flavor set it may be admitted with (Shapes::restricted), before the run.
  Kueue(const Scenario& s, const Cluster& c, const Shapes& shapes);
  ~Kueue() override;
  const Shapes& shapes() const;
  bool manages(JobId id) const;
  // The job arrives in its ClusterQueue's queue.
  void arrive(JobId id, Time now);
  // Runs scheduling cycles until none admits: `admitted` gets the jobs admitted (their shape now
  // names their flavors' pools), `evictions` the preemptions to apply. `view` says which running
  // jobs may still be preempted.
  void schedule(Time now, const ClusterView& view, std::vector<JobId>& admitted, std::vector<KueueEviction>& evictions);
  bool pending_work() const;
  // Once the preemptions of this instant are over (no schedule() issues any that releases quota
  // now), the workloads Kueue evicted that left at once wait in their ClusterQueues again, at this
  // instant (true if any: schedule() again). One evicted again at the instant it was requeued waits
  // until a later decision point (the livelock guard in kueue.cpp).
  bool requeue_evicted(Time now);
  // The job's workload finished (completed or failed): its quota is released.
  void finished(JobId id, Time now);
  // The job left its GPUs: when Kueue evicted it, its quota is released and it waits in its
  // ClusterQueue again (if it left at once, from requeue_evicted()) (true); otherwise (a spot
  // reclaim, the scheduler's preemption) it stays admitted and goes back to the scheduler's queue (false).
  bool left(JobId id, Time now);

  // KueueState
  uint32_t queue_count() const override;
  KueueQueueStatus queue(uint32_t cq) const override;
  KueueTotals totals(uint32_t cq, Time now) const override;
  std::optional<uint32_t> queue_of(JobId id) const override;
  std::optional<Time> admitted_at(JobId id) const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpusim
