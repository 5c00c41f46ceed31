#include "gpusim/sim/cluster.hpp"

#include <boost/container_hash/hash.hpp>

#include <algorithm>
#include <cassert>
#include <functional>
#include <stdexcept>

namespace gpusim {

PoolId Cluster::add_pool(Pool pool) {
  // PoolId is 16-bit: loops `for (PoolId p{0}; p < pools().size(); ++p)` need the count below 65535.
  if (pools_.size() >= 65535) throw std::length_error("more than 65535 pools");
  pool.first_node = static_cast<NodeId>(nodes_.size());
  pool.node_count = 0;
  pool.gpu_count = 0;
  pools_.push_back(std::move(pool));
  return static_cast<PoolId>(pools_.size() - 1);
}

NodeId Cluster::add_node(PoolId pool, std::string name, int64_t cpu_milli, int64_t memory_mib, int gpus,
                         const std::shared_ptr<const NodeTopology>& topology, NodeState state) {
  assert(pool + 1u == pools_.size() && "nodes are added pool by pool");
  assert((gpus == 0 || (topology && topology->gpus() == gpus)) && "a GPU node has a topology of its size");
  Node n;
  if (topology) {
    if (topologies_.empty() || topologies_.back() != topology) topologies_.push_back(topology);
    n.topology = topology.get();
  }
  n.name = std::move(name);
  n.pool = pool;
  n.gpu_count = static_cast<uint16_t>(gpus);
  n.first_gpu = static_cast<GpuId>(gpus_.size());
  n.cpu_milli = n.free_cpu_milli = cpu_milli;
  n.memory_mib = n.free_memory_mib = memory_mib;
  n.state = state;
  const NodeId id = static_cast<NodeId>(nodes_.size());
  const Pool& p = pools_[pool];
  for (int i = 0; i < gpus; ++i) {
    Gpu g;
    g.node = id;
    g.free_memory_mib = p.gpu ? p.gpu->memory_mib : 0;
    const auto& cfg = p.sharing;
    if (cfg.mode == Sharing::time_slicing || cfg.mode == Sharing::mps) g.slots = cfg.replicas;
    if (cfg.mode == Sharing::fractional) g.slots = kWholeGpu.value;  // shares limit it, not slots
    if (cfg.mode == Sharing::mig && static_cast<std::size_t>(i) < cfg.mig_layouts.size() && cfg.mig_layouts[i]) {
      g.mig = true;
      for (const MigInstance& in : *cfg.mig_layouts[i]) g.instances.push_back({in, kNoJob});
    }
    gpus_.push_back(std::move(g));
  }
  nodes_.push_back(std::move(n));
  pools_[pool].node_count++;
  pools_[pool].gpu_count += static_cast<uint32_t>(gpus);
  if (nodes_[id].ready()) place_in_bucket(id);
  return id;
}

std::size_t Cluster::SignatureHash::operator()(const Signature& s) const {
  return boost::hash_range(s.begin(), s.end());
}

Cluster::Signature Cluster::signature(NodeId id) const {
  const Node& n = nodes_[id];
  Signature s{n.pool, n.free_cpu_milli, n.free_memory_mib};
  const std::size_t first = s.size();
  // One word per GPU; MIG GPUs encode their instances (7 bits each: profile, start, busy).
  for (GpuId g = n.first_gpu; g < n.first_gpu + n.gpu_count; ++g) {
    const Gpu& gpu = gpus_[g];
    if (gpu.mig) {
      int64_t code = 0;
      for (const MigSlot& m : gpu.instances)
        code = code << 7 | (m.instance.profile << 4 | m.instance.start << 1 | (m.job != kNoJob));
      code |= int64_t{1} << 62 | int64_t{gpu.reconfiguring} << 61 | static_cast<int64_t>(gpu.instances.size()) << 56;
      s.push_back(code);
    } else {
      s.push_back(static_cast<int64_t>(gpu.free.value) << 51 | static_cast<int64_t>(gpu.free_slots() & 0x3FF) << 41 |
                  (gpu.free_memory_mib & ((int64_t{1} << 41) - 1)));
    }
  }
  // Where GPUs differ in their links, which ones are free matters: keep their order.
  if (!n.topology || n.topology->uniform()) std::sort(s.begin() + static_cast<std::ptrdiff_t>(first), s.end(), std::greater<>());
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
      ++buckets_[b].epoch;
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

void Cluster::leave_bucket(NodeId id) {
  if (!nodes_[id].bucket) return;
  const BucketId old = *std::exchange(nodes_[id].bucket, std::nullopt);
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
}

void Cluster::reindex(NodeId id) {
  if (tracking_) changed_.push_back(id);
  if (!nodes_[id].ready()) return;
  leave_bucket(id);
  place_in_bucket(id);
}

void Cluster::set_state(NodeId id, NodeState state) {
  if (nodes_[id].state == state) return;
  if (tracking_) changed_.push_back(id);
  leave_bucket(id);
  nodes_[id].state = state;
  if (state == NodeState::ready) place_in_bucket(id);
}

void Cluster::allocate(NodeId id, int64_t cpu_milli, int64_t memory_mib) {
  nodes_[id].free_cpu_milli -= cpu_milli;
  nodes_[id].free_memory_mib -= memory_mib;
}

void Cluster::release(NodeId id, int64_t cpu_milli, int64_t memory_mib) {
  nodes_[id].free_cpu_milli += cpu_milli;
  nodes_[id].free_memory_mib += memory_mib;
}

void Cluster::attach(GpuId g, JobId job, const GpuClaim& c) {
  Gpu& gpu = gpus_[g];
  gpu.free -= c.milli;
  gpu.free_memory_mib -= c.reserve_mib;
  gpu.used_memory_mib += c.footprint_mib;
  gpu.residents.push_back(job);
  if (c.instance) gpu.instances[*c.instance].job = job;
}

void Cluster::detach(GpuId g, JobId job, const GpuClaim& c) {
  Gpu& gpu = gpus_[g];
  gpu.free += c.milli;
  gpu.free_memory_mib += c.reserve_mib;
  gpu.used_memory_mib -= c.footprint_mib;
  gpu.residents.erase(std::find(gpu.residents.begin(), gpu.residents.end(), job));
  if (c.instance) gpu.instances[*c.instance].job = kNoJob;
}

void Cluster::start_layout(GpuId g, const MigLayout& layout) {
  Gpu& gpu = gpus_[g];
  gpu.instances.clear();
  for (const MigInstance& in : layout) gpu.instances.push_back({in, kNoJob});
  gpu.reconfiguring = true;
}

void Cluster::finish_layout(GpuId g) { gpus_[g].reconfiguring = false; }

}  // namespace gpusim
