// Kueue's flavor assignment (pkg/scheduler/flavorassigner): per resource group of a ClusterQueue,
// the flavor a workload's request is admitted with, and whether it fits, needs preemption, or
// borrows. An admitted job is restricted to its flavors' pools (Kueue injects the flavors' node
// labels as a nodeSelector).
#include <algorithm>

#include "gpusim/sim/scenario.hpp"
#include "kueue_parts.hpp"

namespace gpusim::kueue_parts {

namespace {

bool can_preempt(const KueueClusterQueue& q) {
  return q.within_cluster_queue != KueuePreemptionPolicy::never || q.reclaim_within_cohort != KueuePreemptionPolicy::never ||
         q.borrow_within_cohort != KueuePreemptionPolicy::never;
}

Assignment no_fit() {
  Assignment a;
  a.mode = Mode::no_fit;
  return a;
}

}  // namespace

FlavorAssigner::FlavorAssigner(const KueueSpec& spec, const QuotaTree& tree) : spec_(spec), tree_(tree) {
  for (const KueueClusterQueue& q : spec.cluster_queues) {
    std::vector<std::optional<uint32_t>>& groups = group_of_.emplace_back(tree.resource_count());
    for (uint32_t g = 0; g < q.resource_groups.size(); ++g)
      for (const std::string& name : q.resource_groups[g].covered_resources) groups[tree.resource(name)] = g;
  }
}

void FlavorAssigner::prepare(uint32_t cq, uint32_t base, const Job& j, const Scenario& s, const Cluster& c, Shapes& shapes) {
  // What it asks, per resource (fr = resource index): its GPUs of its device resource, and CPU and
  // memory for its pods (a pod per worker, else one).
  auto [want, added] = request_of_shape_.try_emplace(base);
  if (added) {
    const Request& q = j.request;
    const int64_t pods = q.worker_gpus > 0 ? std::max(1, q.gpus / q.worker_gpus) : 1;
    if (q.gpus > 0) want->second.push_back({tree_.resource(resource_name(q)), q.gpus});
    if (q.cpu_milli > 0) want->second.push_back({tree_.resource("cpu"), pods * q.cpu_milli});
    if (q.memory_mib > 0) want->second.push_back({tree_.resource("memory"), pods * q.memory_mib});
  }
  std::vector<uint64_t> masks{~uint64_t{0}};
  for (const KueueResourceGroup& g : spec_.cluster_queues[cq].resource_groups) {
    std::vector<uint64_t> next;
    for (const KueueFlavorQuotas& fq : g.flavors) {
      const uint64_t m = spec_.flavors[fq.flavor].pool_mask;
      feasible_.try_emplace({base, fq.flavor}, !shapes.get(shapes.restricted(base, s.jobs, j, m, c, *s.catalog)).never_fits);
      for (uint64_t have : masks) next.push_back(have & m);
    }
    std::sort(next.begin(), next.end());
    next.erase(std::unique(next.begin(), next.end()), next.end());
    masks = std::move(next);
  }
  for (uint64_t m : masks) shapes.restricted(base, s.jobs, j, m, c, *s.catalog);
}

std::pair<Mode, bool> FlavorAssigner::fits_resource(uint32_t cq, uint32_t f, int64_t quantity) const {
  const QuotaNode& n = tree_.node(cq);
  const KueueClusterQueue& q = spec_.cluster_queues[cq];
  if (quantity <= tree_.available(cq, f)) return {Mode::fit, n.usage[f] + quantity > n.nominal[f]};
  if (!can_preempt(q)) return {Mode::no_fit, false};
  // Within its nominal quota it may preempt in its queue or reclaim what others borrow; beyond
  // it only when it may preempt while borrowing.
  if (quantity <= n.nominal[f]) return {Mode::preempt, false};
  // (canPreemptWhileBorrowing: borrowWithinCohort, or fair sharing.)
  if ((q.borrow_within_cohort != KueuePreemptionPolicy::never || spec_.fair_sharing) && quantity <= tree_.potential(cq, f))
    return {Mode::preempt, true};
  return {Mode::no_fit, false};
}

Assignment FlavorAssigner::assign(uint32_t cq, uint32_t base) const {
  Assignment a;
  if (!assign_groups(cq, base, a)) a = no_fit();
  return a;  // one named result: GCC warns on a moved small_vector (-Wstringop-overread) otherwise
}

bool FlavorAssigner::assign_groups(uint32_t cq, uint32_t base, Assignment& a) const {
  const KueueClusterQueue& q = spec_.cluster_queues[cq];
  const Amounts& want = request_of_shape_.at(base);
  for (const Amount& x : want)
    if (!group_of_[cq][x.fr]) return false;  // a resource its queue does not cover
  for (uint32_t g = 0; g < q.resource_groups.size(); ++g) {
    Amounts mine;
    for (const Amount& x : want)
      if (group_of_[cq][x.fr] == g) mine.push_back(x);
    if (mine.empty()) continue;
    struct Choice {
      Mode mode;
      bool borrows;
      uint32_t flavor;
    };
    std::optional<Choice> best;
    for (const KueueFlavorQuotas& fq : q.resource_groups[g].flavors) {
      if (!feasible_.at({base, fq.flavor})) continue;  // its nodes cannot hold the job (Kueue checks node affinity)
      Choice c{Mode::fit, false, fq.flavor};
      for (const Amount& x : mine) {
        const auto [m, b] = fits_resource(cq, tree_.fr(fq.flavor, x.fr), x.quantity);
        c.mode = std::min(c.mode, m);
        c.borrows = c.borrows || b;
      }
      if (c.mode == Mode::no_fit) continue;
      if (!best || c.mode > best->mode || (c.mode == best->mode && !c.borrows && best->borrows)) best = c;
      // flavorFungibility: stop at a flavor that fits without borrowing; at one that fits by
      // borrowing when whenCanBorrow is Borrow; at one that needs preemption when whenCanPreempt
      // is Preempt; else try the next flavor and keep the best.
      if (c.mode == Mode::fit && (!c.borrows || q.when_can_borrow == Fungibility::borrow)) break;
      if (c.mode == Mode::preempt && q.when_can_preempt == Fungibility::preempt) break;
    }
    if (!best) return false;
    a.mode = std::min(a.mode, best->mode);
    a.borrows = a.borrows || best->borrows;
    a.pool_mask &= spec_.flavors[best->flavor].pool_mask;
    for (const Amount& x : mine) {
      const uint32_t f = tree_.fr(best->flavor, x.fr);
      a.usage.push_back({f, x.quantity});
      if (x.quantity > tree_.available(cq, f)) a.need_preemption.push_back(f);
    }
  }
  return true;
}

}  // namespace gpusim::kueue_parts
