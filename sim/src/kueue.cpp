#include "gpusim/sim/kueue.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

#include <boost/container/small_vector.hpp>

#include "gpusim/sim/scenario.hpp"

namespace gpusim {

namespace {

// Kueue's preemption reasons (apis/kueue/v1beta1/workload_types.go, Preempted condition).
constexpr std::string_view kInClusterQueue = "InClusterQueue";
constexpr std::string_view kInCohortReclamation = "InCohortReclamation";
constexpr std::string_view kInCohortFairSharing = "InCohortFairSharing";
constexpr std::string_view kInCohortReclaimWhileBorrowing = "InCohortReclaimWhileBorrowing";
constexpr std::string_view kGpu = "nvidia.com/gpu";

// A flavor assignment's mode (flavorassigner: NoFit < Preempt < Fit).
enum class Mode : uint8_t { no_fit, preempt, fit };

struct Amount {
  uint32_t fr = 0;  // flavor x resource
  int64_t quantity = 0;
};
using Amounts = boost::container::small_vector<Amount, 4>;

// A ClusterQueue or a Cohort: a node of Kueue's quota tree (pkg/cache/resource_node.go), per
// flavor-resource. A ClusterQueue's subtree quota is its nominal quota; a cohort's is its own plus
// what its children may lend (subtree - guaranteed); a node's usage in its parent is what it uses
// beyond its guaranteed (unlendable) quota.
struct QuotaNode {
  std::optional<uint32_t> parent;
  std::vector<uint32_t> children;
  uint32_t root = 0;
  uint32_t depth = 0;
  double weight = 1;
  std::vector<int64_t> nominal, subtree, guaranteed, usage;
  std::vector<std::optional<int64_t>> borrowing_limit, lending_limit;
};

struct PendingKey {
  int32_t neg_priority = 0;
  Time order;
  JobId id;
  auto operator<=>(const PendingKey&) const = default;
};

struct Workload {
  uint32_t cq = 0;
  uint32_t base_shape = 0;  // its request's shape: the pending queue's key
  int32_t priority = 0;
  Time order;  // creation, or the eviction that requeued it (Kueue's requeuingStrategy timestamp: Eviction)
  std::optional<Time> admitted_at;
  Amounts usage;  // of its admission
  bool admitted = false, evicting = false;
  bool fresh = false;               // admitted in the current schedule(): not yet in the scheduler's queue
  Time evicted_at;                  // when Kueue last decided to evict it
  std::optional<Time> requeued_at;  // when it was last requeued at the instant it left (requeue_evicted)
};

struct QueueState {
  // Pending workloads by request shape: each shape's own order, so that BestEffortFIFO finds the
  // first admissible workload by looking at each distinct request's first only.
  std::vector<std::pair<uint32_t, std::set<PendingKey>>> by_shape;
  std::vector<JobId> admitted;
  uint32_t pending = 0;
  bool dirty = false;
};

struct Assignment {
  Mode mode = Mode::fit;
  bool borrows = false;
  Amounts usage;
  uint64_t pool_mask = ~uint64_t{0};
  boost::container::small_vector<uint32_t, 4> need_preemption;  // frs that do not fit without it
};

Assignment no_fit() {
  Assignment a;
  a.mode = Mode::no_fit;
  return a;
}

struct Target {
  JobId job;
  std::string_view reason;
};

struct Entry {
  uint32_t cq = 0;
  JobId job;
  Assignment assignment;
  std::vector<Target> targets;
};

struct Integral {
  Time last;
  KueueTotals totals;
};

}  // namespace

struct Kueue::Impl {
  const Scenario& scenario;
  const Cluster& cluster;
  const KueueSpec& spec;
  Shapes shapes;
  std::vector<std::string> resources;  // resource index -> name
  uint32_t resource_count = 0;
  std::vector<QuotaNode> nodes;  // cluster queues (0..Q-1), then cohorts
  uint32_t queue_count = 0;
  std::vector<std::vector<uint32_t>> tree_queues;  // by root node: its cluster queues
  std::vector<QueueState> queues;
  std::vector<uint32_t> dirty;
  std::vector<uint32_t> workload_of;  // by job; kNone when it names no queue
  static constexpr uint32_t kNone = 0xFFFFFFFFu;
  std::vector<Workload> workloads;
  std::vector<std::vector<std::pair<uint32_t, std::optional<uint32_t>>>> group_of;  // by cq: resource -> group
  std::unordered_map<uint32_t, Amounts> request_of_shape;  // base shape -> resource index, quantity (fr = resource)
  std::map<std::pair<uint32_t, uint32_t>, bool> feasible;  // (base shape, flavor): can its pools ever hold the job
  std::vector<Integral> integrals;                         // by cq
  std::vector<Time> integrated_at;                         // by root node
  // Workloads evicted by Kueue that left at once (not yet running, or no grace period). Kueue
  // requeues an evicted workload as soon as its quota is released (pkg/controller/core/
  // workload_controller.go, Update: QuotaReserved -> Pending without a requeueState backoff is
  // requeued "immediate"ly): `parked` ones wait in their ClusterQueue again once the preemptions of
  // this instant are over (requeue_evicted), so that the quota freed for a preemptor is taken by it
  // first (Kueue orders them by eviction time, after it). One evicted again at the instant it was
  // requeued is `held` until the next decision point at a later time: a preemptor that is not its
  // cycle's holds no quota (Kueue skips one whose targets overlap another's), so a requeued victim
  // may take quota it waits for and be preempted again, for ever with no time passing (in Kueue
  // time passes while an eviction is reconciled); so each workload is requeued at most once per instant.
  std::vector<JobId> parked, held;
  Time parked_at;

  Impl(const Scenario& s, const Cluster& c, const Shapes& world_shapes)
      : scenario(s), cluster(c), spec(s.tenancy.kueue), shapes(world_shapes) {
    build_tree();
    build_workloads();
  }

