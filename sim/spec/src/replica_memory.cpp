#include "gpusim/sim/replica_memory.hpp"

#include <algorithm>
#include <cmath>

#include "gpusim/sim/fit.hpp"
#include "gpusim/sim/scenario.hpp"

namespace gpusim {

int64_t replica_memory_mib(const Request& q, const Pool& pool, const MigProfile* profile) {
  if (profile) return profile->memory_mib;
  if (pool.sharing.mode == Sharing::mps) return mps_memory_limit_mib(q, pool);
  if (q.gpu_memory_limit_mib > 0) return std::min(q.gpu_memory_limit_mib, pool.gpu->memory_mib);
  return pool.gpu->memory_mib;
}

EngineLimits engine_limits(const Scenario& s, const ServiceSpec& service, const GpuModel& gpu, int64_t visible_memory_mib) {
  EngineLimits l = default_engine_limits(gpu, visible_memory_mib, s.model.serving);
  // vLLM V0 without chunked prefill (SchedulerConfig): 256 sequences, and a batch that holds the longest prompt.
  if (!service.engine.enable_chunked_prefill) {
    l.max_num_seqs = 256;
    l.max_num_batched_tokens = std::max(service.model->max_model_len, 2048);
  }
  if (service.engine.max_num_batched_tokens) l.max_num_batched_tokens = *service.engine.max_num_batched_tokens;
  if (service.engine.max_num_seqs) l.max_num_seqs = *service.engine.max_num_seqs;
  if (service.engine.gpu_memory_utilization) l.gpu_memory_utilization = *service.engine.gpu_memory_utilization;
  return l;
}

int64_t replica_footprint_mib(const Scenario& s, const ServiceSpec& service, const Request& q, const Pool& pool) {
  const int64_t visible = replica_memory_mib(q, pool, nullptr);
  if (service.model->kind == ModelKind::fixed)
    return static_cast<int64_t>(std::ceil(service.model->weights_bytes() / (1024.0 * 1024.0))) +
           s.model.time_slicing.of(*pool.gpu).context_memory_mib;
  const EngineLimits limits = engine_limits(s, service, *pool.gpu, visible);
  return static_cast<int64_t>(std::floor(limits.gpu_memory_utilization * static_cast<double>(visible) + 1e-9));
}

const MigProfile* requested_profile(const Request& q, const GpuModel& gpu) {
  const std::string_view profile = partition_profile(*q.resource);
  if (!gpu.mig || profile.empty()) return nullptr;
  return gpu.mig->find(profile);
}

}  // namespace gpusim
