#include "gpusim/policies/registry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include "builtin.hpp"
#include "default_preemption.hpp"

namespace gpusim {

namespace {

// Queue order + placement. How the queue is served follows the scenario's `scheduling:` (QueueMode):
// by default (kubernetes) pending jobs are tried in queue order and a job that does not fit is
// skipped (no head-of-line blocking, as the Kubernetes scheduler); once a request shape has failed
// in a pass, jobs of the same shape are not tried again in that pass (capacity only shrinks during a
// pass), and when every shape still pending has failed, the pass ends. When no capacity was freed
// since the last decision, only new arrivals can fit. With gang scheduling off, worker pods are
// placed one at a time, the pending jobs' next workers in turn.
class ComposedScheduler final : public Scheduler {
 public:
  ComposedScheduler(std::string name, std::unique_ptr<QueueOrder> order, std::unique_ptr<PlacementPolicy> placement,
                    std::unique_ptr<builtin::DefaultPreemption> preemption = nullptr)
      : name_(std::move(name)), order_(std::move(order)), placement_(std::move(placement)), preemption_(std::move(preemption)) {}

  std::string name() const override { return name_; }
  QueueKey queue_key(const Job& job) const override { return order_->key(job); }
  bool would_use(const ClusterView& view, JobId job, PoolId pool) const override { return placement_->admits_pool(view, job, pool); }
  bool decides_when_idle() const override { return placement_->every_pass(); }

  void decide(const ClusterView& view, Binder& binder) override {
    unplaced_.clear();
    placement_->before_pass(view, binder);
    if (preemption_) preemption_->start_pass(view);
    const SchedulingOptions& options = view.scheduling();
    if (options.queue != QueueMode::kubernetes) decide_in_order(view, binder, options.queue == QueueMode::backfill);
    else if (!options.gang) decide_worker_by_worker(view, binder);
    else decide_skipping(view, binder);
    if (!unplaced_.empty()) placement_->after_pass(view, binder, unplaced_);
    if (!preemption_) return;
    // Victims without a grace period have left already: their preemptors are placed now.
    for (JobId id : preemption_->after_pass(view, binder))
      while (view.is_pending(id))
        if (auto p = place(view, id)) binder.bind(id, *p);
        else break;
  }

 private:
  // The placement's choice, unless it takes room held for a nominated preemptor.
  std::optional<Placement> place(const ClusterView& view, JobId id) {
    auto p = placement_->place(view, id);
    held_back_ = p && preemption_ && !preemption_->allows(view, id, *p);
    if (held_back_) return std::nullopt;
    return p;
  }

  void decide_skipping(const ClusterView& view, Binder& binder) {
    const uint32_t variants = placement_->variants();
    failed_in_pass_.resize(static_cast<std::size_t>(view.shape_count()) * variants, 0);
    ++pass_;
    uint32_t failed = 0;
    auto consider = [&](JobId id) {
      if (!view.is_pending(id)) return PendingVisit::next;
      const std::size_t key = static_cast<std::size_t>(view.shape(id)) * variants + placement_->variant(view, id);
      if (failed_in_pass_[key] == pass_) return PendingVisit::next;
      auto p = place(view, id);
      if (held_back_) return PendingVisit::next;  // others of its shape (of higher priority) may go there
      if (p) {
        binder.bind(id, *p);
      } else {
        failed_in_pass_[key] = pass_;
        ++failed;
        unplaced_.push_back(id);
      }
      if (variants > 1) return PendingVisit::next;
      // Once every pending shape has failed nothing else fits (when shapes are not split further);
      // the rest of a shape that failed would fail too.
      if (failed >= view.pending_shapes()) return PendingVisit::stop;
      return p ? PendingVisit::next : PendingVisit::drop_shape;
    };
    if (!view.capacity_grew())
      for (JobId id : view.new_arrivals()) consider(id);
    else if (variants == 1) view.for_each_pending_by_shape(consider);
    else view.for_each_pending([&](JobId id) { return consider(id) != PendingVisit::stop; });
  }

  std::vector<JobId> pending_in_order(const ClusterView& view) const {
    std::vector<JobId> ids;
    view.for_each_pending([&](JobId id) {
      ids.push_back(id);
      return true;
    });
    return ids;
  }

