#pragma once
// Cluster state: pools -> nodes -> GPUs, plus an index that groups nodes in identical states, so a
// placement decision costs the number of distinct node states, not the number of nodes (docs/design/performance.md).
// Policies see it through `const Cluster&`; only the engine changes it.
#include <boost/container/small_vector.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gpusim/core/chunked_set.hpp"
#include "gpusim/core/id.hpp"
#include "gpusim/core/paged_vector.hpp"
#include "gpusim/core/step_series.hpp"
#include "gpusim/core/units.hpp"
#include "gpusim/hardware/catalog.hpp"
#include "gpusim/sim/market.hpp"
#include "gpusim/sim/sharing.hpp"
#include "gpusim/sim/topology_manager.hpp"
#include "gpusim/workloads/job.hpp"

namespace gpusim {

using PoolId = Id<struct PoolTag, uint16_t>;
using NodeId = Id<struct NodeTag, uint32_t>;
using GpuId = Id<struct GpuTag, uint32_t>;
using BucketId = Id<struct BucketTag, uint32_t>;
using MigSlotIndex = uint8_t;  // into Gpu::instances (at most 7)

// A node's life in a pool whose size changes (autoscaling, spot): `off` is a slot not provisioned,
// `provisioning` is billed but not usable yet, `draining` has had a reclaim notice (cordoned: its
// jobs may finish a checkpoint, nothing new is placed). Only `ready` nodes take jobs.
enum class NodeState : uint8_t { off, provisioning, ready, draining };
constexpr auto enum_table(NodeState) {
  using S = NodeState;
  return std::to_array<EnumName<S>>(
      {{S::off, "off"}, {S::provisioning, "provisioning"}, {S::ready, "ready"}, {S::draining, "draining"}});
}
// Its GPUs count as capacity (and as up, for DCGM and the report): ready, or draining while its
// jobs finish after a reclaim notice.
constexpr bool has_capacity(NodeState s) { return s == NodeState::ready || s == NodeState::draining; }

// A pool as the scenario wrote it (`cluster.pools[i]`).
struct PoolSpec {
  struct NodeSpec {
    std::string name;
    int64_t cpu_milli = 0;
    int64_t memory_mib = 0;
    int gpus = 0;
    std::shared_ptr<const NodeTopology> topology;  // null for CPU-only nodes
  };
  std::string name;
  std::string node_template;
  const GpuModel* gpu = nullptr;
  SharingConfig sharing;
  NetworkSpec network;  // per node, shared by the multi-node jobs on it
  // Consecutive nodes of a rack whose GPUs share one NVLink domain (a GB200 NVL72 rack's 18 trays, or an
  // NVLink partition of fewer), and the rack's nodes; 0: NVLink stops at the node
  // (docs/guide/topology.md#nvlink-domains).
  uint32_t nvlink_domain_nodes = 0;
  uint32_t rack_nodes = 0;
  TopologyPolicy topology_manager = TopologyPolicy::none;  // the kubelet's topologyManagerPolicy
  Market market = Market::on_demand;
  // Its nodes' labels as written, then the well-known ones (add_node_labels), sorted by key.
  std::vector<std::pair<std::string, std::string>> labels;
  std::vector<Taint> taints;  // on every node of the pool
  // DRA (sim/dra.hpp): by device request, the device kinds of its GPU model the request's selectors
  // accept (bit 0: a whole GPU, bit 1 + i: MIG profile i); empty without DRA.
  std::vector<uint64_t> device_match;
  double price_per_node_hour_usd = 0;  // at the start (a spot trace may change it over time)
  std::string price_source;            // empty: unpriced (no price given): outputs mark its cost unknown
  bool priced() const { return !price_source.empty(); }
  // What its nodes draw besides their GPUs, and its facility's power usage effectiveness (facility
  // energy over IT energy: cooling, power distribution), which energy figures are multiplied by.
  HostPower host_power;
  double pue = 1;
  std::optional<double> power_limit_w;  // each GPU's power limit (nvidia-smi -pl); none: its TDP
  // Its grid's carbon intensity (gCO2e per kWh) and its electricity price (USD per kWh) over time; null:
  // not given (no carbon or energy cost figures for it).
  std::shared_ptr<const StepSeries> carbon_g_per_kwh, electricity_usd_per_kwh;
  SpotConfig spot;  // spot pools: how they lose nodes
  AutoscaleConfig autoscale;
  Duration provisioning_delay;  // request to ready, for scale-ups and replacements of reclaimed nodes
  uint32_t initial_nodes = 0;   // ready at time 0; the slots after them start off
  uint32_t node_count = 0;      // node slots: the most nodes it can ever have
  // A node list: every slot, named. A template pool: its one shape, which every slot takes, named
  // <pool>-<i> (an autoscaled pool's million slots cost nothing until they are provisioned).
  std::vector<NodeSpec> nodes;

