// Queue orders. Static ones fix a job's key when it arrives (ties to the earlier arrival); preemptive
// ones give a priority that changes as jobs run.
#include <algorithm>
#include <cmath>
#include <queue>
#include <vector>

#include <fmt/format.h>

#include "builtin.hpp"
#include "gpusim/core/error.hpp"

namespace gpusim::builtin {

namespace {
struct Fifo final : QueueOrder {
  QueueKey key(const Job& j) const override { return {j.arrival.us(), 0}; }
};
struct Priority final : QueueOrder {
  QueueKey key(const Job& j) const override { return {-static_cast<int64_t>(j.priority), j.arrival.us()}; }
};
// Shortest job first, using the trace's durations as an oracle (a real scheduler only estimates them).
struct Sjf final : QueueOrder {
  QueueKey key(const Job& j) const override { return {j.work.us(), j.arrival.us()}; }
};
}  // namespace

std::unique_ptr<QueueOrder> make_fifo() { return std::make_unique<Fifo>(); }
std::unique_ptr<QueueOrder> make_priority() { return std::make_unique<Priority>(); }
std::unique_ptr<QueueOrder> make_sjf() { return std::make_unique<Sjf>(); }

}  // namespace gpusim::builtin

// --- Preemptive orders: priorities that change as jobs run (PreemptiveScheduler serves them) ------

namespace gpusim::builtin {

namespace {
// A key in whole microseconds, truncated from the figure in seconds as the keys have always been
// (the round trip through seconds can land one microsecond below; changing that would reorder ties).
int64_t key_us(double seconds) { return Duration::from_seconds(seconds, Round::toward_zero).us(); }

// Shortest remaining time first: work left at its ideal speed (an oracle, as sjf's).
struct Srtf final : QueueOrder {
  QueueKey key(const Job& j) const override { return {j.work.us(), j.arrival.us()}; }
  bool preemptive() const override { return true; }
  QueueKey priority(const ClusterView& v, JobId id) override {
    return {key_us(v.remaining_work(id).seconds()), v.job(id).arrival.us()};
  }
  // Work left falls at the job's rate (Engine::remaining_now); the rate changes only when it is settled.
  bool has_lines() const override { return true; }
  Line line(const ClusterView& v, JobId id) const override { return {-v.progress_rate(id), v.remaining_work(id).us()}; }
};

// Least attained service: GPU time held so far (GPUs x time), then arrival.
struct Las final : QueueOrder {
  QueueKey key(const Job& j) const override { return {0, j.arrival.us()}; }
  bool preemptive() const override { return true; }
  QueueKey priority(const ClusterView& v, JobId id) override {
    return {key_us(v.attained_gpu(id).seconds()), v.job(id).arrival.us()};
  }
  // GPU time grows by the GPUs it holds each microsecond (Engine::attained_gpu).
  bool has_lines() const override { return true; }
  Line line(const ClusterView& v, JobId id) const override {
    return {static_cast<double>(v.placement(id).gpus.size()), v.attained_gpu(id).us()};
  }
};

// Smallest job first by GPUs asked, preemptive: the Tiresias simulator's `sjf`
// (smallest_first_sim_jobs, run_sim.py:454-580): at each event every job is ranked by its GPU count,
// ties in arrival order (a stable sort of its runnable list), and granted GPUs down the ranking.
struct SjfGpus final : QueueOrder {
  QueueKey key(const Job& j) const override { return {j.request.gpus, j.arrival.us()}; }
  bool preemptive() const override { return true; }
  QueueKey priority(const ClusterView& v, JobId id) override { return {v.job(id).request.gpus, 0}; }
};

// The Gittins index of a job's service over a distribution of job sizes (GPU-seconds), as the Tiresias
// simulator computes it (run_sim.py:1950-2009, cal_r_gittins_index and parse_job_dist; 1244-1249,
// get_gittins_index), kept x 10^4. For the sorted sizes d_1..d_n and a quantum D = 3,250 GPU-s
// (jobs.py:116, gittins_delta), the index of service a is P / E x 10^6, with P the share of the jobs
// larger than a that end by a + D, and E, per job larger than a, the sizes of those (sic: not what
// is left of them) plus D for each of the others, both rounded to 5 decimals and the index to 4. It is
// tabled at each size (a = d_i - 1); a job's index is its next size's, 0 past the largest. What a
// queue order needs is the rank of an index among the table's (0: the highest).
// The limits of Tiresias::place_key's packing of (queue, index rank, arrival, place) into 64 bits.
constexpr std::size_t kMaxGittinsQueues = std::size_t{1} << 9;
constexpr std::size_t kMaxGittinsJobs = (std::size_t{1} << 26) - 2;  // ranks go to jobs + 1

class GittinsTable {
 public:
  explicit GittinsTable(std::vector<double> sizes_s) : sizes_s_(std::move(sizes_s)) {
    std::sort(sizes_s_.begin(), sizes_s_.end());
    sums_s_.resize(sizes_s_.size() + 1);
    for (std::size_t i = 0; i < sizes_s_.size(); ++i) sums_s_[i + 1] = sums_s_[i] + sizes_s_[i];
    std::vector<int64_t> index;
    for (double d : sizes_s_) index.push_back(at(d - 1));
    index.push_back(0);
    std::vector<int64_t> highest_first = index;
    std::sort(highest_first.begin(), highest_first.end(), std::greater<>());
    highest_first.erase(std::unique(highest_first.begin(), highest_first.end()), highest_first.end());
    for (int64_t i : index)
      rank_.push_back(std::lower_bound(highest_first.begin(), highest_first.end(), i, std::greater<>()) - highest_first.begin());
  }
  int64_t rank(double service_s) const {
    const double a = std::floor(service_s);  // the simulator's int() of its whole seconds
    return rank_[sizes_s_.empty() || a > sizes_s_.back() ? sizes_s_.size() : above(a)];
  }

