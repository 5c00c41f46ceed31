#pragma once
// The autoscaler's scale-up estimate (docs/guide/markets.md), after the Kubernetes Cluster Autoscaler: the pods still
// unschedulable are bin-packed, in queue order, first onto what is free on ready nodes and on nodes already on their way, then
// onto new nodes of the cheapest pool that can take them (its `price` expander). A gang partly fits what is free and takes new
// nodes for the rest. A pure plan: the engine requests the nodes it adds.
#include <boost/container/small_vector.hpp>

#include <cstdint>
#include <vector>

#include "gpusim/core/units.hpp"
#include "gpusim/sim/cluster.hpp"
#include "gpusim/workloads/job.hpp"

namespace gpusim {

// What one pod group (a job) needs on one pool: `gpus` GPUs of `milli` and `gpu_memory_mib` each;
// CPU and memory per pod; a job that may span nodes takes whole units of `unit` GPUs per node.
struct PodDemand {
  PoolId pool{0};
  int32_t gpus = 0;
  Milli milli = kWholeGpu;
  int64_t gpu_memory_mib = 0;
  int64_t cpu_milli = 0, memory_mib = 0;
  int32_t unit = 1;         // GPUs per worker pod; 1 when the job has no fixed worker size
  bool per_worker = false;  // CPU and memory are per worker pod (else one pod per node)
  bool multi_node = false;
  int64_t power_mw = 0;  // what its GPUs hold of the pool's power budget (sim/power_budgets.hpp)
};

// A node of a pool's template, empty.
struct NodeShape {
  int32_t gpus = 0;
  int64_t gpu_memory_mib = 0;
  int64_t cpu_milli = 0, memory_mib = 0;
};

// What a job asking `q` needs on pool `p` (`multi_node`: it may span nodes).
PodDemand pod_demand(const Request& q, bool multi_node, const Pool& pool, PoolId p);

// How a job fared in the plan: placed, no pool with room, or room only beyond a power budget.
enum class ScaleUp : uint8_t { placed, no_room, no_power };

class ScaleUpPlan {
 public:
  // A pool the autoscaler may grow: `on_the_way` nodes are provisioning (empty capacity to come),
  // at most `headroom` more may be added.
  void add_pool(PoolId pool, NodeShape shape, uint32_t on_the_way, uint32_t headroom, double price_per_gpu_hour_usd);
  // Pool `p` of `c` as add_pool takes it (its template's node shape), with the free capacity of its
  // ready nodes that have room (add_free_node).
  void add_pool(const Cluster& c, PoolId p, uint32_t on_the_way, uint32_t headroom, double price_per_gpu_hour_usd);
  // Pool `pool` is in power budget `budget` (an index into the rooms given to set_budget_room), and each
  // node it adds holds `node_mw` of it.
  void set_power(PoolId pool, int budget, int64_t node_mw);
  // The room left in each power budget now (milliwatts).
  void set_budget_room(std::vector<int64_t> room_mw) { room_mw_ = std::move(room_mw); }
  // Free capacity of a ready node of a pool added before: per GPU, its free milli-GPU and memory.
  void add_free_node(PoolId pool, const std::vector<int32_t>& free_milli, const std::vector<int64_t>& free_gpu_memory_mib,
                     int64_t cpu_milli, int64_t memory_mib);
  // Places one job, given what it needs on each pool it may use: on capacity on the way if any pool
  // has room, else on new nodes of the cheapest pool (ties: the first listed) that can hold it; a
  // pool's power budget must have room for the job's claims and the nodes' idle draw.
  ScaleUp place(const std::vector<PodDemand>& options);
  // Nodes the plan adds to `pool`.
  uint32_t added(PoolId pool) const;

 private:
  struct VirtualNode {
    boost::container::small_vector<int32_t, 8> free_milli;       // per GPU
    boost::container::small_vector<int64_t, 8> free_gpu_memory;  // per GPU
    int64_t cpu_milli = 0, memory_mib = 0;
  };
  struct PoolPlan {
    PoolId pool{0};
    NodeShape shape;
    uint32_t headroom = 0;
    uint32_t added = 0;
    double price = 0;
    std::vector<VirtualNode> nodes;  // on the way, then added
    int budget = -1;                 // its power budget; -1: none
    int64_t node_mw = 0;             // what an added node holds of it
  };
  // Room in the pool's budget (the most an int64 holds: none).
  int64_t room(const PoolPlan& p) const;
  PoolPlan* find(PoolId pool);
  static VirtualNode empty_node(const NodeShape& shape);
  // Takes the demand from the pool's virtual nodes (fewest nodes first); false, untouched, if it does not fit.
  static bool fit(PoolPlan& plan, const PodDemand& d);
  std::vector<PoolPlan> pools_;
  std::vector<int64_t> room_mw_;  // per power budget
};

}  // namespace gpusim
