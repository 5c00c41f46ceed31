// The scheduler of preemptive queue orders (srtf, las, tiresias), after the Tiresias simulator's
// loop: at each decision point, pending and running jobs are ranked together by the order's
// priority (ties by arrival, then id); walking down the ranking, each job is granted the GPU share
// it asks for while the cluster's ready GPUs last (jobs that do not fit are skipped, not blocking).
// Running jobs not granted are preempted; pending jobs granted are placed by the placement, in rank
// order, as far as GPUs are free (those a preemption frees come back when the job has saved its
// state, at a later decision point). The scheduler asks to look again when a priority next changes
// class (QueueOrder::next_change).
#include <algorithm>

#include "builtin.hpp"

namespace gpusim::builtin {

namespace {

class PreemptiveScheduler final : public Scheduler {
 public:
  PreemptiveScheduler(std::string name, std::unique_ptr<QueueOrder> order, std::unique_ptr<PlacementPolicy> placement)
      : name_(std::move(name)), order_(std::move(order)), placement_(std::move(placement)) {}

  std::string name() const override { return name_; }
  QueueKey queue_key(const Job& job) const override { return order_->key(job); }
  bool would_use(const ClusterView& view, JobId job, PoolId pool) const override { return placement_->admits_pool(view, job, pool); }

  void decide(const ClusterView& view, Binder& binder) override {
    const Cluster& c = view.cluster();
    // GPU share (milli) of the ready nodes; what running jobs hold, and what jobs on their way out hold.
    int64_t capacity = 0, held = 0, leaving = 0, asked = 0;
    for (const Node& n : c.nodes())
      if (n.ready()) capacity += static_cast<int64_t>(n.gpu_count) * kWholeGpu.value;
    running_.clear();
    view.for_each_running([&](JobId id, Time) {
      held += demand(view, id);
      if (view.preemptible(id)) running_.push_back(id);
      else leaving += demand(view, id);
    });
    ranked_.clear();
    view.for_each_pending([&](JobId id) {
      ranked_.push_back({order_->priority(view, id), id});
      asked += demand(view, id);
      return true;
    });
    // Room for every pending job beside the running ones: no one need be preempted, and priorities
    // only decide the order of placement (and changes of class can wait for the next event).
    const bool contended = asked > capacity - held;
    if (contended)
      for (JobId id : running_) ranked_.push_back({order_->priority(view, id), id});
    std::sort(ranked_.begin(), ranked_.end(), [](const Ranked& a, const Ranked& b) {
      if (a.priority != b.priority) return a.priority < b.priority;
      return a.job < b.job;  // ids are in arrival order
    });
    granted_.clear();
    int64_t budget = capacity - leaving;
    for (const Ranked& r : ranked_) {
      const int64_t need = demand(view, r.job);
      if (contended && need > budget) continue;
      budget -= need;
      granted_.push_back(r.job);
    }
    std::sort(granted_.begin(), granted_.end());
    for (const Ranked& r : ranked_)
      if (!view.is_pending(r.job) && !std::binary_search(granted_.begin(), granted_.end(), r.job)) binder.preempt(r.job);
    for (const Ranked& r : ranked_) {
      if (!view.is_pending(r.job) || !std::binary_search(granted_.begin(), granted_.end(), r.job)) continue;
      if (auto p = placement_->place(view, r.job)) binder.bind(r.job, *p);
    }
    if (!contended) return;
    // Look again when a priority changes class.
    std::optional<Time> next;
    for (const Ranked& r : ranked_)
      if (auto t = order_->next_change(view, r.job); t && *t > view.now() && (!next || *t < *next)) next = t;
    if (next) binder.recheck_at(*next);
  }

 private:
  struct Ranked {
    QueueKey priority;
    JobId job;
  };
  // The GPU share a job asks for, in milli-GPU (a share on an exclusive pool still counts as asked).
  static int64_t demand(const ClusterView& view, JobId id) {
    const Request& q = view.job(id).request;
    return static_cast<int64_t>(q.gpus) * q.milli_per_gpu.value;
  }

  std::string name_;
  std::unique_ptr<QueueOrder> order_;
  std::unique_ptr<PlacementPolicy> placement_;
  std::vector<Ranked> ranked_;
  std::vector<JobId> running_, granted_;
};

}  // namespace

std::unique_ptr<Scheduler> make_preemptive(std::string name, std::unique_ptr<QueueOrder> order,
                                           std::unique_ptr<PlacementPolicy> placement) {
  return std::make_unique<PreemptiveScheduler>(std::move(name), std::move(order), std::move(placement));
}

}  // namespace gpusim::builtin