 private:
  static constexpr double kQuantumS = 3250;
  std::size_t above(double a) const {
    return static_cast<std::size_t>(std::upper_bound(sizes_s_.begin(), sizes_s_.end(), a) - sizes_s_.begin());
  }
  static double round_to(double x, double scale) { return std::nearbyint(x * scale) / scale; }
  int64_t at(double a) const {
    const std::size_t n = sizes_s_.size();
    if (a > sizes_s_.back() - 1) return 0;
    const std::size_t first = above(a);
    const std::size_t last = a + kQuantumS > sizes_s_.back() - 1 ? n - 1 : above(a + kQuantumS);
    const auto left = static_cast<double>(n - first);
    const double p = round_to(static_cast<double>(last - first) / left, 1e5);
    const double e = round_to((sums_s_[last] - sums_s_[first] + kQuantumS * static_cast<double>(n - last)) / left, 1e5);
    return e > 0 ? std::llround(p * 1e6 / e * 1e4) : 0;
  }
  std::vector<double> sizes_s_, sums_s_;
  std::vector<int64_t> rank_;  // at each size, and past the largest
};

// Tiresias' discretized two-dimensional LAS (Gu et al., NSDI'19, §3.2-3.3), as its simulator's
// dlas-gpu scheme runs it (SymbioticLab/Tiresias simulator/run_sim.py, dlas_sim_jobs, lines 959-1242):
// - a job's service is the GPU time it has attained since it last entered the first queue; lower
//   queues run first;
// - demotion: at each decision point, a running job whose service has reached its queue's limit
//   moves down one queue (one per decision point, lines 1049-1054); the simulator wakes itself when
//   it expects a running job to reach the limit, at now + floor((limit - run time) / GPUs) seconds
//   (lines 1218-1236; Python 2 integer division, and run time where GPU time was meant, so a
//   multi-GPU job is demoted at a later event than the one at which its GPU time crossed); its events
//   are arrivals, completions and the earliest of these wake-ups, set afresh at each event, so a
//   recheck asked for at an earlier event and since superseded is passed over (before_pass);
// - order within a queue: each queue is a list; newcomers and demoted jobs are appended to the back
//   of theirs, and after each decision point the pending jobs of every queue move behind the running
//   ones, keeping their order (lines 1133-1143): a job preempted there goes to the front of the
//   pending ones, a demoted job still running to the back of the running ones, a demoted job
//   preempted at once to the back of the pending ones. Each queue is walked in list order;
// - a pending job outside the first queue whose waits add up to `starvation` x its run time goes back
//   to the back of the first queue, its service reset (the simulator's solve_starvation, lines
//   1060-1075: last_pending_time sums the job's pending time from its first run after it last entered
//   the first queue, and both sums restart at promotion; 0, the default, turns it off). The waits
//   since that first run are the time since it less the run time, so the wait reaches the limit at
//   first run + (1 + starvation) x run time.
// A job's place in its queue is kept as (class, position): running, pending, or appended at a decision
// point (running, demoted there), the position ordering each class.
// With a Gittins table (tiresias-gittins, the simulator's dlas-gpu-gittins: Tiresias-G, §3.2 of the
// paper), each queue is sorted at each of the simulator's events by the Gittins index of a job's
// service then, highest first, ties by arrival (run_sim.py:1105-1106), and then by job id where the
// simulator keeps its list order (jobs that arrived together and share an index).
// The running jobs are followed through the engine's running changes, and the work of a decision
// point is that of the jobs that changed: demotions are watched for at the times they can come, and
// the simulator's wake-ups, worked out for every running job at each of its events, are worked out
// only for the few whose lower bound could make them the earliest (earliest_lazy_jump).
class Tiresias final : public QueueOrder {
 public:
  Tiresias(const PolicyContext& c, std::optional<GittinsTable> gittins) : gittins_(std::move(gittins)) {
    if (c.params) {
      if (auto q = c.params->get("tiresias_queues")) {
        thresholds_s_.clear();
        for (const auto& item : q->is_sequence() ? q->items() : std::vector<ConfigNode>{*q}) {
          // GPU-seconds up to kMaxSpan's, and a promotion delay of at most 100 x the run: the times
          // derived from them stay inside the clock.
          const double t = item.as_number({Bound(0, true), kSpanSeconds.maximum});
          if (!thresholds_s_.empty() && t <= thresholds_s_.back())
            item.fail("expected increasing positive GPU-second thresholds, e.g. [3250, 7200]");
          if (gittins_ && thresholds_s_.size() == kMaxGittinsQueues - 1)  // place_key gives the queue 9 bits
            item.fail(fmt::format("expected at most {} thresholds under tiresias-gittins", kMaxGittinsQueues - 1));
          thresholds_s_.push_back(t);
        }
      }
      if (auto s = c.params->get("tiresias_starvation")) starvation_ = s->as_number(Range::between(0, 100));
    }
  }
  QueueKey key(const Job& j) const override { return {0, j.arrival.us()}; }
  bool preemptive() const override { return true; }
  bool every_pass() const override { return true; }
  bool tells_rekeyed() const override { return true; }
  void take_rekeyed(std::vector<JobId>& into) override {
    into.swap(rekeyed_);
    rekeyed_.clear();
  }

