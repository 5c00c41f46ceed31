#include "gpusim/policies/registry.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "builtin.hpp"

namespace gpusim {

namespace {

// Queue order + placement. Pending jobs are tried in queue order; a job that does not fit is
// skipped (no head-of-line blocking, as the Kubernetes scheduler), and once a request shape has
// failed in a pass, jobs of the same shape are not tried again in that pass (capacity only shrinks
// during a pass); when every shape still pending has failed, the pass ends. When no capacity was
// freed since the last decision, only new arrivals can fit.
class ComposedScheduler final : public Scheduler {
 public:
  ComposedScheduler(std::string name, std::unique_ptr<QueueOrder> order, std::unique_ptr<PlacementPolicy> placement)
      : name_(std::move(name)), order_(std::move(order)), placement_(std::move(placement)) {}

  std::string name() const override { return name_; }
  QueueKey queue_key(const Job& job) const override { return order_->key(job); }

  void decide(const ClusterView& view, Binder& binder) override {
    failed_in_pass_.resize(view.shape_count(), 0);
    ++pass_;
    uint32_t failed = 0;
    unplaced_.clear();
    auto consider = [&](JobId id) {
      if (!view.is_pending(id)) return true;
      const uint32_t shape = view.shape(id);
      if (failed_in_pass_[shape] == pass_) return true;
      if (auto p = placement_->place(view, id)) {
        binder.bind(id, *p);
      } else {
        failed_in_pass_[shape] = pass_;
        ++failed;
        unplaced_.push_back(id);
      }
      return failed < view.pending_shapes();
    };
    if (view.capacity_grew()) view.for_each_pending(consider);
    else
      for (JobId id : view.new_arrivals()) consider(id);
    if (!unplaced_.empty()) placement_->after_pass(view, binder, unplaced_);
  }

 private:
  std::string name_;
  std::unique_ptr<QueueOrder> order_;
  std::unique_ptr<PlacementPolicy> placement_;
  std::vector<uint64_t> failed_in_pass_;
  std::vector<JobId> unplaced_;  // one job per request shape that did not fit in the pass
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

void Registry::add_queue_order(std::string name, std::string description, QueueFactory factory) {
  for (const auto& e : queue_entries_)
    if (e.name == name) throw std::invalid_argument(fmt::format("queue order '{}' registered twice", name));
  queue_entries_.push_back({std::move(name), std::move(description)});
  queue_factories_.push_back(std::move(factory));
}

void Registry::add_placement(std::string name, std::string description, PlacementFactory factory) {
  for (const auto& e : placement_entries_)
    if (e.name == name) throw std::invalid_argument(fmt::format("placement '{}' registered twice", name));
  placement_entries_.push_back({std::move(name), std::move(description)});
  placement_factories_.push_back(std::move(factory));
}

std::unique_ptr<Scheduler> Registry::make(std::string_view spec, const PolicyContext& context,
                                          const SourceLocation& where) const {
  const auto plus = spec.find('+');
  const auto usage = [&](const std::string& what) {
    return InputError(where, fmt::format("{}; a policy is QUEUE+PLACEMENT with QUEUE one of {} and PLACEMENT one of {}",
                                         what, names(queue_entries_), names(placement_entries_)));
  };
  if (plus == std::string_view::npos) throw usage(fmt::format("unknown policy '{}'", spec));
  const auto queue = spec.substr(0, plus);
  const auto placement = spec.substr(plus + 1);
  std::size_t qi = 0, pi = 0;
  while (qi < queue_entries_.size() && queue_entries_[qi].name != queue) ++qi;
  while (pi < placement_entries_.size() && placement_entries_[pi].name != placement) ++pi;
  if (qi == queue_entries_.size()) throw usage(fmt::format("unknown queue order '{}'", queue));
  if (pi == placement_entries_.size()) throw usage(fmt::format("unknown placement '{}'", placement));
  return std::make_unique<ComposedScheduler>(std::string(spec), queue_factories_[qi](), placement_factories_[pi](context));
}

void register_builtin_policies(Registry& r) {
  using namespace builtin;
  r.add_queue_order("fifo", "first come, first served (by arrival time)", make_fifo);
  r.add_queue_order("priority", "higher priority first, then arrival", make_priority);
  r.add_queue_order("sjf", "shortest job first, using the trace's durations as an oracle", make_sjf);
  r.add_placement("first-fit", "lowest-numbered node and GPUs with room", [](const PolicyContext&) { return make_first_fit(); });
  r.add_placement("best-fit", "node left with the least free GPU+CPU share; tightest GPUs inside it",
                  [](const PolicyContext&) { return make_best_fit(); });
  r.add_placement("spread", "worst-fit: node left with the most free GPU+CPU share; emptiest GPUs inside it",
                  [](const PolicyContext&) { return make_spread(); });
  r.add_placement("mig-aware", "best-fit, and repartitions drained MIG GPUs toward the profiles pending jobs ask for",
                  [](const PolicyContext&) { return make_mig_aware(); });
  r.add_placement("topology", "GPUs whose ring's slowest link is fastest (NVLink over PCIe over SYS), then best-fit; fewest nodes across nodes",
                  [](const PolicyContext&) { return make_topology_aware(); });
  r.add_placement("random", "a node drawn uniformly among those that fit (seeded stream placement/random)", make_random);
}

}  // namespace gpusim
