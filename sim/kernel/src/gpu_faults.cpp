#include "gpusim/sim/gpu_faults.hpp"

#include <algorithm>

#include <boost/math/distributions/exponential.hpp>

#include "gpusim/sim/execution.hpp"

namespace gpusim {

std::optional<Duration> GpuFaults::started(const Cluster& c, const Pool& pool, const std::vector<GpuId>& gpus,
                                           const MpsModel& mps) {
  for (GpuId g : gpus)
    if (!c.gpu(g).mig && pool.sharing.mode == Sharing::time_slicing) check_.push_back(g);
  if (mps.fault_rate_per_hour <= 0 || pool.sharing.rate_model() != Sharing::mps || c.gpu(gpus.front()).mig) return std::nullopt;
  const double hours = boost::math::quantile(boost::math::exponential_distribution<>(mps.fault_rate_per_hour), uniform01(rng_));
  return sampled_wait(hours);
}

std::vector<GpuId>& GpuFaults::to_check() {
  std::sort(check_.begin(), check_.end());
  check_.erase(std::unique(check_.begin(), check_.end()), check_.end());
  return check_;
}

}  // namespace gpusim