  // Follows the running jobs' changes since the last pass. At one of the simulator's events, demotes
  // the running jobs whose service has reached their queue's limit, one queue each, to the back of
  // their new queue (those due: demotions are watched for at the times they can come), and with a
  // Gittins table ranks every running job's index afresh.
  void before_pass(const ClusterView& v) override {
    // The simulator's events are arrivals, completions and the one wake-up it set at its previous
    // event; a recheck asked for earlier and since superseded is none of them.
    bool stopped = false;
    demoted_.clear();
    unseen_.clear();
    follow(
        v, [&](JobId, State& s) { stopped |= s.held && !s.member; }, &unseen_);
    event_ = !v.new_arrivals().empty() || v.now() == next_jump_ || stopped;
    if (!event_) return;
    for (JobId id : unseen_) {  // ascending
      State& s = state(v, id);
      begin_attempt(v, id, s);
      s.member = true;
    }
    demote_due(v);
    if (gittins_)
      for (JobId id : v.running_jobs()) {
        if (id >= states_.size() || !states_[id].member) continue;  // not followed: not preemptible
        State& s = states_[id];
        if (const int64_t g = gittins_->rank(service_s(v, id, s)); g != s.gittins) {
          s.gittins = g;
          rekeyed_.push_back(id);
        }
      }
  }

