#pragma once
// The sharing rates of a run: what each resident of a GPU gets of it (MIG slice, time-slicing,
// MPS), kept per GPU parallel to its residents, and the NIC shares of the jobs that span nodes.
// The engine asks for them when a GPU's residents or their demands change and applies the rates
// that follow (Engine::refresh_rates).
#include <span>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "gpusim/core/paged_vector.hpp"
#include "gpusim/sim/network.hpp"

namespace gpusim {

struct ExecutionModel;

class SharingRates {
 public:
  explicit SharingRates(std::size_t gpus) : gpu_rates_(gpus), switching_(gpus) {}
  // Works out the rates of GPU `g`'s residents from their demands now (`demand`, parallel to its
  // residents: the SM share each keeps busy over time while computing, its duty x its occupancy).
  void share_gpu(const Cluster& c, GpuId g, const ExecutionModel& model, const std::vector<Job>& jobs,
                 std::span<const double> demand);
  // The job's rate from sharing: the smallest over the GPUs it holds.
  double job_rate(const Cluster& c, const std::vector<GpuId>& gpus, JobId id) const;
  // The fraction of GPU g's time spent switching between its contexts (switching_fraction; 0 unless
  // time-sliced), as of its last share_gpu.
  double switching(GpuId g) const { return switching_[g]; }

  NetworkSharing network;
  bool network_changed = false;  // a job joined or left `network` in this instant
  // Engine::refresh_rates' scratch, kept so that it allocates nothing once grown.
  std::vector<JobId> touched;
  std::vector<GpuId> busy_changed;
  std::vector<double> u;

 private:
  PagedVector<boost::container::small_vector<double, 4>> gpu_rates_;  // per GPU, parallel to residents
  PagedVector<double> switching_;                                     // per GPU
  std::vector<double> caps_, duty_, occupancy_;                       // share_gpu's scratch
};

}  // namespace gpusim
