#pragma once
// What the serving model predicts for one replica's step (`gpusim serving profile`,
// docs/serving.md#profile): the functions the serving module runs replicas with, applied to a replica
// described by hand, for users sizing a deployment and for checks.
#include <cstdint>

#include "gpusim/core/time.hpp"
#include "gpusim/hardware/catalog.hpp"
#include "gpusim/sim/execution.hpp"
#include "gpusim/sim/serving_model.hpp"
#include "gpusim/workloads/served_model.hpp"

namespace gpusim {

// The part of a GPU's peak compute and memory bandwidth a replica has.
struct HardwareShare {
  double compute = 1, bandwidth = 1;
};

// On MIG instance `p`: its SMs and its memory slices' share of the bandwidth, whatever its neighbours do.
HardwareShare mig_share(const GpuModel& gpu, const MigProfile& p);

// How a profiled replica shares its GPU(s): alone, on a MIG instance, or with `replicas - 1` identical
// replicas that all iterate without pause (time-slicing, or MPS with its default active-thread share 1/N).
struct ReplicaSharing {
  enum class Kind : uint8_t { whole, mig, time_slicing, mps };
  Kind kind = Kind::whole;
  const MigProfile* profile = nullptr;  // kind mig
  int32_t replicas = 1;                 // kinds time_slicing and mps
};

struct StepProfile {
  HardwareShare share;
  IterationTerms terms;    // on the replica's share of compute and bandwidth
  double iteration_s = 0;  // terms.total(), plus time-slicing's waits for the other replicas' turns
  // The memory its engine sees (a MIG instance's; 1/N of the GPU's when N replicas share it, as their
  // memory limits or gpu_memory_utilization must make it), vLLM's defaults there, and the KV cache
  // that leaves on each GPU (kv_capacity; blocks <= 0: the weights do not fit).
  int64_t visible_memory_mib = 0;
  EngineLimits limits;
  KvCapacity kv;
  int64_t kv_tokens() const { return kv.blocks * limits.block_size; }
  double share_s() const { return iteration_s - terms.total(); }
};

// One step of `shape` for a replica of `m` on `gpu` x tp (ring bottleneck `link_bytes_per_s` when tp > 1).
StepProfile profile_step(const ServedModel& m, const GpuModel& gpu, int32_t tp, double link_bytes_per_s,
                         const ReplicaSharing& sharing, const BatchShape& shape, const ExecutionModel& model);

}  // namespace gpusim