  // Moves each queue's pending jobs behind its running ones, in list order: the jobs that started or
  // were demoted in the pass go to the back of the running ones, those that stopped to the front of
  // the pending ones (or their back, when demoted there).
  void after_pass(const ClusterView& v) override {
    const Time now = v.now();
    started_.clear();
    stopped_front_.clear();
    stopped_back_.clear();
    follow(v, [&](JobId id, State& s) {
      if (s.held && !s.member) {
        materialize(id, s);
        s.held = false;
        if (v.is_pending(id) || !v.placement(id).nodes.empty())  // not ended
          (s.place == Place::running ? stopped_front_ : stopped_back_).push_back(id);
      } else if (!s.held && s.member) {
        s.held = true;
        hold_from_next_event(id, s, now);
      }
      if (s.member && s.place != Place::running) started_.push_back(id);
    });
    const auto in_list_order = [&](std::vector<JobId>& ids) {
      std::sort(ids.begin(), ids.end(),
                [&](JobId a, JobId b) { return std::pair(place_key(a), a) < std::pair(place_key(b), b); });
    };
    in_list_order(started_);
    for (JobId id : started_) {
      State& s = states_[id];
      s.place_at(Place::running, ++run_seq_);
      if (s.first_run == Time::max()) s.first_run = now;
      rekeyed_.push_back(id);
    }
    in_list_order(stopped_front_);
    front_seq_ -= static_cast<int64_t>(stopped_front_.size());
    for (std::size_t i = 0; i < stopped_front_.size(); ++i)
      states_[stopped_front_[i]].place_at(Place::pending, front_seq_ + static_cast<int64_t>(i));
    in_list_order(stopped_back_);
    for (JobId id : stopped_back_) states_[id].place_at(Place::pending, ++back_seq_);
    if (event_) {
      ++events_;
      last_event_ = now;
      fresh_.clear();
      wake_ups(v);
      return;
    }
    // What next_change gives each running job, the earliest: the jump worked out at the last event at
    // which it ran (at an event, wake_ups works them out afresh).
    next_running_ = earliest_lazy_jump(now);
    for (JobId id : fresh_)
      if (const State& s = states_[id]; s.held && !lazy(s) && s.jump > now) next_running_ = std::min(next_running_, s.jump);
  }
  std::optional<Time> next_running_change(const ClusterView&) const override {
    if (next_running_ == Time::max()) return std::nullopt;
    return next_running_;
  }

  // At one of the simulator's events: when it would next wake for each running job (the earliest is
  // next_running_), and for a waiting job due for promotion.
  void wake_ups(const ClusterView& v) {
    next_jump_ = earliest_lazy_jump(v.now());  // every jump is later than now
    next_running_ = next_jump_;
    // The simulator also wakes when a waiting job is due for promotion (run_sim.py:1232-1238).
    if (starvation_ > 0)
      v.for_each_pending([&](JobId id) {
        if (id < states_.size() && states_[id].known)
          if (auto due = promotion(v, id, states_[id]); due && *due > v.now()) next_jump_ = std::min(next_jump_, *due);
        return true;
      });
  }

