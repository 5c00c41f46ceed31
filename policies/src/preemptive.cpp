// The scheduler of preemptive queue orders (srtf, las, tiresias), after the Tiresias simulator's
// loop: at each decision point, pending and running jobs are ranked together by the order's
// priority (ties by job id, which is arrival order); walking down the ranking, each job is granted
// the GPU share it asks for while the cluster's ready GPUs last (jobs that do not fit are skipped,
// not blocking). Running jobs not granted are preempted; pending jobs granted are placed by the
// placement, in rank order, as far as GPUs are free (those a preemption frees come back when the job
// has saved its state, at a later decision point). The scheduler asks to look again when a priority
// next changes class (QueueOrder::next_change).
//
// The ranking is kept incrementally: a pending job's priority changes only when it enters the queue
// or at its next_change, so pending jobs stay in ordered sets (one per GPU share asked), re-keyed only
// then; running jobs (at most one per GPU share) are ranked afresh when the cluster is contended. An
// order whose running priorities move on lines (QueueOrder::Line: las, srtf) is not asked them: its
// running jobs are followed through the engine's running changes and kept in the order of their
// lines, and priority() is asked only of jobs whose lines are too close to another's, or to a pending
// job's key, to tell. An order that tells which running jobs it rekeyed (tiresias) is asked only of
// those and of the jobs that started. The walk goes from one pending job that fits the GPUs left to the
// next, finding where each ranks among the running jobs by bisection: the running jobs between keep
// their GPUs at once while all of them fit (sums of what they hold), so a pass costs about the pending
// jobs granted and the running ones preempted, not every running job.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <queue>
#include <set>

#include "builtin.hpp"

namespace gpusim::builtin {

namespace {

class PreemptiveScheduler final : public Scheduler {
 public:
  PreemptiveScheduler(std::string name, std::unique_ptr<QueueOrder> order, std::unique_ptr<PlacementPolicy> placement)
      : name_(std::move(name)),
        order_(std::move(order)),
        placement_(std::move(placement)),
        lines_(order_->has_lines()),
        keyed_(order_->tells_rekeyed()) {}

  std::string name() const override { return name_; }
  QueueKey queue_key(const Job& job) const override { return order_->key(job); }
  bool would_use(const ClusterView& view, JobId job, PoolId pool) const override { return placement_->admits_pool(view, job, pool); }
  bool decides_when_idle() const override { return order_->every_pass(); }
  bool watches_running() const override { return lines_ || keyed_; }

  void decide(const ClusterView& view, Binder& binder) override {
    order_->before_pass(view);
    walk(view, binder);
    order_->after_pass(view);
    // Look again when a priority changes class: a pending job's (kept since it was ranked) or a
    // running one's, those started in this pass included.
    const Time now = view.now();
    std::optional<Time> next;
    if (!changes_.empty()) next = changes_.top().at;
    if (auto t = order_->next_running_change(view); t && *t > now && (!next || *t < *next)) next = t;
    if (next) binder.recheck_at(*next);
  }

