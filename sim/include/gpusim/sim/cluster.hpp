#pragma once
// Cluster state: pools -> nodes -> GPUs, plus an index that groups nodes in identical states, so a
// placement decision costs the number of distinct node states, not the number of nodes (DESIGN §5).
// Policies see it through `const Cluster&`; only the engine changes it.
#include <boost/container/flat_set.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpusim/core/units.hpp"
#include "gpusim/hardware/catalog.hpp"

namespace gpusim {

using PoolId = uint16_t;
using NodeId = uint32_t;
using GpuId = uint32_t;
using BucketId = uint32_t;

enum class Sharing : uint8_t {
  exclusive,   // whole GPUs (nvidia.com/gpu); a share request takes a whole GPU
  fractional,  // milli-GPU + GPU memory accounting (Alibaba GPU sharing)
};
std::string_view to_string(Sharing s);

struct Pool {
  std::string name;
  std::string node_template;          // catalog template, or the trace the nodes came from
  const GpuModel* gpu = nullptr;      // null for CPU-only pools
  Sharing sharing = Sharing::exclusive;
  std::string market = "on-demand";
  double price_per_node_hour_usd = 0;
  std::string price_source;           // where the price came from; empty = no price given
  NodeId first_node = 0;
  uint32_t node_count = 0;
  uint32_t gpu_count = 0;
};

struct Node {
  std::string name;
  PoolId pool = 0;
  uint16_t gpu_count = 0;
  GpuId first_gpu = 0;
  int64_t cpu_milli = 0, memory_mib = 0;            // capacity
  int64_t free_cpu_milli = 0, free_memory_mib = 0;
  BucketId bucket = 0;
};

struct Gpu {
  NodeId node = 0;
  Milli free = kWholeGpu;
  int64_t free_memory_mib = 0;
  double demand = 0;  // sum of the compute demands u of the jobs on it
  uint16_t jobs = 0;
};

// Nodes of one pool whose free capacities are identical (as multisets over their GPUs).
struct NodeBucket {
  boost::container::flat_set<NodeId> nodes;  // ascending
  NodeId representative() const { return *nodes.begin(); }  // the lowest id
};

class Cluster {
 public:
  PoolId add_pool(Pool pool);
  // Nodes must be added pool by pool, in pool order.
  NodeId add_node(PoolId pool, std::string name, int64_t cpu_milli, int64_t memory_mib, int gpus);

  const std::vector<Pool>& pools() const { return pools_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<Gpu>& gpus() const { return gpus_; }
  const Pool& pool(PoolId p) const { return pools_[p]; }
  const Node& node(NodeId n) const { return nodes_[n]; }
  const Gpu& gpu(GpuId g) const { return gpus_[g]; }
  const Pool& pool_of(NodeId n) const { return pools_[nodes_[n].pool]; }
  uint32_t gpu_count() const { return static_cast<uint32_t>(gpus_.size()); }

  // Non-empty buckets, in a deterministic order; read bucket(b).nodes.
  const std::vector<BucketId>& live_buckets() const { return live_; }
  const NodeBucket& bucket(BucketId b) const { return buckets_[b]; }

  // --- engine only: every change of a node goes through these, which keep the index current ---
  void allocate(NodeId node, int64_t cpu_milli, int64_t memory_mib);
  void release(NodeId node, int64_t cpu_milli, int64_t memory_mib);
  void allocate_gpu(GpuId gpu, Milli milli, int64_t memory_mib, double u);
  void release_gpu(GpuId gpu, Milli milli, int64_t memory_mib, double u);
  // Recomputes the bucket of `node` after its resources changed.
  void reindex(NodeId node);

 private:
  using Signature = std::vector<int64_t>;
  struct SignatureHash {
    std::size_t operator()(const Signature& s) const;
  };
  Signature signature(NodeId node) const;
  void place_in_bucket(NodeId node);

  std::vector<Pool> pools_;
  std::vector<Node> nodes_;
  std::vector<Gpu> gpus_;
  std::vector<NodeBucket> buckets_;
  std::vector<Signature> bucket_signature_;
  std::vector<uint32_t> live_position_;  // bucket -> index in live_
  std::vector<BucketId> live_;
  std::vector<BucketId> recycled_;
  std::unordered_map<Signature, BucketId, SignatureHash> by_signature_;
};

}  // namespace gpusim
