#include "gpusim/sim/metrics.hpp"

#include <algorithm>
#include <numeric>

namespace gpusim {

Metrics::Metrics(std::size_t pools, std::size_t tenants, std::size_t gpus, Duration step, LowUtilizationAlert alert)
    : tenants_(tenants),
      step_(step),
      alert_(alert),
      allocated_milli_(pools, 0),
      busy_gpus_(pools, 0.0),
      tenant_milli_(pools * tenants, 0),
      allocated_milli_us_(pools, 0.0),
      busy_(pools),
      tenant_milli_us_(pools * tenants, 0.0),
      pools_(pools),
      gpu_busy_(gpus),
      gpu_draw_(gpus) {}

void Metrics::advance(Time now, uint32_t running, uint32_t pending) {
  if (now <= reached_) return;
  while (next_sample_ < now) {
    Sample x{next_sample_, running, pending, 0, 0, 0, 0, 0, {}};
    x.gpus_allocated = static_cast<double>(std::accumulate(allocated_milli_.begin(), allocated_milli_.end(), int64_t{0})) /
                       1000.0;
    x.gpus_busy = std::accumulate(busy_gpus_.begin(), busy_gpus_.end(), 0.0);
    for (std::size_t i = 0; i < pools_.size(); ++i) {
      const PoolLedger& p = pools_[i];
      x.pools.push_back({static_cast<double>(allocated_milli_[i]) / 1000.0, busy_gpus_[i], static_cast<uint32_t>(p.ready_gpus),
                         static_cast<uint32_t>(p.billed_nodes)});
      x.gpus_ready += static_cast<uint32_t>(p.ready_gpus);
      x.nodes_billed += static_cast<uint32_t>(p.billed_nodes);
      x.cost_per_hour_usd += p.billed_nodes * p.per_node_hour_usd;
    }
    // Power: each pool's facility energy since the last sample over the step (the GPUs brought to the
    // sample's time; every change after it comes later, in order).
    if (!power_.empty()) {
      std::vector<double> ws;
      pool_energy_at(next_sample_, ws);
      sampled_ws_.resize(ws.size(), 0.0);
      for (std::size_t i = 0; i < ws.size(); ++i) {
        if (next_sample_ > Time()) x.pools[i].power_kw = (ws[i] - sampled_ws_[i]) / step_.seconds() / 1e3;
        sampled_ws_[i] = ws[i];
      }
    }
    samples_.push_back(x);
    next_sample_ += step_;
  }
  reached_ = now;
}

void Metrics::settle() {
  if (reached_ <= last_) return;
  const Time now = reached_;
  const double dt = static_cast<double>((now - last_).us());
  const double dt_hours = (now - last_).hours();
  for (std::size_t i = 0; i < pools_.size(); ++i) {
    PoolLedger& p = pools_[i];
    const double allocated_gpus = static_cast<double>(allocated_milli_[i]) / 1000.0;
    // The alert looks at the utilization that held over [last, now).
    const bool low = p.ready_gpus > 0 && busy_gpus_[i] < alert_.threshold * p.ready_gpus;
    if (low && !p.in_window) {
      p.in_window = true;
      p.window_start = last_;
      p.window_busy = p.window_capacity = GpuTime();
      p.window_cost_usd = 0;
    } else if (!low && p.in_window) {
      close_window(static_cast<PoolId>(i), last_);
    }
    const double cost = p.billed_nodes * p.per_node_hour_usd * dt_hours;
    if (p.in_window) {
      p.window_busy += GpuTime::from_us(busy_gpus_[i] * dt);
      p.window_capacity += GpuTime::from_us(p.ready_gpus * dt);
      p.window_cost_usd += cost;
    }
    allocated_milli_us_[i] += static_cast<double>(allocated_milli_[i]) * dt;
    busy_[i] += GpuTime::from_us(busy_gpus_[i] * dt);
    p.capacity += GpuTime::from_us(p.ready_gpus * dt);
    p.billed += NodeTime::from_us(p.billed_nodes * dt);
    if (i < power_.size() && !power_[i].has_gpus)  // a GPU-less pool's hosts: their billed time, weighed
      for (std::size_t k = 0; k < kEnergyFactors; ++k)
        if (const StepSeries* f = power_[i].factors[k]) p.billed_f[k] += p.billed_nodes * (f->integral(now) - f->integral(last_));
    p.cost_usd += cost;
    p.allocated_cost_usd += allocated_gpus * p.per_gpu_hour_usd * dt_hours;
    p.busy_cost_usd += busy_gpus_[i] * p.per_gpu_hour_usd * dt_hours;
    p.price_integral_usd += p.per_gpu_hour_usd * dt_hours;
  }
  for (std::size_t i = 0; i < tenant_milli_.size(); ++i)
    if (tenant_milli_[i] != 0) tenant_milli_us_[i] += static_cast<double>(tenant_milli_[i]) * dt;
  last_ = now;
}

void Metrics::pool_energy_at(Time t, std::vector<double>& out) const {
  out.assign(pools_.size(), 0.0);
  for (GpuId g : powered_gpus_) {
    const GpuDraw d = brought(g, t, false);
    out[d.pool] += (d.gpu_ws + d.host_ws) * power_[d.pool].pue;
  }
  for (std::size_t p = 0; p < power_.size(); ++p)
    if (!power_[p].has_gpus)
      out[p] = power_[p].pue * power_[p].host.idle_w *
               (pools_[p].billed.us() + pools_[p].billed_nodes * static_cast<double>((t - last_).us())) / 1e6;
}

void Metrics::close_window(PoolId pool, Time end) {
  PoolLedger& p = pools_[pool];
  p.in_window = false;
  if (end - p.window_start < alert_.min_duration) return;
  windows_.push_back({pool, p.window_start, end, p.window_busy, p.window_capacity, p.window_cost_usd});
}

void Metrics::finish(Time end) {
  settle();
  for (PoolId p{0}; p < pools_.size(); ++p)
    if (pools_[p].in_window) close_window(p, end);
  pool_energy_.assign(pools_.size(), {});
  for (GpuId g : powered_gpus_) {
    GpuDraw d = gpu_draw_[g];
    bring(d, end);
    PoolEnergy& e = pool_energy_[d.pool];
    e.gpu_ws += d.gpu_ws;
    e.host_ws += d.host_ws;
    for (std::size_t k = 0; k < kEnergyFactors; ++k) {
      e.gpu_f[k] += d.gpu_f[k];
      e.host_f[k] += d.host_f[k];
      e.idle_f[k] += d.static_f[k];
    }
  }
  for (PoolId p{0}; p < power_.size(); ++p)
    if (!power_[p].has_gpus) {
      pool_energy_[p].host_ws = power_[p].host.idle_w * pools_[p].billed.us() / 1e6;
      for (std::size_t k = 0; k < kEnergyFactors; ++k) {
        pool_energy_[p].host_f[k] = power_[p].host.idle_w * pools_[p].billed_f[k];
        pool_energy_[p].idle_f[k] = power_[p].pue * pool_energy_[p].host_f[k];
      }
    }
  std::stable_sort(windows_.begin(), windows_.end(), [](const LowUtilizationWindow& a, const LowUtilizationWindow& b) {
    return std::pair(a.start, a.pool) < std::pair(b.start, b.pool);
  });
}

void Metrics::add_owned_electricity(PoolId pool, double jobs_idle_usd) {
  const PoolEnergy& e = pool_energy_[pool];
  const std::size_t k = kOwnedElectricity;
  const double total = power_[pool].pue * (e.gpu_f[k] + e.host_f[k]) / 3.6e6, busy = total - e.idle_f[k] / 3.6e6;
  PoolLedger& p = pools_[pool];
  p.cost_usd += total;
  p.busy_cost_usd += busy;
  p.allocated_cost_usd += busy + jobs_idle_usd;
}

void Metrics::add_allocation(PoolId pool, uint16_t tenant, int64_t milli) {
  if (milli == 0) return;
  settle();
  allocated_milli_[pool] += milli;
  tenant_milli_[index(pool, tenant)] += milli;
}

void Metrics::add_busy(PoolId pool, GpuId gpu, double delta, Time now) {
  if (delta == 0) return;
  settle();
  busy_gpus_[pool] += delta;
  GpuBusy& g = gpu_busy_[gpu];
  g.integral += GpuTime::of(now - g.since, g.busy);
  g.busy += delta;
  g.since = now;
}

void Metrics::add_capacity(PoolId pool, int32_t ready_gpus, int32_t billed_nodes) {
  if (ready_gpus == 0 && billed_nodes == 0) return;
  settle();
  PoolLedger& p = pools_[pool];
  p.ready_gpus += ready_gpus;
  p.billed_nodes += billed_nodes;
  p.peak_ready = std::max(p.peak_ready, static_cast<uint32_t>(p.ready_gpus));
  ready_gpus_ += ready_gpus;
  peak_ready_ = std::max(peak_ready_, static_cast<uint32_t>(ready_gpus_));
}

void Metrics::set_price(PoolId pool, double per_node_hour_usd, double per_gpu_hour_usd) {
  if (per_node_hour_usd == pools_[pool].per_node_hour_usd && per_gpu_hour_usd == pools_[pool].per_gpu_hour_usd) return;
  settle();
  pools_[pool].per_node_hour_usd = per_node_hour_usd;
  pools_[pool].per_gpu_hour_usd = per_gpu_hour_usd;
}

GpuTime Metrics::gpu_busy(GpuId gpu, Time now) const {
  const GpuBusy& g = gpu_busy_[gpu];
  return g.integral + GpuTime::of(now - g.since, g.busy);
}

void Metrics::bring(GpuDraw& d, Time t, bool weigh) const {
  if (!d.powered || t <= d.since) return;
  const PoolPower& p = power_[d.pool];
  const Duration span = t - d.since;
  const double s = span.seconds();
  const double idle_ws = Metrics::idle_ws(d, p, span);
  d.gpu_ws += idle_ws + d.dynamic_w * s;
  d.static_ws += p.pue * (idle_ws + d.host_idle_w * s);
  d.host_ws += (d.host_idle_w + d.host_busy_w * d.busy_fraction) * s;
  d.scale_s += d.scale * s;
  if (weigh && p.weighted()) {
    // Each factor's integral over the span, split where the clocks drop as the idle draw is.
    const Duration high = d.busy ? span : std::clamp(p.gpu.clock_hold - idle_for(d, p), Duration(), span);
    for (std::size_t k = 0; k < kEnergyFactors; ++k) {
      const StepSeries* f = p.factors[k];
      if (!f) continue;
      const double f0 = f->integral(d.since), f1 = f->integral(t), fa = high == span ? f1 : f->integral(d.since + high);
      const double idle = p.gpu.idle_high_w * (fa - f0) + p.gpu.idle_low_w * (f1 - fa);
      d.gpu_f[k] += idle + d.dynamic_w * (f1 - f0);
      d.static_f[k] += p.pue * (idle + d.host_idle_w * (f1 - f0));
      d.host_f[k] += (d.host_idle_w + d.host_busy_w * d.busy_fraction) * (f1 - f0);
      d.scale_f[k] += d.scale * (f1 - f0);
    }
  }
  d.since = t;
}

void Metrics::set_powered(PoolId pool, GpuId g, uint16_t node_gpus, bool on, Time now) {
  GpuDraw& d = gpu_draw_[g];
  if (!d.listed) {
    d.listed = true;
    powered_gpus_.push_back(g);
  }
  bring(d, now);
  d.pool = pool;
  d.since = now;
  d.powered = on;
  if (!on) return;
  // Powered up: its clocks low until its first work.
  d.busy = d.ever_busy = false;
  d.dynamic_w = d.busy_fraction = 0;
  d.scale = 1;
  const HostPower& host = power_[pool].host;
  d.host_idle_w = host.idle_w / node_gpus;
  d.host_busy_w = (host.busy_w - host.idle_w) / node_gpus;
}

void Metrics::set_draw(GpuId g, const BoundMix& busy, double busy_fraction, Time now) {
  GpuDraw& d = gpu_draw_[g];
  bring(d, now);
  d.since = now;
  const GpuPower& p = power_[d.pool].gpu;
  const bool now_busy = std::any_of(busy.begin(), busy.end(), [](double u) { return u > 0; });
  if (d.busy && !now_busy) {
    d.idle_from = now;
    d.ever_busy = true;
  }
  d.busy = now_busy;
  d.busy_fraction = busy_fraction;
  d.dynamic_w = now_busy ? gpu_power_w(p, busy, Duration()) - p.idle_high_w : 0;
  const double demand = demand_above_idle_w(p, busy);
  d.scale = demand > 0 ? d.dynamic_w / demand : 1;
}

EnergyMark Metrics::static_mark(GpuId g, Time t) const {
  if (weighted_) {
    const GpuDraw d = brought(g, t, true);
    return {d.static_ws, d.static_f};
  }
  // Without factors only the watt-seconds move: no copy of the GPU's whole draw (claims read this twice each).
  const GpuDraw& d = gpu_draw_[g];
  if (!d.powered || t <= d.since) return {d.static_ws, {}};
  const PoolPower& p = power_[d.pool];
  return {d.static_ws + p.pue * (idle_ws(d, p, t - d.since) + d.host_idle_w * (t - d.since).seconds()), {}};
}

DynamicMark Metrics::dynamic_mark(GpuId g, JobKind kind, Time t) const {
  const GpuDraw& d = gpu_draw_[g];  // a job's GPU is powered and t >= d.since: the scale's integral is all that moves
  const PoolPower& p = power_[d.pool];
  const double demand_w = p.demand_w[static_cast<std::size_t>(kind)];
  DynamicMark out;
  const double gpu_ws = demand_w * (d.scale_s + d.scale * (t - d.since).seconds());
  out.all.ws = p.pue * (gpu_ws + d.host_busy_w * (t - Time()).seconds());
  out.gpu.ws = p.pue * gpu_ws;
  if (!p.weighted()) return out;
  for (std::size_t k = 0; k < kEnergyFactors; ++k)
    if (const StepSeries* f = p.factors[k]) {
      const double ft = f->integral(t);
      const double gpu_f = demand_w * (d.scale_f[k] + d.scale * (ft - f->integral(d.since)));
      out.all.f[k] = p.pue * (gpu_f + d.host_busy_w * ft);
      out.gpu.f[k] = p.pue * gpu_f;
    }
  return out;
}

double Metrics::price_integral_usd(PoolId pool, Time now) const {
  const PoolLedger& p = pools_[pool];
  return p.price_integral_usd + p.per_gpu_hour_usd * (now - last_).hours();
}

}  // namespace gpusim
