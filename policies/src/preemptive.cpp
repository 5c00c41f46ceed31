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
// or at its next_change, so pending jobs stay in an ordered set, re-keyed only then; running jobs
// (at most one per GPU share) are ranked afresh when the cluster is contended. An order whose running
// priorities move on lines (QueueOrder::Line: las, srtf) is not asked them: its running jobs are followed
// through the engine's running changes and kept in the order of their lines, and priority() is asked
// only of jobs whose lines are too close to another's, or to a pending job's key, to tell. The walk
// stops taking pending jobs once the GPUs left are fewer than the smallest pending job asks.
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
      : name_(std::move(name)), order_(std::move(order)), placement_(std::move(placement)), lines_(order_->has_lines()) {}

  std::string name() const override { return name_; }
  QueueKey queue_key(const Job& job) const override { return order_->key(job); }
  bool would_use(const ClusterView& view, JobId job, PoolId pool) const override { return placement_->admits_pool(view, job, pool); }
  bool decides_when_idle() const override { return order_->every_pass(); }
  bool watches_running() const override { return lines_; }

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
      if (view.is_pending(id)) enqueue(view, id);
    while (!changes_.empty() && changes_.top().at <= now) {
      const Change c = changes_.top();
      changes_.pop();
      if (entries_[c.job].queued && entries_[c.job].stamp == c.stamp) enqueue(view, c.job);
    }

    // GPU share (milli) of the ready nodes; what running jobs hold, and what jobs on their way out hold.
    const int64_t capacity = static_cast<int64_t>(view.cluster().ready_gpu_count()) * kWholeGpu.value;
    int64_t held = 0, leaving = 0;
    ++pass_;
    if (lines_) {
      follow_running(view);
      held = held_;
      leaving = leaving_;
    } else {
      arrived_running_.clear();
      for (JobId id : view.running_jobs()) {
        const int64_t d = demand(view, id);
        held += d;
        if (!view.preemptible(id)) {
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
    if (asked_ <= capacity - held) {
      for (const auto& [key, id] : pending_) granted_.push_back(id);
      place_granted(view, binder);
      return;
    }

    if (lines_) rank_lines(view);
    else rank_running(view);
    int64_t budget = capacity - leaving;
    auto next_pending = pending_.begin();
    std::size_t next_running = 0;
    for (;;) {
      const bool pending_left = next_pending != pending_.end() && budget >= smallest_ask();
      if (!pending_left && next_running == running_.size()) break;
      if (pending_left && (next_running == running_.size() || before(view, *next_pending, running_[next_running]))) {
        const JobId id = next_pending++->second;
        if (entries_[id].demand > budget) continue;
        budget -= entries_[id].demand;
        granted_.push_back(id);
      } else {
        const JobId id = running_[next_running++].job;
        const int64_t need = runs_[id].demand;
        if (need <= budget) budget -= need;
        else binder.preempt(id);
      }
    }
    place_granted(view, binder);
  }

  struct Ranked {
    QueueKey priority;  // exact where `exact`; else its primary is within `error` of `line`
    JobId job;
    double line = 0, error = 0;  // the primary key as the order's line puts it now (orders with lines)
    bool exact = true;
    bool lined = false;  // ranked by its line before (not a newcomer since the last ranking)
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

  // The GPU share a job asks for, in milli-GPU (a share on an exclusive pool still counts as asked).
  static int64_t demand(const ClusterView& view, JobId id) {
    const Request& q = view.job(id).request;
    return static_cast<int64_t>(q.gpus) * q.milli_per_gpu.value;
  }
  int64_t smallest_ask() const { return asks_.begin()->first; }

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
      running_.push_back({{}, id});
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
  // Orders with lines: the running jobs that changed since the last pass (started, stopped, or no
  // longer preemptible) join or leave running_ and the sums of what running jobs hold.
  void follow_running(const ClusterView& view) {
    const Time now = view.now();
    bool left = false;
    for (JobId id : view.running_changes()) {
      if (id >= runs_.size()) runs_.resize(id + 1);
      Run& run = runs_[id];
      if (run.seen_pass == pass_) continue;  // named twice
      run.seen_pass = pass_;
      const bool running = view.running_jobs().contains(id), preemptible = running && view.preemptible(id);
      const int64_t d = running ? demand(view, id) : 0;
      held_ += d - run.demand;
      leaving_ += (preemptible ? 0 : d) - run.leaving;
      run.demand = d;
      run.leaving = preemptible ? 0 : d;
      if (run.ranked && !preemptible) {
        run.ranked = false;
        left = true;
      } else if (preemptible) {  // it started, or its line may have changed (SRTF: settled at a new rate)
        const QueueOrder::Line l = order_->line(view, id);
        run.slope = l.slope;
        run.offset = l.now - l.slope * static_cast<double>(now.us());
        if (!run.ranked) running_.push_back({{}, id});
        run.ranked = true;
      }
    }
    if (left) std::erase_if(running_, [&](const Ranked& r) { return !runs_[r.job].ranked; });
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
    pending_.emplace(e.key, id);
    asked_ += e.demand;
    ++asks_[e.demand];
    if (auto t = order_->next_change(view, id); t && *t > view.now()) changes_.push({*t, id, e.stamp});
  }
  void dequeue(JobId id) {
    Entry& e = entries_[id];
    pending_.erase({e.key, id});
    asked_ -= e.demand;
    if (--asks_[e.demand] == 0) asks_.erase(e.demand);
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
  std::set<std::pair<QueueKey, JobId>> pending_;
  int64_t asked_ = 0;  // milli-GPU the pending jobs ask for
  std::map<int64_t, uint32_t> asks_;  // pending jobs by what they ask
  std::priority_queue<Change, std::vector<Change>, std::greater<>> changes_;  // pending jobs' next_change
  std::vector<Ranked> running_;  // preemptible running jobs, in the order of their last ranking
  struct Run {
    uint64_t seen_pass = 0;  // the last pass that saw it running and preemptible (with lines: that looked at it)
    bool ranked = false;     // in running_
    int64_t demand = 0;      // what it asks (milli-GPU), when last seen running (with lines: what it adds to held_)
    // Orders with lines: what it adds to leaving_, and its line (primary key = offset + slope x now us).
    int64_t leaving = 0;
    double offset = 0, slope = 0;
  };
  std::vector<Run> runs_;               // by job id
  std::vector<JobId> arrived_running_;  // running and preemptible this pass, not in running_
  uint64_t pass_ = 0;
  std::vector<JobId> granted_;
  const bool lines_;                // does the order give lines (QueueOrder::has_lines)?
  int64_t held_ = 0, leaving_ = 0;  // with lines: milli-GPU running jobs hold, and those on their way out
};

}  // namespace

std::unique_ptr<Scheduler> make_preemptive(std::string name, std::unique_ptr<QueueOrder> order,
                                           std::unique_ptr<PlacementPolicy> placement) {
  return std::make_unique<PreemptiveScheduler>(std::move(name), std::move(order), std::move(placement));
}

}  // namespace gpusim::builtin
