#include "gpusim/sim/serving_model.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string_view>

#include "gpusim/core/ascii.hpp"
#include "gpusim/sim/execution.hpp"
#include "gpusim/sim/gpu_entries.hpp"

namespace gpusim {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

}  // namespace

const ServingEfficiency& ServingModel::efficiency_of(const GpuModel& gpu) const {
  const Entry* found = entry_for(efficiency, gpu);
  if (!found) throw std::logic_error("serving: no efficiency entry applies to GPU " + gpu.name);
  return found->efficiency;
}

BatchShape decode_shape(int64_t sequences, int64_t cached) {
  return {sequences, static_cast<double>(sequences) * (static_cast<double>(cached) + 0.5), sequences * (cached + 1)};
}

BatchShape prefill_shape(int64_t tokens) {
  return {tokens, static_cast<double>(tokens) * (static_cast<double>(tokens) / 2.0), tokens};
}

IterationModel::IterationModel(const ServedModel& m, const ReplicaHardware& hw) {
  const ServingEfficiency& e = *hw.eff;
  const double n = hw.tp;
  // Each factor is grouped as the formula reads left to right, so that every term rounds as it always did.
  two_params = 2.0 * static_cast<double>(m.params);
  compute_div = n * hw.flops_per_s * e.e_flops;
  weights_per_gpu = m.weights_bytes() / n;
  kv_per_token = m.kv_bytes_per_token(hw.tp);
  memory_div = hw.bytes_per_s * e.e_bw;
  attention_flops = 4.0 * m.layers * m.heads * m.head_dim;
  attention_div = n * hw.flops_per_s * e.e_attn;
  tensor_parallel = hw.tp > 1;
  if (tensor_parallel) {
    two_layers = 2.0 * m.layers;
    ar_latency = 2.0 * (n - 1) * e.alpha_s;
    hidden = m.hidden;
    ar_div = e.e_link * hw.link_bytes_per_s;
    ring = 2.0 * (n - 1) / n;
  }
  overhead = (tensor_parallel ? e.overhead_tp : e.overhead_tp1).seconds();
}

IterationTerms IterationModel::terms(const BatchShape& b) const {
  const double tokens = static_cast<double>(b.tokens);
  IterationTerms t;
  t.compute = two_params * tokens / compute_div;
  t.memory = (weights_per_gpu + kv_per_token * static_cast<double>(b.kv_tokens)) / memory_div;
  t.attention = attention_flops * b.attention / attention_div;
  if (tensor_parallel) t.all_reduce = two_layers * (ar_latency + tokens * hidden * kActivationBytes / ar_div * ring);
  t.overhead = overhead;
  return t;
}

IterationTerms iteration_terms(const ServedModel& m, const ReplicaHardware& hw, const BatchShape& b) {
  return IterationModel(m, hw).terms(b);
}

double iteration_time_s(const ServedModel& m, const ReplicaHardware& hw, const BatchShape& b) {
  return iteration_terms(m, hw, b).total();
}

double fixed_batch_time_s(const ServedModel& m, const ReplicaHardware& hw, double reference_flops_per_s, int32_t batch) {
  const double batch_factor = 1.0 + m.batch_alpha * (batch - 1);
  return m.service_time.seconds() * batch_factor * reference_flops_per_s / (hw.flops_per_s * hw.eff->e_flops);
}

EngineLimits default_engine_limits(const GpuModel& gpu, int64_t visible_memory_mib) {
  // vLLM: `device_memory >= 70 * GiB and "a100" not in device_name` ("H100 and MI300x").
  const std::string lower = ascii_lower(gpu.name);
  EngineLimits l;
  if (visible_memory_mib >= 70 * 1024 && lower.find("a100") == std::string::npos) {
    l.max_num_batched_tokens = 8192;
    l.max_num_seqs = 1024;
  }
  return l;
}

EngineLimits default_engine_limits(const GpuModel& gpu, int64_t visible_memory_mib, const ServingModel& serving) {
  EngineLimits l = default_engine_limits(gpu, visible_memory_mib);
  l.block_size = serving.block_size;
  l.gpu_memory_utilization = serving.gpu_memory_utilization;
  return l;
}

KvCapacity kv_capacity(const ServedModel& m, int64_t visible_memory_mib, int32_t tp, const EngineLimits& l,
                       int64_t context_memory_mib) {
  KvCapacity c;
  // The epsilon keeps 0.9 x 81,920 at 73,728 whichever way the product rounds.
  c.budget_mib = static_cast<int64_t>(std::floor(l.gpu_memory_utilization * static_cast<double>(visible_memory_mib) + 1e-9));
  const double weights = m.weights_bytes() / tp;
  const double activation = static_cast<double>(l.max_num_batched_tokens) * (2.0 * m.intermediate / tp + 4.0 * m.hidden) * 2.0 +
                            static_cast<double>(l.max_num_seqs) * m.vocab * 4.0;
  const double reserve = static_cast<double>(context_memory_mib) * kMiB + activation;
  const double kv = static_cast<double>(c.budget_mib) * kMiB - weights - reserve;
  c.weights_mib = std::llround(weights / kMiB);
  c.reserve_mib = std::llround(reserve / kMiB);
  c.kv_mib = static_cast<int64_t>(std::floor(kv / kMiB));
  c.blocks = static_cast<int64_t>(std::floor(kv / (l.block_size * m.kv_bytes_per_token(tp))));
  return c;
}

void max_min_shares(std::span<const double> demands, std::span<double> out) { max_min_fair(demands, 1.0, out); }

}  // namespace gpusim