  QueueKey priority(const ClusterView& v, JobId id) override {
    State& s = state(v, id);
    if (v.is_pending(id))
      if (auto due = promotion(v, id, s); due && v.now() >= *due) {
        s.base_gpu_s = v.attained_gpu(id).seconds();
        s.queue = 0;
        s.first_run = Time::max();
        s.place_at(Place::pending, ++back_seq_);
        if (gittins_) s.gittins = gittins_->rank(0);
      }
    return place_key(id);
  }

  std::optional<Time> next_change(const ClusterView& v, JobId id) const override {
    if (id >= states_.size() || !states_[id].known) return std::nullopt;  // not ranked yet: in the first queue, never run
    const State& s = states_[id];
    if (v.is_pending(id)) return promotion(v, id, s);
    const Time j = lazy(s) ? jump_at(last_event_, s) : s.jump;
    if (j == Time::max()) return std::nullopt;
    return j;
  }

 private:
  enum class Place : uint8_t { running, pending, appended };
  struct State {
    double base_gpu_s = 0;  // attained GPU time when it last entered the first queue
    int32_t queue = 0;
    Place place = Place::pending;
    bool known = false;
    bool member = false;           // running and preemptible, as last followed
    bool held = false;             // running and preemptible at the end of the last pass
    int64_t position = 0;          // order within its queue and place
    Time jump = Time::max();       // when the simulator would next wake for it, as of event `jump_event`
    uint64_t jump_event = 0;       // (while lazy, a jump of another event is stale and worked out anew)
    uint64_t held_from = 0;        // the first event at which it was held, in its current stretch
    Time first_run = Time::max();  // its first start since it last entered the first queue
    int64_t gittins = 0;           // tiresias-gittins: the rank of its Gittins index at the last event
    int64_t arrived_with = 0;      // tiresias-gittins: the first job id of its arrival time
    double gpus = 1;               // GPUs asked (at least 1): the simulator divides by it
    // Its current attempt, from which its service at any instant of it follows exactly (attained_gpu_before).
    GpuTime run_before;
    Time run_start;
    double run_gpus = 0;
    uint32_t attempt = 0;  // counts the attempts followed: marks watches of an earlier one stale
    void place_at(Place p, int64_t at) {
      place = p;
      position = at;
    }
  };
  // A time at which to look at a job again (a demotion may be due, or a bound on its jump), valid
  // while the job is in the attempt `attempt` counted.
  struct Watch {
    Time at;
    JobId job;
    uint32_t attempt;
    bool operator>(const Watch& o) const { return std::tie(at, job) > std::tie(o.at, o.job); }
  };
  using Watches = std::priority_queue<Watch, std::vector<Watch>, std::greater<>>;

  // Its state, made when first asked (the fast path inline).
  State& state(const ClusterView& v, JobId id) {
    if (id < states_.size() && states_[id].known) [[likely]]
      return states_[id];
    return first_seen(v, id);
  }
  [[gnu::noinline]] State& first_seen(const ClusterView& v, JobId id) {
    if (id >= states_.size()) states_.resize(id + 1);
    State& s = states_[id];
    s = State{};
    s.known = true;
    s.gpus = std::max(1, v.job(id).request.gpus);
    s.position = ++back_seq_;  // a newcomer: the back of the first queue
    if (gittins_) {
      s.gittins = gittins_->rank(0);
      // Back over the jobs of its arrival time to the first, or to one already seen (a loop, not a
      // recursion: thousands of jobs may arrive at one instant).
      int64_t first = id.value();
      while (first > 0 && v.job(JobId(first - 1)).arrival == v.job(id).arrival) {
        const State& before = states_[static_cast<std::size_t>(first - 1)];
        if (before.known) {
          first = before.arrived_with;
          break;
        }
        --first;
      }
      s.arrived_with = first;
    }
    return s;
  }

