#pragma once
// Markets, spot reclaims, checkpoint intervals and the autoscaler's settings (docs/guide/markets.md;
// docs/hardware.md#prices-and-spot-behaviour). The functions
// here are small pure models with their own tests; the engine owns every state change they lead to.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusim/core/enum_table.hpp"
#include "gpusim/core/time.hpp"

namespace gpusim {

// owned: bought outright; its node-hour price is its purchase amortized plus its maintenance, and its
// electricity is part of its cost (docs/guide/energy.md#owned-hardware).
enum class Market : uint8_t { on_demand, spot, reserved, owned };
constexpr auto enum_table(Market) {
  return std::to_array<EnumName<Market>>(
      {{Market::on_demand, "on-demand"}, {Market::spot, "spot"}, {Market::reserved, "reserved"}, {Market::owned, "owned"}});
}

// A recorded spot availability series, as the SkyPilot "Can't Be Late" traces give it: tick i starts
// at i x gap and holds `available[i]` instances; `price_per_node_hour_usd[i]`, where the file has
// prices. After the last tick the last value holds.
struct AvailabilitySeries {
  std::string file;
  Duration gap;
  std::vector<int32_t> available;
  std::vector<double> price_per_node_hour_usd;  // empty: the file has no prices
  std::size_t tick_at(Time t) const;
  // Nodes lost per node-hour: the sum of the drops over the integral of available nodes; what the
  // series implies as a Poisson hazard (for `interval: auto`). 0 when it never drops.
  double reclaims_per_node_hour() const;
};

// Reads one SkyPilot JSON file ({"metadata": {"gap_seconds": N}, "data": [...], "prices": [...]}).
// Throws InputError naming the file and field on anything else.
AvailabilitySeries read_skypilot_series(const std::string& path);

// How a spot pool loses nodes.
struct SpotConfig {
  enum class Process : uint8_t { none, poisson, trace };
  Process process = Process::none;
  double hazard_per_node_hour = 0;                         // poisson
  std::shared_ptr<const AvailabilitySeries> availability;  // trace
  int32_t scale = 1;                                       // trace: nodes per available instance
  bool trace_prices = false;                               // trace: bill the series' prices
  Duration notice;                                         // warning before a node goes
  std::string provider;                                    // aws, gcp, azure (names the notice's source)
};
constexpr auto enum_table(SpotConfig::Process) {
  using P = SpotConfig::Process;
  return std::to_array<EnumName<P>>({{P::none, "none"}, {P::poisson, "poisson"}, {P::trace, "trace"}});
}

// Interruptions per node-month (730 h) as a per-node-hour Poisson hazard.
double hazard_from_monthly_rate(double interruptions_per_node_month);
// The hazard under which a node is interrupted within a 730-h month with probability p:
// -ln(1 - p) / 730 (AWS's Spot Instance Advisor states frequencies as such monthly fractions).
double hazard_from_monthly_probability(double p);

// Young/Daly's optimal compute time between checkpoints, sqrt(2 x cost x MTBF); nullopt when the
// MTBF is infinite (nothing ever interrupts the job, so it never needs to checkpoint).
std::optional<Duration> young_daly_interval(Duration checkpoint_cost, double mtbf_hours);

// A pool that grows and shrinks with demand, as the Kubernetes Cluster Autoscaler does.
struct AutoscaleConfig {
  bool enabled = false;
  uint32_t min_nodes = 0;
  uint32_t max_nodes = 0;
  Duration scale_up_delay;    // a pod must stay unschedulable this long before it asks for a node
  Duration scale_down_after;  // an empty node is removed after this long
};

}  // namespace gpusim
