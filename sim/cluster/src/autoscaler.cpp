#include "gpusim/sim/autoscaler.hpp"

#include <algorithm>
#include <limits>

#include "gpusim/sim/fit.hpp"

namespace gpusim {

ScaleUpPlan::VirtualNode ScaleUpPlan::empty_node(const NodeShape& shape) {
  const auto gpus = static_cast<std::size_t>(shape.gpus);
  VirtualNode n;
  n.free_milli.assign(gpus, kWholeGpu.value);
  n.free_gpu_memory.assign(gpus, shape.gpu_memory_mib);
  n.cpu_milli = shape.cpu_milli;
  n.memory_mib = shape.memory_mib;
  return n;
}

void ScaleUpPlan::add_pool(PoolId pool, NodeShape shape, uint32_t on_the_way, uint32_t headroom, double price_per_gpu_hour_usd) {
  pools_.push_back({pool, shape, headroom, 0, price_per_gpu_hour_usd, std::vector<VirtualNode>(on_the_way, empty_node(shape))});
}

void ScaleUpPlan::add_free_node(PoolId pool, const std::vector<int32_t>& free_milli,
                                const std::vector<int64_t>& free_gpu_memory_mib, int64_t cpu_milli, int64_t memory_mib) {
  VirtualNode n;
  n.free_milli.assign(free_milli.begin(), free_milli.end());
  n.free_gpu_memory.assign(free_gpu_memory_mib.begin(), free_gpu_memory_mib.end());
  n.cpu_milli = cpu_milli;
  n.memory_mib = memory_mib;
  find(pool)->nodes.push_back(std::move(n));
}

ScaleUpPlan::PoolPlan* ScaleUpPlan::find(PoolId pool) {
  for (PoolPlan& p : pools_)
    if (p.pool == pool) return &p;
  return nullptr;
}

uint32_t ScaleUpPlan::added(PoolId pool) const {
  for (const PoolPlan& p : pools_)
    if (p.pool == pool) return p.added;
  return 0;
}

bool ScaleUpPlan::fit(PoolPlan& plan, const PodDemand& d) {
  if (d.gpus == 0) {
    for (VirtualNode& n : plan.nodes)
      if (pods_fit({d.cpu_milli, d.memory_mib}, 1, {n.cpu_milli, n.memory_mib})) {
        n.cpu_milli -= d.cpu_milli;
        n.memory_mib -= d.memory_mib;
        return true;
      }
    return false;
  }
  // Can GPU g of a node take one of the demand's GPUs?
  const auto fits = [&](const VirtualNode& n, std::size_t g) {
    return n.free_milli[g] >= d.milli.value && n.free_gpu_memory[g] >= d.gpu_memory_mib;
  };
  // Pods of the job on a node holding `gpus` of its GPUs (as Request::pods_on_node).
  const auto pods = [&](int32_t gpus) -> int64_t { return d.per_worker ? gpus / d.unit : 1; };
  // The GPUs (whole units) a node can take, with CPU and memory for their pods.
  const auto takes = [&](const VirtualNode& n, int32_t wanted) {
    int32_t free = 0;
    for (std::size_t g = 0; g < n.free_milli.size(); ++g) free += fits(n, g);
    int32_t take = std::min<int32_t>(free / d.unit * d.unit, wanted);
    while (take > 0 && !pods_fit({d.cpu_milli, d.memory_mib}, pods(take), {n.cpu_milli, n.memory_mib})) take -= d.unit;
    return take;
  };
  std::vector<std::pair<std::size_t, int32_t>> chosen;  // node, GPUs taken there
  int32_t left = d.gpus;
  for (std::size_t i = 0; i < plan.nodes.size() && left > 0; ++i) {
    const int32_t t = takes(plan.nodes[i], left);
    if (t <= 0 || (!d.multi_node && t < d.gpus)) continue;
    chosen.emplace_back(i, t);
    left -= t;
  }
  if (left > 0) return false;
  for (const auto& [index, count] : chosen) {
    VirtualNode& n = plan.nodes[index];
    int32_t taken = 0;
    for (std::size_t g = 0; g < n.free_milli.size() && taken < count; ++g)
      if (fits(n, g)) {
        n.free_milli[g] -= d.milli.value;
        n.free_gpu_memory[g] -= d.gpu_memory_mib;
        ++taken;
      }
    n.cpu_milli -= pods(count) * d.cpu_milli;
    n.memory_mib -= pods(count) * d.memory_mib;
  }
  return true;
}

void ScaleUpPlan::set_power(PoolId pool, int budget, int64_t node_mw) {
  PoolPlan* p = find(pool);
  p->budget = budget;
  p->node_mw = node_mw;
}

int64_t ScaleUpPlan::room(const PoolPlan& p) const {
  return p.budget < 0 ? std::numeric_limits<int64_t>::max() : room_mw_[static_cast<std::size_t>(p.budget)];
}

ScaleUp ScaleUpPlan::place(const std::vector<PodDemand>& options) {
  bool short_of_power = false;
  // Takes `mw` from the pool's budget, if it has one.
  const auto take = [&](const PoolPlan& p, int64_t mw) {
    if (p.budget >= 0) room_mw_[static_cast<std::size_t>(p.budget)] -= mw;
  };
  for (const PodDemand& d : options) {
    PoolPlan* p = find(d.pool);
    if (!p) continue;
    if (d.power_mw <= room(*p) && fit(*p, d)) {
      take(*p, d.power_mw);
      return ScaleUp::placed;
    }
  }
  // New nodes: the cheapest pool that has room for as many as the job needs.
  std::vector<const PodDemand*> order;
  order.reserve(options.size());
  for (const PodDemand& d : options) order.push_back(&d);
  std::stable_sort(order.begin(), order.end(),
                   [&](const PodDemand* a, const PodDemand* b) { return find(a->pool)->price < find(b->pool)->price; });
  for (const PodDemand* d : order) {
    PoolPlan* p = find(d->pool);
    if (!p || p->headroom == 0) continue;
    const std::size_t before = p->nodes.size();
    uint32_t added = 0;
    while (added < p->headroom) {
      if (static_cast<int64_t>(added + 1) * p->node_mw + d->power_mw > room(*p)) {
        short_of_power = true;
        break;
      }
      p->nodes.push_back(empty_node(p->shape));
      ++added;
      if (fit(*p, *d)) {
        p->headroom -= added;
        p->added += added;
        take(*p, static_cast<int64_t>(added) * p->node_mw + d->power_mw);
        return ScaleUp::placed;
      }
      if (!d->multi_node) break;  // one fresh node is all a single-node job can use
    }
    p->nodes.resize(before);
  }
  return short_of_power ? ScaleUp::no_power : ScaleUp::no_room;
}

PodDemand pod_demand(const Request& q, bool multi_node, const Pool& pool, PoolId p) {
  const GpuDemand d = demand_on(q, pool);
  return {p,         q.gpus, d.milli, q.gpu_memory_mib, q.cpu_milli, q.memory_mib, std::max(1, q.worker_gpus), q.worker_gpus > 0,
          multi_node};
}

void ScaleUpPlan::add_pool(const Cluster& c, PoolId p, uint32_t on_the_way, uint32_t headroom, double price_per_gpu_hour_usd) {
  const Pool& pool = c.pool(p);
  const PoolSpec::NodeSpec& shape = pool.nodes.front();
  add_pool(p, {shape.gpus, pool.gpu ? pool.gpu->memory_mib : 0, shape.cpu_milli, shape.memory_mib}, on_the_way, headroom,
           price_per_gpu_hour_usd);
  std::vector<int32_t> milli;
  std::vector<int64_t> memory;
  for (NodeId n = pool.first_node; n < pool.first_node + pool.built; ++n) {
    const Node& node = c.node(n);
    if (!node.ready()) continue;
    milli.clear();
    memory.clear();
    bool room = node.gpu_count == 0;
    for (GpuId g = node.first_gpu; g < node.first_gpu + node.gpu_count; ++g) {
      const Gpu& gpu = c.gpu(g);
      // A shared GPU has room only while it has a free slot (replicas) and no reconfiguration.
      const bool open = !gpu.reconfiguring && gpu.free_slots() > 0 && !gpu.mig && gpu.free.value > 0;
      milli.push_back(open ? gpu.free.value : 0);
      memory.push_back(open ? gpu.free_memory_mib : 0);
      room = room || open;
    }
    if (room) add_free_node(p, milli, memory, node.free_cpu_milli, node.free_memory_mib);  // full nodes add nothing
  }
}

}  // namespace gpusim