  // Brings up to date each job the engine names in its running changes (and each demoted in the pass),
  // then visits it: whether it runs preemptibly, and for a new attempt the attempt's figures and the
  // watch for its demotion. A state is made (a newcomer's place in its queue depends on when) where the
  // simulator's order made it with a pass over the running jobs: in ascending job order, at an event
  // before the pass, else when the scheduler ranks it or after the pass; before a pass, `unseen` keeps
  // the jobs without one for the event, if it is one.
  template <class Visit>
  void follow(const ClusterView& v, Visit visit, std::vector<JobId>* unseen = nullptr) {
    changed_.assign(v.running_changes().begin(), v.running_changes().end());
    changed_.insert(changed_.end(), demoted_.begin(), demoted_.end());
    std::sort(changed_.begin(), changed_.end());
    changed_.erase(std::unique(changed_.begin(), changed_.end()), changed_.end());
    for (JobId id : changed_) {
      const bool member = v.running_jobs().contains(id) && v.preemptible(id);
      if (id >= states_.size() || !states_[id].known) {
        if (!member) continue;  // never ran here
        if (unseen) {
          unseen->push_back(id);
          continue;
        }
      }
      State& s = state(v, id);
      if (member &&
          (!s.member || s.run_start != v.start_time(id) || s.run_gpus != static_cast<double>(v.placement(id).gpus.size())))
        begin_attempt(v, id, s);
      s.member = member;
      visit(id, s);
    }
  }
  void begin_attempt(const ClusterView& v, JobId id, State& s) {
    materialize(id, s);  // a jump worked out at the last event, with the attempt it was worked out on
    s.run_before = v.attained_gpu_before(id);
    s.run_start = v.start_time(id);
    s.run_gpus = static_cast<double>(v.placement(id).gpus.size());
    ++s.attempt;
    watch_demotion(id, s, v.now());
    if (s.held) hold_from_next_event(id, s, v.now());
  }
  // Its service (GPU-seconds since it last entered the first queue) at instant `at` of its attempt:
  // the same doubles as service_s gives at that instant.
  static double service_at(const State& s, Time at) {
    return (s.run_before + GpuTime::of(at - s.run_start, s.run_gpus)).seconds() - s.base_gpu_s;
  }

  // Demotions: a running job is looked at from a millisecond before its service can reach its
  // queue's limit (the doubles' rounding is far smaller), at each event until it has; the test itself
  // is the simulator's, on the service now.
  void watch_demotion(JobId id, const State& s, Time not_before) {
    const auto q = static_cast<std::size_t>(s.queue);
    if (q >= thresholds_s_.size() || s.run_gpus <= 0) return;
    const double reach_us = static_cast<double>(s.run_start.us()) +
                            ((thresholds_s_[q] + s.base_gpu_s) * 1e6 - s.run_before.us()) / s.run_gpus;
    due_.push({std::max(not_before, earlier_us(reach_us)), id, s.attempt});
  }
  void demote_due(const ClusterView& v) {
    const Time now = v.now();
    while (!due_.empty() && due_.top().at <= now) {
      const Watch w = due_.top();
      due_.pop();
      if (const State& s = states_[w.job]; s.attempt == w.attempt && s.member) demoted_.push_back(w.job);
    }
    std::erase_if(demoted_, [&](JobId id) {
      State& s = states_[id];
      const bool reached = service_s(v, id, s) >= thresholds_s_[static_cast<std::size_t>(s.queue)];
      if (reached) {
        materialize(id, s);  // its jump at the last event was worked out in its old queue
        ++s.queue;
        s.place_at(Place::appended, now.us());  // ties by job id: arrival order
        rekeyed_.push_back(id);
      }
      watch_demotion(id, s, now + Duration::from_us(1));
      return !reached;
    });
  }