  // Slot i as a node: its name and shape.
  NodeSpec node(uint32_t i) const {
    NodeSpec n = shape(i);
    if (!one_per_slot()) n.name = template_node_name(name, i);
    return n;
  }
  const NodeSpec& shape(uint32_t i) const { return one_per_slot() ? nodes[i] : nodes.front(); }
  // `nodes` has an entry per slot (a node list, or a template pool of one slot, named alike).
  bool one_per_slot() const { return nodes.size() == node_count; }
  // Calls f(spec, slots) for each entry of `nodes` with the number of slots that take its shape.
  template <class F>
  void for_each_shape(F&& f) const {
    if (one_per_slot())
      for (const NodeSpec& n : nodes) f(n, uint32_t{1});
    else f(nodes.front(), node_count);
  }
  uint64_t gpu_slots() const;  // GPUs of all its slots
  static std::string template_node_name(std::string_view pool, uint32_t i);
};

// A power budget (`cluster.power_budgets[i]`): the IT power a set of pools (a rack, a hall) may hold at
// once, in watts (docs/guide/energy.md#power-budgets; sim/power.hpp node_budget_w, claim_budget_w).
struct PowerBudget {
  std::string name;
  double limit_w = 0;
  uint64_t pool_mask = 0;  // bit p: pool p is in it (a pool is in at most one)
};

// A pool of the built cluster: its spec, and where its node and GPU ids are. Ids are reserved for
// every slot, but only slots that have held a node are built: the first `built` ones (a pool
// provisions its lowest free slot), so an unused autoscaling maximum costs no memory.
struct Pool : PoolSpec {
  NodeId first_node{0};
  GpuId first_gpu{0};
  uint32_t gpu_count = 0;      // GPUs of all its slots
  uint16_t gpus_per_node = 0;  // of its template (trace node lists may differ per node)
  uint32_t built = 0;          // slots built: first_node .. first_node + built - 1
  uint32_t gpus_built = 0;     // their GPUs: first_gpu .. first_gpu + gpus_built - 1
};

inline constexpr PoolId kNoPool{0xFFFFu};
inline constexpr NodeId kNoNode{0xFFFFFFFFu};
inline constexpr GpuId kNoGpu{0xFFFFFFFFu};

struct Node {
  std::string name;
  PoolId pool = kNoPool;  // kNoPool: a slot not built
  uint16_t gpu_count = 0;
  GpuId first_gpu{0};
  int64_t cpu_milli = 0, memory_mib = 0;  // capacity
  int64_t free_cpu_milli = 0, free_memory_mib = 0;
  const NodeTopology* topology = nullptr;  // links between its GPUs (owned by its pool's spec)
  std::optional<BucketId> bucket;          // none unless ready (decisions scan buckets, not Nodes: 8 bytes more is fine)
  NodeState state = NodeState::off;
  bool ready() const { return state == NodeState::ready; }
};

// A placed MIG GPU instance and the job on it. A sentinel rather than std::optional<JobId>: every
// Gpu holds seven slots inline, and an optional would make each 4 bytes larger (Gpu 192 -> 216 bytes).
inline constexpr JobId kNoJob{0xFFFFFFFFu};
struct MigSlot {
  MigInstance instance;
  JobId job = kNoJob;
};

// What one job holds on one GPU (the engine computes it; the cluster only adds it up).
struct GpuClaim {
  Milli milli;                           // share of the GPU it blocks (allocation metrics, fit of shares)
  int64_t reserve_mib = 0;               // memory set aside for it (fractional shares, MPS pinned limit)
  int64_t footprint_mib = 0;             // memory it uses without isolation (time-slicing)
  std::optional<MigSlotIndex> instance;  // the MIG slot it takes, on a MIG GPU
};

struct Gpu {
  NodeId node = kNoNode;        // kNoNode: a slot not built
  Milli free = kWholeGpu;       // share not yet claimed
  int64_t free_memory_mib = 0;  // memory not reserved
  int64_t used_memory_mib = 0;  // time-slicing: the sum of the residents' footprints
  int slots = 1;                // residents it may hold (1, or replicas for time-slicing and MPS)
  bool mig = false;             // MIG enabled: jobs run in `instances`
  bool reconfiguring = false;   // a MIG layout change is under way: nothing can be placed
  bool partitionable = false;   // `instances` are every placement; those with a job exist (SharingConfig)
  boost::container::small_vector<MigSlot, 7> instances;
  boost::container::small_vector<JobId, 4> residents;
  double busy = 0;  // fraction of its SMs kept busy, as DCGM would show
  int free_slots() const { return slots - static_cast<int>(residents.size()); }
};

// Does the MIG instance exist? On a fixed layout, all do; on a partitionable GPU, those created for a job.
inline bool exists(const Gpu& gpu, const MigSlot& slot) { return !gpu.partitionable || slot.job != kNoJob; }
// Is the partitionable GPU held whole (the driver's full-GPU device, which consumes every counter)? Its
// one resident then holds no instance.
inline bool held_whole(const Gpu& gpu) {
  return gpu.partitionable && !gpu.residents.empty() &&
         std::none_of(gpu.instances.begin(), gpu.instances.end(), [](const MigSlot& s) { return s.job != kNoJob; });
}

// The profile of the MIG instance `job` holds on `gpu` (of model `model`), which it must hold.
inline const MigProfile& held_profile(const Gpu& gpu, const GpuModel& model, JobId job) {
  const auto slot = std::find_if(gpu.instances.begin(), gpu.instances.end(), [&](const MigSlot& m) { return m.job == job; });
  return model.mig->profiles[slot->instance.profile];
}

// Nodes of one pool whose free capacities are identical (as multisets over their GPUs).
struct NodeBucket {
  ChunkedSet<NodeId> nodes;  // ascending
  // Bumps when the bucket id is reused for another state: (id, epoch) names one node state for as
  // long as it lives, so a policy may cache what it computed for it.
  uint32_t epoch = 0;
  NodeId representative() const { return nodes.front(); }  // the lowest id
};

class Cluster {
 public:
  // Which of `gpus` are on `node`, as a mask of node-local indices (ids out of range are skipped).
  uint32_t gpu_mask(NodeId node, const std::vector<GpuId>& gpus) const {
    uint32_t mask = 0;
    for (GpuId g : gpus)
      if (g < gpus_.size() && gpus_[g].node == node) mask |= 1u << (g - nodes_[node].first_gpu);
    return mask;
  }
  // Reserves node and GPU ids for every slot of the pool, after those of the pools before it.
  PoolId add_pool(Pool pool);
  // Builds the pool's next slot (its node and GPUs) in `state`.
  NodeId build_node(PoolId pool, NodeState state);

