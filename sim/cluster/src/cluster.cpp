#include "gpusim/sim/cluster.hpp"

#include <boost/container_hash/hash.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <functional>
#include <stdexcept>

namespace gpusim {

uint64_t PoolSpec::gpu_slots() const {
  uint64_t n = 0;
  for_each_shape([&](const NodeSpec& s, uint32_t slots) { n += uint64_t{slots} * static_cast<uint64_t>(s.gpus); });
  return n;
}

std::string PoolSpec::template_node_name(std::string_view pool, uint32_t i) { return fmt::format("{}-{}", pool, i); }

PoolId Cluster::add_pool(Pool pool) {
  // PoolId is 16-bit: loops `for (PoolId p{0}; p < pools().size(); ++p)` need the count below 65535.
  if (pools_.size() >= 65535) throw std::length_error("more than 65535 pools");
  const uint64_t gpus = pool.gpu_slots();
  // Ids are 32-bit with kNoNode and kNoGpu kept free; the fields' ranges stay far below (64 pools
  // of at most 1,000,000 nodes of at most 32 GPUs), so only a node list of billions could reach it.
  if (nodes_.size() + pool.node_count >= kNoNode || gpus_.size() + gpus >= kNoGpu)
    throw std::length_error("more than 4294967294 node or GPU slots");
  pool.first_node = static_cast<NodeId>(nodes_.size());
  pool.first_gpu = static_cast<GpuId>(gpus_.size());
  pool.gpu_count = static_cast<uint32_t>(gpus);
  pool.built = 0;
  pool.gpus_built = 0;
  nodes_.resize(nodes_.size() + pool.node_count);
  gpus_.resize(gpus_.size() + gpus);
  gpu_words_.resize(gpus_.size());
  pools_.push_back(std::move(pool));
  return static_cast<PoolId>(pools_.size() - 1);
}

NodeId Cluster::build_node(PoolId pool, NodeState state) {
  Pool& p = pools_[pool];
  assert(p.built < p.node_count && "a slot left to build");
  const NodeId id{p.first_node + p.built};
  Node& n = nodes_[id] = make_node(pool, p.built, static_cast<GpuId>(p.first_gpu + p.gpus_built));
  n.state = state;
  for (uint16_t i = 0; i < n.gpu_count; ++i) {
    gpus_[n.first_gpu + i] = make_gpu(p, i, id);
    reword(static_cast<GpuId>(n.first_gpu + i));
  }
  ++p.built;
  p.gpus_built += n.gpu_count;
  if (n.ready()) {
    place_in_bucket(id);
    ready_gpus_ += n.gpu_count;
  }
  return id;
}

Node Cluster::make_node(PoolId pool, uint32_t slot, GpuId first_gpu) const {
  const PoolSpec::NodeSpec spec = pools_[pool].node(slot);
  assert((spec.gpus == 0 || (spec.topology && spec.topology->gpus() == spec.gpus)) && "a GPU node has a topology of its size");
  Node n;
  n.name = spec.name;
  n.pool = pool;
  n.topology = spec.topology.get();
  n.gpu_count = static_cast<uint16_t>(spec.gpus);
  n.first_gpu = first_gpu;
  n.cpu_milli = n.free_cpu_milli = spec.cpu_milli;
  n.memory_mib = n.free_memory_mib = spec.memory_mib;
  return n;
}

Gpu Cluster::make_gpu(const Pool& p, uint16_t index, NodeId node) {
  Gpu g;
  g.node = node;
  g.free_memory_mib = p.gpu ? p.gpu->memory_mib : 0;
  const SharingConfig& cfg = p.sharing;
  if (cfg.mode == Sharing::time_slicing || cfg.mode == Sharing::mps) g.slots = cfg.replicas;
  if (cfg.mode == Sharing::fractional) g.slots = kWholeGpu.value;  // shares limit it, not slots
  if (cfg.mode == Sharing::mig && index < cfg.mig_layouts.size() && cfg.mig_layouts[index]) {
    g.mig = true;
    g.partitionable = cfg.mig_partitionable;
    for (const MigInstance& in : *cfg.mig_layouts[index]) g.instances.push_back({in, kNoJob});
  }
  return g;
}

// Slots not built are all in template pools (node lists are built whole), so they share one shape.
Node Cluster::slot_node(NodeId n) const {
  if (has_node(n)) return nodes_[n];
  const auto pool = static_cast<PoolId>(
      std::upper_bound(pools_.begin(), pools_.end(), n, [](NodeId id, const Pool& p) { return id < p.first_node; }) -
      pools_.begin() - 1);
  const Pool& p = pools_[pool];
  const uint32_t slot = n - p.first_node;
  return make_node(pool, slot, static_cast<GpuId>(p.first_gpu + slot * p.gpus_per_node));
}

Gpu Cluster::slot_gpu(GpuId g) const {
  if (has_gpu(g)) return gpus_[g];
  const Pool& p = *(std::upper_bound(pools_.begin(), pools_.end(), g, [](GpuId id, const Pool& q) { return id < q.first_gpu; }) -
                    1);
  const uint32_t offset = g - p.first_gpu;
  return make_gpu(p, static_cast<uint16_t>(offset % p.gpus_per_node),
                  static_cast<NodeId>(p.first_node + offset / p.gpus_per_node));
}

std::size_t Cluster::SignatureHash::operator()(const Signature& s) const { return boost::hash_range(s.begin(), s.end()); }

// One word per GPU; MIG GPUs encode their instances (7 bits each: profile, start, busy).
int64_t Cluster::signature_word(const Gpu& gpu) {
  if (gpu.mig) {
    int64_t code = 0;
    // A partitionable GPU's slots are the same placements on every GPU of its pool: which are taken says all.
    for (const MigSlot& m : gpu.instances)
      code = gpu.partitionable ? code << 1 | (m.job != kNoJob)
                               : code << 7 | (m.instance.profile << 4 | m.instance.start << 1 | (m.job != kNoJob));
    return code | int64_t{1} << 62 | int64_t{gpu.reconfiguring} << 61 | static_cast<int64_t>(gpu.instances.size()) << 56 |
           int64_t{held_whole(gpu)} << 55;
  }
  return static_cast<int64_t>(gpu.free.value) << 51 | static_cast<int64_t>(gpu.free_slots() & 0x3FF) << 41 |
         (gpu.free_memory_mib & ((int64_t{1} << 41) - 1));
}

Cluster::Signature Cluster::signature(NodeId id) const {
  const Node& n = nodes_[id];
  Signature s{n.pool, n.free_cpu_milli, n.free_memory_mib};
  const std::size_t first = s.size();
  s.insert(s.end(), gpu_words_.begin() + n.first_gpu, gpu_words_.begin() + n.first_gpu + n.gpu_count);
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
  if (nodes_[id].ready()) ready_gpus_ -= nodes_[id].gpu_count;
  nodes_[id].state = state;
  if (state == NodeState::ready) {
    place_in_bucket(id);
    ready_gpus_ += nodes_[id].gpu_count;
  }
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
  reword(g);
}

void Cluster::detach(GpuId g, JobId job, const GpuClaim& c) {
  Gpu& gpu = gpus_[g];
  gpu.free += c.milli;
  gpu.free_memory_mib += c.reserve_mib;
  gpu.used_memory_mib -= c.footprint_mib;
  gpu.residents.erase(std::find(gpu.residents.begin(), gpu.residents.end(), job));
  if (c.instance) gpu.instances[*c.instance].job = kNoJob;
  reword(g);
}

void Cluster::start_layout(GpuId g, const MigLayout& layout) {
  Gpu& gpu = gpus_[g];
  gpu.instances.clear();
  for (const MigInstance& in : layout) gpu.instances.push_back({in, kNoJob});
  gpu.reconfiguring = true;
  reword(g);
}

void Cluster::finish_layout(GpuId g) {
  gpus_[g].reconfiguring = false;
  reword(g);
}

}  // namespace gpusim
