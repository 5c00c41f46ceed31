#pragma once
// Exact time-weighted integrals (docs/reference/outputs.md): the engine reports every change of
// allocation, busy GPUs, ready capacity, billed nodes and prices as it happens, and advance() moves
// to `now`. The piecewise-constant values are integrated one span of constant values at a time (when
// one of them changes, and at finish), so that the sums do not depend on the instants at which nothing
// changed. Nothing is sampled except the time series, which is for plots only.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "gpusim/core/paged_vector.hpp"
#include "gpusim/core/time.hpp"
#include "gpusim/sim/cluster.hpp"
#include "gpusim/sim/execution.hpp"
#include "gpusim/sim/power.hpp"

namespace gpusim {

// One pool's state at a sample time.
struct PoolSample {
  double gpus_allocated = 0;
  double gpus_busy = 0;
  uint32_t gpus_ready = 0;
  uint32_t nodes_billed = 0;
  double power_kw = 0;  // the facility's mean draw over the step that ends here (0 at time 0)
};

struct Sample {
  Time time;
  uint32_t running = 0;
  uint32_t pending = 0;
  double gpus_allocated = 0;
  double gpus_busy = 0;
  uint32_t gpus_ready = 0;
  uint32_t nodes_billed = 0;
  double cost_per_hour_usd = 0;
  std::vector<PoolSample> pools;  // per pool; the fields above are their sums
};

// A stretch of time during which a pool's effective utilization stayed under the alert threshold.
struct LowUtilizationWindow {
  PoolId pool{0};
  Time start, end;
  GpuTime busy_gpu;
  GpuTime capacity_gpu;
  double cost_usd = 0;
};

// What a pool's GPUs and nodes draw (issue 45; sim/power.hpp, docs/guide/energy.md).
struct PoolPower {
  GpuPower gpu;                       // its GPU model's, under the pool's power limit (none for a GPU-less pool)
  std::optional<GpuPower> unlimited;  // with a power limit: its draw at the default one (limit_speed)
  HostPower host;                     // each node's draw besides its GPUs
  double pue = 1;                     // facility energy over IT energy
  bool has_gpus = true;               // false: its nodes' hosts draw their idle figure whenever billed
  std::array<const StepSeries*, kEnergyFactors> factors{};  // null: not given
  static_assert(kEnergyFactors == 3, "weighted() names every factor");
  bool weighted() const { return factors[0] || factors[1] || factors[2]; }
  // Per job kind: the GPU's draw above idle_high_w per unit of busy share (demand_above_idle_w).
  std::array<double, enum_count<JobKind>> demand_w{};
};

// A pool's energy over the run, IT load in watt-seconds (the facility's is pue times their sum): its
// GPUs' (as DCGM counts them) and its nodes' besides.
struct PoolEnergy {
  double gpu_ws = 0, host_ws = 0;
  FactorSums gpu_f{}, host_f{};  // the same weighed by each factor its grid gives
  FactorSums idle_f{};           // the facility's idle draw (GPUs and hosts), weighed
};

class Metrics {
 public:
  Metrics(std::size_t pools, std::size_t tenants, std::size_t gpus, Duration step, LowUtilizationAlert alert = {});

  // Moves to `now`, emitting time-series samples for step boundaries from the last advance to `now` with the state that
  // held there (`running`/`pending` are the counts since the previous advance).
  void advance(Time now, uint32_t running, uint32_t pending);
  // Integrates up to the last advance and closes open low-utilization windows: the end of the run. The
  // integrals below are whole after it.
  void finish(Time end);
  // Allocation changes by `milli` (whole GPUs are 1000) on `pool` for `tenant`.
  void add_allocation(PoolId pool, uint16_t tenant, int64_t milli);
  // GPU `gpu` of `pool` changes its busy fraction by `delta` at `now` (integrated per GPU lazily, so a
  // change costs O(1) however many GPUs there are).
  void add_busy(PoolId pool, GpuId gpu, double delta, Time now);
  // Ready GPUs (capacity) and billed nodes (requested, ready or draining) of a pool change.
  void add_capacity(PoolId pool, int32_t ready_gpus, int32_t billed_nodes);
  // The pool's price from now on; per GPU-hour is what one GPU's share of a node costs.
  void set_price(PoolId pool, double per_node_hour_usd, double per_gpu_hour_usd);
  double price_per_gpu_hour_usd(PoolId pool) const { return pools_[pool].per_gpu_hour_usd; }    // now
  double price_per_node_hour_usd(PoolId pool) const { return pools_[pool].per_node_hour_usd; }  // now
  // Busy GPU time of one GPU up to `now` (>= the GPU's last change).
  GpuTime gpu_busy(GpuId gpu, Time now) const;
  // What one whole GPU of `pool` has cost from time 0 to `now` (USD); a job holding a share s from
  // t0 to t1 costs s x (price_integral(t1) - price_integral(t0)).
  double price_integral_usd(PoolId pool, Time now) const;

