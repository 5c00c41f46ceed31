// Kueue admission (kueue.hpp): the workloads of the jobs that name a LocalQueue, Kueue's scheduling
// cycle (pkg/scheduler/scheduler.go) over the pieces of kueue_parts.hpp, and the ClusterQueues' status.
#include "gpusim/sim/kueue.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "gpusim/sim/scenario.hpp"
#include "kueue_parts.hpp"

namespace gpusim {

using namespace kueue_parts;

namespace {

// A ClusterQueue's head nominated in a cycle, with its flavors and, if it must preempt, its targets.
struct Entry {
  uint32_t cq = 0;
  JobId job;
  Assignment assignment;
  std::vector<Target> targets;
};

}  // namespace

struct Kueue::Impl {
  const Scenario& scenario;
  const Cluster& cluster;
  const KueueSpec& spec;
  Shapes shapes;
  QuotaTree tree;
  Workloads workloads;
  ClusterQueues queues;
  FlavorAssigner flavors;
  Preemptor preemption;
  std::vector<KueueTotals> integrals;  // by cq
  std::vector<Time> integrated_at;     // by root node
  // Workloads evicted by Kueue that left at once (not yet running, or no grace period). Kueue
  // requeues an evicted workload as soon as its quota is released (pkg/controller/core/
  // workload_controller.go, Update: QuotaReserved -> Pending without a requeueState backoff is
  // requeued "immediate"ly): `parked` ones wait in their ClusterQueue again once the preemptions of
  // this instant are over (requeue_evicted), so that the quota freed for a preemptor is taken by it
  // first (Kueue orders them by eviction time, after it). One evicted again at the instant it was
  // requeued is `held` until the next decision point at a later time: a preemptor skipped in its
  // cycle holds no quota (Kueue skips one whose targets overlap and still overlap), so a requeued victim
  // may take quota it waits for and be preempted again, for ever with no time passing (in Kueue
  // time passes while an eviction is reconciled); so each workload is requeued at most once per instant.
  std::vector<JobId> parked, held;
  Time parked_at;

  Impl(const Scenario& s, const Cluster& c, const Shapes& world_shapes)
      : scenario(s),
        cluster(c),
        spec(s.tenancy.kueue),
        shapes(world_shapes),
        tree(s),
        workloads(s.jobs.jobs.size()),
        queues(tree, workloads),
        flavors(spec, tree),
        preemption(spec, tree, workloads, queues),
        integrals(tree.queue_count()),
        integrated_at(tree.node_count()) {
    build_workloads();
  }

  void build_workloads() {
    const JobSet& js = scenario.jobs;
    std::map<std::pair<std::string_view, std::string_view>, uint32_t> local;  // (namespace, name) -> cq
    for (const KueueLocalQueue& l : spec.local_queues)
      local.emplace(std::pair<std::string_view, std::string_view>(l.namespace_name, l.name), l.cluster_queue);
    std::set<std::pair<uint32_t, uint32_t>> prepared;  // (cq, base shape)
    for (const Job& j : js.jobs) {
      const PodSpec* pod = js.pod(j);
      if (!pod || pod->queue.empty()) continue;
      const uint32_t cq = local.at(
          std::pair<std::string_view, std::string_view>(js.tenants[j.tenant], pod->queue));  // checked by check_kueue_queues
      const uint32_t base = shapes.of(j.id);
      workloads.add(j.id, {cq, base, j.priority, j.arrival, std::nullopt, {}, false, false, false, Time{}, std::nullopt});
      if (prepared.emplace(cq, base).second) flavors.prepare(cq, base, j, scenario, cluster, shapes);
    }
  }

