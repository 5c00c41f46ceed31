#pragma once
// Failures of shared GPUs (docs/guide/sharing.md): time-sliced GPUs isolate no memory, so when their
// residents together outgrow it all of them die (the OOM blast radius, checked once a decision pass
// has started everything); MPS clients fault at model.mps.fault_rate_per_hour, and a fault takes
// down every client of the GPU. This component says when; the engine kills.
#include <optional>
#include <vector>

#include "gpusim/core/random.hpp"
#include "gpusim/core/time.hpp"
#include "gpusim/sim/cluster.hpp"

namespace gpusim {

struct MpsModel;

class GpuFaults {
 public:
  explicit GpuFaults(uint64_t seed) : rng_(make_stream(seed, "mps-faults")) {}
  // A job started on `gpus`, on nodes of `pool` (its first node's): how long until its MPS fault, if it is an MPS client
  // and faults are modelled; its time-sliced GPUs are checked at the end of the pass.
  std::optional<Duration> started(const Cluster& c, const Pool& pool, const std::vector<GpuId>& gpus, const MpsModel& mps);
  // The time-sliced GPUs started on since the last call, ascending, each once.
  std::vector<GpuId>& to_check();
  static bool out_of_memory(const Cluster& c, GpuId g) {
    return c.gpu(g).used_memory_mib > c.pool_of(c.gpu(g).node).gpu->memory_mib;
  }

 private:
  Rng rng_;
  std::vector<GpuId> check_;
};

}  // namespace gpusim
