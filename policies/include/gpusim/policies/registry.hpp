#pragma once
// Policies by name: a scheduler is a queue order composed with a placement, written
// "QUEUE+PLACEMENT" (e.g. fifo+best-fit), and optionally kube-scheduler's default preemption,
// "QUEUE+PLACEMENT+preempt" (e.g. priority+best-fit+preempt; default_preemption.hpp). Built-ins are
// registered explicitly, once.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusim/core/config.hpp"
#include "gpusim/core/error.hpp"
#include "gpusim/policies/placement.hpp"
#include "gpusim/sim/scenario.hpp"
#include "gpusim/sim/scheduler.hpp"

namespace gpusim {

class QueueOrder {
 public:
  virtual ~QueueOrder() = default;
  // The job's place in the queue when it arrives (smaller first, ties by job id).
  virtual QueueKey key(const Job& job) const = 0;
  // A preemptive order's priorities change as jobs run: the scheduler ranks pending and running jobs
  // together by priority() (smaller first, ties by job id) and preempts running jobs that rank below
  // pending ones the cluster cannot also hold (PreemptiveScheduler). It asks for every running job's
  // priority at each contended decision point, and for a pending job's when it enters the queue and
  // at the time next_change() gave: a pending job's priority must not change otherwise. An order may
  // keep per-job state here (Tiresias' queues); it serves one run.
  virtual bool preemptive() const { return false; }
  virtual QueueKey priority(const ClusterView&, JobId) { return {}; }
  // When the job's priority next changes class (a queue threshold, a starvation limit), so the
  // scheduler looks again then; nullopt when it changes only at events.
  virtual std::optional<Time> next_change(const ClusterView&, JobId) const { return std::nullopt; }
  // The earliest next_change() later than now of the running jobs still preemptible after the pass,
  // asked once a pass after after_pass (so an order need not be asked job by job); nullopt: none.
  virtual std::optional<Time> next_running_change(const ClusterView&) const { return std::nullopt; }
  // A preemptive order whose running jobs' primary keys move on lines in time: a running job's primary
  // key is, within a microsecond or so of rounding, `now` at this instant plus `slope` for every
  // microsecond after (until it stops), and its secondary key is fixed. Jobs of one slope then never
  // overtake one another, and the scheduler keeps the running jobs ordered by their lines, asking
  // priority() only where two are too close to tell, instead of asking every one at every pass.
  struct Line {
    double slope = 0, now = 0;
  };
  virtual bool has_lines() const { return false; }
  virtual Line line(const ClusterView&, JobId) const { return {}; }
  // A preemptive order whose running jobs' priorities change only where it says (Tiresias' queues):
  // it lists the running jobs whose priority() changed, and take_rekeyed replaces `into` with that
  // list and starts it afresh. The scheduler then follows the running jobs through running_changes,
  // keeps them ranked, and asks priority() only of those that started or were listed.
  virtual bool tells_rekeyed() const { return false; }
  virtual void take_rekeyed(std::vector<JobId>& into) { into.clear(); }
  // Hooks around every decision pass of a preemptive order: before_pass comes before any priority()
  // of the pass, after_pass once its preemptions and starts are made. An order that has them is
  // given every decision point, also those where nothing is pending (every_pass).
  virtual bool every_pass() const { return false; }
  virtual void before_pass(const ClusterView&) {}
  virtual void after_pass(const ClusterView&) {}
};

struct PolicyContext {
  uint64_t seed = 0;  // the scenario seed; random policies derive their named stream from it
  std::optional<ConfigNode> params;  // the scenario's policy.params; each policy reads the ones it declares
  const JobSet* workload = nullptr;  // the scenario's jobs (FGD measures fragmentation against their mix)
  const TenancySpec* tenancy = nullptr;  // priority classes and disruption budgets (`+preempt`); null: none
  // A capacity-packing run's spec (null otherwise): placements then default to the FGD artifact's
  // rules (`ties: order`, `fgd_score: integer`) and FGD takes its task mix from the original pods.
  const PackingSpec* packing = nullptr;
};

inline PolicyContext policy_context(const Scenario& s) {
  return {s.seed, s.policy_params, &s.jobs, &s.tenancy, s.packing ? &*s.packing : nullptr};
}

class Registry {
 public:
  using QueueFactory = std::function<std::unique_ptr<QueueOrder>(const PolicyContext&)>;
  using PlacementFactory = std::function<std::unique_ptr<PlacementPolicy>(const PolicyContext&)>;
  struct Entry {
    std::string name;
    std::string description;
    std::vector<std::string> params;  // the policy.params it reads
  };

  // The process-wide registry with the built-ins (a function-local static: no init-order issue).
  static Registry& global();

  // Duplicate names are rejected (std::invalid_argument).
  void add_queue_order(std::string name, std::string description, QueueFactory factory, std::vector<std::string> params = {});
  void add_placement(std::string name, std::string description, PlacementFactory factory, std::vector<std::string> params = {});

  const std::vector<Entry>& queue_orders() const { return queue_entries_; }
  const std::vector<Entry>& placements() const { return placement_entries_; }
  // Every policy.params name some policy reads: `ties` (every placement) and the declared ones.
  std::vector<std::string> param_names() const;

  // "fifo+best-fit" or "priority+best-fit+preempt" -> a scheduler; an unknown name is an InputError at `where` naming the
  // choices, and so is a policy parameter no registered policy declares (one that another policy reads is ignored).
  std::unique_ptr<Scheduler> make(std::string_view spec, const PolicyContext& context, const SourceLocation& where) const;
  // One half of a policy by name (an InputError at `where` naming the choices when unknown), to
  // compose with a half written elsewhere (e.g. in Python).
  std::unique_ptr<QueueOrder> make_queue_order(std::string_view name, const PolicyContext& context,
                                               const SourceLocation& where) const;
  std::unique_ptr<PlacementPolicy> make_placement(std::string_view name, const PolicyContext& context,
                                                  const SourceLocation& where) const;

 private:
  InputError unknown(const SourceLocation& where, const std::string& what) const;
  void check_params(const PolicyContext& context) const;

  std::vector<Entry> queue_entries_, placement_entries_;
  std::vector<QueueFactory> queue_factories_;
  std::vector<PlacementFactory> placement_factories_;
};

// A queue order and a placement served as the scenario's `scheduling:` says (QueueMode), or, for a
// preemptive order, by priority with preemption.
std::unique_ptr<Scheduler> compose_policy(std::string name, std::unique_ptr<QueueOrder> order,
                                          std::unique_ptr<PlacementPolicy> placement);

void register_builtin_policies(Registry& registry);

}  // namespace gpusim