  // Energy (issue 45): GPUs draw while their node is powered (billed: provisioning, ready or
  // draining), as gpu_power_w says for their residents' busy shares; each node's host draws its idle
  // figure plus, per busy GPU, its share of busy - idle. Integrated per GPU lazily, as busy time is.
  void set_power(std::vector<PoolPower> pools) {
    power_ = std::move(pools);
    weighted_ = std::any_of(power_.begin(), power_.end(), [](const PoolPower& p) { return p.weighted(); });
  }
  // GPU g of `pool`, on a node of `node_gpus` GPUs, is powered from `now` (its node billed), or no longer.
  void set_powered(PoolId pool, GpuId g, uint16_t node_gpus, bool on, Time now);
  // GPU g's residents keep it busy with `busy` (their shares per bound, summed) from `now` on, its busy
  // fraction `busy_fraction` (the host's share follows it).
  void set_draw(GpuId g, const BoundMix& busy, double busy_fraction, Time now);
  // GPU g's own energy up to t (W s, IT): DCGM's total energy.
  double gpu_energy_ws(GpuId g, Time t) const { return brought(g, t, false).gpu_ws; }
  // Facility watt-seconds, up to t, of GPU g's idle draw and its share of its host's idle draw, and the
  // same weighed by each factor of its pool's grid: a claim of share s held from t0 to t1 is charged s x
  // (static_mark(t1) - static_mark(t0)).
  EnergyMark static_mark(GpuId g, Time t) const;
  // Facility watt-seconds, up to t, that a job of `kind` with busy share 1 draws on GPU g above its idle
  // draw (its demand at the GPU's scale, and its host's busy share), and the same weighed: a job with
  // busy share u from t0 to t1 is charged u x the difference.
  DynamicMark dynamic_mark(GpuId g, JobKind kind, Time t) const;
  bool weighted() const { return weighted_; }  // some pool's grid gives a factor
  // A pool's energy up to the end of the run (finish() brings every GPU there).
  const PoolEnergy& pool_energy(PoolId pool) const { return pool_energy_[pool]; }
  // After finish: an owned pool's electricity joins its cost (docs/guide/energy.md#owned-hardware): all of it
  // to cost_usd, what its GPUs and hosts drew above idle (all charged to jobs) to busy_cost_usd, and that
  // with `jobs_idle_usd` (the idle draw jobs' claims held, CostLedger::owned_idle_usd) to allocated_cost_usd.
  void add_owned_electricity(PoolId pool, double jobs_idle_usd);
  const PoolPower& pool_power(PoolId pool) const { return power_[pool]; }

  Time last() const { return last_; }
  Time next_sample() const { return next_sample_; }  // the time series' next point
  // The pool's allocated GPUs (milli / 1000) and busy GPUs right now.
  double allocated_gpus_now(PoolId pool) const { return static_cast<double>(allocated_milli_[pool]) / 1000.0; }
  double busy_gpus_now(PoolId pool) const { return busy_gpus_[pool]; }
  // The pool's GPU capacity (ready or draining) not allocated right now, in milli-GPUs.
  int64_t free_milli_now(PoolId pool) const { return int64_t{pools_[pool].ready_gpus} * 1000 - allocated_milli_[pool]; }
  double tenant_gpus_now(uint16_t tenant) const {
    int64_t milli = 0;
    for (std::size_t p = 0; p * tenants_ < tenant_milli_.size(); ++p) milli += tenant_milli_[p * tenants_ + tenant];
    return static_cast<double>(milli) / 1000.0;
  }
  // Integrals in GPU time, node time and USD.
  GpuTime allocated_gpu_time(PoolId pool) const { return GpuTime::from_us(allocated_milli_us_[pool] / 1000.0); }
  GpuTime busy_gpu_time(PoolId pool) const { return busy_[pool]; }
  GpuTime capacity_gpu_time(PoolId pool) const { return pools_[pool].capacity; }
  NodeTime billed_node_time(PoolId pool) const { return pools_[pool].billed; }
  double cost_usd(PoolId pool) const { return pools_[pool].cost_usd; }
  double allocated_cost_usd(PoolId pool) const { return pools_[pool].allocated_cost_usd; }
  double busy_cost_usd(PoolId pool) const { return pools_[pool].busy_cost_usd; }
  uint32_t peak_ready_gpus(PoolId pool) const { return pools_[pool].peak_ready; }
  uint32_t peak_ready_gpus() const { return peak_ready_; }  // of the whole cluster at once
  GpuTime allocated_gpu_time(PoolId pool, uint16_t tenant) const {
    return GpuTime::from_us(tenant_milli_us_[index(pool, tenant)] / 1000.0);
  }
  const std::vector<Sample>& samples() const { return samples_; }
  const std::vector<LowUtilizationWindow>& low_utilization() const { return windows_; }
  const LowUtilizationAlert& alert() const { return alert_; }