  uint32_t resource_index(std::string_view name) {
    for (uint32_t i = 0; i < resources.size(); ++i)
      if (resources[i] == name) return i;
    resources.emplace_back(name);
    return static_cast<uint32_t>(resources.size() - 1);
  }
  uint32_t fr(uint32_t flavor, uint32_t resource) const { return flavor * resource_count + resource; }
  uint32_t flavor_of(uint32_t f) const { return f / resource_count; }
  uint32_t resource_of(uint32_t f) const { return f % resource_count; }

  void build_tree() {
    // Every resource the quotas name, then the ones jobs ask for (a job asking for one its queue does
    // not cover is never admitted, as in Kueue).
    const auto each_group = [&](auto&& visit) {
      for (const KueueClusterQueue& q : spec.cluster_queues)
        for (const KueueResourceGroup& g : q.resource_groups) visit(g);
      for (const KueueCohort& c : spec.cohorts)
        for (const KueueResourceGroup& g : c.resource_groups) visit(g);
    };
    each_group([&](const KueueResourceGroup& g) {
      for (const std::string& r : g.covered_resources) resource_index(r);
    });
    for (std::string_view name : {std::string_view("cpu"), std::string_view("memory"), kGpu}) resource_index(name);
    for (const Job& j : scenario.jobs.jobs) resource_index(resource_name(j.request));
    resource_count = static_cast<uint32_t>(resources.size());
    const std::size_t frs = spec.flavors.size() * resource_count;
    queue_count = static_cast<uint32_t>(spec.cluster_queues.size());
    nodes.resize(queue_count + spec.cohorts.size());
    for (QuotaNode& n : nodes) {
      n.nominal.assign(frs, 0);
      n.guaranteed.assign(frs, 0);
      n.usage.assign(frs, 0);
      n.borrowing_limit.assign(frs, std::nullopt);
      n.lending_limit.assign(frs, std::nullopt);
    }
    std::map<std::string_view, uint32_t> cohort_node;
    for (std::size_t i = 0; i < spec.cohorts.size(); ++i) cohort_node.emplace(spec.cohorts[i].name, queue_count + i);
    const auto quotas = [&](QuotaNode& n, const std::vector<KueueResourceGroup>& groups) {
      for (const KueueResourceGroup& g : groups)
        for (const KueueFlavorQuotas& fq : g.flavors)
          for (const KueueResourceQuota& q : fq.resources) {
            const uint32_t at = fr(fq.flavor, resource_index(q.resource));
            n.nominal[at] = q.nominal;
            n.borrowing_limit[at] = q.borrowing_limit;
            n.lending_limit[at] = q.lending_limit;
          }
    };
    group_of.resize(queue_count);
    for (uint32_t i = 0; i < queue_count; ++i) {
      const KueueClusterQueue& q = spec.cluster_queues[i];
      quotas(nodes[i], q.resource_groups);
      nodes[i].weight = q.weight;
      if (!q.cohort.empty()) nodes[i].parent = cohort_node.at(q.cohort);
      for (uint32_t r = 0; r < resource_count; ++r) {
        std::optional<uint32_t> group;
        for (uint32_t g = 0; g < q.resource_groups.size(); ++g)
          for (const std::string& name : q.resource_groups[g].covered_resources)
            if (name == resources[r]) group = g;
        group_of[i].emplace_back(r, group);
      }
    }
    for (std::size_t i = 0; i < spec.cohorts.size(); ++i) {
      QuotaNode& n = nodes[queue_count + i];
      quotas(n, spec.cohorts[i].resource_groups);
      n.weight = spec.cohorts[i].weight;
      if (!spec.cohorts[i].parent.empty()) n.parent = cohort_node.at(spec.cohorts[i].parent);
    }
    for (uint32_t i = 0; i < nodes.size(); ++i)
      if (nodes[i].parent) nodes[*nodes[i].parent].children.push_back(i);
    // Depths and roots (the reader rejected cycles), then subtree quotas from the leaves up.
    std::vector<uint32_t> order(nodes.size());
    for (uint32_t i = 0; i < nodes.size(); ++i) {
      uint32_t at = i;
      while (nodes[at].parent) {
        at = *nodes[at].parent;
        ++nodes[i].depth;
      }
      nodes[i].root = at;
      order[i] = i;
    }
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return nodes[a].depth > nodes[b].depth; });
    for (uint32_t i : order) {
      QuotaNode& n = nodes[i];
      n.subtree = n.nominal;
      for (uint32_t c : n.children)
        for (std::size_t f = 0; f < frs; ++f) n.subtree[f] += nodes[c].subtree[f] - nodes[c].guaranteed[f];
      for (std::size_t f = 0; f < frs; ++f)
        n.guaranteed[f] = n.lending_limit[f] ? std::max<int64_t>(0, n.subtree[f] - *n.lending_limit[f]) : 0;
    }
    tree_queues.resize(nodes.size());
    for (uint32_t i = 0; i < queue_count; ++i) tree_queues[nodes[i].root].push_back(i);
    queues.resize(queue_count);
    integrals.resize(queue_count);
    integrated_at.resize(nodes.size());
  }

  // What a job of `base` shape asks, per resource (fr = resource index): its GPUs of its device
  // resource, and CPU and memory for its pods (a pod per worker, else one).
  const Amounts& request(uint32_t base, const Job& j) {
    auto [it, added] = request_of_shape.try_emplace(base);
    if (added) {
      const Request& q = j.request;
      const int64_t pods = q.worker_gpus > 0 ? std::max(1, q.gpus / q.worker_gpus) : 1;
      if (q.gpus > 0) it->second.push_back({resource_index(resource_name(q)), q.gpus});
      if (q.cpu_milli > 0) it->second.push_back({resource_index("cpu"), pods * q.cpu_milli});
      if (q.memory_mib > 0) it->second.push_back({resource_index("memory"), pods * q.memory_mib});
    }
    return it->second;
  }

  void build_workloads() {
    const JobSet& js = scenario.jobs;
    std::map<std::pair<std::string_view, std::string_view>, uint32_t> local;  // (namespace, name) -> cq
    for (const KueueLocalQueue& l : spec.local_queues)
      local.emplace(std::pair<std::string_view, std::string_view>(l.namespace_name, l.name), l.cluster_queue);
    workload_of.assign(js.jobs.size(), kNone);
    std::set<std::pair<uint32_t, uint32_t>> prepared;  // (cq, base shape)
    for (const Job& j : js.jobs) {
      const PodSpec* pod = js.pod(j);
      if (!pod || pod->queue.empty()) continue;
      const uint32_t cq = local.at(
          std::pair<std::string_view, std::string_view>(js.tenants[j.tenant], pod->queue));  // checked by check_kueue_queues
      const uint32_t base = shapes.of(j.id);
      workload_of[j.id] = static_cast<uint32_t>(workloads.size());
      workloads.push_back({cq, base, j.priority, j.arrival, std::nullopt, {}, false, false, false, Time{}, std::nullopt});
      request(base, j);
      if (!prepared.emplace(cq, base).second) continue;
      // Every shape it may be admitted with, now: policies size their tables by the shape count.
      std::vector<uint64_t> masks{~uint64_t{0}};
      for (const KueueResourceGroup& g : spec.cluster_queues[cq].resource_groups) {
        std::vector<uint64_t> next;
        for (const KueueFlavorQuotas& fq : g.flavors) {
          const uint64_t m = spec.flavors[fq.flavor].pool_mask;
          feasible.try_emplace({base, fq.flavor},
                               !shapes.get(shapes.restricted(base, scenario.jobs, j, m, cluster, *scenario.catalog)).never_fits);
          for (uint64_t have : masks) next.push_back(have & m);
        }
        std::sort(next.begin(), next.end());
        next.erase(std::unique(next.begin(), next.end()), next.end());
        masks = std::move(next);
      }
      for (uint64_t m : masks) shapes.restricted(base, scenario.jobs, j, m, cluster, *scenario.catalog);
    }
  }

  // --- the quota tree (pkg/cache/resource_node.go) ---
  // Adds `delta` to a node's usage and what it uses in its ancestors.
  void add_usage(uint32_t node, uint32_t f, int64_t delta) {
    for (;;) {
      QuotaNode& n = nodes[node];
      const int64_t before = n.usage[f];
      n.usage[f] += delta;
      if (!n.parent) return;
      const int64_t g = n.guaranteed[f];
      delta = std::max<int64_t>(0, n.usage[f] - g) - std::max<int64_t>(0, before - g);
      if (delta == 0) return;
      node = *n.parent;
    }
  }
  void add(uint32_t cq, const Amounts& a, int sign) {
    for (const Amount& x : a) add_usage(cq, x.fr, sign * x.quantity);
  }
  // What the node may still use of `f`: its unused guaranteed quota plus what its parent has left,
  // within its borrowing limit (Kueue's available()).
  int64_t available(uint32_t node, uint32_t f) const {
    const QuotaNode& n = nodes[node];
    if (!n.parent) return n.subtree[f] - n.usage[f];
    const int64_t local = std::max<int64_t>(0, n.guaranteed[f] - n.usage[f]);
    int64_t from_parent = available(*n.parent, f);
    if (n.borrowing_limit[f]) {
      const int64_t stored = n.subtree[f] - n.guaranteed[f];
      const int64_t used = std::max<int64_t>(0, n.usage[f] - n.guaranteed[f]);
      from_parent = std::min(stored - used + *n.borrowing_limit[f], from_parent);
    }
    return local + from_parent;
  }
  // The same on an empty tree (Kueue's potentialAvailable()).
  int64_t potential(uint32_t node, uint32_t f) const {
    const QuotaNode& n = nodes[node];
    if (!n.parent) return n.subtree[f];
    int64_t a = n.guaranteed[f] + potential(*n.parent, f);
    if (n.borrowing_limit[f]) a = std::min(a, n.subtree[f] + *n.borrowing_limit[f]);
    return a;
  }
  bool borrowing(uint32_t node, const auto& frs) const {
    return std::any_of(frs.begin(), frs.end(), [&](uint32_t f) { return nodes[node].usage[f] > nodes[node].subtree[f]; });
  }
  // workloadFits (pkg/scheduler/preemption): within what is available, and without borrowing
  // unless allowed.
  bool fits(uint32_t cq, const Amounts& a, bool allow_borrowing) const {
    for (const Amount& x : a) {
      if (!allow_borrowing && nodes[cq].usage[x.fr] + x.quantity > nodes[cq].nominal[x.fr]) return false;
      if (x.quantity > available(cq, x.fr)) return false;
    }
    return true;
  }
  // Kueue's dominant resource share of a node in its parent (pkg/cache/scheduler/fair_sharing.go,
  // dominantResourceShare and PreciseWeightedShare): the largest over resources of what it uses above
  // its subtree quota (summed over flavors), per 1000 of what its parent can lend (potentialAvailable
  // summed over flavors), divided by its weight; 0 when it borrows nothing or nothing is lendable,
  // infinite for a weight of 0 that borrows. In floating point, as Kueue since v0.14 ("Fix Rounding
  // Bug", #6925: integer division made a borrower of 1 in 1500 look like a non-borrower).
  double share(uint32_t node) const {
    const QuotaNode& n = nodes[node];
    if (!n.parent) return 0;
    double best = 0;
    for (uint32_t r = 0; r < resource_count; ++r) {
      int64_t borrowed = 0, lendable = 0;
      for (uint32_t fl = 0; fl < spec.flavors.size(); ++fl) {
        const uint32_t f = fr(fl, r);
        borrowed += std::max<int64_t>(0, n.usage[f] - n.subtree[f]);
        lendable += potential(*n.parent, f);
      }
      if (borrowed > 0 && lendable > 0)
        best = std::max(best, static_cast<double>(borrowed) * 1000.0 / static_cast<double>(lendable));
    }
    if (best == 0) return 0;
    return n.weight > 0 ? best / n.weight : std::numeric_limits<double>::infinity();
  }
  double share_with(uint32_t node, uint32_t cq, const Amounts& a) {
    add(cq, a, +1);
    const double s = share(node);
    add(cq, a, -1);
    return s;
  }
  // The ancestors of a and b (themselves included) just below their lowest common ancestor: fair
  // sharing compares the two subtrees there (hierarchical cohorts).
  std::pair<uint32_t, uint32_t> below_common(uint32_t a, uint32_t b) const {
    if (a == b) return {a, b};
    while (nodes[a].depth > nodes[b].depth) a = *nodes[a].parent;
    while (nodes[b].depth > nodes[a].depth) b = *nodes[b].parent;
    uint32_t x = a, y = b;
    std::vector<std::pair<uint32_t, uint32_t>> path;
    while (x != y && nodes[x].parent && nodes[y].parent) {
      path.emplace_back(x, y);
      x = *nodes[x].parent;
      y = *nodes[y].parent;
    }
    return path.empty() ? std::pair{a, b} : path.back();
  }

  // --- flavor assignment (pkg/scheduler/flavorassigner) ---
  bool can_preempt(const KueueClusterQueue& q) const {
    return q.within_cluster_queue != KueuePreemptionPolicy::never || q.reclaim_within_cohort != KueuePreemptionPolicy::never ||
           q.borrow_within_cohort != KueuePreemptionPolicy::never;
  }
  std::pair<Mode, bool> fits_resource(uint32_t cq, uint32_t f, int64_t quantity) const {
    const QuotaNode& n = nodes[cq];
    const KueueClusterQueue& q = spec.cluster_queues[cq];
    if (quantity <= available(cq, f)) return {Mode::fit, n.usage[f] + quantity > n.nominal[f]};
    if (!can_preempt(q)) return {Mode::no_fit, false};
    // Within its nominal quota it may preempt in its queue or reclaim what others borrow; beyond
    // it only when it may preempt while borrowing.
    if (quantity <= n.nominal[f]) return {Mode::preempt, false};
    // (canPreemptWhileBorrowing: borrowWithinCohort, or fair sharing.)
    if ((q.borrow_within_cohort != KueuePreemptionPolicy::never || spec.fair_sharing) && quantity <= potential(cq, f))
      return {Mode::preempt, true};
    return {Mode::no_fit, false};
  }

  Assignment assign(uint32_t cq, uint32_t base, const Job& j) {
    const KueueClusterQueue& q = spec.cluster_queues[cq];
    Assignment a;
    const Amounts& want = request(base, j);
    for (const Amount& x : want)
      if (!group_of[cq][x.fr].second) return no_fit();  // a resource its queue does not cover
    for (uint32_t g = 0; g < q.resource_groups.size(); ++g) {
      Amounts mine;
      for (const Amount& x : want)
        if (group_of[cq][x.fr].second == g) mine.push_back(x);
      if (mine.empty()) continue;
      struct Choice {
        Mode mode;
        bool borrows;
        uint32_t flavor;
      };
      std::optional<Choice> best;
      for (const KueueFlavorQuotas& fq : q.resource_groups[g].flavors) {
        if (!feasible.at({base, fq.flavor})) continue;  // its nodes cannot hold the job (Kueue checks node affinity)
        Choice c{Mode::fit, false, fq.flavor};
        for (const Amount& x : mine) {
          const auto [m, b] = fits_resource(cq, fr(fq.flavor, x.fr), x.quantity);
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
      if (!best) return no_fit();
      a.mode = std::min(a.mode, best->mode);
      a.borrows = a.borrows || best->borrows;
      a.pool_mask &= spec.flavors[best->flavor].pool_mask;
      for (const Amount& x : mine) {
        const uint32_t f = fr(best->flavor, x.fr);
        a.usage.push_back({f, x.quantity});
        if (x.quantity > available(cq, f)) a.need_preemption.push_back(f);
      }
    }
    return a;
  }

  // --- preemption (pkg/scheduler/preemption) ---
  bool eligible(JobId id, const ClusterView& view) const {
    // Kueue preempts admitted workloads whether their pods run yet or not.
    const Workload& w = workloads[workload_of[id]];
    return w.evicting || w.fresh || view.preemptible(id) || view.is_pending(id);
  }
  bool uses(const Workload& w, const auto& frs) const {
    return std::any_of(w.usage.begin(), w.usage.end(),
                       [&](const Amount& x) { return std::find(frs.begin(), frs.end(), x.fr) != frs.end(); });
  }
  const Workload& wl(JobId id) const { return workloads[workload_of[id]]; }

  std::vector<JobId> candidates(uint32_t cq, const Workload& w, const Assignment& a, const ClusterView& view) const {
    const KueueClusterQueue& q = spec.cluster_queues[cq];
    std::vector<JobId> out;
    if (q.within_cluster_queue != KueuePreemptionPolicy::never) {
      const bool newer_equal = q.within_cluster_queue == KueuePreemptionPolicy::lower_or_newer_equal_priority;
      for (JobId id : queues[cq].admitted) {
        const Workload& c = wl(id);
        if (!eligible(id, view) || c.priority > w.priority || !uses(c, a.need_preemption)) continue;
        if (c.priority == w.priority && !(newer_equal && w.order < c.order)) continue;
        out.push_back(id);
      }
    }
    // Classic preemption takes from other queues only while this one is under its nominal quota,
    // when it may preempt while borrowing, or under fair sharing (classic() below): otherwise the
    // cohort's workloads are not looked at (a contended cohort would have them all sorted for nothing).
    const bool under_nominal = std::all_of(a.need_preemption.begin(), a.need_preemption.end(),
                                           [&](uint32_t f) { return nodes[cq].usage[f] < nodes[cq].nominal[f]; });
    const bool cohort = spec.fair_sharing || q.borrow_within_cohort != KueuePreemptionPolicy::never || under_nominal;
    if (cohort && nodes[cq].parent && q.reclaim_within_cohort != KueuePreemptionPolicy::never) {
      for (uint32_t other : tree_queues[nodes[cq].root]) {
        if (other == cq || !borrowing(other, a.need_preemption)) continue;
        for (JobId id : queues[other].admitted) {
          const Workload& c = wl(id);
          if (!eligible(id, view) || !uses(c, a.need_preemption)) continue;
          if (q.reclaim_within_cohort == KueuePreemptionPolicy::lower_priority && c.priority >= w.priority) continue;
          out.push_back(id);
        }
      }
    }
    // candidatesOrdering: workloads already being evicted, then those of other queues, lower
    // priority, admitted more recently.
    std::sort(out.begin(), out.end(), [&](JobId x, JobId y) {
      const Workload& a1 = wl(x);
      const Workload& b1 = wl(y);
      return std::tuple(!a1.evicting, a1.cq == cq, a1.priority, -a1.admitted_at->us(), x) <
             std::tuple(!b1.evicting, b1.cq == cq, b1.priority, -b1.admitted_at->us(), y);
    });
    return out;
  }

  // fillBackWorkloads: in reverse, gives back the targets the preemptor fits without; then restores
  // the tree (the targets are removed from it on entry).
  void fill_back(uint32_t cq, const Amounts& need, std::vector<Target>& targets, bool allow_borrowing) {
    for (std::size_t i = targets.size() - 1; i-- > 0;) {
      const Workload& t = wl(targets[i].job);
      add(t.cq, t.usage, +1);
      if (fits(cq, need, allow_borrowing)) {
        targets.erase(targets.begin() + static_cast<std::ptrdiff_t>(i));
      } else {
        add(t.cq, t.usage, -1);
      }
    }
    restore(targets);
  }
  void restore(const std::vector<Target>& targets) {
    for (const Target& t : targets) add(wl(t.job).cq, wl(t.job).usage, +1);
  }
  void unreserve(const std::vector<Target>& targets) {
    for (const Target& t : targets) add(wl(t.job).cq, wl(t.job).usage, -1);
  }

  std::vector<Target> minimal(uint32_t cq, const Assignment& a, const std::vector<JobId>& cands, bool allow_borrowing,
                              std::optional<int32_t> threshold) {
    std::vector<Target> targets;
    bool fit = false;
    for (JobId id : cands) {
      const Workload& c = wl(id);
      std::string_view reason = kInClusterQueue;
      if (c.cq != cq) {
        if (!borrowing(c.cq, a.need_preemption)) continue;  // no longer borrows once others were taken
        reason = kInCohortReclamation;
        if (threshold && c.priority >= *threshold) allow_borrowing = false;
        else if (threshold) reason = kInCohortReclaimWhileBorrowing;
      }
      add(c.cq, c.usage, -1);
      targets.push_back({id, reason});
      if (fits(cq, a.usage, allow_borrowing)) {
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

  std::optional<int32_t> borrow_threshold(const KueueClusterQueue& q, const Workload& w) const {
    if (q.borrow_within_cohort == KueuePreemptionPolicy::never) return std::nullopt;
    // canBorrowWithinCohort: workloads of lower priority than the preemptor's, and at most the threshold.
    int32_t t = w.priority;
    if (q.max_priority_threshold && *q.max_priority_threshold < t) t = *q.max_priority_threshold + 1;
    return t;
  }

  std::vector<Target> classic(uint32_t cq, const Workload& w, const Assignment& a, std::vector<JobId> cands) {
    const KueueClusterQueue& q = spec.cluster_queues[cq];
    std::vector<JobId> same;
    for (JobId id : cands)
      if (wl(id).cq == cq) same.push_back(id);
    if (same.size() == cands.size()) return minimal(cq, a, cands, true, std::nullopt);
    const bool under_nominal = std::all_of(a.need_preemption.begin(), a.need_preemption.end(),
                                           [&](uint32_t f) { return nodes[cq].usage[f] < nodes[cq].nominal[f]; });
    if (const auto threshold = borrow_threshold(q, w)) {
      if (!under_nominal) std::erase_if(cands, [&](JobId id) { return wl(id).cq != cq && wl(id).priority >= *threshold; });
      return minimal(cq, a, cands, true, threshold);
    }
    if (under_nominal)
      if (auto t = minimal(cq, a, cands, false, std::nullopt); !t.empty()) return t;
    return minimal(cq, a, same, true, std::nullopt);
  }

  // Fair sharing (docs/concepts/preemption.md, "Fair Sharing"; pkg/scheduler/preemption/preemption.go
  // fairPreemptions and fairsharing/ordering.go). The preemptor's usage is added for the whole
  // search. Target ClusterQueues come from the tree walked down from the root, at each level the
  // child with the highest share (nodes that borrow nothing or hold no candidate pruned). Its own
  // queue's candidates are taken as they come (InClusterQueue); while the preemptor's queue stays
  // within its nominal quota, any other queue's too (InCohortReclamation; feature gate
  // FairSharingPreemptWithinNominal, on by default since v0.17); otherwise the first strategy decides
  // per candidate, comparing the shares of the two subtrees below their lowest common ancestor
  // (InCohortFairSharing), and after a target the queue is picked again. What the first strategy
  // turned down is offered to LessThanInitialShare once per queue (rule S2-b). borrowWithinCohort
  // plays no part here (the docs: "but not borrowWithinCohort").
  class FairOrdering {
   public:
    FairOrdering(Impl& k, uint32_t preemptor, const std::vector<JobId>& cands) : k_(k), preemptor_(preemptor) {
      lists_.resize(k.queue_count);
      pruned_.assign(k.nodes.size(), false);
      for (std::size_t i = 0; i < cands.size(); ++i) {
        lists_[k.wl(cands[i]).cq].push_back(cands[i]);
        rank_.emplace(cands[i], i);
      }
      for (auto at = k.nodes[preemptor].parent; at; at = k.nodes[*at].parent) ancestors_.insert(*at);
    }
    std::optional<uint32_t> next() {
      if (!k_.nodes[preemptor_].parent) {
        if (pruned_[preemptor_] || lists_[preemptor_].empty()) return std::nullopt;
        return preemptor_;
      }
      const uint32_t root = k_.nodes[preemptor_].root;
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
      for (uint32_t c : k_.nodes[cohort].children) {
        if (pruned_[c]) continue;
        const double share = k_.share(c);
        if (c < k_.queue_count) {
          // The preemptor's queue stays while it has candidates, borrowing or not.
          if ((!k_.borrows_any(c) && c != preemptor_) || lists_[c].empty()) {
            pruned_[c] = true;
          } else if (best_cq && share == best_cq_share) {
            if (rank_.at(lists_[c].front()) < rank_.at(lists_[*best_cq].front())) best_cq = c;
          } else if (share > best_cq_share) {
            best_cq_share = share;
            best_cq = c;
          }
        } else if (!k_.borrows_any(c) && !ancestors_.contains(c)) {
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

    Impl& k_;
    uint32_t preemptor_;
    std::vector<std::vector<JobId>> lists_;  // by cq, in candidatesOrdering
    std::unordered_map<JobId, std::size_t> rank_;
    std::vector<bool> pruned_;  // by node
    std::set<uint32_t> ancestors_;
  };

  bool borrows_any(uint32_t node) const {
    const QuotaNode& n = nodes[node];
    for (std::size_t f = 0; f < n.usage.size(); ++f)
      if (n.usage[f] > n.subtree[f]) return true;
    return false;
  }

  std::vector<Target> fair(uint32_t cq, const Assignment& a, const std::vector<JobId>& cands) {
    add(cq, a.usage, +1);  // the shares include the preemptor's workload
    // workloadFitsForFairSharing: without it, as it would be admitted.
    const auto fits_now = [&] {
      add(cq, a.usage, -1);
      const bool fit = fits(cq, a.usage, true);
      add(cq, a.usage, +1);
      return fit;
    };
    const bool within_nominal = std::none_of(a.need_preemption.begin(), a.need_preemption.end(),
                                             [&](uint32_t f) { return nodes[cq].usage[f] > nodes[cq].nominal[f]; });
    std::vector<Target> targets;
    std::vector<JobId> retry;
    const auto take = [&](JobId id, std::string_view reason) {
      add(wl(id).cq, wl(id).usage, -1);
      targets.push_back({id, reason});
      return fits_now();
    };
    bool fit = false;
    const FairSharingStrategy first = spec.fair_sharing_strategies.front();
    FairOrdering order(*this, cq, cands);
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
      const auto [mine, theirs] = below_common(cq, *y);
      const double preemptor_new = share(mine);
      const double target_old = share(theirs);
      if (std::isinf(preemptor_new) && !std::isinf(target_old)) {  // no candidate can pass (fsStrategyUnsatisfiable)
        while (order.has_workload(*y)) retry.push_back(order.pop(*y));
        continue;
      }
      while (order.has_workload(*y)) {
        const JobId id = order.pop(*y);
        const Workload& c = wl(id);
        add(c.cq, c.usage, -1);
        const double target_new = share(theirs);
        add(c.cq, c.usage, +1);
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
    if (!fit && spec.fair_sharing_strategies.size() > 1) {
      // Rule S2-b: the first candidate of each queue, if the preemptor's share stays below the queue's.
      FairOrdering again(*this, cq, retry);
      while (!fit) {
        const auto y = again.next();
        if (!y) break;
        const auto [mine, theirs] = below_common(cq, *y);
        const bool pass = share(mine) < share(theirs);
        const JobId id = again.pop(*y);
        if (pass) fit = take(id, kInCohortFairSharing);
        again.drop(*y);
      }
    }
    add(cq, a.usage, -1);
    if (!fit) {
      restore(targets);
      return {};
    }
    fill_back(cq, a.usage, targets, true);
    return targets;
  }

  // --- queues and cycles (pkg/queue, pkg/scheduler/scheduler.go) ---
  void mark(uint32_t cq) {
    if (queues[cq].dirty || queues[cq].pending == 0) return;
    queues[cq].dirty = true;
    dirty.push_back(cq);
  }
  // Quota was released in the tree: every queue of it may admit again (QueueInadmissibleWorkloads).
  void mark_tree(uint32_t cq) {
    for (uint32_t q : tree_queues[nodes[cq].root]) mark(q);
  }
  void enqueue(JobId id) {
    const Workload& w = wl(id);
    QueueState& q = queues[w.cq];
    auto it = std::find_if(q.by_shape.begin(), q.by_shape.end(), [&](const auto& e) { return e.first == w.base_shape; });
    if (it == q.by_shape.end()) it = q.by_shape.insert(q.by_shape.end(), {w.base_shape, {}});
    it->second.insert({-w.priority, w.order, id});
    ++q.pending;
    mark(w.cq);
  }
  void dequeue(JobId id) {
    const Workload& w = wl(id);
    QueueState& q = queues[w.cq];
    const auto it = std::find_if(q.by_shape.begin(), q.by_shape.end(), [&](const auto& e) { return e.first == w.base_shape; });
    it->second.erase({-w.priority, w.order, id});
    if (it->second.empty()) q.by_shape.erase(it);
    --q.pending;
  }

  std::optional<Entry> nominate(uint32_t cq, const ClusterView& view) {
    QueueState& q = queues[cq];
    std::vector<const PendingKey*> heads;
    for (const auto& [shape, set] : q.by_shape) heads.push_back(&*set.begin());
    std::sort(heads.begin(), heads.end(), [](const PendingKey* a, const PendingKey* b) { return *a < *b; });
    for (const PendingKey* h : heads) {
      const Workload& w = wl(h->id);
      Entry e{cq, h->id, assign(cq, w.base_shape, scenario.jobs.jobs[h->id]), {}};
      if (e.assignment.mode == Mode::fit) return e;
      if (e.assignment.mode == Mode::preempt) {
        const std::vector<JobId> cands = candidates(cq, w, e.assignment, view);
        if (!cands.empty()) e.targets = spec.fair_sharing ? fair(cq, e.assignment, cands) : classic(cq, w, e.assignment, cands);
        if (!e.targets.empty()) return e;
      }
      // StrictFIFO: the head blocks the queue; BestEffortFIFO: it is inadmissible for now.
      if (spec.cluster_queues[cq].queueing_strategy == QueueingStrategy::strict_fifo) return std::nullopt;
    }
    return std::nullopt;
  }

  void integrate(uint32_t root, Time now) {
    Time& at = integrated_at[root];
    const double hours = (now - at).seconds() / 3600.0;
    at = now;
    if (hours <= 0) return;
    const uint32_t gpu = resource_index(kGpu);
    int64_t borrowed_total = 0, lendable_total = 0;
    std::vector<int64_t> lendable(tree_queues[root].size());
    for (std::size_t i = 0; i < tree_queues[root].size(); ++i) {
      const QuotaNode& n = nodes[tree_queues[root][i]];
      for (uint32_t fl = 0; fl < spec.flavors.size(); ++fl) {
        const uint32_t f = fr(fl, gpu);
        borrowed_total += std::max<int64_t>(0, n.usage[f] - n.nominal[f]);
        lendable[i] += std::max<int64_t>(0, n.subtree[f] - n.guaranteed[f] - std::max<int64_t>(0, n.usage[f] - n.guaranteed[f]));
      }
      lendable_total += lendable[i];
    }
    for (std::size_t i = 0; i < tree_queues[root].size(); ++i) {
      const uint32_t cq = tree_queues[root][i];
      const KueueQueueStatus s = status(cq);
      KueueTotals& t = integrals[cq].totals;
      t.usage_gpu_hours += static_cast<double>(s.usage_gpus) * hours;
      t.borrowed_gpu_hours += static_cast<double>(s.borrowed_gpus) * hours;
      if (lendable_total > 0)
        t.lent_gpu_hours += static_cast<double>(borrowed_total) * static_cast<double>(lendable[i]) /
                            static_cast<double>(lendable_total) * hours;
    }
  }

  KueueQueueStatus status(uint32_t cq) const {
    const QuotaNode& n = nodes[cq];
    const KueueClusterQueue& q = spec.cluster_queues[cq];
    KueueQueueStatus s{q.name, q.cohort};
    for (uint32_t r = 0; r < resource_count; ++r) {
      if (resources[r] != kGpu) continue;
      for (uint32_t fl = 0; fl < spec.flavors.size(); ++fl) {
        const uint32_t f = fr(fl, r);
        s.nominal_gpus += n.nominal[f];
        s.usage_gpus += n.usage[f];
        s.borrowed_gpus += std::max<int64_t>(0, n.usage[f] - n.nominal[f]);
      }
    }
    s.weight = n.weight;
    // status.fairSharing.weightedShare: rounded up to an integer (roundedWeightedShare).
    s.share = std::ceil(share(cq));
    s.pending = queues[cq].pending;
    s.admitted = static_cast<uint32_t>(queues[cq].admitted.size());
    return s;
  }

  void admit(const Entry& e, Time now, std::vector<JobId>& out) {
    integrate(nodes[e.cq].root, now);
    Workload& w = workloads[workload_of[e.job]];
    dequeue(e.job);
    add(e.cq, e.assignment.usage, +1);
    w.usage = e.assignment.usage;
    w.admitted = true;
    w.admitted_at = now;
    w.fresh = true;
    queues[e.cq].admitted.push_back(e.job);
    ++integrals[e.cq].totals.admissions;
    const Job& j = scenario.jobs.jobs[e.job];
    shapes.assign(e.job, shapes.restricted(w.base_shape, scenario.jobs, j, e.assignment.pool_mask, cluster, *scenario.catalog));
    out.push_back(e.job);
  }

  void release(JobId id, Time now) {
    Workload& w = workloads[workload_of[id]];
    integrate(nodes[w.cq].root, now);
    add(w.cq, w.usage, -1);
    w.usage.clear();
    w.admitted = w.evicting = false;
    auto& list = queues[w.cq].admitted;
    list.erase(std::find(list.begin(), list.end(), id));
    mark_tree(w.cq);
  }

  // The order entries of one cohort tree are tried in a cycle (scheduler.go entryOrdering): those
  // that fit without borrowing first, then higher priority, then earlier; with fair sharing, the
  // entry whose subtree's share with it is lowest at each level of the tree first.
  std::size_t pick(const std::vector<Entry*>& entries) {
    if (!spec.fair_sharing) {
      return static_cast<std::size_t>(
          std::min_element(entries.begin(), entries.end(), [&](const Entry* a, const Entry* b) { return before(*a, *b); }) -
          entries.begin());
    }
    std::size_t best = 0;
    for (std::size_t i = 1; i < entries.size(); ++i) {
      const Entry& a = *entries[i];
      const Entry& b = *entries[best];
      const auto [x, y] = below_common(a.cq, b.cq);
      const double sa = share_with(x, a.cq, a.assignment.usage);
      const double sb = share_with(y, b.cq, b.assignment.usage);
      if (sa < sb || (sa == sb && before(a, b))) best = i;
    }
    return best;
  }
  bool before(const Entry& a, const Entry& b) const {
    const Workload& x = wl(a.job);
    const Workload& y = wl(b.job);
    return std::tuple(a.assignment.borrows, -x.priority, x.order, a.job) <
           std::tuple(b.assignment.borrows, -y.priority, y.order, b.job);
  }

  // An evicted workload waits in its ClusterQueue again: as in Kueue, where its cohort's
  // inadmissible workloads are requeued with it (QueueAssociatedInadmissibleWorkloadsAfter), every
  // queue of its tree is looked at again, so that a preemptor still waiting for its other victims is
  // nominated in the same cycle and holds its quota against it.
  void requeue(JobId id) {
    enqueue(id);
    mark_tree(wl(id).cq);
  }
  // Requeues the parked workloads at the instant they left; true if any.
  bool requeue_parked(Time now) {
    for (JobId id : parked) {
      workloads[workload_of[id]].requeued_at = now;
      requeue(id);
    }
    const bool any = !parked.empty();
    parked.clear();
    return any;
  }

  void schedule(Time now, const ClusterView& view, std::vector<JobId>& admitted, std::vector<KueueEviction>& evictions) {
    if (now != parked_at) {  // a later instant: the held ones (and any parked one) wait in their queues again
      for (std::vector<JobId>* list : {&held, &parked}) {
        for (JobId id : *list) requeue(id);
        list->clear();
      }
    }
    std::vector<Entry> entries;
    while (!dirty.empty()) {
      entries.clear();
      std::vector<uint32_t> now_dirty;
      now_dirty.swap(dirty);
      std::sort(now_dirty.begin(), now_dirty.end());
      for (uint32_t cq : now_dirty) {
        queues[cq].dirty = false;
        if (auto e = nominate(cq, view)) entries.push_back(std::move(*e));
      }
      if (entries.empty()) break;
      // Trees share no quota: each is taken in its own order.
      std::map<uint32_t, std::vector<Entry*>> by_tree;
      for (Entry& e : entries) by_tree[nodes[e.cq].root].push_back(&e);
      bool progress = false;
      for (auto& [root, list] : by_tree) {
        // The preemptor of this cycle, if any: as in Kueue's cycle (scheduler.go, cq.AddUsage for a
        // preempting entry), its quota is set aside for the rest of the cycle, its targets counted as
        // gone, so that a later entry cannot take the quota being freed for it (else a borrower
        // re-admitted into it would be preempted again at the same instant, for ever).
        const Entry* preemptor = nullptr;
        while (!list.empty()) {
          const std::size_t i = pick(list);
          Entry& e = *list[i];
          list.erase(list.begin() + static_cast<std::ptrdiff_t>(i));
          if (e.assignment.mode == Mode::fit) {
            if (preemptor) {
              add(preemptor->cq, preemptor->assignment.usage, +1);
              unreserve(preemptor->targets);
            }
            const bool fit = fits(e.cq, e.assignment.usage, true);
            if (preemptor) {
              restore(preemptor->targets);
              add(preemptor->cq, preemptor->assignment.usage, -1);
            }
            if (fit) {
              admit(e, now, admitted);
              progress = true;
            }
            mark(e.cq);  // its next head, or this one again if an earlier entry took its quota
            continue;
          }
          // One preemption per tree and cycle: the others are tried again once it has taken effect.
          if (preemptor) {
            mark(e.cq);
            continue;
          }
          preemptor = &e;
          for (const Target& t : e.targets) {
            Workload& v = workloads[workload_of[t.job]];
            if (v.evicting) continue;
            v.evicting = true;
            v.evicted_at = now;
            evictions.push_back({t.job, e.job, t.reason});
            ++integrals[e.cq].totals.preemptions;
            ++integrals[v.cq].totals.preempted;
            progress = true;
          }
        }
      }
      if (!progress) break;
    }
    for (JobId id : admitted) workloads[workload_of[id]].fresh = false;
  }
};

Kueue::Kueue(const Scenario& s, const Cluster& c, const Shapes& shapes) : impl_(std::make_unique<Impl>(s, c, shapes)) {}
Kueue::~Kueue() = default;
const Shapes& Kueue::shapes() const { return impl_->shapes; }
bool Kueue::manages(JobId id) const { return impl_->workload_of[id] != Impl::kNone; }

void Kueue::arrive(JobId id, Time now) {
  Workload& w = impl_->workloads[impl_->workload_of[id]];
  w.order = now;
  impl_->enqueue(id);
}

void Kueue::schedule(Time now, const ClusterView& view, std::vector<JobId>& admitted, std::vector<KueueEviction>& evictions) {
  impl_->schedule(now, view, admitted, evictions);
}

bool Kueue::pending_work() const { return !impl_->dirty.empty(); }

bool Kueue::requeue_evicted(Time now) { return impl_->requeue_parked(now); }

void Kueue::finished(JobId id, Time now) {
  if (manages(id) && impl_->wl(id).admitted) impl_->release(id, now);
}

bool Kueue::left(JobId id, Time now) {
  if (!manages(id) || !impl_->wl(id).evicting) return false;
  impl_->release(id, now);
  impl_->workloads[impl_->workload_of[id]].order = now;
  if (impl_->wl(id).evicted_at != now) {
    impl_->enqueue(id);
    return true;
  }
  (impl_->wl(id).requeued_at == now ? impl_->held : impl_->parked).push_back(id);
  impl_->parked_at = now;
  return true;
}

uint32_t Kueue::queue_count() const { return impl_->queue_count; }
KueueQueueStatus Kueue::queue(uint32_t cq) const { return impl_->status(cq); }

KueueTotals Kueue::totals(uint32_t cq, Time now) const {
  // Up to now: a copy integrated further (the state is not changed by a read).
  Impl& self = *impl_;
  const uint32_t root = self.nodes[cq].root;
  const Time at = self.integrated_at[root];
  std::vector<KueueTotals> keep;
  for (uint32_t q : self.tree_queues[root]) keep.push_back(self.integrals[q].totals);
  self.integrate(root, now);
  const KueueTotals out = self.integrals[cq].totals;
  for (std::size_t i = 0; i < keep.size(); ++i) self.integrals[self.tree_queues[root][i]].totals = keep[i];
  self.integrated_at[root] = at;
  return out;
}

std::optional<uint32_t> Kueue::queue_of(JobId id) const {
  return manages(id) ? std::optional<uint32_t>(impl_->wl(id).cq) : std::nullopt;
}

std::optional<Time> Kueue::admitted_at(JobId id) const { return manages(id) ? impl_->wl(id).admitted_at : std::nullopt; }

}  // namespace gpusim
