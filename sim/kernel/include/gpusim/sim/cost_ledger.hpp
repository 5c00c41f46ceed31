#pragma once
// Cost attribution (issue 5): a job pays for the share of each GPU it holds (JobRecord::cost_usd)
// and, of that, for the part its SMs keep busy (busy_cost_usd), at its pool's price integrated over
// time (Metrics::price_integral_usd), so a spot trace's price changes are charged as they happen.
// Energy (issue 45) is charged at the same points (JobRecord::energy_ws, facility watt-seconds): the
// share of each GPU's idle draw and of its host's that a claim holds, and what the job's busy share
// draws above idle on each GPU (its demand at the GPU's scale under the cap) and on its host; where a
// pool's grid gives a carbon intensity or an electricity price, the same weighed by them (job_factors).
// On an owned pool the electricity is part of the cost: a job's cost_usd adds what its claims' idle share
// and its busy draw cost, its busy_cost_usd the latter.
// Where each job's charges start is kept in its in-flight block (JobFlight::claim_marks, busy_mark_usd);
// the engine calls the ledger where claims are taken and given back and where a job's busy share changes.
#include <cstddef>

#include "gpusim/core/time.hpp"
#include "gpusim/sim/cluster.hpp"
#include "gpusim/sim/job_state.hpp"
#include "gpusim/sim/metrics.hpp"

namespace gpusim {

class CostLedger {
 public:
  CostLedger(const Cluster& cluster, const Metrics& metrics, std::size_t jobs)
      : cluster_(cluster), metrics_(metrics), job_f_(jobs), owned_idle_usd_(cluster.pools().size(), 0.0) {}

  // The job claimed a share of a GPU of `pool` now (its claims in order, as JobFlight::claims).
  void claimed(JobFlight& f, PoolId pool, GpuId g, Time now) const {
    f.claim_marks.push_back({metrics_.price_integral_usd(pool, now), metrics_.static_mark(g, now), now});
  }
  // The job gives back every claim now (or the run ends while it holds them): each charges its
  // share of the price since it was taken, and adds its share x time to the job's allocated GPU
  // time (so that cost.csv can roll allocated GPU-hours up by job kind and GPU model as it does cost).
  void released(JobId id, JobRecord& r, JobFlight& f, Time now) {
    const auto& marks = f.claim_marks;
    for (std::size_t i = 0; i < marks.size(); ++i) {
      const double share = f.claims[i].milli.gpus();
      r.cost_usd += share * (price(f, f.placement.gpus[i], now) - marks[i].price_usd);
      if (const double owned = charge(id, r, share, metrics_.static_mark(f.placement.gpus[i], now), marks[i].static_energy);
          owned != 0) {
        r.cost_usd += owned;
        owned_idle_usd_[pool_of(cluster_, f, f.placement.gpus[i])] += owned;
      }
      r.allocated_gpu += GpuTime::of(now - marks[i].since, share);
    }
    f.claim_marks.clear();
  }
  // The job starts computing on its placement: its busy charges start now (its mark: JobFlight::busy_mark_usd).
  void start_busy(JobFlight& f, JobKind kind, Time now) const {
    f.busy_mark_usd = price_sum(f, now);
    f.energy_mark = dynamic_sum(f, kind, now);
  }
  // Charges the busy share `busy` (SM demand x sharing rate) the job has had since its last mark, and
  // its energy (its GPUs' at `gpu_share`: settle_energy).
  void settle_busy(JobId id, JobRecord& r, JobFlight& f, JobKind kind, double busy, double gpu_share, Time now) {
    const double mark = price_sum(f, now);
    r.busy_cost_usd += busy * (mark - f.busy_mark_usd);
    f.busy_mark_usd = mark;
    settle_energy(id, r, f, kind, busy, gpu_share, now);
  }
  // Charges the energy drawn since the last mark alone (before its power mix changes): its hosts' at its busy
  // share `busy`, its GPUs' at `gpu_share` (busy share x its mix's demand over its kind's).
  void settle_energy(JobId id, JobRecord& r, JobFlight& f, JobKind kind, double busy, double gpu_share, Time now) {
    const DynamicMark energy = dynamic_sum(f, kind, now);
    double owned = charge(id, r, busy, energy.all, f.energy_mark.all);
    if (gpu_share != busy) owned += charge(id, r, gpu_share - busy, energy.gpu, f.energy_mark.gpu);
    if (owned != 0) {
      r.cost_usd += owned;
      r.busy_cost_usd += owned;
    }
    f.energy_mark = energy;
  }
  // Per job, its energy weighed by its grids' factors (watt-seconds x gCO2e/kWh, x USD/kWh).
  PagedVector<FactorSums> take_job_factors() { return std::move(job_f_); }
  // Per pool, what jobs were charged for the idle draw they held on owned pools (USD).
  const std::vector<double>& owned_idle_usd() const { return owned_idle_usd_; }

 private:
  // What one whole GPU of the pool of the job's GPU `g` has cost up to now.
  double price(const JobFlight& f, GpuId g, Time now) const { return metrics_.price_integral_usd(pool_of(cluster_, f, g), now); }
  // Sum over the job's GPUs of what one whole GPU of its pool has cost up to now.
  double price_sum(const JobFlight& f, Time now) const {
    double sum = 0;
    for (GpuId g : f.placement.gpus) sum += price(f, g, now);
    return sum;
  }

  // Charges job id share x (now - then): its energy, and (where a grid gives a factor) its factor sums.
  // Returns what of it owned pools' electricity cost (USD).
  double charge(JobId id, JobRecord& r, double share, const EnergyMark& now, const EnergyMark& then) {
    r.energy_ws += share * (now.ws - then.ws);
    if (!metrics_.weighted()) return 0;
    FactorSums& sums = job_f_[id];
    for (std::size_t k = 0; k < kEnergyFactors; ++k) sums[k] += share * (now.f[k] - then.f[k]);
    return share * (now.f[kOwnedElectricity] - then.f[kOwnedElectricity]) / 3.6e6;
  }
  // Sum over the job's GPUs of what busy share 1 of its kind draws there above idle, up to now.
  DynamicMark dynamic_sum(const JobFlight& f, JobKind kind, Time now) const {
    DynamicMark sum;
    for (GpuId g : f.placement.gpus) {
      const DynamicMark m = metrics_.dynamic_mark(g, kind, now);
      sum.all.ws += m.all.ws;
      sum.gpu.ws += m.gpu.ws;
      if (metrics_.weighted())
        for (std::size_t k = 0; k < kEnergyFactors; ++k) {
          sum.all.f[k] += m.all.f[k];
          sum.gpu.f[k] += m.gpu.f[k];
        }
    }
    return sum;
  }

  const Cluster& cluster_;
  const Metrics& metrics_;
  PagedVector<FactorSums> job_f_;  // per job; pages written only where some grid gives a factor
  std::vector<double> owned_idle_usd_;
};

}  // namespace gpusim
