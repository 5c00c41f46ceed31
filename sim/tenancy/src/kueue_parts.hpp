#pragma once
// The pieces of Kueue admission that kueue.cpp's scheduling cycle (kueue pkg/scheduler/scheduler.go)
// runs with, each after the upstream package it models: the hierarchical quota tree
// (kueue_quota_tree.cpp; pkg/cache), the ClusterQueues' pending and admitted workloads
// (kueue_queues.cpp; pkg/queue), flavor assignment (kueue_flavors.cpp; pkg/scheduler/flavorassigner)
// and preemption (kueue_preemption.cpp; pkg/scheduler/preemption).
#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "gpusim/core/time.hpp"
#include "gpusim/sim/fit.hpp"
#include "gpusim/sim/kueue_spec.hpp"
#include "gpusim/sim/scheduler.hpp"

namespace gpusim {
struct Scenario;
}

namespace gpusim::kueue_parts {

constexpr std::string_view kGpu = "nvidia.com/gpu";

struct Amount {
  uint32_t fr = 0;  // flavor x resource
  int64_t quantity = 0;
};
using Amounts = boost::container::small_vector<Amount, 4>;
using FlavorResources = boost::container::small_vector<uint32_t, 4>;  // fr indices

// A ClusterQueue or a Cohort: a node of Kueue's quota tree (pkg/cache/resource_node.go), per
// flavor-resource. A ClusterQueue's subtree quota is its nominal quota; a cohort's is its own plus
// what its children may lend (subtree - guaranteed); a node's usage in its parent is what it uses
// beyond its guaranteed (unlendable) quota.
struct QuotaNode {
  std::optional<uint32_t> parent;
  std::vector<uint32_t> children;
  uint32_t root = 0;
  uint32_t depth = 0;
  double weight = 1;
  std::vector<int64_t> nominal, subtree, guaranteed, usage;
  std::vector<std::optional<int64_t>> borrowing_limit, lending_limit;
};

// The quota tree (pkg/cache/resource_node.go): nodes are the cluster queues (0..Q-1), then the
// cohorts; quantities are indexed by flavor x resource (fr).
class QuotaTree {
 public:
  explicit QuotaTree(const Scenario& s);
  uint32_t queue_count() const { return queue_count_; }
  uint32_t node_count() const { return static_cast<uint32_t>(nodes_.size()); }
  uint32_t flavor_count() const { return flavor_count_; }
  uint32_t resource_count() const { return resource_count_; }
  // The index of a resource a quota or a job names (every one is known once the tree is built).
  uint32_t resource(std::string_view name) const;
  uint32_t fr(uint32_t flavor, uint32_t resource) const { return flavor * resource_count_ + resource; }
  const QuotaNode& node(uint32_t i) const { return nodes_[i]; }
  // The cluster queues of the cohort tree `node` is in.
  const std::vector<uint32_t>& tree_queues(uint32_t node) const { return tree_queues_[nodes_[node].root]; }

  // Adds (sign +1) or takes (-1) a workload's usage in `cq` and what it uses in its ancestors.
  void add(uint32_t cq, const Amounts& a, int sign);
  int64_t available(uint32_t node, uint32_t f) const;
  int64_t potential(uint32_t node, uint32_t f) const;
  bool borrowing(uint32_t node, const FlavorResources& frs) const;
  bool borrows_any(uint32_t node) const;
  bool fits(uint32_t cq, const Amounts& a, bool allow_borrowing) const;
  double share(uint32_t node) const;
  // The node's share with a workload's usage added in `cq`.
  double share_with(uint32_t node, uint32_t cq, const Amounts& a);
  std::pair<uint32_t, uint32_t> below_common(uint32_t a, uint32_t b) const;

 private:
  uint32_t intern(std::string_view name);
  void add_usage(uint32_t node, uint32_t f, int64_t delta);
  boost::container::small_vector<uint32_t, 8> to_root(uint32_t node) const;

  std::vector<std::string> resources_;  // resource index -> name
  uint32_t resource_count_ = 0;
  uint32_t flavor_count_ = 0;
  uint32_t queue_count_ = 0;
  std::vector<QuotaNode> nodes_;
  std::vector<std::vector<uint32_t>> tree_queues_;  // by root node: its cluster queues
};

struct Workload {
  uint32_t cq = 0;
  uint32_t base_shape = 0;  // its request's shape: the pending queue's key
  int32_t priority = 0;
  Time order;  // creation, or the eviction that requeued it (Kueue's requeuingStrategy timestamp: Eviction)
  std::optional<Time> admitted_at;
  Amounts usage;  // of its admission
  bool admitted = false, evicting = false;
  bool fresh = false;               // admitted in the current schedule(): not yet in the scheduler's queue
  Time evicted_at;                  // when Kueue last decided to evict it
  std::optional<Time> requeued_at;  // when it was last requeued at the instant it left (requeue_evicted)
};

// The workloads of the jobs that name a LocalQueue, by job.
class Workloads {
 public:
  explicit Workloads(std::size_t jobs) : index_(jobs, kNone) {}
  void add(JobId id, const Workload& w) {
    index_[id] = static_cast<uint32_t>(all_.size());
    all_.push_back(w);
  }
  bool manages(JobId id) const { return index_[id] != kNone; }
  Workload& operator[](JobId id) { return all_[index_[id]]; }
  const Workload& operator[](JobId id) const { return all_[index_[id]]; }