 private:
  // Ranks pending and running jobs together and grants the cluster's GPUs down the ranking.
  void walk(const ClusterView& view, Binder& binder) {
    const Time now = view.now();
    for (JobId id : view.new_arrivals())
      if (view.is_pending(id) && !bound(view, id)) enqueue(view, id);
    while (!changes_.empty() && changes_.top().at <= now) {
      const Change c = changes_.top();
      changes_.pop();
      if (entries_[c.job].queued && entries_[c.job].stamp == c.stamp) enqueue(view, c.job);
    }

    // GPU share (milli) of the ready nodes; what running jobs hold, and what those it may not preempt
    // hold (on their way out, or bound to a node).
    const int64_t capacity = static_cast<int64_t>(view.cluster().ready_gpu_count()) * kWholeGpu.value;
    int64_t held = 0, leaving = 0;
    ++pass_;
    if (lines_ || keyed_) {
      follow_running(view);
      held = held_;
      leaving = leaving_;
    } else {
      arrived_running_.clear();
      for (JobId id : view.running_jobs()) {
        const int64_t d = demand(view, id);
        held += d;
        if (!view.preemptible(id) || bound(view, id)) {
          leaving += d;
          continue;
        }
        if (id >= runs_.size()) runs_.resize(id + 1);
        if (!runs_[id].ranked) arrived_running_.push_back(id);
        runs_[id].seen_pass = pass_;
        runs_[id].demand = d;
      }
    }
    granted_.clear();
    // Room for every pending job beside the running ones: no one need be preempted, and priorities
    // only decide the order of placement (and changes of class can wait for the next event).
    start_pending();
    if (asked_ <= capacity - held) {
      while (Ask* a = next_pending(asked_)) granted_.push_back(a->at++->second);
      place_granted(view, binder);
      return;
    }

    if (lines_) rank_lines(view);
    else if (keyed_) rank_keyed(view);
    else rank_running(view);
    // What the running jobs before each place in the ranking hold.
    held_before_.resize(running_.size() + 1);
    for (std::size_t i = 0; i < running_.size(); ++i) held_before_[i + 1] = held_before_[i] + running_[i].demand;
    int64_t budget = capacity - leaving;
    std::size_t next_running = 0;
    // Walks the running jobs up to `end`: each keeps its GPUs while they fit the budget, and is
    // preempted otherwise. Those before the first that would overdraw it keep theirs at once.
    const auto walk_running_to = [&](std::size_t end) {
      while (next_running < end) {
        const int64_t base = held_before_[next_running];
        if (held_before_[end] - base <= budget) {
          budget -= held_before_[end] - base;
          next_running = end;
          return;
        }
        const auto over = static_cast<std::size_t>(
            std::upper_bound(held_before_.begin() + static_cast<std::ptrdiff_t>(next_running) + 1,
                             held_before_.begin() + static_cast<std::ptrdiff_t>(end) + 1, base + budget) -
            held_before_.begin() - 1);
        budget -= held_before_[over] - base;
        binder.preempt(running_[over].job);
        next_running = over + 1;
      }
    };
    // Each pending job that fits the budget takes its GPUs after the running jobs ranked before it
    // have taken theirs (the budget only falls, so an ask that no longer fits is passed over for good).
    while (Ask* a = next_pending(budget)) {
      const auto at = std::partition_point(running_.begin() + static_cast<std::ptrdiff_t>(next_running), running_.end(),
                                           [&](Ranked& r) { return !before(view, *a->at, r); });
      walk_running_to(static_cast<std::size_t>(at - running_.begin()));
      if (a->ask > budget) continue;
      budget -= a->ask;
      granted_.push_back(a->at++->second);
    }
    walk_running_to(running_.size());
    place_granted(view, binder);
  }

  // The pending jobs, one queue per ask, walked in rank order over the asks that fit a budget.
  using Queue = std::set<std::pair<QueueKey, JobId>>;
  struct Ask {
    int64_t ask;
    Queue::const_iterator at, end;
  };
  void start_pending() {
    asks_.clear();
    for (const auto& [ask, queue] : pending_) asks_.push_back({ask, queue.begin(), queue.end()});
  }
  // The first pending job not walked yet, in rank order, of those asking at most `budget`; null: none.
  Ask* next_pending(int64_t budget) {
    Ask* first = nullptr;
    for (Ask& a : asks_) {
      if (a.ask > budget) break;  // asks_ ascend
      if (a.at != a.end && (!first || *a.at < *first->at)) first = &a;
    }
    return first;
  }

  struct Ranked {
    QueueKey priority;  // exact where `exact`; else its primary is within `error` of `line`
    JobId job;
    int64_t demand = 0;          // what it asks (milli-GPU)
    double line = 0, error = 0;  // the primary key as the order's line puts it now (orders with lines)
    bool exact = true;
    bool lined = false;  // ranked before (not a newcomer since the last ranking)
    bool stale = false;  // orders that tell their rekeyed jobs: its priority changed since it was ranked
    std::pair<QueueKey, JobId> pair() const { return {priority, job}; }
    bool operator<(const Ranked& o) const { return pair() < o.pair(); }
  };
  // How far a line may be from the primary key it stands for (QueueOrder::Line): the key's rounding to
  // whole microseconds, and the doubles' relative error (a few ulps of the terms, 1e-14 with room).
  static double line_error(double line, double slope_term) { return 2 + 1e-14 * (std::abs(line) + std::abs(slope_term)); }
  struct Entry {
    QueueKey key;
    int64_t demand = 0;
    uint32_t stamp = 0;  // counts re-keyings, so a superseded next_change is ignored
    bool queued = false;
  };
  struct Change {
    Time at;
    JobId job;
    uint32_t stamp;
    bool operator>(const Change& o) const { return std::tie(at, job) > std::tie(o.at, o.job); }
  };

