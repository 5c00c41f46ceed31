// Kueue's preemption (pkg/scheduler/preemption): the candidates a preemptor may evict, and the
// minimal set of them it evicts, classic or by fair sharing.
#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>
#include <unordered_map>

#include "kueue_parts.hpp"

namespace gpusim::kueue_parts {

namespace {

// Kueue's preemption reasons (apis/kueue/v1beta1/workload_types.go, Preempted condition).
constexpr std::string_view kInClusterQueue = "InClusterQueue";
constexpr std::string_view kInCohortReclamation = "InCohortReclamation";
constexpr std::string_view kInCohortFairSharing = "InCohortFairSharing";
constexpr std::string_view kInCohortReclaimWhileBorrowing = "InCohortReclaimWhileBorrowing";

bool uses(const Workload& w, const FlavorResources& frs) {
  return std::any_of(w.usage.begin(), w.usage.end(),
                     [&](const Amount& x) { return std::find(frs.begin(), frs.end(), x.fr) != frs.end(); });
}

// Whether the queue uses less than its nominal quota of every one of `frs`.
bool under_nominal(const QuotaNode& n, const FlavorResources& frs) {
  return std::all_of(frs.begin(), frs.end(), [&](uint32_t f) { return n.usage[f] < n.nominal[f]; });
}

std::optional<int32_t> borrow_threshold(const KueueClusterQueue& q, const Workload& w) {
  if (q.borrow_within_cohort == KueuePreemptionPolicy::never) return std::nullopt;
  // canBorrowWithinCohort: workloads of lower priority than the preemptor's, and at most the threshold.
  int32_t t = w.priority;
  if (q.max_priority_threshold && *q.max_priority_threshold < t) t = *q.max_priority_threshold + 1;
  return t;
}

// The order in which fair sharing takes target ClusterQueues (pkg/scheduler/preemption/fairsharing/
// ordering.go): the tree walked down from the root, at each level the child with the highest share
// (nodes that borrow nothing or hold no candidate pruned).
class FairOrdering {
 public:
  FairOrdering(const QuotaTree& tree, const Workloads& workloads, uint32_t preemptor, const std::vector<JobId>& cands)
      : tree_(tree), preemptor_(preemptor) {
    lists_.resize(tree.queue_count());
    pruned_.assign(tree.node_count(), false);
    for (std::size_t i = 0; i < cands.size(); ++i) {
      lists_[workloads[cands[i]].cq].push_back(cands[i]);
      rank_.emplace(cands[i], i);
    }
    for (auto at = tree.node(preemptor).parent; at; at = tree.node(*at).parent) ancestors_.insert(*at);
  }
  std::optional<uint32_t> next() {
    if (!tree_.node(preemptor_).parent) {
      if (pruned_[preemptor_] || lists_[preemptor_].empty()) return std::nullopt;
      return preemptor_;
    }
    const uint32_t root = tree_.node(preemptor_).root;
    while (!pruned_[root])
      if (const auto t = next_target(root)) return t;
    return std::nullopt;
  }
  bool has_workload(uint32_t cq) const { return !lists_[cq].empty(); }
  JobId pop(uint32_t cq) {
    const JobId id = lists_[cq].front();
    lists_[cq].erase(lists_[cq].begin());
    return id;
  }
  void drop(uint32_t cq) { pruned_[cq] = true; }

