#include "gpusim/sim/cluster.hpp"

#include <boost/container_hash/hash.hpp>

#include <algorithm>
#include <cassert>
#include <functional>

namespace gpusim {

std::string_view to_string(Sharing s) {
  switch (s) {
    case Sharing::exclusive: return "exclusive";
    case Sharing::fractional: return "fractional";
  }
  return "exclusive";
}

PoolId Cluster::add_pool(Pool pool) {
  pool.first_node = static_cast<NodeId>(nodes_.size());
  pool.node_count = 0;
  pool.gpu_count = 0;
  pools_.push_back(std::move(pool));
  return static_cast<PoolId>(pools_.size() - 1);
}

NodeId Cluster::add_node(PoolId pool, std::string name, int64_t cpu_milli, int64_t memory_mib, int gpus) {
  assert(pool + 1u == pools_.size() && "nodes are added pool by pool");
  Node n;
  n.name = std::move(name);
  n.pool = pool;
  n.gpu_count = static_cast<uint16_t>(gpus);
  n.first_gpu = static_cast<GpuId>(gpus_.size());
  n.cpu_milli = n.free_cpu_milli = cpu_milli;
  n.memory_mib = n.free_memory_mib = memory_mib;
  const NodeId id = static_cast<NodeId>(nodes_.size());
  const int64_t gpu_memory = pools_[pool].gpu ? pools_[pool].gpu->memory_mib : 0;
  for (int i = 0; i < gpus; ++i) gpus_.push_back(Gpu{id, kWholeGpu, gpu_memory, 0.0, 0});
  nodes_.push_back(std::move(n));
  pools_[pool].node_count++;
  pools_[pool].gpu_count += static_cast<uint32_t>(gpus);
  place_in_bucket(id);
  return id;
}

std::size_t Cluster::SignatureHash::operator()(const Signature& s) const {
  return boost::hash_range(s.begin(), s.end());
}

Cluster::Signature Cluster::signature(NodeId id) const {
  const Node& n = nodes_[id];
  Signature s{n.pool, n.free_cpu_milli, n.free_memory_mib};
  const std::size_t first = s.size();
  for (GpuId g = n.first_gpu; g < n.first_gpu + n.gpu_count; ++g)
    s.push_back((static_cast<int64_t>(gpus_[g].free.value) << 40) | gpus_[g].free_memory_mib);
  std::sort(s.begin() + static_cast<std::ptrdiff_t>(first), s.end(), std::greater<>());
  return s;
}

void Cluster::place_in_bucket(NodeId id) {
  Signature sig = signature(id);
  auto it = by_signature_.find(sig);
  BucketId b;
  if (it != by_signature_.end()) {
    b = it->second;
  } else {
    if (!recycled_.empty()) {
      b = recycled_.back();
      recycled_.pop_back();
      bucket_signature_[b] = sig;
    } else {
      b = static_cast<BucketId>(buckets_.size());
      buckets_.emplace_back();
      bucket_signature_.push_back(sig);
      live_position_.push_back(0);
    }
    by_signature_.emplace(std::move(sig), b);
    live_position_[b] = static_cast<uint32_t>(live_.size());
    live_.push_back(b);
  }
  buckets_[b].nodes.insert(id);
  nodes_[id].bucket = b;
}

void Cluster::reindex(NodeId id) {
  const BucketId old = nodes_[id].bucket;
  NodeBucket& bucket = buckets_[old];
  bucket.nodes.erase(id);
  if (bucket.nodes.empty()) {
    by_signature_.erase(bucket_signature_[old]);
    const uint32_t pos = live_position_[old];
    live_[pos] = live_.back();
    live_position_[live_[pos]] = pos;
    live_.pop_back();
    recycled_.push_back(old);
  }
  place_in_bucket(id);
}

void Cluster::allocate(NodeId id, int64_t cpu_milli, int64_t memory_mib) {
  nodes_[id].free_cpu_milli -= cpu_milli;
  nodes_[id].free_memory_mib -= memory_mib;
}

void Cluster::release(NodeId id, int64_t cpu_milli, int64_t memory_mib) {
  nodes_[id].free_cpu_milli += cpu_milli;
  nodes_[id].free_memory_mib += memory_mib;
}

void Cluster::allocate_gpu(GpuId g, Milli milli, int64_t memory_mib, double u) {
  gpus_[g].free -= milli;
  gpus_[g].free_memory_mib -= memory_mib;
  gpus_[g].demand += u;
  gpus_[g].jobs++;
}

void Cluster::release_gpu(GpuId g, Milli milli, int64_t memory_mib, double u) {
  gpus_[g].free += milli;
  gpus_[g].free_memory_mib += memory_mib;
  gpus_[g].jobs--;
  // Recompute from zero when the GPU empties so floating-point residue never accumulates.
  gpus_[g].demand = gpus_[g].jobs == 0 ? 0.0 : gpus_[g].demand - u;
}

}  // namespace gpusim