  // Is it bound to a node (Kubernetes' spec.nodeName)? Such a job bypasses the scheduler: the engine
  // starts it when its node has room, so the scheduler neither grants it GPUs nor preempts it (as
  // kube-scheduler's preemption does not act for it: DefaultPreemption::eligible).
  static bool bound(const ClusterView& view, JobId id) { return view.job(id).node != Job::kNone; }
  // The GPU share a job asks for, in milli-GPU (a share on an exclusive pool still counts as asked).
  static int64_t demand(const ClusterView& view, JobId id) {
    const Request& q = view.job(id).request;
    return static_cast<int64_t>(q.gpus) * q.milli_per_gpu.value;
  }

  // Ranks the preemptible running jobs (those seen this pass) by their priorities now. The order
  // of the previous ranking is kept and repaired: priorities move little between decision points.
  void rank_running(const ClusterView& view) {
    std::size_t kept = 0;
    for (const Ranked& r : running_) {
      if (runs_[r.job].seen_pass == pass_) running_[kept++] = r;
      else runs_[r.job].ranked = false;
    }
    running_.resize(kept);
    for (JobId id : arrived_running_) {
      running_.push_back({.priority = {}, .job = id, .demand = runs_[id].demand});
      runs_[id].ranked = true;
    }
    for (Ranked& r : running_) r.priority = order_->priority(view, r.job);
    // (priority, id) is a total order, so any sort gives the one ranking.
    repair(running_.begin() + static_cast<std::ptrdiff_t>(kept), std::less<>());
  }
  // Does the pending job rank before the running one? An inexact running key is made exact when the
  // line cannot tell.
  bool before(const ClusterView& view, const std::pair<QueueKey, JobId>& pending, Ranked& r) {
    if (!r.exact) {
      const auto p = static_cast<double>(pending.first.primary);
      if (p < r.line - r.error) return true;
      if (p > r.line + r.error) return false;
      r.priority = order_->priority(view, r.job);
      r.exact = true;
    }
    return pending < r.pair();
  }
  // Orders with lines or that tell their rekeyed jobs: the running jobs that changed since the last
  // pass (started, stopped, or no longer preemptible) join or leave running_ and the sums of what
  // running jobs hold; the rekeyed ones are marked for ranking anew.
  void follow_running(const ClusterView& view) {
    const Time now = view.now();
    bool left = false;
    for (JobId id : view.running_changes()) {
      if (id >= runs_.size()) runs_.resize(id + 1);
      Run& run = runs_[id];
      if (run.seen_pass == pass_) continue;  // named twice
      run.seen_pass = pass_;
      const bool running = view.running_jobs().contains(id), preemptible = running && view.preemptible(id) && !bound(view, id);
      const int64_t d = running ? demand(view, id) : 0;
      held_ += d - run.demand;
      leaving_ += (preemptible ? 0 : d) - run.leaving;
      run.demand = d;
      run.leaving = preemptible ? 0 : d;
      if (run.ranked && !preemptible) {
        run.ranked = false;
        left = true;
      } else if (preemptible) {  // it started, or its line may have changed (SRTF: settled at a new rate)
        if (lines_) {
          const QueueOrder::Line l = order_->line(view, id);
          run.slope = l.slope;
          run.offset = l.now - l.slope * static_cast<double>(now.us());
        }
        if (!run.ranked) running_.push_back({.priority = {}, .job = id, .demand = d});
        run.ranked = true;
      }
    }
    if (left)
      std::erase_if(running_, [&](const Ranked& r) {
        if (runs_[r.job].ranked) return false;
        stale_count_ -= r.stale;
        return true;
      });
    if (keyed_) {  // marks the rekeyed ones, found by their keys among those ranked (which come first)
      order_->take_rekeyed(rekeyed_);
      const auto ranked_end = std::partition_point(running_.begin(), running_.end(), [](const Ranked& r) { return r.lined; });
      for (JobId id : rekeyed_) {
        if (id >= runs_.size() || !runs_[id].ranked) continue;
        const auto it = std::lower_bound(running_.begin(), ranked_end, std::pair(runs_[id].key, id),
                                         [](const Ranked& r, const std::pair<QueueKey, JobId>& k) { return r.pair() < k; });
        if (it != ranked_end && it->job == id && !it->stale) {
          it->stale = true;
          ++stale_count_;
        }
      }
    }
  }
  // Orders that tell their rekeyed jobs: those and the newcomers are taken out of running_, ranked by
  // their priorities now and merged back in.
  void rank_keyed(const ClusterView& view) {
    if (stale_count_ == 0 && (running_.empty() || running_.back().lined)) return;  // newcomers come last
    std::size_t kept = 0;
    moved_.clear();
    for (const Ranked& r : running_) {
      if (r.lined && !r.stale) running_[kept++] = r;
      else moved_.push_back(r);
    }
    running_.resize(kept);
    // In job order, as a pass over the running jobs asks (an order may make its state for a job it
    // first sees then, and where it places it can depend on when).
    std::sort(moved_.begin(), moved_.end(), [](const Ranked& a, const Ranked& b) { return a.job < b.job; });
    for (Ranked r : moved_) {
      r.priority = runs_[r.job].key = order_->priority(view, r.job);
      r.lined = true;
      r.stale = false;
      running_.push_back(r);
    }
    stale_count_ = 0;
    const auto mid = running_.begin() + static_cast<std::ptrdiff_t>(kept);
    std::sort(mid, running_.end());
    std::inplace_merge(running_.begin(), mid, running_.end());
  }
  // Orders with lines: running_ in the order of their lines now (jobs of one slope keep their order;
  // the repair by insertion moves the few whose lines crossed), then each run of lines too close to
  // tell their keys apart made exact and sorted by the exact keys.
  void rank_lines(const ClusterView& view) {
    const auto now = static_cast<double>(view.now().us());
    for (Ranked& r : running_) {
      const Run& run = runs_[r.job];
      r.line = run.offset + run.slope * now;
      r.error = line_error(r.line, run.slope * now);
      r.exact = false;
    }
    // The ones ranked before come first (newcomers are appended, and leavers' removal keeps the order).
    repair(std::find_if(running_.begin(), running_.end(), [](const Ranked& r) { return !r.lined; }),
           [](const Ranked& a, const Ranked& b) { return a.line < b.line; });
    for (Ranked& r : running_) r.lined = true;
    for (std::size_t i = 0; i < running_.size();) {
      std::size_t end = i + 1;
      while (end < running_.size() &&
             running_[end].line - running_[end - 1].line <= running_[end].error + running_[end - 1].error + 1)
        ++end;
      if (end - i > 1) {
        for (std::size_t k = i; k < end; ++k) {
          running_[k].priority = order_->priority(view, running_[k].job);
          running_[k].exact = true;
        }
        std::sort(running_.begin() + static_cast<std::ptrdiff_t>(i), running_.begin() + static_cast<std::ptrdiff_t>(end));
      }
      i = end;
    }
  }
  // Sorts running_ by `less` when the part before `mid` was in order at the last ranking: that part,
  // nearly in order still, is repaired by insertion (or sorted afresh when that would move too much),
  // the newcomers from `mid` on are sorted and merged in.
  template <class Less>
  void repair(std::vector<Ranked>::iterator mid, Less less) {
    const auto kept = static_cast<std::size_t>(mid - running_.begin());
    if (!insertion_sort(running_.begin(), mid, 8 * kept, less)) std::sort(running_.begin(), mid, less);
    std::sort(mid, running_.end(), less);
    std::inplace_merge(running_.begin(), mid, running_.end(), less);
  }
  // Sorts [first, last) by insertion unless that takes more than `budget` moves (then false, the range
  // permuted but not sorted).
  template <class Less>
  static bool insertion_sort(std::vector<Ranked>::iterator first, std::vector<Ranked>::iterator last, std::size_t budget,
                             Less less) {
    for (auto i = first; i != last; ++i) {
      if (i == first || !less(*i, *(i - 1))) continue;  // in place already: nothing to move
      const Ranked x = *i;
      auto j = i;
      for (; j != first && less(x, *(j - 1)); --j) {
        if (budget-- == 0) {
          *j = x;
          return false;
        }
        *j = *(j - 1);
      }
      *j = x;
    }
    return true;
  }
  // (Re)ranks a pending job by its priority now.
  void enqueue(const ClusterView& view, JobId id) {
    if (id >= entries_.size()) entries_.resize(id + 1);
    Entry& e = entries_[id];
    if (e.queued) dequeue(id);
    e = {order_->priority(view, id), demand(view, id), e.stamp + 1, true};
    pending_[e.demand].emplace(e.key, id);
    asked_ += e.demand;
    if (auto t = order_->next_change(view, id); t && *t > view.now()) changes_.push({*t, id, e.stamp});
  }
  void dequeue(JobId id) {
    Entry& e = entries_[id];
    const auto queue = pending_.find(e.demand);
    queue->second.erase({e.key, id});
    if (queue->second.empty()) pending_.erase(queue);
    asked_ -= e.demand;
    e.queued = false;
  }
  // Places the granted pending jobs in rank order, as far as GPUs are free now.
  void place_granted(const ClusterView& view, Binder& binder) {
    for (JobId id : granted_) {
      if (auto p = placement_->place(view, id)) {
        binder.bind(id, *p);
        if (!view.is_pending(id)) dequeue(id);
      }
    }
  }