  // Jumps. The simulator works out every running job's jump at each of its events; here a job held
  // at the last event has that event's jump worked out only when asked (lazy), from a lower bound kept
  // in `jumps_`: the jump at an event e is at least e + (limit - run time) / GPUs - 1 s, which never
  // falls as e grows while the job runs (its run time grows by at most GPUs^2 a second, since it holds
  // no more GPUs than that), so a bound taken at one instant holds at every later event. A job held
  // since the last event keeps the jump worked out when it last was (fresh_), as the simulator does.
  bool lazy(const State& s) const { return s.held && s.held_from <= events_; }
  void hold_from_next_event(JobId id, State& s, Time now) {
    s.held_from = events_ + 1;
    fresh_.push_back(id);
    jumps_.push({jump_bound(s, now), id, s.attempt});
  }
  // Fixes a lazy job's jump at the last event's (it stops being held, changes queue or attempt).
  void materialize(JobId id, State& s) {
    if (!lazy(s)) return;
    s.jump = jump_at(last_event_, s);
    s.jump_event = events_;
    s.held_from = events_ + 1;
    fresh_.push_back(id);
  }
  // The earliest jump later than `after` of the jobs held at the last event, as worked out then.
  Time earliest_lazy_jump(Time after) {
    Time best = Time::max();
    kept_.clear();
    while (!jumps_.empty() && jumps_.top().at < best) {
      const Watch w = jumps_.top();
      jumps_.pop();
      State& s = states_[w.job];
      if (s.attempt != w.attempt || !s.held) continue;  // stale
      if (!lazy(s)) {                                   // held since the last event: its bound is for the next
        kept_.push_back(w);
        continue;
      }
      if (s.jump_event != events_) {
        s.jump = jump_at(last_event_, s);
        s.jump_event = events_;
      }
      if (s.jump > after) best = std::min(best, s.jump);
      kept_.push_back({jump_bound(s, last_event_), w.job, w.attempt});
    }
    for (const Watch& w : kept_) jumps_.push(w);
    return best;
  }
  // A lower bound of its jump at any event from `at` on, in its queue or a later one.
  Time jump_bound(const State& s, Time at) const {
    const auto q = static_cast<std::size_t>(s.queue);
    if (q >= thresholds_s_.size()) return Time::max();
    if (s.run_gpus > s.gpus * s.gpus) return Time();
    const double left_s = (thresholds_s_[q] - service_at(s, at) / s.gpus) / s.gpus;
    return earlier_us(static_cast<double>(at.us()) + (left_s - 1) * 1e6);
  }
  // An instant at or a millisecond before `us` (a relative 1e-9 more for large figures), within the clock.
  static Time earlier_us(double us) {
    const double at = std::floor(us - 1000 - 1e-9 * std::abs(us));
    if (at <= 0) return Time();
    if (at >= static_cast<double>(Time::max().us())) return Time::max();
    return Time::from_us(static_cast<int64_t>(at));
  }
  // When the simulator wakes for a running job, as it reckons at its event `at`.
  Time jump_at(Time at, const State& s) const {
    const auto q = static_cast<std::size_t>(s.queue);
    if (q >= thresholds_s_.size()) return Time::max();
    // The simulator's wake-up (sic): its run time subtracted from a GPU-time limit, over the GPUs, floored
    // to its whole seconds. Under a second, the crossing itself (times here need not be whole seconds).
    const double service = service_at(s, at);
    const double wait_s = std::floor((thresholds_s_[q] - service / s.gpus) / s.gpus);
    const double crossing_s = (thresholds_s_[q] - service) / s.gpus;
    return at + std::max(Duration::from_us(1), wait_s >= 1 ? Duration::from_seconds(wait_s, Round::toward_zero)
                                                           : Duration::from_seconds(crossing_s, Round::up));
  }