  // --- the scheduling cycle (pkg/scheduler/scheduler.go) ---
  std::optional<Entry> nominate(uint32_t cq, const ClusterView& view) {
    for (JobId id : queues.heads(cq)) {
      Entry e{cq, id, flavors.assign(cq, workloads[id].base_shape), {}};
      if (e.assignment.mode == Mode::fit) return e;
      if (e.assignment.mode == Mode::preempt) {
        e.targets = preemption.targets(cq, id, e.assignment, view);
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
    const uint32_t gpu = tree.resource(kGpu);
    const std::vector<uint32_t>& cqs = tree.tree_queues(root);
    int64_t borrowed_total = 0, lendable_total = 0;
    std::vector<int64_t> lendable(cqs.size());
    for (std::size_t i = 0; i < cqs.size(); ++i) {
      const QuotaNode& n = tree.node(cqs[i]);
      for (uint32_t fl = 0; fl < tree.flavor_count(); ++fl) {
        const uint32_t f = tree.fr(fl, gpu);
        borrowed_total += std::max<int64_t>(0, n.usage[f] - n.nominal[f]);
        lendable[i] += std::max<int64_t>(0, n.subtree[f] - n.guaranteed[f] - std::max<int64_t>(0, n.usage[f] - n.guaranteed[f]));
      }
      lendable_total += lendable[i];
    }
    for (std::size_t i = 0; i < cqs.size(); ++i) {
      const KueueQueueStatus s = status(cqs[i]);
      KueueTotals& t = integrals[cqs[i]];
      t.usage_gpu_hours += static_cast<double>(s.usage_gpus) * hours;
      t.borrowed_gpu_hours += static_cast<double>(s.borrowed_gpus) * hours;
      if (lendable_total > 0)
        t.lent_gpu_hours += static_cast<double>(borrowed_total) * static_cast<double>(lendable[i]) /
                            static_cast<double>(lendable_total) * hours;
    }
  }

  KueueQueueStatus status(uint32_t cq) const {
    const QuotaNode& n = tree.node(cq);
    const KueueClusterQueue& q = spec.cluster_queues[cq];
    KueueQueueStatus s{q.name, q.cohort};
    const uint32_t gpu = tree.resource(kGpu);
    for (uint32_t fl = 0; fl < tree.flavor_count(); ++fl) {
      const uint32_t f = tree.fr(fl, gpu);
      s.nominal_gpus += n.nominal[f];
      s.usage_gpus += n.usage[f];
      s.borrowed_gpus += std::max<int64_t>(0, n.usage[f] - n.nominal[f]);
    }
    s.weight = n.weight;
    // status.fairSharing.weightedShare: rounded up to an integer (roundedWeightedShare).
    s.share = std::ceil(tree.share(cq));
    s.pending = queues.pending(cq);
    s.admitted = static_cast<uint32_t>(queues.admitted(cq).size());
    return s;
  }

  void admit(const Entry& e, Time now, std::vector<JobId>& out) {
    integrate(tree.node(e.cq).root, now);
    Workload& w = workloads[e.job];
    queues.erase(e.job);
    tree.add(e.cq, e.assignment.usage, +1);
    w.usage = e.assignment.usage;
    w.admitted = true;
    w.admitted_at = now;
    w.fresh = true;
    queues.admitted_now(e.job);
    ++integrals[e.cq].admissions;
    const Job& j = scenario.jobs.jobs[e.job];
    shapes.assign(e.job, shapes.restricted(w.base_shape, scenario.jobs, j, e.assignment.pool_mask, cluster, *scenario.catalog));
    out.push_back(e.job);
  }

  void release(JobId id, Time now) {
    Workload& w = workloads[id];
    integrate(tree.node(w.cq).root, now);
    tree.add(w.cq, w.usage, -1);
    w.usage.clear();
    w.admitted = w.evicting = false;
    queues.released(id);
    queues.mark_tree(w.cq);
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
      const auto [x, y] = tree.below_common(a.cq, b.cq);
      const double sa = tree.share_with(x, a.cq, a.assignment.usage);
      const double sb = tree.share_with(y, b.cq, b.assignment.usage);
      if (sa < sb || (sa == sb && before(a, b))) best = i;
    }
    return best;
  }
  bool before(const Entry& a, const Entry& b) const {
    const Workload& x = workloads[a.job];
    const Workload& y = workloads[b.job];
    return std::tuple(a.assignment.borrows, -x.priority, x.order, a.job) <
           std::tuple(b.assignment.borrows, -y.priority, y.order, b.job);
  }

  // An evicted workload waits in its ClusterQueue again: as in Kueue, where its cohort's
  // inadmissible workloads are requeued with it (QueueAssociatedInadmissibleWorkloadsAfter), every
  // queue of its tree is looked at again, so that a preemptor still waiting for its other victims is
  // nominated in the same cycle and holds its quota against it.
  void requeue(JobId id) {
    queues.push(id);
    queues.mark_tree(workloads[id].cq);
  }
  // Requeues the parked workloads at the instant they left; true if any.
  bool requeue_parked(Time now) {
    for (JobId id : parked) {
      workloads[id].requeued_at = now;
      requeue(id);
    }
    const bool any = !parked.empty();
    parked.clear();
    return any;
  }

  // This cycle's preemptions in one cohort tree (scheduler.go processEntry): the entries whose quota
  // is set aside (cq.AddUsage of a preempting or DeferredFit entry) and their victims
  // (preemptedWorkloads), counted gone for the rest of the cycle (fits: SimulateWorkloadUsageRemoval).
  struct CyclePreemptions {
    std::vector<const Entry*> holders;
    std::vector<Target> victims;
    bool overlaps(const std::vector<Target>& targets) const {
      return std::any_of(targets.begin(), targets.end(), [&](const Target& t) {
        return std::any_of(victims.begin(), victims.end(), [&](const Target& v) { return v.job == t.job; });
      });
    }
  };
  // Puts the cycle into the tree (sign +1: holders' quota used, victims and `extra` gone) or takes it out (-1).
  void apply(const CyclePreemptions& c, const std::vector<Target>& extra, int sign) {
    for (const Entry* h : c.holders) tree.add(h->cq, h->assignment.usage, sign);
    if (sign > 0) {
      preemption.unreserve(c.victims);
      preemption.unreserve(extra);
    } else {
      preemption.restore(c.victims);
      preemption.restore(extra);
    }
  }
  // Kueue's fits(): the entry fits with the cycle's quota set aside, its victims and the entry's own
  // targets counted gone.
  bool fits_beside(const Entry& e, const CyclePreemptions& c, const std::vector<Target>& targets) {
    apply(c, targets, +1);
    const bool fit = tree.fits(e.cq, e.assignment.usage, true);
    apply(c, targets, -1);
    return fit;
  }
  // updateAssignmentIfNeeded with RecomputeAssignmentUponPreemptionTargetsOverlap (Kueue main, v0.20
  // beta, on): the entry's targets overlap the cycle's; its flavors and targets are found again with
  // the cycle's victims gone (and its holders' quota used). Mode fit: DeferredFit (it waits for them).
  void recompute(Entry& e, const CyclePreemptions& c, const ClusterView& view) {
    apply(c, {}, +1);
    e.assignment = flavors.assign(e.cq, workloads[e.job].base_shape);
    e.targets.clear();
    if (e.assignment.mode == Mode::preempt) e.targets = preemption.targets(e.cq, e.job, e.assignment, view, &c.victims);
    apply(c, {}, -1);
  }

  // Issues the preemptor's evictions; true if any is new.
  bool evict(const Entry& e, Time now, std::vector<KueueEviction>& evictions) {
    bool any = false;
    for (const Target& t : e.targets) {
      Workload& v = workloads[t.job];
      if (v.evicting) continue;
      v.evicting = true;
      v.evicted_at = now;
      evictions.push_back({t.job, e.job, t.reason});
      ++integrals[e.cq].preemptions;
      ++integrals[v.cq].preempted;
      any = true;
    }
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
    while (queues.any_marked()) {
      entries.clear();
      for (uint32_t cq : queues.take_marked())
        if (auto e = nominate(cq, view)) entries.push_back(std::move(*e));
      if (entries.empty()) break;
      // Trees share no quota: each is taken in its own order.
      std::map<uint32_t, std::vector<Entry*>> by_tree;
      for (Entry& e : entries) by_tree[tree.node(e.cq).root].push_back(&e);
      bool progress = false;
      for (auto& [root, list] : by_tree) {
        // Several entries may preempt in one cycle when their targets do not overlap (scheduler.go
        // processEntry); each one's quota is set aside for the rest of the cycle and its targets
        // counted gone, so that a later entry cannot take the quota being freed for it (else a
        // borrower re-admitted into it would be preempted again at the same instant, for ever).
        CyclePreemptions cycle;
        while (!list.empty()) {
          const std::size_t i = pick(list);
          Entry& e = *list[i];
          list.erase(list.begin() + static_cast<std::ptrdiff_t>(i));
          if (e.assignment.mode == Mode::fit) {
            if (fits_beside(e, cycle, {})) {
              admit(e, now, admitted);
              progress = true;
            }
            queues.mark(e.cq);  // its next head, or this one again if an earlier entry took its quota
            continue;
          }
          if (cycle.overlaps(e.targets)) {
            recompute(e, cycle, view);
            if (e.assignment.mode == Mode::fit) {  // DeferredFit: holds its quota, admitted once the victims are gone
              cycle.holders.push_back(&e);
              continue;
            }
            if (e.assignment.mode != Mode::preempt || e.targets.empty() || cycle.overlaps(e.targets)) {
              queues.mark(e.cq);
              continue;
            }
          }
          if (!fits_beside(e, cycle, e.targets)) {
            queues.mark(e.cq);
            continue;
          }
          cycle.holders.push_back(&e);
          cycle.victims.insert(cycle.victims.end(), e.targets.begin(), e.targets.end());
          if (evict(e, now, evictions)) progress = true;
        }
      }
      if (!progress) break;
    }
    for (JobId id : admitted) workloads[id].fresh = false;
  }
};

Kueue::Kueue(const Scenario& s, const Cluster& c, const Shapes& shapes) : impl_(std::make_unique<Impl>(s, c, shapes)) {}
Kueue::~Kueue() = default;
const Shapes& Kueue::shapes() const { return impl_->shapes; }
bool Kueue::manages(JobId id) const { return impl_->workloads.manages(id); }

void Kueue::arrive(JobId id, Time now) {
  impl_->workloads[id].order = now;
  impl_->queues.push(id);
}

void Kueue::schedule(Time now, const ClusterView& view, std::vector<JobId>& admitted, std::vector<KueueEviction>& evictions) {
  impl_->schedule(now, view, admitted, evictions);
}

bool Kueue::pending_work() const { return impl_->queues.any_marked(); }

bool Kueue::requeue_evicted(Time now) { return impl_->requeue_parked(now); }

void Kueue::finished(JobId id, Time now) {
  if (manages(id) && impl_->workloads[id].admitted) impl_->release(id, now);
}

bool Kueue::left(JobId id, Time now) {
  if (!manages(id) || !impl_->workloads[id].evicting) return false;
  impl_->release(id, now);
  Workload& w = impl_->workloads[id];
  w.order = now;
  if (w.evicted_at != now) {
    impl_->queues.push(id);
    return true;
  }
  (w.requeued_at == now ? impl_->held : impl_->parked).push_back(id);
  impl_->parked_at = now;
  return true;
}

uint32_t Kueue::queue_count() const { return impl_->tree.queue_count(); }
KueueQueueStatus Kueue::queue(uint32_t cq) const { return impl_->status(cq); }

KueueTotals Kueue::totals(uint32_t cq, Time now) const {
  // Up to now: a copy integrated further (the state is not changed by a read).
  Impl& self = *impl_;
  const uint32_t root = self.tree.node(cq).root;
  const Time at = self.integrated_at[root];
  const std::vector<uint32_t>& cqs = self.tree.tree_queues(root);
  std::vector<KueueTotals> keep;
  for (uint32_t q : cqs) keep.push_back(self.integrals[q]);
  self.integrate(root, now);
  const KueueTotals out = self.integrals[cq];
  for (std::size_t i = 0; i < keep.size(); ++i) self.integrals[cqs[i]] = keep[i];
  self.integrated_at[root] = at;
  return out;
}

std::optional<uint32_t> Kueue::queue_of(JobId id) const {
  return manages(id) ? std::optional<uint32_t>(impl_->workloads[id].cq) : std::nullopt;
}

std::optional<Time> Kueue::admitted_at(JobId id) const { return manages(id) ? impl_->workloads[id].admitted_at : std::nullopt; }

}  // namespace gpusim
