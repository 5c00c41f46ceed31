#pragma once
// kube-scheduler's default preemption (the DefaultPreemption PostFilter plugin,
// pkg/scheduler/framework/plugins/defaultpreemption and framework/preemption), as the optional third
// part of a composed policy: `QUEUE+PLACEMENT+preempt`. After a pass, each pending job that fits
// nowhere, in queue order, looks for a node where evicting lower-priority jobs makes it fit:
//   - per node (SelectVictimsOnNode): remove every preemptible job of lower priority on it; if the job
//     then fits, reprieve them most important first (higher priority, then earlier start), those whose
//     eviction would violate a PodDisruptionBudget first, keeping each reprieved while the job still fits;
//   - among the nodes (pickOneNodeForPreemption), in order: fewest PDB violations, lowest highest-victim
//     priority, smallest sum of priorities (each offset by 2^31, as kube does), fewest victims, latest
//     start among the highest-priority victims' earliest, then the lowest node id;
//   - the victims are evicted with their pods' terminationGracePeriodSeconds (Binder::evict, reason
//     PreemptionByScheduler, the DisruptionTarget condition's reason) and the job is nominated to the
//     node: until it is placed, jobs of lower or equal priority may not take the room its victims leave
//     (kube-scheduler counts nominated pods on their node for such pods).
// A job whose class says preemptionPolicy: Never does not preempt; nor does one whose earlier victims
// are still leaving (PodEligibleToPreemptOthers).
//
// Where gpusim differs, and why: every node is examined (kube samples max(100, 10%) of them when the
// cluster is larger); a job preempts on one node only (kube preempts per pod: a gang that fits on no
// single node does not preempt; with gang scheduling off, each worker pod preempts for itself); jobs
// without GPUs are never victims; a node nominated to a job of higher or equal priority is not a
// candidate for another preemptor (kube adds the nominee's requests to the node instead).
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "gpusim/policies/registry.hpp"

namespace gpusim::builtin {

class DefaultPreemption {
 public:
  explicit DefaultPreemption(const PolicyContext& context);

  // Before a pass: forgets nominations of jobs no longer pending.
  void start_pass(const ClusterView& view);
  // May `job` take `p`? Not when it takes room a nominated job of higher or equal priority needs on
  // its nominated node.
  bool allows(const ClusterView& view, JobId job, const Placement& p) const;
  // After a pass: preemption for the pending jobs that did not fit, in queue order. Returns the jobs
  // that evicted victims (whose victims may have left at once, with no grace period).
  const std::vector<JobId>& after_pass(const ClusterView& view, Binder& binder);

 private:
  struct Candidate {
    NodeId node;
    std::vector<JobId> victims;  // most important first
    int32_t violations = 0;
  };
  int32_t priority(const ClusterView& view, JobId id) const { return view.job(id).priority; }
  bool eligible(const ClusterView& view, JobId id) const;
  // The victims on `node` that make `job` fit (SelectVictimsOnNode), or nullopt when none do.
  std::optional<Candidate> select_victims(const ClusterView& view, JobId job, NodeId node) const;
  // Does the job fit `node` once `gone` have left it?
  bool fits_without(const ClusterView& view, JobId job, NodeId node, const std::vector<JobId>& gone) const;
  // Would these victims, in this order, violate budgets (filterPodsWithPDBViolation)? One flag per victim.
  std::vector<bool> violations(const ClusterView& view, const std::vector<JobId>& victims) const;
  void count_budgets(const ClusterView& view);
  // The GPUs `nominee` could have on its node once its victims left: fitting now, or held only by leaving jobs.
  int32_t room(const ClusterView& view, JobId nominee, NodeId node, const Placement* taken) const;

  const JobSet* jobs_;
  const PrioritySpec* priority_;
  std::unordered_map<JobId, NodeId> nominated_;  // pending preemptors and their nodes
  std::vector<int64_t> allowed_;                 // per budget: disruptions allowed, this pass
  std::vector<JobId> pending_;
  std::vector<JobId> preempted_for_;
};

}  // namespace gpusim::builtin
