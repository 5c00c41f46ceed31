#pragma once
// What a service's replica needs of a device (docs/guide/services.md): the memory its engine sees,
// vLLM's limits there, and what it takes of a GPU that isolates no memory. The world checks every
// service's model against them before a run; the serving module claims by them.
#include <cstdint>

#include "gpusim/sim/cluster.hpp"
#include "gpusim/sim/serving_model.hpp"
#include "gpusim/workloads/job.hpp"

namespace gpusim {

struct Scenario;
struct ServiceSpec;

// The device memory a replica's engine sees on a GPU of `pool` (on MIG instance `profile`, if any):
// the instance's, the MPS pinned limit, the pod's own GPU memory limit, else the whole GPU's.
int64_t replica_memory_mib(const Request& q, const Pool& pool, const MigProfile* profile);
// The vLLM engine limits of a replica of `service` on a device of `gpu` showing `visible_memory_mib`:
// vLLM's defaults for the device, model.serving's, then the service's own settings.
EngineLimits engine_limits(const Scenario& s, const ServiceSpec& service, const GpuModel& gpu, int64_t visible_memory_mib);
// What a replica of `service` takes of a GPU of time-slicing `pool`, which isolates no memory: a vLLM
// engine its gpu_memory_utilization of the memory it sees (its CUDA context included); a fixed-time
// model its weights and its context. Past the GPU's memory, every job on it dies (the OOM blast radius).
int64_t replica_footprint_mib(const Scenario& s, const ServiceSpec& service, const Request& q, const Pool& pool);
// The MIG profile a replica's request names (nvidia.com/mig-<profile>) on `gpu`, or null.
const MigProfile* requested_profile(const Request& q, const GpuModel& gpu);

}  // namespace gpusim