 private:
  std::optional<uint32_t> next_target(uint32_t cohort) {
    std::optional<uint32_t> best_cq, best_cohort;
    double best_cq_share = -1, best_cohort_share = -1;
    for (uint32_t c : tree_.node(cohort).children) {
      if (pruned_[c]) continue;
      const double share = tree_.share(c);
      if (c < tree_.queue_count()) {
        // The preemptor's queue stays while it has candidates, borrowing or not.
        if ((!tree_.borrows_any(c) && c != preemptor_) || lists_[c].empty()) {
          pruned_[c] = true;
        } else if (best_cq && share == best_cq_share) {
          if (rank_.at(lists_[c].front()) < rank_.at(lists_[*best_cq].front())) best_cq = c;
        } else if (share > best_cq_share) {
          best_cq_share = share;
          best_cq = c;
        }
      } else if (!tree_.borrows_any(c) && !ancestors_.contains(c)) {
        pruned_[c] = true;
      } else if (share >= best_cohort_share) {
        best_cohort_share = share;
        best_cohort = c;
      }
    }
    if (!best_cq && !best_cohort) {
      pruned_[cohort] = true;
      return std::nullopt;
    }
    // A cohort wins ties: within it the most unfair node can be chosen.
    if (best_cohort && best_cohort_share >= best_cq_share) return next_target(*best_cohort);
    return best_cq;
  }