  // Every pending job's next worker in turn, round after round, while any worker fits.
  void decide_worker_by_worker(const ClusterView& view, Binder& binder) {
    const std::vector<JobId> ids = pending_in_order(view);
    for (bool progress = true; progress;) {
      progress = false;
      for (JobId id : ids) {
        if (!view.is_pending(id)) continue;
        if (auto p = place(view, id)) {
          binder.bind(id, *p);
          progress = true;
        }
      }
    }
    for (JobId id : ids)
      if (view.is_pending(id)) unplaced_.push_back(id);
  }

  // Places the whole job (worker by worker when gang scheduling is off); false if it did not start.
  bool place_whole(const ClusterView& view, Binder& binder, JobId id) {
    while (view.is_pending(id)) {
      auto p = place(view, id);
      if (!p) return false;
      binder.bind(id, *p);
    }
    return true;
  }

  void decide_in_order(const ClusterView& view, Binder& binder, bool backfill) {
    std::optional<JobId> head;
    Time shadow = Time::max();
    for (JobId id : pending_in_order(view)) {
      if (!view.is_pending(id)) continue;
      if (!head) {
        if (place_whole(view, binder, id)) continue;
        head = id;
        unplaced_.push_back(id);
        if (!backfill) return;
        shadow = reservation(view, id);
        continue;
      }
      if (view.gpus_to_place(id) < view.job(id).request.gpus) continue;  // backfill whole gangs only
      auto p = place(view, id);
      if (!p) continue;
      // EASY: run it now if it ends before the head's reservation or leaves the head room then.
      if (view.now() + view.job(id).work <= shadow || head_fits(view, *head, shadow, &*p)) binder.bind(id, *p);
    }
  }

  // The earliest time the head job fits, as running jobs end at their current rates.
  Time reservation(const ClusterView& view, JobId head) {
    ends_.clear();
    end_of_.clear();
    view.for_each_running([&](JobId id, Time end) {
      ends_.emplace_back(end, id);
      end_of_[id] = end;
    });
    std::sort(ends_.begin(), ends_.end());
    for (const auto& [end, id] : ends_)
      if (head_fits(view, head, end, nullptr)) return end;
    return Time::max();  // not even an empty cluster: no reservation holds anyone back
  }

  // Could `head` be placed at time `t`, when every running job ending by then has released its GPUs
  // (and `extra`, a job started now, has not)? Counts whole GPUs the head fits per node.
  bool head_fits(const ClusterView& view, JobId head, Time t, const Placement* extra) const {
    const Cluster& c = view.cluster();
    const Request& q = view.job(head).request;
    const int32_t need = view.gpus_to_place(head), unit = std::max(1, q.worker_gpus);
    int64_t spread_total = 0;
    for (const Pool& pool : c.pools())
      for (NodeId n = pool.first_node; n < pool.first_node + pool.built; ++n) {
        const Node& node = c.node(n);
        if (node.gpu_count == 0 || !view.pool_allowed(head, node.pool)) continue;
        int32_t free = 0;
        for (GpuId g = node.first_gpu; g < node.first_gpu + node.gpu_count; ++g) {
          if (extra && std::find(extra->gpus.begin(), extra->gpus.end(), g) != extra->gpus.end()) continue;
          const Gpu& gpu = c.gpu(g);
          bool released = !gpu.residents.empty();
          for (JobId r : gpu.residents) {
            const auto e = end_of_.find(r);
            released = released && e != end_of_.end() && e->second <= t;
          }
          free += view.gpu_fits(head, g) || released;
        }
        if (free >= need) return true;
        spread_total += static_cast<int64_t>(free / unit * unit);
      }
    return view.job(head).multi_node && spread_total >= need;
  }

