#include "gpusim/sim/power.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "gpusim/sim/gpu_entries.hpp"

namespace gpusim {

namespace {

// What the GPU would draw busy with `busy` at full clock (each fraction >= 0, their sum at most 1).
double demand_w(const GpuPower& p, const BoundMix& busy) {
  double total = 0, w = p.idle_high_w;
  for (double u : busy) total += std::max(0.0, u);
  const double scale = total > 1 ? 1 / total : 1;
  for (std::size_t b = 0; b < busy.size(); ++b) w += std::max(0.0, busy[b]) * scale * (p.busy_w[b] - p.idle_high_w);
  return w;
}

bool is_busy(const BoundMix& busy) {
  return std::any_of(busy.begin(), busy.end(), [](double u) { return u > 0; });
}

}  // namespace

GpuPower scale_to_tdp(const GpuPower& p, double entry_tdp_w, double tdp_w) {
  const double k = tdp_w / entry_tdp_w;
  GpuPower s = p;
  s.idle_low_w *= k;
  s.idle_high_w *= k;
  for (double& w : s.busy_w) w *= k;
  s.capped_w *= k;
  return s;
}

double gpu_power_w(const GpuPower& p, const BoundMix& busy, Duration idle_for) {
  if (!is_busy(busy)) return idle_for < p.clock_hold ? p.idle_high_w : p.idle_low_w;
  return std::min(demand_w(p, busy), p.capped_w);
}

double demand_above_idle_w(const GpuPower& p, const BoundMix& mix) {
  double w = 0;
  for (std::size_t b = 0; b < mix.size(); ++b) w += std::max(0.0, mix[b]) * (p.busy_w[b] - p.idle_high_w);
  return w;
}

double idle_energy_ws(const GpuPower& p, Duration idle_for, Duration span) {
  const Duration high = std::clamp(p.clock_hold - idle_for, Duration(), span);
  return p.idle_high_w * high.seconds() + p.idle_low_w * (span - high).seconds();
}

Throttle power_throttle(const GpuPower& p, const BoundMix& busy) {
  const double d = demand_w(p, busy);
  if (!is_busy(busy) || d <= p.capped_w) return {};
  const double clock = (p.capped_w - p.idle_high_w) / (d - p.idle_high_w);
  const double loss_per_clock = (1 - p.throttled_throughput) / (1 - p.throttled_clock);
  return {clock, 1 - (1 - clock) * loss_per_clock};
}

GpuPower limited_to(const GpuPower& p, double tdp_w, double limit_w) {
  GpuPower l = p;
  l.capped_w = p.capped_w * limit_w / tdp_w;
  return l;
}

double limit_speed(const GpuPower& p, const GpuPower& limited, const BoundMix& busy) {
  return power_throttle(limited, busy).throughput / power_throttle(p, busy).throughput;
}

double node_budget_w(const GpuPower& gpu, const HostPower& host, int gpus) { return gpus * gpu.idle_high_w + host.idle_w; }

double claim_budget_w(const GpuPower& gpu, const HostPower& host, int node_gpus, const BoundMix& mix) {
  const double gpu_w = std::min(demand_above_idle_w(gpu, mix), std::max(0.0, gpu.capped_w - gpu.idle_high_w));
  return gpu_w + (host.busy_w - host.idle_w) / std::max(1, node_gpus);
}

BoundMix PowerModel::serving_mix(double batch) const {
  if (serving_decode.empty()) return bound_by[static_cast<std::size_t>(JobKind::inference)];
  const Entry* base = nullptr;  // the last default entry: the one the points were measured on
  for (const Entry& e : entries)
    if (e.gpus.empty()) base = &e;
  if (!base) throw std::logic_error("power: serving_decode needs a default entry");
  const auto m = static_cast<std::size_t>(PowerBound::memory), t = static_cast<std::size_t>(PowerBound::tensor);
  const auto tensor_share = [&](const DecodePoint& p) {
    return std::clamp((p.power_w - base->power.busy_w[m]) / (base->power.busy_w[t] - base->power.busy_w[m]), 0.0, 1.0);
  };
  double share = tensor_share(serving_decode.front());
  const double x = std::log2(std::max(batch, 1.0));
  for (std::size_t i = 0; i + 1 < serving_decode.size(); ++i) {
    const double x0 = std::log2(serving_decode[i].batch), x1 = std::log2(serving_decode[i + 1].batch);
    if (x <= x0) break;
    const double y0 = tensor_share(serving_decode[i]), y1 = tensor_share(serving_decode[i + 1]);
    share = x >= x1 ? y1 : y0 + (y1 - y0) * (x - x0) / (x1 - x0);
  }
  BoundMix mix{};
  mix[t] = share;
  mix[m] = 1 - share;
  return mix;
}

GpuPower PowerModel::of(const GpuModel& gpu) const {
  const Entry* found = entry_for(entries, gpu);
  if (!found) throw std::logic_error("power: no entry applies to GPU " + gpu.name);
  return scale_to_tdp(found->power, found->tdp_w, gpu.tdp_w);
}

}  // namespace gpusim
