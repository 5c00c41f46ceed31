#pragma once
// Exact time-weighted integrals (DESIGN §2 "Metrics"): the engine reports every change of allocation
// or busy GPUs as it happens, and advance() integrates the piecewise-constant values up to `now`.
// Nothing is sampled except the time series, which is for plots only.
#include <cstdint>
#include <vector>

#include "gpusim/core/time.hpp"
#include "gpusim/sim/cluster.hpp"

namespace gpusim {

struct Sample {
  Time time;
  uint32_t running = 0;
  uint32_t pending = 0;
  double gpus_allocated = 0;
  double gpus_busy = 0;
};

class Metrics {
 public:
  Metrics(std::size_t pools, std::size_t tenants, std::size_t gpus, Time step);

  // Integrates up to `now`, emitting time-series samples for step boundaries in [last, now) with the
  // state that held there (`running`/`pending` are the counts since the previous advance).
  void advance(Time now, uint32_t running, uint32_t pending);
  // Allocation changes by `milli` (whole GPUs are 1000) on `pool` for `tenant`; busy by `busy_gpus`.
  void add_allocation(PoolId pool, uint16_t tenant, int64_t milli);
  // GPU `gpu` of `pool` changes its busy fraction by `delta` at `now` (integrated per GPU lazily, so a
  // change costs O(1) however many GPUs there are).
  void add_busy(PoolId pool, GpuId gpu, double delta, Time now);
  // Busy GPU-seconds of one GPU up to `now` (>= the GPU's last change).
  double gpu_busy_s(GpuId gpu, Time now) const;

  Time last() const { return last_; }
  // Integrals in GPU-seconds.
  double allocated_gpu_s(PoolId pool) const { return allocated_us_[pool] / 1e9; }
  double busy_gpu_s(PoolId pool) const { return busy_us_[pool] / 1e6; }
  double allocated_gpu_s(PoolId pool, uint16_t tenant) const { return tenant_us_[index(pool, tenant)] / 1e9; }
  const std::vector<Sample>& samples() const { return samples_; }

 private:
  std::size_t index(PoolId pool, uint16_t tenant) const { return pool * tenants_ + tenant; }
  std::size_t tenants_;
  Time step_;
  Time last_;
  Time next_sample_;
  std::vector<int64_t> allocated_milli_;     // per pool, now
  std::vector<double> busy_gpus_;            // per pool, now
  std::vector<int64_t> tenant_milli_;        // per pool x tenant, now
  std::vector<double> allocated_us_;         // milli-GPU x us
  std::vector<double> busy_us_;              // GPU x us
  std::vector<double> tenant_us_;            // milli-GPU x us
  std::vector<Sample> samples_;
  struct GpuBusy {
    double busy = 0;     // now
    Time since;          // of the last change
    double busy_us = 0;  // integral up to `since`
  };
  std::vector<GpuBusy> gpu_busy_;
};

}  // namespace gpusim
