#pragma once
// The GPU power model behind metrics.om's DCGM_FI_DEV_POWER_USAGE (docs/guide/prometheus.md#power),
// from measurements on an NVIDIA H200 SXM (data/measurements/h200-2026-11-28/README.md): idle at low
// clock, idle with clocks still up for a while after work, and busy power by what the work is bound by,
// capped at the power limit with the clock throttle and throughput loss of a sustained bf16 GEMM.
// The constants live in sim/data/model.yaml `power`; other GPUs scale the H200's watts by their TDP.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpusim/core/enum_table.hpp"
#include "gpusim/core/time.hpp"
#include "gpusim/hardware/catalog.hpp"
#include "gpusim/workloads/job.hpp"

namespace gpusim {

// What a GPU's work is bound by, as far as its draw goes: tensor-core math (bf16 GEMM), FP32 math on
// the CUDA cores (FMA chains), or memory bandwidth (a streaming copy).
enum class PowerBound : uint8_t { tensor, fp32, memory };
constexpr auto enum_table(PowerBound) {
  using B = PowerBound;
  return std::to_array<EnumName<B>>({{B::tensor, "tensor"}, {B::fp32, "fp32"}, {B::memory, "memory"}});
}

// Per bound, the fraction of the GPU's time (of its SMs) kept busy with work of that bound; the sum
// is the GPU's busy fraction (DCGM's utilization when the work is not time-sliced).
using BoundMix = std::array<double, enum_count<PowerBound>>;

// What a watt-second is weighed by where a pool's grid gives it: its carbon intensity (gCO2e per kWh),
// its electricity price (USD per kWh), and that price again on owned pools only (market: owned), whose
// electricity is part of their cost. Sums of watt-seconds x the factor: / 3.6e6 gives g or USD. Outputs
// report the first kReportedFactors; the last is folded into cost (sim/cost_ledger.hpp).
enum class EnergyFactor : uint8_t { carbon, electricity, owned_electricity };
inline constexpr std::size_t kEnergyFactors = 3;
inline constexpr std::size_t kReportedFactors = 2;
inline constexpr std::size_t kOwnedElectricity = static_cast<std::size_t>(EnergyFactor::owned_electricity);
using FactorSums = std::array<double, kEnergyFactors>;
// An energy integral at an instant (the cost ledger's marks): watt-seconds, and the same weighed by each
// factor (0 where no grid gives it).
struct EnergyMark {
  double ws = 0;
  FactorSums f{};
};
// What busy share 1 draws above idle up to an instant: on its GPUs and their hosts together (`all`), and on
// its GPUs alone (`gpu`): a job whose power mix is not its kind's is charged the GPU part at its own demand.
struct DynamicMark {
  EnergyMark all, gpu;
};

// One GPU model's draw, in watts.
struct GpuPower {
  double idle_low_w = 0;   // idle at low clocks
  double idle_high_w = 0;  // idle with the clocks still up, for clock_hold after the last work
  Duration clock_hold;
  BoundMix busy_w{};                // busy all the time with work of one bound, at full clock, before the cap
  double capped_w = 0;              // what it draws held at its power limit
  double throttled_clock = 1;       // SM clock over the maximum under sustained full tensor load
  double throttled_throughput = 1;  // throughput over the full-clock one under that load
};

// The entry's watts for a GPU of `tdp_w`, the entry's being for `entry_tdp_w`: every wattage times
// tdp_w / entry_tdp_w (assumed: draw scales with the TDP), fractions and durations as they are.
GpuPower scale_to_tdp(const GpuPower& p, double entry_tdp_w, double tdp_w);

// A GPU's draw now, in watts. Busy (sum of `busy` > 0, taken as 1 above 1): idle_high_w plus, per
// bound, its busy fraction x (busy_w - idle_high_w), at most capped_w. Idle: idle_high_w for
// clock_hold after its last work (`idle_for` since then), idle_low_w after. Example (H200, model.yaml):
// FP32 math 42.5% of the time draws 121 + 0.425 x (464 - 121) = 267 W; bf16 GEMM all the time wants
// 877 W and draws the cap, 690 W.
double gpu_power_w(const GpuPower& p, const BoundMix& busy, Duration idle_for);

// What work of mix `mix` draws above idle_high_w per unit of busy share, at full clock, before the cap:
// sum over bounds of mix x (busy_w - idle_high_w). A GPU's draw above idle_high_w is its residents'
// shares x this, summed, scaled down together to the cap (gpu_power_w), so a resident's part of it is
// its own share x this x the GPU's scale (energy accounting: docs/guide/energy.md).
double demand_above_idle_w(const GpuPower& p, const BoundMix& mix);

// The watt-seconds an idle GPU draws over `span`, starting `idle_for` after its last work: the
// integral of gpu_power_w(p, {}, idle_for + s) over s in [0, span].
double idle_energy_ws(const GpuPower& p, Duration idle_for, Duration span);

// How a GPU held at its cap runs: its SM clock over the maximum, and its throughput over the
// full-clock one. Assumed: the draw above idle_high_w follows the clock, so a load that would draw
// D > capped_w runs at clock (capped_w - idle_high_w) / (D - idle_high_w); throughput falls linearly
// with the clock through the measured point (throttled_clock, throttled_throughput). Under the cap:
// {1, 1}. Job speeds do not use it: the durations and throughput tables they follow are sustained
// figures, throttling included.
struct Throttle {
  double clock = 1;
  double throughput = 1;
};
Throttle power_throttle(const GpuPower& p, const BoundMix& busy);

// The GPU's draw with its power limit set to `limit_w` (nvidia-smi -pl) instead of its TDP: held at
// capped_w x limit_w / tdp_w (assumed: the same fraction of the limit it draws at its default one, 690
// of 700 W measured on the H200); what it wants at full clock is unchanged, so power_throttle slows
// it further. Idle draw is not limited.
GpuPower limited_to(const GpuPower& p, double tdp_w, double limit_w);

// How fast work of demand `busy` (one resident's busy share x its kind's mix) runs on a GPU held at
// `limited`'s cap, over how fast it runs at `p`'s (job durations and throughput tables are sustained
// figures at the default limit, throttling included): 1 when neither cap binds. A time-sliced GPU runs
// one context at a time, so a resident's own demand is what its slices draw; with MPS or fractional
// shares the residents draw together and this understates the slowdown (assumed).
double limit_speed(const GpuPower& p, const GpuPower& limited, const BoundMix& busy);

// Power budgets (a rack's or a hall's kW over a set of pools, IT power; docs/guide/energy.md#power-budgets)
// are held, not measured: what a node or a claim could draw, so that a budget the scheduler keeps is never
// exceeded however the work then runs. A powered node holds its GPUs at idle_high_w (their clocks up: the
// most an idle GPU draws) and its host's idle figure.
double node_budget_w(const GpuPower& gpu, const HostPower& host, int gpus);
// A claim of one whole GPU for work of `mix` holds what it wants above idle_high_w at full clock, no more
// than the cap allows, and its GPU's share of its host's busy - idle on a node of `node_gpus` GPUs; a
// claim of a share holds that share of it. Example (H200 at 700 W, bf16 GEMM): 877 W wanted, 690 - 121 =
// 569 W held, plus (host busy - idle) / 8.
double claim_budget_w(const GpuPower& gpu, const HostPower& host, int node_gpus, const BoundMix& mix);

// model.yaml `power`: entries by GPU model, and what each job kind's work is bound by.
struct PowerModel {
  struct Entry {
    std::vector<std::string> gpus;  // GPU model names or aliases; empty: the default, for every other GPU
    double tdp_w = 0;               // the TDP its watts are for
    GpuPower power;
    std::vector<std::string> assumed;
    std::string source;
  };
  // Searched from the back: a scenario's entries (applied later) win over model.yaml's.
  std::vector<Entry> entries;
  std::array<BoundMix, enum_count<JobKind>> bound_by{};  // by JobKind; each sums to 1
  // Serving replicas: measured decode draw by batch (ascending batch), from which serving_mix works out
  // their mix; empty: replicas draw as the inference kind.
  struct DecodePoint {
    double batch = 1;
    double power_w = 0;
  };
  std::vector<DecodePoint> serving_decode;
  HostPower host;  // a node's draw besides its GPUs where its template gives none
  // The entry listing `gpu`, else the last default, scaled to gpu.tdp_w; std::logic_error when
  // none applies (model.yaml has a default).
  GpuPower of(const GpuModel& gpu) const;
  // What a serving replica whose iteration holds `batch` requests is bound by: tensor math for the share
  // t(batch), memory for the rest, t interpolated in log2(batch) between the serving_decode points (each
  // point's t is where the default entry draws its measured watts: (power_w - memory_w) / (tensor busy_w -
  // memory_w)) and held beyond them. Without points: the inference kind's mix.
  BoundMix serving_mix(double batch) const;
  // The same with the GPU's power limit set to `limit_w` (limited_to), or at its TDP when none is.
  GpuPower of(const GpuModel& gpu, std::optional<double> limit_w) const {
    return limit_w ? limited_to(of(gpu), gpu.tdp_w, *limit_w) : of(gpu);
  }
};

}  // namespace gpusim