  const QuotaTree& tree_;
  uint32_t preemptor_;
  std::vector<std::vector<JobId>> lists_;  // by cq, in candidatesOrdering
  std::unordered_map<JobId, std::size_t> rank_;
  std::vector<bool> pruned_;  // by node
  std::set<uint32_t> ancestors_;
};

}  // namespace

Preemptor::Preemptor(const KueueSpec& spec, QuotaTree& tree, const Workloads& workloads, const ClusterQueues& queues)
    : spec_(spec), tree_(tree), workloads_(workloads), queues_(queues) {}

std::vector<Target> Preemptor::targets(uint32_t cq, JobId job, const Assignment& a, const ClusterView& view,
                                       const std::vector<Target>* gone) {
  const Workload& w = workloads_[job];
  const std::vector<JobId> cands = candidates(cq, w, a, view, gone);
  if (cands.empty()) return {};
  return spec_.fair_sharing ? fair(cq, a, cands) : classic(cq, w, a, cands);
}

bool Preemptor::eligible(JobId id, const ClusterView& view) const {
  // Kueue preempts admitted workloads whether their pods run yet or not.
  const Workload& w = workloads_[id];
  return w.evicting || w.fresh || view.preemptible(id) || view.is_pending(id);
}

std::vector<JobId> Preemptor::candidates(uint32_t cq, const Workload& w, const Assignment& a, const ClusterView& view,
                                         const std::vector<Target>* gone) const {
  const KueueClusterQueue& q = spec_.cluster_queues[cq];
  std::vector<JobId> out;
  const auto taken = [&](JobId id) {
    return gone && std::any_of(gone->begin(), gone->end(), [&](const Target& t) { return t.job == id; });
  };
  if (q.within_cluster_queue != KueuePreemptionPolicy::never) {
    const bool newer_equal = q.within_cluster_queue == KueuePreemptionPolicy::lower_or_newer_equal_priority;
    for (JobId id : queues_.admitted(cq)) {
      const Workload& c = workloads_[id];
      if (taken(id) || !eligible(id, view) || c.priority > w.priority || !uses(c, a.need_preemption)) continue;
      if (c.priority == w.priority && !(newer_equal && w.order < c.order)) continue;
      out.push_back(id);
    }
  }
  // Classic preemption takes from other queues only while this one is under its nominal quota,
  // when it may preempt while borrowing, or under fair sharing (classic() below): otherwise the
  // cohort's workloads are not looked at (a contended cohort would have them all sorted for nothing).
  const QuotaNode& n = tree_.node(cq);
  const bool cohort = spec_.fair_sharing || q.borrow_within_cohort != KueuePreemptionPolicy::never ||
                      under_nominal(n, a.need_preemption);
  if (cohort && n.parent && q.reclaim_within_cohort != KueuePreemptionPolicy::never) {
    for (uint32_t other : tree_.tree_queues(cq)) {
      if (other == cq || !tree_.borrowing(other, a.need_preemption)) continue;
      for (JobId id : queues_.admitted(other)) {
        const Workload& c = workloads_[id];
        if (taken(id) || !eligible(id, view) || !uses(c, a.need_preemption)) continue;
        if (q.reclaim_within_cohort == KueuePreemptionPolicy::lower_priority && c.priority >= w.priority) continue;
        out.push_back(id);
      }
    }
  }
  // candidatesOrdering: workloads already being evicted, then those of other queues, lower
  // priority, admitted more recently.
  std::sort(out.begin(), out.end(), [&](JobId x, JobId y) {
    const Workload& a1 = workloads_[x];
    const Workload& b1 = workloads_[y];
    return std::tuple(!a1.evicting, a1.cq == cq, a1.priority, -a1.admitted_at->us(), x) <
           std::tuple(!b1.evicting, b1.cq == cq, b1.priority, -b1.admitted_at->us(), y);
  });
  return out;
}

// fillBackWorkloads: in reverse, gives back the targets the preemptor fits without; then restores
// the tree (the targets are removed from it on entry).
void Preemptor::fill_back(uint32_t cq, const Amounts& need, std::vector<Target>& targets, bool allow_borrowing) {
  for (std::size_t i = targets.size() - 1; i-- > 0;) {
    const Workload& t = workloads_[targets[i].job];
    tree_.add(t.cq, t.usage, +1);
    if (tree_.fits(cq, need, allow_borrowing)) {
      targets.erase(targets.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      tree_.add(t.cq, t.usage, -1);
    }
  }
  restore(targets);
}

void Preemptor::restore(const std::vector<Target>& targets) {
  for (const Target& t : targets) tree_.add(workloads_[t.job].cq, workloads_[t.job].usage, +1);
}

void Preemptor::unreserve(const std::vector<Target>& targets) {
  for (const Target& t : targets) tree_.add(workloads_[t.job].cq, workloads_[t.job].usage, -1);
}

std::vector<Target> Preemptor::minimal(uint32_t cq, const Assignment& a, const std::vector<JobId>& cands, bool allow_borrowing,
                                       std::optional<int32_t> threshold) {
  std::vector<Target> targets;
  bool fit = false;
  for (JobId id : cands) {
    const Workload& c = workloads_[id];
    std::string_view reason = kInClusterQueue;
    if (c.cq != cq) {
      if (!tree_.borrowing(c.cq, a.need_preemption)) continue;  // no longer borrows once others were taken
      reason = kInCohortReclamation;
      if (threshold && c.priority >= *threshold) allow_borrowing = false;
      else if (threshold) reason = kInCohortReclaimWhileBorrowing;
    }
    tree_.add(c.cq, c.usage, -1);
    targets.push_back({id, reason});
    if (tree_.fits(cq, a.usage, allow_borrowing)) {
      fit = true;
      break;
    }
  }
  if (!fit) {
    restore(targets);
    return {};
  }
  fill_back(cq, a.usage, targets, allow_borrowing);
  return targets;
}

std::vector<Target> Preemptor::classic(uint32_t cq, const Workload& w, const Assignment& a, std::vector<JobId> cands) {
  const KueueClusterQueue& q = spec_.cluster_queues[cq];
  std::vector<JobId> same;
  for (JobId id : cands)
    if (workloads_[id].cq == cq) same.push_back(id);
  if (same.size() == cands.size()) return minimal(cq, a, cands, true, std::nullopt);
  const bool under = under_nominal(tree_.node(cq), a.need_preemption);
  if (const auto threshold = borrow_threshold(q, w)) {
    if (!under) std::erase_if(cands, [&](JobId id) { return workloads_[id].cq != cq && workloads_[id].priority >= *threshold; });
    return minimal(cq, a, cands, true, threshold);
  }
  if (under)
    if (auto t = minimal(cq, a, cands, false, std::nullopt); !t.empty()) return t;
  return minimal(cq, a, same, true, std::nullopt);
}

// Fair sharing (docs/concepts/preemption.md, "Fair Sharing"; pkg/scheduler/preemption/preemption.go
// fairPreemptions and fairsharing/ordering.go). The preemptor's usage is added for the whole
// search. Target ClusterQueues come from FairOrdering. Its own queue's candidates are taken as they
// come (InClusterQueue); while the preemptor's queue stays within its nominal quota, any other
// queue's too (InCohortReclamation; feature gate FairSharingPreemptWithinNominal, on by default
// since v0.17); otherwise the first strategy decides per candidate, comparing the shares of the two
// subtrees below their lowest common ancestor (InCohortFairSharing), and after a target the queue
// is picked again. What the first strategy turned down is offered to LessThanInitialShare once per
// queue (rule S2-b). borrowWithinCohort plays no part here (the docs: "but not borrowWithinCohort").
std::vector<Target> Preemptor::fair(uint32_t cq, const Assignment& a, const std::vector<JobId>& cands) {
  tree_.add(cq, a.usage, +1);  // the shares include the preemptor's workload
  // workloadFitsForFairSharing: without it, as it would be admitted.
  const auto fits_now = [&] {
    tree_.add(cq, a.usage, -1);
    const bool fit = tree_.fits(cq, a.usage, true);
    tree_.add(cq, a.usage, +1);
    return fit;
  };
  const QuotaNode& n = tree_.node(cq);
  const bool within_nominal = std::none_of(a.need_preemption.begin(), a.need_preemption.end(),
                                           [&](uint32_t f) { return n.usage[f] > n.nominal[f]; });
  std::vector<Target> targets;
  std::vector<JobId> retry;
  const auto take = [&](JobId id, std::string_view reason) {
    tree_.add(workloads_[id].cq, workloads_[id].usage, -1);
    targets.push_back({id, reason});
    return fits_now();
  };
  bool fit = false;
  const FairSharingStrategy first = spec_.fair_sharing_strategies.front();
  FairOrdering order(tree_, workloads_, cq, cands);
  while (!fit) {
    const auto y = order.next();
    if (!y) break;
    if (*y == cq) {
      fit = take(order.pop(cq), kInClusterQueue);
      continue;
    }
    if (within_nominal) {
      fit = take(order.pop(*y), kInCohortReclamation);
      continue;
    }
    const auto [mine, theirs] = tree_.below_common(cq, *y);
    const double preemptor_new = tree_.share(mine);
    const double target_old = tree_.share(theirs);
    if (std::isinf(preemptor_new) && !std::isinf(target_old)) {  // no candidate can pass (fsStrategyUnsatisfiable)
      while (order.has_workload(*y)) retry.push_back(order.pop(*y));
      continue;
    }
    while (order.has_workload(*y)) {
      const JobId id = order.pop(*y);
      const Workload& c = workloads_[id];
      tree_.add(c.cq, c.usage, -1);
      const double target_new = tree_.share(theirs);
      tree_.add(c.cq, c.usage, +1);
      const bool pass = first == FairSharingStrategy::less_than_or_equal_to_final_share ? preemptor_new <= target_new
                                                                                        : preemptor_new < target_old;
      if (!pass) {
        retry.push_back(id);
        continue;
      }
      fit = take(id, kInCohortFairSharing);
      break;  // the shares changed: the queue is picked again
    }
  }
  if (!fit && spec_.fair_sharing_strategies.size() > 1) {
    // Rule S2-b: the first candidate of each queue, if the preemptor's share stays below the queue's.
    FairOrdering again(tree_, workloads_, cq, retry);
    while (!fit) {
      const auto y = again.next();
      if (!y) break;
      const auto [mine, theirs] = tree_.below_common(cq, *y);
      const bool pass = tree_.share(mine) < tree_.share(theirs);
      const JobId id = again.pop(*y);
      if (pass) fit = take(id, kInCohortFairSharing);
      again.drop(*y);
    }
  }
  tree_.add(cq, a.usage, -1);
  if (!fit) {
    restore(targets);
    return {};
  }
  fill_back(cq, a.usage, targets, true);
  return targets;
}

}  // namespace gpusim::kueue_parts