 private:
  static constexpr uint32_t kNone = 0xFFFFFFFFu;
  std::vector<uint32_t> index_;  // by job; kNone when it names no queue
  std::vector<Workload> all_;
};

// The ClusterQueues' pending workloads (pkg/queue) and admitted ones, and which queues are to be
// looked at again in the next cycle.
class ClusterQueues {
 public:
  ClusterQueues(const QuotaTree& tree, const Workloads& workloads);
  // The workload waits in its ClusterQueue, which is looked at again.
  void push(JobId id);
  // The pending workload leaves its ClusterQueue.
  void erase(JobId id);
  // The queue is looked at again (if anything waits in it).
  void mark(uint32_t cq);
  // Quota was released in the tree: every queue of it may admit again (QueueInadmissibleWorkloads).
  void mark_tree(uint32_t cq);
  bool any_marked() const { return !marked_.empty(); }
  // The queues marked, in index order; they are unmarked.
  std::vector<uint32_t> take_marked();
  // The first workload of each distinct request, in queue order.
  std::vector<JobId> heads(uint32_t cq) const;
  uint32_t pending(uint32_t cq) const { return queues_[cq].pending; }
  const std::vector<JobId>& admitted(uint32_t cq) const { return queues_[cq].admitted; }
  void admitted_now(JobId id) { queues_[workloads_[id].cq].admitted.push_back(id); }
  void released(JobId id);

 private:
  struct PendingKey {
    int32_t neg_priority = 0;
    Time order;
    JobId id;
    auto operator<=>(const PendingKey&) const = default;
  };
  struct Queue {
    // Pending workloads by request shape: each shape's own order, so that BestEffortFIFO finds the
    // first admissible workload by looking at each distinct request's first only.
    std::vector<std::pair<uint32_t, std::set<PendingKey>>> by_shape;
    std::vector<JobId> admitted;
    uint32_t pending = 0;
    bool marked = false;
  };

  const QuotaTree& tree_;
  const Workloads& workloads_;
  std::vector<Queue> queues_;
  std::vector<uint32_t> marked_;
};

// A flavor assignment's mode (flavorassigner: NoFit < Preempt < Fit).
enum class Mode : uint8_t { no_fit, preempt, fit };

struct Assignment {
  Mode mode = Mode::fit;
  bool borrows = false;
  Amounts usage;
  uint64_t pool_mask = ~uint64_t{0};
  FlavorResources need_preemption;  // frs that do not fit without it
};

// Flavor assignment (pkg/scheduler/flavorassigner): per resource group of a ClusterQueue, the
// flavor a workload's request is admitted with.
class FlavorAssigner {
 public:
  FlavorAssigner(const KueueSpec& spec, const QuotaTree& tree);
  // The first job of `base` shape in `cq`: records what it asks, which flavors' pools can ever hold
  // it, and adds to `shapes` every shape it may be admitted with, now (policies size their tables
  // by the shape count).
  void prepare(uint32_t cq, uint32_t base, const Job& j, const Scenario& s, const Cluster& c, Shapes& shapes);
  Assignment assign(uint32_t cq, uint32_t base) const;

 private:
  std::pair<Mode, bool> fits_resource(uint32_t cq, uint32_t f, int64_t quantity) const;
  // The flavor of each resource group the request needs, into `a`; false if one has none that may fit.
  bool assign_groups(uint32_t cq, uint32_t base, Assignment& a) const;

  const KueueSpec& spec_;
  const QuotaTree& tree_;
  std::vector<std::vector<std::optional<uint32_t>>> group_of_;  // by cq, resource: its resource group
  std::unordered_map<uint32_t, Amounts> request_of_shape_;      // base shape -> resource index, quantity (fr = resource)
  std::map<std::pair<uint32_t, uint32_t>, bool> feasible_;      // (base shape, flavor): can its pools ever hold the job
};

// A workload to evict, for Kueue's reason.
struct Target {
  JobId job;
  std::string_view reason;
};

// Preemption (pkg/scheduler/preemption): the workloads a preemptor evicts, classic or fair sharing.
class Preemptor {
 public:
  Preemptor(const KueueSpec& spec, QuotaTree& tree, const Workloads& workloads, const ClusterQueues& queues);
  // The workloads to evict so that `job`'s assignment `a` fits in `cq`; none when it cannot. `view`
  // says which running jobs may still be preempted.
  // `gone`: workloads already taken out of the tree (this cycle's other victims), no candidates.
  std::vector<Target> targets(uint32_t cq, JobId job, const Assignment& a, const ClusterView& view,
                              const std::vector<Target>* gone = nullptr);
  // The targets' usage is put back in the tree (restore) or taken out of it (unreserve).
  void restore(const std::vector<Target>& targets);
  void unreserve(const std::vector<Target>& targets);

 private:
  bool eligible(JobId id, const ClusterView& view) const;
  std::vector<JobId> candidates(uint32_t cq, const Workload& w, const Assignment& a, const ClusterView& view,
                                const std::vector<Target>* gone) const;
  void fill_back(uint32_t cq, const Amounts& need, std::vector<Target>& targets, bool allow_borrowing);
  std::vector<Target> minimal(uint32_t cq, const Assignment& a, const std::vector<JobId>& cands, bool allow_borrowing,
                              std::optional<int32_t> threshold);
  std::vector<Target> classic(uint32_t cq, const Workload& w, const Assignment& a, std::vector<JobId> cands);
  std::vector<Target> fair(uint32_t cq, const Assignment& a, const std::vector<JobId>& cands);

  const KueueSpec& spec_;
  QuotaTree& tree_;
  const Workloads& workloads_;
  const ClusterQueues& queues_;
};

}  // namespace gpusim::kueue_parts