  const std::vector<Pool>& pools() const { return pools_; }
  const Pool& pool(PoolId p) const { return pools_[p]; }
  const Node& node(NodeId n) const { return nodes_[n]; }  // built slots only: see has_node
  const Gpu& gpu(GpuId g) const { return gpus_[g]; }
  const Pool& pool_of(NodeId n) const { return pools_[nodes_[n].pool]; }
  // The NVLink domain of a node of a rack-scale pool: its pool's slots fill racks in order, and each rack
  // splits into domains of nvlink_domain_nodes (the last one smaller when they do not divide it); none
  // where NVLink stops at the node.
  std::optional<uint32_t> nvlink_domain(NodeId n) const {
    const Pool& p = pool_of(n);
    if (p.nvlink_domain_nodes == 0) return std::nullopt;
    const uint32_t slot = n.value() - p.first_node.value(),
                   per_rack = (p.rack_nodes + p.nvlink_domain_nodes - 1) / p.nvlink_domain_nodes;
    return slot / p.rack_nodes * per_rack + slot % p.rack_nodes / p.nvlink_domain_nodes;
  }
  // Are `nodes` one node, or all in one NVLink domain (their GPUs talk over NVLink)?
  bool one_nvlink_domain(const std::vector<NodeId>& nodes) const {
    if (nodes.empty()) return false;
    const auto first = nvlink_domain(nodes.front());
    if (!first) return nodes.size() == 1;
    return std::all_of(nodes.begin(), nodes.end(),
                       [&](NodeId n) { return nodes_[n].pool == nodes_[nodes.front()].pool && nvlink_domain(n) == first; });
  }
  // Ids run 0..count-1 over every slot; only built ones name a node or GPU.
  uint32_t node_count() const { return static_cast<uint32_t>(nodes_.size()); }
  uint32_t gpu_count() const { return static_cast<uint32_t>(gpus_.size()); }
  // GPUs of the ready nodes (kept as nodes are built and change state).
  uint64_t ready_gpu_count() const { return ready_gpus_; }
  bool has_node(NodeId n) const { return n < nodes_.size() && nodes_[n].pool != kNoPool; }
  bool has_gpu(GpuId g) const { return g < gpus_.size() && gpus_[g].node != kNoNode; }
  // Any slot, built or not: one never built reads as the off node it would be (for Python policies,
  // which may walk every id; the engine and the C++ policies walk built nodes only).
  Node slot_node(NodeId n) const;
  Gpu slot_gpu(GpuId g) const;
  // Calls f(NodeId) for every built node, in id order.
  template <class F>
  void for_each_node(F&& f) const {
    for (const Pool& p : pools_)
      for (NodeId n = p.first_node; n < p.first_node + p.built; ++n) f(n);
  }

