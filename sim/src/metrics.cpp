#include "gpusim/sim/metrics.hpp"

#include <algorithm>
#include <numeric>

namespace gpusim {

Metrics::Metrics(std::size_t pools, std::size_t tenants, std::size_t gpus, Time step)
    : tenants_(tenants),
      step_(step),
      allocated_milli_(pools, 0),
      busy_gpus_(pools, 0.0),
      tenant_milli_(pools * tenants, 0),
      allocated_us_(pools, 0.0),
      busy_us_(pools, 0.0),
      tenant_us_(pools * tenants, 0.0),
      gpu_busy_(gpus) {}

void Metrics::advance(Time now, uint32_t running, uint32_t pending) {
  if (now <= last_) return;
  while (next_sample_ < now) {
    const double allocated = static_cast<double>(std::accumulate(allocated_milli_.begin(), allocated_milli_.end(), int64_t{0})) / 1000.0;
    const double busy = std::accumulate(busy_gpus_.begin(), busy_gpus_.end(), 0.0);
    samples_.push_back({next_sample_, running, pending, allocated, busy});
    next_sample_ += step_;
  }
  const double dt = static_cast<double>((now - last_).us());
  for (std::size_t p = 0; p < allocated_milli_.size(); ++p) {
    allocated_us_[p] += static_cast<double>(allocated_milli_[p]) * dt;
    busy_us_[p] += busy_gpus_[p] * dt;
  }
  for (std::size_t i = 0; i < tenant_milli_.size(); ++i)
    if (tenant_milli_[i] != 0) tenant_us_[i] += static_cast<double>(tenant_milli_[i]) * dt;
  last_ = now;
}

void Metrics::add_allocation(PoolId pool, uint16_t tenant, int64_t milli) {
  allocated_milli_[pool] += milli;
  tenant_milli_[index(pool, tenant)] += milli;
}

void Metrics::add_busy(PoolId pool, GpuId gpu, double delta, Time now) {
  busy_gpus_[pool] += delta;
  GpuBusy& g = gpu_busy_[gpu];
  g.busy_us += g.busy * static_cast<double>((now - g.since).us());
  g.busy += delta;
  g.since = now;
}

double Metrics::gpu_busy_s(GpuId gpu, Time now) const {
  const GpuBusy& g = gpu_busy_[gpu];
  return (g.busy_us + g.busy * static_cast<double>((now - g.since).us())) / 1e6;
}

}  // namespace gpusim
