#include "gpusim/sim/serving_profile.hpp"

#include <algorithm>
#include <vector>

#include "gpusim/sim/time_slices.hpp"

namespace gpusim {

HardwareShare mig_share(const GpuModel& gpu, const MigProfile& p) {
  return {static_cast<double>(p.sms) / gpu.sms, static_cast<double>(p.memory_slices) / gpu.mig->memory_slices};
}

namespace {

// N identical MPS clients, always busy, each capped at the default active-thread share 1/N (integer
// percent, as the engine caps them): SMs as mps_rates shares them, bandwidth max-min fair.
HardwareShare mps_share(int32_t n, const MpsModel& m) {
  const std::size_t clients = static_cast<std::size_t>(n);
  const std::vector<double> busy(clients, 1.0), caps(clients, (100 / n) / 100.0);
  std::vector<double> rates(clients), bandwidth(clients);
  mps_rates(busy, busy, caps, m, rates);
  max_min_shares(busy, bandwidth);
  return {rates.front(), bandwidth.front()};
}

// The mean iteration of n identical replicas that iterate without pause, each step `work` of the GPU
// alone, taking turns as the serving module's replicas do (SliceRoundRobin): over the steps that end in
// the second half of a run of at least 200 steps each (the first half holds the start, when the first
// replica has not waited yet).
double ts_mean_iteration_s(Duration work, int32_t n, const TimeSlicingModel& ts) {
  const std::vector<SlicedContext> replicas(static_cast<std::size_t>(n), SlicedContext{work, Duration(), 1, Duration()});
  const Duration half = (work + ts.timeslice + ts.preempt_switch) * (100 * n);
  const std::vector<SlicedOutcome> first = round_robin(replicas, ts, half), both = round_robin(replicas, ts, half * 2);
  Duration busy;
  int64_t steps = 0;
  for (std::size_t i = 0; i < replicas.size(); ++i) {
    busy += both[i].busy - first[i].busy;
    steps += both[i].steps - first[i].steps;
  }
  return busy.seconds() / static_cast<double>(steps);
}

}  // namespace

StepProfile profile_step(const ServedModel& m, const GpuModel& gpu, int32_t tp, double link_bytes_per_s,
                         const ReplicaSharing& sharing, const BatchShape& shape, const ExecutionModel& model) {
  StepProfile p;
  using Kind = ReplicaSharing::Kind;
  if (sharing.kind == Kind::mig) p.share = mig_share(gpu, *sharing.profile);
  if (sharing.kind == Kind::mps) p.share = mps_share(sharing.replicas, model.mps);
  const ReplicaHardware hw{gpu.bf16_tflops * 1e12 * p.share.compute, gpu.memory_bandwidth_gb_per_s * 1e9 * p.share.bandwidth, tp,
                           link_bytes_per_s, &model.serving_efficiency(gpu)};
  p.visible_memory_mib = sharing.kind == Kind::mig ? sharing.profile->memory_mib : gpu.memory_mib / sharing.replicas;
  p.limits = default_engine_limits(gpu, p.visible_memory_mib, model.serving);
  const TimeSlicingModel& ts = model.time_slicing.of(gpu);
  p.kv = kv_capacity(m, p.visible_memory_mib, tp, p.limits, ts.context_memory_mib);
  p.terms = iteration_terms(m, hw, shape);
  p.iteration_s = p.terms.total();
  if (sharing.kind == Kind::time_slicing && sharing.replicas > 1) {  // alone, it never switches
    // As the serving module rounds a step to whole microseconds.
    const Duration work = std::max(Duration::from_us(1), Duration::from_seconds(p.iteration_s, Round::nearest));
    p.iteration_s = ts_mean_iteration_s(work, sharing.replicas, ts);
  }
  return p;
}

}  // namespace gpusim
