// Queue orders. Static ones fix a job's key when it arrives (ties to the earlier arrival); preemptive
// ones give a priority that changes as jobs run.
#include <algorithm>
#include <cmath>

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
// Shortest remaining time first: work left at its ideal speed (an oracle, as sjf's).
struct Srtf final : QueueOrder {
  QueueKey key(const Job& j) const override { return {j.work.us(), j.arrival.us()}; }
  bool preemptive() const override { return true; }
  QueueKey priority(const ClusterView& v, JobId id) const override {
    return {static_cast<int64_t>(v.remaining_work_s(id) * 1e6), v.job(id).arrival.us()};
  }
};

// Least attained service: GPU time held so far (GPUs x time), then arrival.
struct Las final : QueueOrder {
  QueueKey key(const Job& j) const override { return {0, j.arrival.us()}; }
  bool preemptive() const override { return true; }
  QueueKey priority(const ClusterView& v, JobId id) const override {
    return {static_cast<int64_t>(v.attained_gpu_s(id) * 1e6), v.job(id).arrival.us()};
  }
};

// Tiresias' discretized two-dimensional LAS (Gu et al., NSDI'19, §3.2-3.3): a job is in the first
// queue whose attained-GPU-time threshold it has not reached; lower queues run first, FIFO (by
// arrival) within one. A pending job that has waited `starvation` x its run time (attained / GPUs)
// since it last ran is promoted to the first queue (the artifact's solve_starvation; 0 turns it off).
class Tiresias final : public QueueOrder {
 public:
  explicit Tiresias(const PolicyContext& c) {
    if (c.params) {
      if (auto q = c.params->get("tiresias_queues")) {
        thresholds_s_.clear();
        for (const auto& item : q->is_sequence() ? q->items() : std::vector<ConfigNode>{*q}) {
          const double t = item.as_number();
          if (t <= 0 || (!thresholds_s_.empty() && t <= thresholds_s_.back()))
            item.fail("expected increasing positive GPU-second thresholds, e.g. [1800, 3600, 7200]");
          thresholds_s_.push_back(t);
        }
      }
      if (auto s = c.params->get("tiresias_starvation")) starvation_ = s->as_non_negative_number();
    }
  }
  QueueKey key(const Job& j) const override { return {0, j.arrival.us()}; }
  bool preemptive() const override { return true; }
  QueueKey priority(const ClusterView& v, JobId id) const override { return {queue_of(v, id), v.job(id).arrival.us()}; }

  std::optional<Time> next_change(const ClusterView& v, JobId id) const override {
    const double attained = v.attained_gpu_s(id);
    const auto q = static_cast<std::size_t>(base_queue(attained));
    const double gpus = std::max(1, v.job(id).request.gpus);
    if (!v.is_pending(id)) {  // running: when it crosses its queue's threshold
      if (q >= thresholds_s_.size()) return std::nullopt;
      return v.now() + Time::from_us(static_cast<int64_t>(std::ceil((thresholds_s_[q] - attained) / gpus * 1e6)));
    }
    if (starvation_ <= 0 || q == 0 || attained <= 0 || promoted(v, id)) return std::nullopt;
    return v.pending_since(id) + Time::from_us(static_cast<int64_t>(std::ceil(starvation_ * attained / gpus * 1e6)));
  }

 private:
  int64_t base_queue(double attained_s) const {
    int64_t q = 0;
    while (static_cast<std::size_t>(q) < thresholds_s_.size() && attained_s >= thresholds_s_[static_cast<std::size_t>(q)]) ++q;
    return q;
  }
  bool promoted(const ClusterView& v, JobId id) const {
    if (starvation_ <= 0 || !v.is_pending(id)) return false;
    const double run_s = v.attained_gpu_s(id) / std::max(1, v.job(id).request.gpus);
    return run_s > 0 && (v.now() - v.pending_since(id)).seconds() >= starvation_ * run_s;
  }
  int64_t queue_of(const ClusterView& v, JobId id) const { return promoted(v, id) ? 0 : base_queue(v.attained_gpu_s(id)); }

  // Assumed defaults: the queues of the Tiresias simulator's dlas docstring (30 min, 1 h, 2 h), read
  // in GPU time as its dlas-gpu scheme does; starvation 2 is its "dlas-gpu-2" variant.
  std::vector<double> thresholds_s_{1800, 3600, 7200};
  double starvation_ = 2;
};
}  // namespace

std::unique_ptr<QueueOrder> make_srtf() { return std::make_unique<Srtf>(); }
std::unique_ptr<QueueOrder> make_las() { return std::make_unique<Las>(); }
std::unique_ptr<QueueOrder> make_tiresias(const PolicyContext& c) { return std::make_unique<Tiresias>(c); }

}  // namespace gpusim::builtin
