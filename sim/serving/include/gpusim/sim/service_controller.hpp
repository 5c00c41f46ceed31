#pragma once
// The Deployment side of the scenario's services (docs/guide/services.md): how many replica
// pods each service wants (its pod autoscaler's count, else its fixed replicas), which of its replica
// slots hold them, and what its autoscaler reads. It decides; the engine creates and deletes the pods.
//
// A service has max_replicas slots, its jobs. A slot holds a pod from its creation to its deletion;
// a deleted pod's slot is free again once its pod has terminated (the engine parks the job).
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <vector>

#include "gpusim/core/time.hpp"
#include "gpusim/sim/pod_autoscaler.hpp"
#include "gpusim/sim/serving.hpp"
#include "gpusim/workloads/service.hpp"

namespace gpusim {

// Where a slot's pod is, as the engine sees it.
enum class SlotState : uint8_t {
  free,         // no pod, and the job is parked: a new pod may take it
  pending,      // a pod waiting for a node (or for its restart back-off)
  starting,     // placed, loading its model
  ready,        // serving
  terminating,  // placed and told to go (deleted, or its spot node is going): serves what it has
};

// A change of a service's replica counts, for replicas.csv.
struct ReplicaCount {
  Time time;
  uint32_t service = 0;
  int32_t desired = 0, pods = 0, ready = 0;
};

// Per service, at the end of a run.
struct ScalingFigures {
  uint64_t scale_ups = 0, scale_downs = 0;  // autoscaler decisions that raised or lowered the count
  int32_t max_pods = 0;
  double pod_s = 0;  // pod-seconds: the mean number of pods times the run's span
};

class ServiceController {
 public:
  explicit ServiceController(const std::vector<ServiceSpec>& services);

  uint32_t service_of(JobId id) const { return slot_service_[id]; }
  // Does the slot hold a pod (created and not deleted)?
  bool has_pod(JobId id) const { return has_pod_[id]; }
  bool any_autoscaled() const { return any_autoscaled_; }

  // When an autoscaler next reads its metrics (metrics_delay before its evaluation) or evaluates
  // (HPA sync, KEDA poll), if any service has one.
  std::optional<Time> next_time() const;
  // Could no autoscaler change its count at `t` or after, the rest of the world standing still? True
  // once every one has read the same and kept its count longer than anything it remembers
  // (stabilization windows, policy periods, KEDA's cooldown): with nothing else to come, the run may end.
  bool settled(Time t) const;
  // Takes the readings due at `now` and runs the autoscalers due at `now`, reading each service
  // through `slot` (where each slot's pod is) and `serving`; returns the services whose desired count
  // changed.
  std::vector<uint32_t> evaluate(Time now, const Serving& serving, const std::function<SlotState(JobId)>& slot);

  // The Deployment controller for service `s`: the slots whose pods to create (free ones, lowest
  // first) and to delete (by the ReplicaSet's rank: pending, then starting, then ready, the highest
  // slot first among equals: overflow replicas before the baseline) so that its pods meet its count.
  struct Actions {
    std::vector<JobId> create, remove;
  };
  Actions reconcile(uint32_t s, Time now, const std::function<SlotState(JobId)>& slot);

 private:
  // When service `s`'s autoscaler reads its metrics for its next evaluation.
  Time read_time(uint32_t s) const;
  AutoscalerReadings read(uint32_t s, Time now, const Serving& serving, const std::function<SlotState(JobId)>& slot);

 public:
  // Records the counts at `now` (ready as serving has them) when they changed.
  void note_counts(uint32_t s, Time now, int32_t ready);
  std::vector<ReplicaCount> take_counts() { return std::move(counts_); }
  std::vector<ScalingFigures> finish(Time end);
  // By replica slot: when its service first created a pod in it (Time::max(): never).
  std::vector<Time> take_first_created() { return std::move(first_created_); }

 private:
  const std::vector<ServiceSpec>& services_;
  std::vector<uint32_t> slot_service_;  // by job id (replica slots only)
  std::vector<bool> has_pod_;
  std::vector<Time> first_created_;
  std::vector<std::optional<PodAutoscaler>> autoscalers_;
  bool any_autoscaled_ = false;
  std::vector<std::optional<AutoscalerReadings>> read_;  // taken metrics_delay before the evaluation they are for
  std::vector<int32_t> desired_, pods_;
  std::vector<Time> changed_at_;  // per service: when its autoscaler's readings or count last changed
  std::vector<AutoscalerReadings> last_read_;
  std::vector<Duration> memory_;  // per service: how long its autoscaler's past decisions weigh
  // What the readings need from the last evaluation: each slot's duty integral then, and the
  // arrivals of each service at the evaluations of the last minute.
  std::vector<std::pair<Time, double>> busy_mark_;
  std::vector<std::deque<std::pair<Time, uint64_t>>> arrivals_;
  std::vector<ReplicaCount> counts_;
  std::vector<ReplicaCount> last_;  // per service
  std::vector<ScalingFigures> figures_;
  std::vector<Time> pods_since_;
};

}  // namespace gpusim