  std::string name_;
  std::unique_ptr<QueueOrder> order_;
  std::unique_ptr<PlacementPolicy> placement_;
  std::vector<Entry> entries_;  // by job id
  std::map<int64_t, Queue> pending_;  // pending jobs by what they ask (milli-GPU)
  int64_t asked_ = 0;  // milli-GPU the pending jobs ask for
  std::vector<Ask> asks_;                                                     // the walk over pending_
  std::vector<int64_t> held_before_;                                          // the walk's sums over running_
  std::priority_queue<Change, std::vector<Change>, std::greater<>> changes_;  // pending jobs' next_change
  std::vector<Ranked> running_;  // preemptible running jobs, in the order of their last ranking
  struct Run {
    uint64_t seen_pass = 0;  // the last pass that saw it running and preemptible (followed: that looked at it)
    bool ranked = false;     // in running_
    QueueKey key;            // orders that tell their rekeyed jobs: its priority when last ranked
    int64_t demand = 0;      // what it asks (milli-GPU), when last seen running (followed: what it adds to held_)
    // Followed: what it adds to leaving_; with lines, its line (primary key = offset + slope x now us).
    int64_t leaving = 0;
    double offset = 0, slope = 0;
  };
  std::vector<Run> runs_;               // by job id
  std::vector<JobId> arrived_running_;  // running and preemptible this pass, not in running_
  uint64_t pass_ = 0;
  std::vector<JobId> granted_;
  const bool lines_;  // does the order give lines (QueueOrder::has_lines)?
  const bool keyed_;  // does it tell its rekeyed jobs (QueueOrder::tells_rekeyed)?
  std::vector<JobId> rekeyed_;
  std::vector<Ranked> moved_;
  std::size_t stale_count_ = 0;     // entries of running_ marked stale
  int64_t held_ = 0, leaving_ = 0;  // followed: milli-GPU running jobs hold, and those not preemptible
};

}  // namespace

std::unique_ptr<Scheduler> make_preemptive(std::string name, std::unique_ptr<QueueOrder> order,
                                           std::unique_ptr<PlacementPolicy> placement) {
  return std::make_unique<PreemptiveScheduler>(std::move(name), std::move(order), std::move(placement));
}

}  // namespace gpusim::builtin