  std::string name_;
  std::unique_ptr<QueueOrder> order_;
  std::unique_ptr<PlacementPolicy> placement_;
  std::unique_ptr<builtin::DefaultPreemption> preemption_;  // `+preempt`; null: none
  bool held_back_ = false;  // the last place() found room, but room held for a nominated preemptor
  std::vector<uint64_t> failed_in_pass_;
  std::vector<JobId> unplaced_;  // one job per request shape that did not fit in the pass
  std::vector<std::pair<Time, JobId>> ends_;  // running jobs by expected end (backfill)
  std::unordered_map<JobId, Time> end_of_;    // the same, by job
  uint64_t pass_ = 0;
};

std::string names(const std::vector<Registry::Entry>& entries) {
  std::string out;
  for (const auto& e : entries) out += (out.empty() ? "" : ", ") + e.name;
  return out;
}

}  // namespace

Registry& Registry::global() {
  static Registry registry = [] {
    Registry r;
    register_builtin_policies(r);
    return r;
  }();
  return registry;
}

void Registry::add_queue_order(std::string name, std::string description, QueueFactory factory, std::vector<std::string> params) {
  for (const auto& e : queue_entries_)
    if (e.name == name) throw std::invalid_argument(fmt::format("queue order '{}' registered twice", name));
  queue_entries_.push_back({std::move(name), std::move(description), std::move(params)});
  queue_factories_.push_back(std::move(factory));
}

void Registry::add_placement(std::string name, std::string description, PlacementFactory factory, std::vector<std::string> params) {
  for (const auto& e : placement_entries_)
    if (e.name == name) throw std::invalid_argument(fmt::format("placement '{}' registered twice", name));
  placement_entries_.push_back({std::move(name), std::move(description), std::move(params)});
  placement_factories_.push_back(std::move(factory));
}

InputError Registry::unknown(const SourceLocation& where, const std::string& what) const {
  return InputError(where, fmt::format("{}; a policy is QUEUE+PLACEMENT (or QUEUE+PLACEMENT+preempt, kube-scheduler's "
                                       "preemption by priority) with QUEUE one of {} and PLACEMENT one of {}",
                                       what, names(queue_entries_), names(placement_entries_)));
}

std::vector<std::string> Registry::param_names() const {
  std::vector<std::string> known{"ties"};  // every placement reads it (PlacementPolicy::best_of)
  for (const auto* entries : {&queue_entries_, &placement_entries_})
    for (const auto& e : *entries)
      for (const auto& p : e.params)
        if (std::find(known.begin(), known.end(), p) == known.end()) known.push_back(p);
  return known;
}

void Registry::check_params(const PolicyContext& context) const {
  if (!context.params) return;
  if (!context.params->is_map()) context.params->fail("expected a map of policy parameters");
  const std::vector<std::string> known = param_names();
  for (const auto& [key, value] : context.params->entries())
    if (std::find(known.begin(), known.end(), key) == known.end())
      value.fail(fmt::format("unknown policy parameter '{}'; known: {}", key,
                             known.empty() ? "(none)" : fmt::format("{}", fmt::join(known, ", "))));
}

std::unique_ptr<QueueOrder> Registry::make_queue_order(std::string_view name, const PolicyContext& context,
                                                       const SourceLocation& where) const {
  for (std::size_t i = 0; i < queue_entries_.size(); ++i)
    if (queue_entries_[i].name == name) {
      check_params(context);
      return queue_factories_[i](context);
    }
  throw unknown(where, fmt::format("unknown queue order '{}'", name));
}

std::unique_ptr<PlacementPolicy> Registry::make_placement(std::string_view name, const PolicyContext& context,
                                                          const SourceLocation& where) const {
  for (std::size_t i = 0; i < placement_entries_.size(); ++i)
    if (placement_entries_[i].name == name) {
      check_params(context);
      auto placement = placement_factories_[i](context);
      // A packing run breaks ties as the FGD artifact does unless told otherwise.
      std::string ties = context.packing ? "order" : "lowest-id";
      std::optional<ConfigNode> given;
      if (context.params) given = context.params->get("ties");
      if (given) ties = given->as_string();
      const bool ranked = context.packing && !context.packing->node_ranks.empty();
      if (ranked && ties != "order")  // the ranks would be read by nothing
        given->fail(fmt::format("expected order (workload.packing.node_ranks gives each node's tie rank), got '{}'", ties));
      if (ties == "random") placement->break_ties_at_random(make_stream(context.seed, "placement/ties"));
      else if (ties == "order" && ranked) placement->break_ties_by_rank(context.packing->node_ranks);
      else if (ties == "order") placement->break_ties_by_rank(make_stream(context.seed, "placement/tie-order"));
      else if (ties != "lowest-id") given->fail(fmt::format("expected lowest-id, random or order, got '{}'", ties));
      return placement;
    }
  throw unknown(where, fmt::format("unknown placement '{}'", name));
}

std::unique_ptr<Scheduler> Registry::make(std::string_view spec, const PolicyContext& context,
                                          const SourceLocation& where) const {
  const auto plus = spec.find('+');
  if (plus == std::string_view::npos) throw unknown(where, fmt::format("unknown policy '{}'", spec));
  std::string_view placement = spec.substr(plus + 1);
  constexpr std::string_view kPreempt = "+preempt";
  const bool preempt = placement.ends_with(kPreempt);
  if (preempt) placement.remove_suffix(kPreempt.size());
  auto order = make_queue_order(spec.substr(0, plus), context, where);
  if (!preempt) return compose_policy(std::string(spec), std::move(order), make_placement(placement, context, where));
  if (order->preemptive())
    throw InputError(where, fmt::format("'{}': +preempt (kube-scheduler's preemption by priority) composes with fifo, "
                                        "priority or sjf; {} preempts by its own ranking",
                                        spec, spec.substr(0, plus)));
  return std::make_unique<ComposedScheduler>(std::string(spec), std::move(order), make_placement(placement, context, where),
                                             std::make_unique<builtin::DefaultPreemption>(context));
}

std::unique_ptr<Scheduler> compose_policy(std::string name, std::unique_ptr<QueueOrder> order,
                                          std::unique_ptr<PlacementPolicy> placement) {
  if (order->preemptive()) return builtin::make_preemptive(std::move(name), std::move(order), std::move(placement));
  return std::make_unique<ComposedScheduler>(std::move(name), std::move(order), std::move(placement));
}

namespace builtin {
#define GPUSIM_PLACEMENT(id) PlacementRegistration id##_placement();
#include "placements.def"
#undef GPUSIM_PLACEMENT

bool integer_score(const PolicyContext& context, std::string_view key) {
  bool integer = context.packing != nullptr;
  if (context.params)
    if (auto f = context.params->get(key)) {
      const std::string v = f->as_string();
      if (v != "integer" && v != "exact") f->fail(fmt::format("expected exact or integer, got '{}'", v));
      integer = v == "integer";
    }
  return integer;
}
}  // namespace builtin

void register_builtin_policies(Registry& r) {
  using namespace builtin;
  r.add_queue_order("fifo", "first come, first served (by arrival time)", [](const PolicyContext&) { return make_fifo(); });
  r.add_queue_order("priority", "higher priority first, then arrival", [](const PolicyContext&) { return make_priority(); });
  r.add_queue_order("sjf", "shortest job first, using the trace's durations as an oracle",
                    [](const PolicyContext&) { return make_sjf(); });
  // Preemptive orders (Tiresias, Gu et al., NSDI'19): priorities change as jobs run.
  r.add_queue_order("srtf", "shortest remaining time first, preemptive; the trace's durations as an oracle",
                    [](const PolicyContext&) { return make_srtf(); });
  r.add_queue_order("las", "least attained service (GPU time held so far) first, preemptive", [](const PolicyContext&) { return make_las(); });
  r.add_queue_order("tiresias",
                    "Tiresias' discretized 2D-LAS as its simulator's dlas-gpu runs it: queues by attained GPU time "
                    "(tiresias_queues, GPU-seconds; default 3250,7200), demotion at decision points, each queue a list "
                    "(newcomers and demoted jobs at the back, waiting jobs behind running ones after each decision), "
                    "preemptive; a job whose waits since its first run there add up to tiresias_starvation x its run time goes "
                    "back to the first queue (default 0: never)",
                    make_tiresias, {"tiresias_queues", "tiresias_starvation"});
  r.add_queue_order("tiresias-gittins",
                    "tiresias with each queue sorted by the Gittins index of a job's attained GPU time over the "
                    "workload's job sizes, highest first: the Tiresias simulator's dlas-gpu-gittins (Tiresias-G)",
                    make_tiresias_gittins, {"tiresias_queues", "tiresias_starvation"});
  r.add_queue_order("sjf-gpus", "fewest GPUs first (ties by arrival), preemptive: the Tiresias simulator's sjf",
                    [](const PolicyContext&) { return make_sjf_gpus(); });
  // Placements: each registers itself in its own file (a PlacementRegistration), listed once in placements.def.
#define GPUSIM_PLACEMENT(id)                                  \
  {                                                           \
    PlacementRegistration p = id##_placement();               \
    r.add_placement(p.name, p.description, p.make, p.params); \
  }
#include "placements.def"
#undef GPUSIM_PLACEMENT
}

}  // namespace gpusim
