// Queue orders. Static ones fix a job's key when it arrives (ties to the earlier arrival); preemptive
// ones give a priority that changes as jobs run.
#include <algorithm>

#include "builtin.hpp"

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
};

// Least attained service: GPU time held so far (GPUs x time), then arrival.
struct Las final : QueueOrder {
  QueueKey key(const Job& j) const override { return {0, j.arrival.us()}; }
  bool preemptive() const override { return true; }
  QueueKey priority(const ClusterView& v, JobId id) override {
    return {key_us(v.attained_gpu(id).seconds()), v.job(id).arrival.us()};
  }
};

// Tiresias' discretized two-dimensional LAS (Gu et al., NSDI'19, §3.2-3.3), as its simulator's
// dlas-gpu scheme runs it: a job's service is the GPU time it has attained since it last entered the
// first queue; it is in the first queue whose threshold its service has not reached, and lower queues
// run first. Within a queue, running jobs come before pending ones (the simulator moves pending jobs
// behind running ones after each pass, so a queue's own newcomers do not preempt it), each in the
// order they entered the queue. A pending job that has waited `starvation` x its run time since
// entering the first queue (service / GPUs) is promoted to the first queue with its service reset
// (the simulator's solve_starvation; 0, the default, turns it off). One difference: the wait counted
// is the current one, since the job last entered the pending queue, where the simulator adds up its
// waits since promotion.
class Tiresias final : public QueueOrder {
 public:
  explicit Tiresias(const PolicyContext& c) {
    if (c.params) {
      if (auto q = c.params->get("tiresias_queues")) {
        thresholds_s_.clear();
        for (const auto& item : q->is_sequence() ? q->items() : std::vector<ConfigNode>{*q}) {
          // GPU-seconds up to kMaxSpan's, and a promotion delay of at most 100 x the run: the times
          // derived from them stay inside the clock.
          const double t = item.as_number({Bound(0, true), kSpanSeconds.maximum});
          if (!thresholds_s_.empty() && t <= thresholds_s_.back())
            item.fail("expected increasing positive GPU-second thresholds, e.g. [1800, 3600, 7200]");
          thresholds_s_.push_back(t);
        }
      }
      if (auto s = c.params->get("tiresias_starvation")) starvation_ = s->as_number(Range::between(0, 100));
    }
  }
  QueueKey key(const Job& j) const override { return {0, j.arrival.us()}; }
  bool preemptive() const override { return true; }

  QueueKey priority(const ClusterView& v, JobId id) override {
    State& s = state(v, id);
    const bool pending = v.is_pending(id);
    const double service = v.attained_gpu(id).seconds() - s.base_gpu_s;
    if (const int32_t q = queue_for(service); q > s.queue) {
      // Demoted when its service crossed the threshold: while it ran, that is this long ago.
      const double past_s = pending ? 0 : (service - thresholds_s_[static_cast<std::size_t>(q - 1)]) / gpus(v, id);
      s.queue = q;
      s.entered = v.now() - Duration::from_seconds(past_s, Round::toward_zero);
    }
    if (pending)
      if (auto due = promotion(v, id, s); due && v.now() >= *due) s = {v.attained_gpu(id).seconds(), 0, *due, true};
    return {2 * s.queue + (pending ? 1 : 0), s.entered.us()};
  }

  std::optional<Time> next_change(const ClusterView& v, JobId id) const override {
    if (id >= states_.size() || !states_[id].known) return std::nullopt;  // not ranked yet: in the first queue, never run
    const State& s = states_[id];
    if (v.is_pending(id)) return promotion(v, id, s);
    if (static_cast<std::size_t>(s.queue) >= thresholds_s_.size()) return std::nullopt;
    const double left_s = (thresholds_s_[static_cast<std::size_t>(s.queue)] - (v.attained_gpu(id).seconds() - s.base_gpu_s)) /
                          gpus(v, id);
    return v.now() + std::max(Duration::from_us(1), Duration::from_seconds(left_s, Round::up));
  }

 private:
  struct State {
    double base_gpu_s = 0;  // attained GPU time when it last entered the first queue
    int32_t queue = 0;
    Time entered;  // when it entered its queue
    bool known = false;
  };
  State& state(const ClusterView& v, JobId id) {
    if (id >= states_.size()) states_.resize(id + 1);
    State& s = states_[id];
    if (!s.known) s = {0, 0, v.job(id).arrival, true};
    return s;
  }
  static double gpus(const ClusterView& v, JobId id) { return std::max(1, v.job(id).request.gpus); }
  int32_t queue_for(double service_s) const {
    int32_t q = 0;
    while (static_cast<std::size_t>(q) < thresholds_s_.size() && service_s >= thresholds_s_[static_cast<std::size_t>(q)]) ++q;
    return q;
  }
  // When a pending job outside the first queue is promoted (it has run since it entered the first queue).
  std::optional<Time> promotion(const ClusterView& v, JobId id, const State& s) const {
    const double run_s = (v.attained_gpu(id).seconds() - s.base_gpu_s) / gpus(v, id);
    if (starvation_ <= 0 || s.queue == 0 || run_s <= 0) return std::nullopt;
    return v.pending_since(id) + Duration::from_seconds(starvation_ * run_s, Round::up);
  }

  // Assumed defaults: the queues of the Tiresias simulator's dlas docstring (30 min, 1 h, 2 h), read
  // in GPU time as its dlas-gpu scheme does; that scheme, the simulator's main one, does not promote
  // (its dlas-gpu-2 variant is tiresias_starvation: 2).
  std::vector<double> thresholds_s_{1800, 3600, 7200};
  double starvation_ = 0;
  std::vector<State> states_;
};
}  // namespace

std::unique_ptr<QueueOrder> make_srtf() { return std::make_unique<Srtf>(); }
std::unique_ptr<QueueOrder> make_las() { return std::make_unique<Las>(); }
std::unique_ptr<QueueOrder> make_tiresias(const PolicyContext& c) { return std::make_unique<Tiresias>(c); }

}  // namespace gpusim::builtin
