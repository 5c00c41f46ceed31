#pragma once
// Fit rules (DESIGN §2): does a request fit a pool, a node, a GPU or a MIG slice, and what does it
// hold there. One pure module: the engine validates bindings with it, the ClusterView answers the
// policies with it, and the autoscaler plans with it, so no two of them can disagree.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusim/core/units.hpp"
#include "gpusim/hardware/catalog.hpp"
#include "gpusim/sim/cluster.hpp"
#include "gpusim/workloads/job.hpp"

namespace gpusim {

struct TimeSlicingModel;

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
std::string_view resource_name(const Request& q);

// Does a MIG profile serve the request (resource name or capacity claim, and memory)?
bool profile_serves(const Request& q, const SharingConfig& c, const MigProfile& p);

// The MPS pinned-memory limit of one client and its active-thread fraction (hardware.md §3).
int64_t mps_memory_limit_mib(const Request& q, const Pool& pool);
double mps_thread_fraction(const Request& q, const SharingConfig& c);

// The share of a GPU one MIG instance blocks: its memory slices over the GPU's.
Milli instance_milli(const MigTable& t, const MigProfile& p);

// Why `pool` can never serve request `q` (GPU model, advertised resource, memory); nullopt if it can.
std::optional<std::string> pool_refuses(const Request& q, const Pool& pool, const Catalog& catalog);

// What one GPU of a job needs on a pool, for scoring (a share request takes a whole GPU on
// exclusive pools; a MIG request its profile, or for a claim the smallest profile that serves it).
GpuDemand demand_on(const Request& q, const Pool& pool);

// What the request would hold on `gpu` of `pool` (on slot `instance` of a MIG GPU, else -1), or
// nullopt if it does not fit there now. Whether the node is ready and the pool allowed is the
// caller's to check.
std::optional<GpuClaim> claim_on(const Request& q, const Pool& pool, const Gpu& gpu, int instance, const TimeSlicingModel& ts);

// Which pools a request may use, and whether an empty cluster could ever hold it.
struct RequestShape {
  uint64_t pool_mask = 0;
  std::optional<std::string> never_fits;  // why no node of the cluster could ever hold it
};
RequestShape analyse(const Request& q, bool multi_node, const Cluster& c, const Catalog& catalog);

// Jobs with equal requests behave alike in every fit check; they share a shape id.
class Shapes {
 public:
  Shapes(const JobSet& jobs, const Cluster& c, const Catalog& catalog);
  uint32_t of(JobId j) const { return of_job_[j]; }
  const RequestShape& get(uint32_t s) const { return shapes_[s]; }
  const RequestShape& of_job(JobId j) const { return shapes_[of_job_[j]]; }
  uint32_t count() const { return static_cast<uint32_t>(shapes_.size()); }

 private:
  std::vector<uint32_t> of_job_;
  std::vector<RequestShape> shapes_;
};

}  // namespace gpusim
