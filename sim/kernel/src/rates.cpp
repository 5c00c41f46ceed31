#include "gpusim/sim/rates.hpp"

#include <algorithm>
#include <utility>

#include "gpusim/sim/execution.hpp"
#include "gpusim/sim/fit.hpp"

namespace gpusim {

void SharingRates::share_gpu(const Cluster& c, GpuId g, const ExecutionModel& model, const std::vector<Job>& jobs,
                             std::span<const double> demand) {
  const Gpu& gpu = c.gpu(g);
  const Pool& pool = c.pool_of(gpu.node);
  auto& rates = gpu_rates_[g];
  rates.assign(gpu.residents.size(), 1.0);
  caps_.clear();
  duty_.clear();
  occupancy_.clear();
  for (std::size_t i = 0; i < gpu.residents.size(); ++i) {
    const Job& job = jobs[gpu.residents[i]];
    const Request& q = job.request;
    caps_.push_back(pool.sharing.mode == Sharing::mps ? mps_thread_fraction(q, pool.sharing) : q.milli_per_gpu.value / 1000.0);
    occupancy_.push_back(job.occupancy());
    duty_.push_back(std::min(1.0, demand[i] / occupancy_.back()));
  }
  double switching = 0;
  if (gpu.mig && !held_whole(gpu)) {  // held whole, its one job runs as on a whole GPU
    for (std::size_t i = 0; i < gpu.residents.size(); ++i) {
      const MigProfile& p = held_profile(gpu, *pool.gpu, gpu.residents[i]);
      rates[i] = mig_rate(static_cast<double>(p.sms) / pool.gpu->sms, demand[i]);
    }
  } else if (pool.sharing.rate_model() == Sharing::time_slicing) {
    const TimeSlicingModel& ts = model.time_slicing.of(*pool.gpu);
    time_slicing_rates(duty_, ts, std::span<double>(rates.data(), rates.size()));
    switching = switching_fraction(duty_, ts);
  } else if (pool.sharing.rate_model() == Sharing::mps) {
    mps_rates(duty_, occupancy_, caps_, model.mps, std::span<double>(rates.data(), rates.size()));
  }
  if (std::as_const(switching_)[g] != switching) switching_[g] = switching;  // pages only where it is not 0
}

double SharingRates::job_rate(const Cluster& c, const std::vector<GpuId>& gpus, JobId id) const {
  double rate = 1.0;
  for (GpuId g : gpus) {
    const Gpu& gpu = c.gpu(g);
    const auto pos = std::find(gpu.residents.begin(), gpu.residents.end(), id) - gpu.residents.begin();
    rate = std::min(rate, gpu_rates_[g][static_cast<std::size_t>(pos)]);
  }
  return rate;
}

}  // namespace gpusim