 private:
  std::size_t index(PoolId pool, uint16_t tenant) const { return pool * tenants_ + tenant; }
  struct PoolLedger {
    int32_t ready_gpus = 0, billed_nodes = 0;  // now
    uint32_t peak_ready = 0;
    double per_node_hour_usd = 0, per_gpu_hour_usd = 0;  // now
    GpuTime capacity;
    NodeTime billed;
    FactorSums billed_f{};  // billed nodes x seconds x each factor (GPU-less pools)
    double cost_usd = 0, allocated_cost_usd = 0, busy_cost_usd = 0;
    double price_integral_usd = 0;  // one GPU's cost up to last_
    bool in_window = false;         // utilization under the alert threshold since window_start
    Time window_start;
    GpuTime window_busy, window_capacity;
    double window_cost_usd = 0;
  };
  void close_window(PoolId pool, Time end);
  // Integrates the values that held from last_ up to reached_: called before a value changes, so that an
  // integral sums one term per span of constant values, whatever instants the run had in between.
  void settle();

  std::size_t tenants_;
  Duration step_;
  LowUtilizationAlert alert_;
  Time last_;     // the integrals' end
  Time reached_;  // the engine's instant: the values now have held since last_
  Time next_sample_;
  std::vector<int64_t> allocated_milli_;    // per pool, now
  std::vector<double> busy_gpus_;           // per pool, now
  std::vector<int64_t> tenant_milli_;       // per pool x tenant, now
  std::vector<double> allocated_milli_us_;  // milli-GPU x us
  std::vector<GpuTime> busy_;
  std::vector<double> tenant_milli_us_;  // milli-GPU x us
  std::vector<PoolLedger> pools_;
  int64_t ready_gpus_ = 0;
  uint32_t peak_ready_ = 0;
  std::vector<Sample> samples_;
  std::vector<LowUtilizationWindow> windows_;
  struct GpuBusy {
    double busy = 0;   // now
    Time since;        // of the last change
    GpuTime integral;  // up to `since`
  };
  PagedVector<GpuBusy> gpu_busy_;  // GPUs of slots never built read as never busy

  // A GPU's draw since `since`, and its integrals up to then.
  struct GpuDraw {
    PoolId pool{0};
    bool listed = false;                                    // in powered_gpus_
    bool powered = false, busy = false, ever_busy = false;  // ever_busy: since it was last powered
    Time since, idle_from;
    double dynamic_w = 0;                                 // its draw above idle_high_w now
    double scale = 1;                                     // dynamic_w over its residents' demand (below 1: held at the cap)
    double busy_fraction = 0;                             // now
    double host_idle_w = 0, host_busy_w = 0;              // its share of its node's host: idle, and busy - idle
    double gpu_ws = 0;                                    // its own draw (IT)
    double host_ws = 0;                                   // its host share's (IT)
    double static_ws = 0;                                 // facility: its idle draw and its host share's
    double scale_s = 0;                                   // the integral of `scale` over time
    FactorSums gpu_f{}, host_f{}, static_f{}, scale_f{};  // the same four weighed by each factor
  };
  // Each pool's facility energy up to t (>= last_), into `out`.
  void pool_energy_at(Time t, std::vector<double>& out) const;
  // Integrates d's draw from its `since` to t (>= it); `weigh`: its factor sums too (a copy read for its
  // watt-seconds alone may skip them).
  void bring(GpuDraw& d, Time t, bool weigh = true) const;
  // How long an idle GPU has been idle at d's `since` (one never busy since it was powered: past its clock hold).
  static Duration idle_for(const GpuDraw& d, const PoolPower& p) {
    return d.ever_busy ? d.since - d.idle_from : p.gpu.clock_hold;
  }
  // The GPU's own idle draw over `span` from d's `since` (the part of its draw that is not its residents').
  static double idle_ws(const GpuDraw& d, const PoolPower& p, Duration span) {
    return d.busy ? p.gpu.idle_high_w * span.seconds() : idle_energy_ws(p.gpu, idle_for(d, p), span);
  }
  // GPU g's draw brought to t, its state unchanged.
  GpuDraw brought(GpuId g, Time t, bool weigh) const {
    GpuDraw d = gpu_draw_[g];
    bring(d, t, weigh);
    return d;
  }
  std::vector<PoolPower> power_;
  bool weighted_ = false;
  PagedVector<GpuDraw> gpu_draw_;
  std::vector<GpuId> powered_gpus_;  // every GPU ever powered, once
  std::vector<double> sampled_ws_;   // per pool: its facility energy at the last sample
  std::vector<PoolEnergy> pool_energy_;
};

}  // namespace gpusim
