#pragma once
// Fit rules: does a request fit a pool, a node, a GPU or a MIG slice, and what does it
// hold there. One pure module: the engine validates bindings with it, the ClusterView answers the
// policies with it, and the autoscaler plans with it, so no two of them can disagree. The rules a
// placement asks for every GPU it looks at are defined here, inline; the rest in fit.cpp.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusim/core/units.hpp"
#include "gpusim/hardware/catalog.hpp"
#include "gpusim/sim/cluster.hpp"
#include "gpusim/sim/execution.hpp"
#include "gpusim/sim/node_placement.hpp"
#include "gpusim/workloads/job.hpp"

namespace gpusim {

// CPU and memory: what one pod asks, or what a node has free.
struct PodResources {
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
};
inline PodResources per_pod(const Request& q) { return {q.cpu_milli, q.memory_mib}; }
inline PodResources free_resources(const Node& n) { return {n.free_cpu_milli, n.free_memory_mib}; }

// Do `pods` pods of `need` each fit in `free`? (CPU and memory are per pod; Request::pods_on_node.)
constexpr bool pods_fit(PodResources need, int64_t pods, PodResources free) {
  return free.cpu_milli >= pods * need.cpu_milli && free.memory_mib >= pods * need.memory_mib;
}

// What one GPU of a job needs on a given pool (a share request takes a whole GPU on exclusive pools).
struct GpuDemand {
  Milli milli;
  int64_t memory_mib = 0;
};

// The device-plugin resource a request names ("" is nvidia.com/gpu).
inline std::string_view resource_name(const Request& q) {
  return q.resource->empty() ? kGpuResource : std::string_view(*q.resource);
}

// The MIG profile or AMD partition a request names (nvidia.com/mig-<profile>, amd.com/<compute>_<memory>), if any.
inline std::string_view mig_profile_name(const Request& q) { return partition_profile(*q.resource); }

// Does the request ask for a whole device, as the pool's device plugin names it (or name no resource)?
inline bool asks_whole_device(const Request& q, const SharingConfig& c) {
  return q.resource->empty() || *q.resource == c.device_resource;
}

// Does a DRA claim's device request accept device kind `kind` of `pool` (0: a whole GPU, 1 + i: MIG
// profile i)? Its selectors were evaluated once per pool (sim/dra.hpp); true for other requests.
inline bool selector_accepts(const Request& q, const PoolSpec& pool, std::size_t kind) {
  return q.device_selector == 0 || (pool.device_match[q.device_selector - 1u] >> kind & 1);
}

// Does a whole GPU of `pool` serve a capacity claim (SMs, DRA selector; memory is pool_refuses')?
inline bool whole_gpu_serves_claim(const Request& q, const PoolSpec& pool) {
  return pool.gpu->sms >= q.min_sms && selector_accepts(q, pool, 0);
}

// Does MIG profile `profile` of the pool's GPU serve the request (resource name or capacity claim, and memory)?
inline bool profile_serves(const Request& q, const PoolSpec& pool, std::size_t profile) {
  const MigProfile& p = pool.gpu->mig->profiles[profile];
  if (q.gpu_memory_mib > p.memory_mib) return false;
  if (q.claim) return p.sms >= q.min_sms && selector_accepts(q, pool, 1 + profile);
  if (pool.sharing.mig_strategy == MigStrategy::single) return asks_whole_device(q, pool.sharing);
  return mig_profile_name(q) == p.name;
}

// The MPS pinned-memory limit of one client and its active-thread fraction (docs/hardware.md#mps).
inline int64_t mps_memory_limit_mib(const Request& q, const Pool& pool) {
  return q.gpu_memory_limit_mib > 0 ? q.gpu_memory_limit_mib : pool.gpu->memory_mib / pool.sharing.replicas;
}
inline double mps_thread_fraction(const Request& q, const SharingConfig& c) {
  return (q.thread_percent > 0 ? q.thread_percent : 100 / c.replicas) / 100.0;
}

// The share of a GPU one MIG instance blocks: its memory slices over the GPU's.
inline Milli instance_milli(const MigTable& t, const MigProfile& p) { return Milli{p.memory_slices * 1000 / t.memory_slices}; }

// Why `pool` can never serve request `q` (GPU model, advertised resource, memory); nullopt if it can.
std::optional<std::string> pool_refuses(const Request& q, const Pool& pool, const Catalog& catalog);

// What one GPU of a job needs on a pool, for scoring (a share request takes a whole GPU on
// exclusive pools; a MIG request its profile, or for a claim the smallest profile that serves it).
inline GpuDemand demand_on(const Request& q, const Pool& pool) {
  const SharingConfig& c = pool.sharing;
  const int64_t memory = pool.gpu ? pool.gpu->memory_mib : 0;
  switch (c.mode) {
    case Sharing::exclusive: return {kWholeGpu, memory};
    case Sharing::fractional: return {q.milli_per_gpu, q.gpu_memory_mib};
    case Sharing::time_slicing: return {Milli{1000 / c.replicas}, q.gpu_memory_mib};
    case Sharing::mps: return {Milli{1000 / c.replicas}, mps_memory_limit_mib(q, pool)};
    case Sharing::mig: {
      const MigTable& t = *pool.gpu->mig;
      const MigProfile* best = nullptr;
      for (std::size_t i = 0; i < t.profiles.size(); ++i) {
        const MigProfile& p = t.profiles[i];
        if (profile_serves(q, pool, i) &&
            (!best || std::pair(p.memory_slices, p.sms) < std::pair(best->memory_slices, best->sms)))
          best = &p;
      }
      if (best && !(asks_whole_device(q, c) && c.mig_strategy == MigStrategy::mixed))
        return {instance_milli(t, *best), best->memory_mib};
      return {kWholeGpu, memory};
    }
  }
  return {kWholeGpu, memory};
}

// Would creating `instance` on partitionable `gpu` clash with the instances that exist there, or with
// the GPU held whole? NVIDIA's driver has each device consume counters of its GPU's counter set
// (partitions.go: one per memory slice, one per capacity such as multiprocessors; the whole GPU
// consumes all); the same limits are mig_conflict's geometry.
bool partition_conflicts(const MigTable& t, const Gpu& gpu, MigInstance instance);

// Does the request fit `gpu` of `pool` now (on slot `instance` of a MIG GPU, none otherwise)? The
// rule claim_on builds on, apart so that fit checks build no claim. Whether the node is ready, the
// pool allowed and the GPU not reconfiguring is the caller's to check.
inline bool fits_on(const Request& q, const Pool& pool, const Gpu& gpu, std::optional<MigSlotIndex> instance,
                    const TimeSlicingModels& ts) {
  const SharingConfig& c = pool.sharing;
  if (gpu.mig) {
    // A partitionable GPU also publishes itself whole: it fits an empty one (pool_refuses checked memory).
    if (!instance) return gpu.partitionable && gpu.residents.empty() && q.claim && whole_gpu_serves_claim(q, pool);
    if (*instance >= gpu.instances.size()) return false;
    const MigSlot& slot = gpu.instances[*instance];
    return slot.job == kNoJob && profile_serves(q, pool, slot.instance.profile) &&
           !(gpu.partitionable && partition_conflicts(*pool.gpu->mig, gpu, slot.instance));
  }
  if (instance) return false;
  switch (c.mode) {
    case Sharing::exclusive:
    case Sharing::mig:  // a GPU with MIG off is a whole GPU
      if (!gpu.residents.empty() || (c.mode == Sharing::mig && !asks_whole_device(q, c))) return false;
      return !(q.claim && !whole_gpu_serves_claim(q, pool));
    case Sharing::fractional: return !(gpu.free < q.milli_per_gpu) && gpu.free_memory_mib >= q.gpu_memory_mib;
    case Sharing::time_slicing:
      return std::min(c.replicas, ts.of(*pool.gpu).max_contexts) > static_cast<int>(gpu.residents.size());
    case Sharing::mps: return gpu.free_slots() > 0 && gpu.free_memory_mib >= mps_memory_limit_mib(q, pool);
  }
  return false;
}

// What the request would hold on `gpu` of `pool` (on slot `instance` of a MIG GPU, none otherwise),
// or nullopt if it does not fit there now (fits_on).
inline std::optional<GpuClaim> claim_on(const Request& q, const Pool& pool, const Gpu& gpu, std::optional<MigSlotIndex> instance,
                                        const TimeSlicingModels& ts) {
  if (!fits_on(q, pool, gpu, instance, ts)) return std::nullopt;
  const SharingConfig& c = pool.sharing;
  if (gpu.mig) {
    if (!instance) return GpuClaim{kWholeGpu, 0, 0, std::nullopt};  // a partitionable GPU held whole
    const MigProfile& p = pool.gpu->mig->profiles[gpu.instances[*instance].instance.profile];
    return GpuClaim{instance_milli(*pool.gpu->mig, p), 0, 0, instance};
  }
  switch (c.mode) {
    case Sharing::exclusive:
    case Sharing::mig: return GpuClaim{kWholeGpu, 0, 0, std::nullopt};
    case Sharing::fractional: return GpuClaim{q.milli_per_gpu, q.gpu_memory_mib, 0, std::nullopt};
    case Sharing::time_slicing: {
      // No memory isolation: nothing is reserved; what the job uses counts toward the GPU's total,
      // capped by the pod's own limit, which then covers its CUDA context too.
      const int64_t use = q.gpu_memory_mib + ts.of(*pool.gpu).context_memory_mib;
      return GpuClaim{Milli{1000 / c.replicas}, 0, q.gpu_memory_limit_mib > 0 ? std::min(use, q.gpu_memory_limit_mib) : use,
                      std::nullopt};
    }
    case Sharing::mps: return GpuClaim{Milli{1000 / c.replicas}, mps_memory_limit_mib(q, pool), 0, std::nullopt};
  }
  return std::nullopt;
}

// Where a job runs: the nodes it occupies (CPU and memory are taken on each), its GPUs, and on
// MIG-enabled GPUs the instance (slot index into Gpu::instances) it takes, parallel to `gpus`
// (none for GPUs without MIG; may be left empty when none of the GPUs has MIG).
struct Placement {
  std::vector<NodeId> nodes;
  std::vector<GpuId> gpus;
  std::vector<std::optional<MigSlotIndex>> instances;
};

// What Binder::bind checks a placement against, besides the cluster.
struct PlacementRules {
  int32_t gpus_to_place = 0;        // all the job still lacks, or one worker's
  const Placement* held = nullptr;  // what it holds already (workers placed one at a time)
  std::size_t held_gpus = 0;
  uint64_t pool_mask = 0;  // the pools it may use
  // What the job would hold on a GPU (on a MIG slot), or nullopt if it does not fit there now.
  std::function<std::optional<GpuClaim>(GpuId, std::optional<MigSlotIndex>)> claim;
};

// Binder::bind's rules: why placement `p` of job `j` is invalid on `c` now (the rule broken, as the
// policy error names it), or nullopt with `claims` what it takes on each of p.gpus.
std::optional<std::string> placement_error(const Cluster& c, const Job& j, const Placement& p, const PlacementRules& rules,
                                           std::vector<GpuClaim>& claims);
// Binder::reconfigure's rules: why GPU `g` cannot take `layout` now, or nullopt with `checked` the
// layout ordered by start.
std::optional<std::string> layout_error(const Cluster& c, GpuId g, const MigLayout& layout, MigLayout& checked);

// Which pools a request may use, and whether an empty cluster could ever hold it.
struct RequestShape {
  uint64_t pool_mask = 0;
  std::optional<std::string> never_fits;    // why no node of the cluster could ever hold it
  std::vector<PoolPreference> preferences;  // per pool, from the pod's node rules; empty: none
};
// `rules`: the pod's node rules (taints, selectors and affinity also decide the pools it may use).
// Only the pools of `allowed` are considered (a Kueue flavor's; all by default).
RequestShape analyse(const Request& q, bool multi_node, const Cluster& c, const Catalog& catalog,
                     const NodeRules& rules = Interned<NodeRules>().get(), uint64_t allowed = ~uint64_t{0});

// Jobs with equal requests and node rules behave alike in every fit check; they share a shape id.
class Shapes {
 public:
  Shapes(const JobSet& jobs, const Cluster& c, const Catalog& catalog);
  uint32_t of(JobId j) const { return of_job_[j]; }
  const RequestShape& get(uint32_t s) const { return shapes_[s]; }
  const RequestShape& of_job(JobId j) const { return shapes_[of_job_[j]]; }
  uint32_t count() const { return static_cast<uint32_t>(shapes_.size()); }
  // The shape of `base` restricted to the pools of `pool_mask` (a Kueue flavor's), added when new:
  // a job admitted to a flavor may use its pools only, and jobs alike in their request and flavor
  // share fit caches. Call before the run, as policies may size tables by count().
  uint32_t restricted(uint32_t base, const JobSet& jobs, const Job& j, uint64_t pool_mask, const Cluster& c,
                      const Catalog& catalog);
  // The job's shape from now on (a variant of its request's: restricted()).
  void assign(JobId j, uint32_t shape) { of_job_[j] = shape; }

 private:
  std::vector<uint32_t> of_job_;
  std::vector<RequestShape> shapes_;
  std::map<std::pair<uint32_t, uint64_t>, uint32_t> restricted_;  // (base shape, pool mask) -> shape
};

}  // namespace gpusim