  // Non-empty buckets of ready nodes, in a deterministic order; read bucket(b).nodes.
  const std::vector<BucketId>& live_buckets() const { return live_; }
  const NodeBucket& bucket(BucketId b) const { return buckets_[b]; }

  // --- engine only: every change of a node goes through these, which keep the index current ---
  void allocate(NodeId id, int64_t cpu_milli, int64_t memory_mib);
  void release(NodeId id, int64_t cpu_milli, int64_t memory_mib);
  void attach(GpuId gpu, JobId job, const GpuClaim& claim);
  void detach(GpuId gpu, JobId job, const GpuClaim& claim);
  // Replaces the MIG layout of an empty MIG GPU; `reconfiguring` blocks it until finish_layout.
  void start_layout(GpuId gpu, const MigLayout& layout);
  void finish_layout(GpuId gpu);
  void set_busy(GpuId gpu, double busy) { gpus_[gpu].busy = busy; }
  // Recomputes the bucket of node `id` after its resources changed (nodes that are not ready have none).
  void reindex(NodeId id);
  // Moves a node through its life; only ready nodes are indexed for placement.
  void set_state(NodeId id, NodeState state);

  // For the audit: with tracking on, each node reindexed or moved is logged until taken. The log is
  // a diagnostic, not cluster state, so an observer holding `const Cluster&` may take it.
  void track_changes(bool on) { tracking_ = on; }
  std::vector<NodeId> take_changed() const { return std::exchange(changed_, {}); }

 private:
  using Signature = std::vector<int64_t>;
  struct SignatureHash {
    std::size_t operator()(const Signature& s) const;
  };
  Signature signature(NodeId id) const;
  // A GPU's word of its node's signature, kept in gpu_words_ by every change of its state (reword), so
  // that a node's signature reads one compact line rather than each of its GPUs' records.
  static int64_t signature_word(const Gpu& gpu);
  void reword(GpuId g) { gpu_words_[g] = signature_word(gpus_[g]); }
  Node make_node(PoolId pool, uint32_t slot, GpuId first_gpu) const;
  static Gpu make_gpu(const Pool& p, uint16_t index, NodeId node);
  void place_in_bucket(NodeId id);
  void leave_bucket(NodeId id);

  std::vector<Pool> pools_;
  PagedVector<Node> nodes_;
  PagedVector<Gpu> gpus_;
  std::vector<int64_t> gpu_words_;  // by GPU: signature_word
  std::vector<NodeBucket> buckets_;
  std::vector<Signature> bucket_signature_;
  std::vector<uint32_t> live_position_;  // bucket -> index in live_
  std::vector<BucketId> live_;
  std::vector<BucketId> recycled_;
  std::unordered_map<Signature, BucketId, SignatureHash> by_signature_;
  bool tracking_ = false;
  uint64_t ready_gpus_ = 0;
  mutable std::vector<NodeId> changed_;
};

}  // namespace gpusim