  QueueKey place_key(JobId id) const {
    const State& s = states_[id];
    // (queue, index rank, arrival, place) in 9 + 26 + 26 + 2 bits: arrival as the first job id of its
    // time (ids follow arrival: JobSet::finalize); the simulator's stable sort keeps list order on ties.
    if (gittins_)
      return {int64_t{s.queue} << 54 | s.gittins << 28 | s.arrived_with << 2 | static_cast<int64_t>(s.place), s.position};
    return {3 * s.queue + static_cast<int64_t>(s.place), s.position};
  }
  static double service_s(const ClusterView& v, JobId id, const State& s) { return v.attained_gpu(id).seconds() - s.base_gpu_s; }
  // When a pending job outside the first queue is promoted (it has run since it entered the first queue).
  std::optional<Time> promotion(const ClusterView& v, JobId id, const State& s) const {
    const double run_s = service_s(v, id, s) / s.gpus;
    if (starvation_ <= 0 || s.queue == 0 || run_s <= 0) return std::nullopt;
    return s.first_run + Duration::from_seconds((1 + starvation_) * run_s, Round::up);
  }

  // The simulator's queue limits: num_queue 3 with queue_limit [3250, 7200, 18000] GPU-seconds
  // (simulator/jobs.py:102-104), of which only the first two are read (run_sim.py:1049, the last
  // queue has no limit). Its dlas-gpu scheme does not promote (dlas-gpu-2 is tiresias_starvation: 2).
  std::vector<double> thresholds_s_{3250, 7200};
  double starvation_ = 0;
  std::optional<GittinsTable> gittins_;
  std::vector<State> states_;
  int64_t run_seq_ = 0;              // positions of running jobs, in the order they were placed behind the others
  int64_t back_seq_ = 0;             // positions at the back of the pending ones
  int64_t front_seq_ = 0;            // positions at the front of the pending ones (going down)
  bool event_ = true;                // is this pass one of the simulator's events?
  uint64_t events_ = 0;              // the simulator's events so far
  Time last_event_;                  // and when the last was
  Time next_jump_ = Time::max();     // the wake-up set at the last event
  Time next_running_ = Time::max();  // the earliest jump of the running jobs after the pass
  Watches due_;                      // running jobs' demotion watches
  Watches jumps_;                    // held jobs' jump bounds
  std::vector<JobId> fresh_;         // held since the last event (or fixed since), perhaps no longer
  std::vector<JobId> rekeyed_;       // running jobs whose priority changed since the scheduler took them
  std::vector<JobId> changed_, unseen_, demoted_, started_, stopped_front_, stopped_back_;
  std::vector<Watch> kept_;
};
}  // namespace

std::unique_ptr<QueueOrder> make_srtf() { return std::make_unique<Srtf>(); }
std::unique_ptr<QueueOrder> make_las() { return std::make_unique<Las>(); }
std::unique_ptr<QueueOrder> make_tiresias(const PolicyContext& c) { return std::make_unique<Tiresias>(c, std::nullopt); }
// The distribution is the workload's own job sizes, as if known in advance (the simulator reads one
// from a file of job sizes, yarn-gput1000.csv: run_sim.py:1985).
std::unique_ptr<QueueOrder> make_tiresias_gittins(const PolicyContext& c) {
  if (c.workload && c.workload->jobs.size() > kMaxGittinsJobs)  // place_key gives a rank and an id 26 bits each
    throw InputError({"", std::nullopt, "policy"}, fmt::format("tiresias-gittins orders at most {} jobs; the workload has {}",
                                                               kMaxGittinsJobs, c.workload->jobs.size()));
  std::vector<double> sizes_s;
  if (c.workload)
    for (const Job& j : c.workload->jobs) sizes_s.push_back(j.work.seconds() * std::max(1, j.request.gpus));
  return std::make_unique<Tiresias>(c, GittinsTable(std::move(sizes_s)));
}
std::unique_ptr<QueueOrder> make_sjf_gpus() { return std::make_unique<SjfGpus>(); }

}  // namespace gpusim::builtin
