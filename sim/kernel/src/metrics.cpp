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
      gpu_busy_(gpus) {}

void Metrics::advance(Time now, uint32_t running, uint32_t pending) {
  if (now <= last_) return;
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
    samples_.push_back(x);
    next_sample_ += step_;
  }
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
    p.cost_usd += cost;
    p.allocated_cost_usd += allocated_gpus * p.per_gpu_hour_usd * dt_hours;
    p.busy_cost_usd += busy_gpus_[i] * p.per_gpu_hour_usd * dt_hours;
    p.price_integral_usd += p.per_gpu_hour_usd * dt_hours;
  }
  for (std::size_t i = 0; i < tenant_milli_.size(); ++i)
    if (tenant_milli_[i] != 0) tenant_milli_us_[i] += static_cast<double>(tenant_milli_[i]) * dt;
  last_ = now;
}

void Metrics::close_window(PoolId pool, Time end) {
  PoolLedger& p = pools_[pool];
  p.in_window = false;
  if (end - p.window_start < alert_.min_duration) return;
  windows_.push_back({pool, p.window_start, end, p.window_busy, p.window_capacity, p.window_cost_usd});
}

void Metrics::finish(Time end) {
  for (PoolId p{0}; p < pools_.size(); ++p)
    if (pools_[p].in_window) close_window(p, end);
  std::stable_sort(windows_.begin(), windows_.end(), [](const LowUtilizationWindow& a, const LowUtilizationWindow& b) {
    return std::pair(a.start, a.pool) < std::pair(b.start, b.pool);
  });
}

void Metrics::add_allocation(PoolId pool, uint16_t tenant, int64_t milli) {
  allocated_milli_[pool] += milli;
  tenant_milli_[index(pool, tenant)] += milli;
}

void Metrics::add_busy(PoolId pool, GpuId gpu, double delta, Time now) {
  busy_gpus_[pool] += delta;
  GpuBusy& g = gpu_busy_[gpu];
  g.integral += GpuTime::of(now - g.since, g.busy);
  g.busy += delta;
  g.since = now;
}

void Metrics::add_capacity(PoolId pool, int32_t ready_gpus, int32_t billed_nodes) {
  PoolLedger& p = pools_[pool];
  p.ready_gpus += ready_gpus;
  p.billed_nodes += billed_nodes;
  p.peak_ready = std::max(p.peak_ready, static_cast<uint32_t>(p.ready_gpus));
  ready_gpus_ += ready_gpus;
  peak_ready_ = std::max(peak_ready_, static_cast<uint32_t>(ready_gpus_));
}

void Metrics::set_price(PoolId pool, double per_node_hour_usd, double per_gpu_hour_usd) {
  pools_[pool].per_node_hour_usd = per_node_hour_usd;
  pools_[pool].per_gpu_hour_usd = per_gpu_hour_usd;
}

GpuTime Metrics::gpu_busy(GpuId gpu, Time now) const {
  const GpuBusy& g = gpu_busy_[gpu];
  return g.integral + GpuTime::of(now - g.since, g.busy);
}

double Metrics::price_integral_usd(PoolId pool, Time now) const {
  const PoolLedger& p = pools_[pool];
  return p.price_integral_usd + p.per_gpu_hour_usd * (now - last_).hours();
}

}  // namespace gpusim
