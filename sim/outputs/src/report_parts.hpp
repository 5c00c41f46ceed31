#pragma once
// What summarize (report.cpp) and the result tables (tables.cpp) both work out from a run: cost rolled
// up by tenant, kind and GPU model, a placement's text, deadlines, and wait statistics.
#include <map>
#include <string>
#include <vector>

#include "gpusim/core/json.hpp"
#include "gpusim/sim/report.hpp"
#include "gpusim/sim/scenario.hpp"

namespace gpusim::report_parts {

// Cost and energy attributed to a group of jobs (a tenant, a kind, a GPU model).
struct CostShare {
  std::size_t jobs = 0;
  double cost_usd = 0, busy_cost_usd = 0;
  double energy_ws = 0;   // the facility energy drawn for its jobs
  FactorSums factors{};   // the same weighed by their grids' factors
  GpuTime allocated_gpu;  // the share of GPUs its jobs held x time
  void add(const JobRecord& r, const FactorSums& f) {
    ++jobs;
    cost_usd += r.cost_usd;
    busy_cost_usd += r.busy_cost_usd;
    energy_ws += r.energy_ws;
    for (std::size_t k = 0; k < kReportedFactors; ++k) factors[k] += f[k];
    allocated_gpu += r.allocated_gpu;
  }
  Json json() const {
    return {{"jobs", jobs},
            {"gpu_hours_allocated", round_to(allocated_gpu.hours(), 6)},
            {"cost_usd", round_to(cost_usd, 2)},
            {"unused_usd", round_to(cost_usd - busy_cost_usd, 2)},
            {"energy_kwh", round_to(energy_ws / 3.6e6, 6)}};
  }
};

// Jobs' held cost rolled up by tenant, by job kind, and by the GPU model each job last ran on.
struct CostRollup {
  std::vector<CostShare> tenants, kinds;
  std::map<std::string, CostShare> models;
};

CostRollup roll_up_costs(const Scenario& s, const RunResult& r);
// Per factor, whether some pool's grid gives it: its figures (carbon, energy cost) are written only then.
std::array<bool, kReportedFactors> factors_given(const RunResult& r);
// The factors' keys in outputs, and what takes per_kwh's unit (g, USD) to theirs (kg, USD).
inline constexpr std::array<const char*, kReportedFactors> kFactorKeys{"carbon_kg", "energy_cost_usd"};
inline constexpr std::array<double, kReportedFactors> kFactorScale{1e-3, 1};
// Watt-seconds x a factor per kWh, as the factor's own unit (g of CO2e, USD).
inline double per_kwh(double ws_times_factor) { return ws_times_factor / 3.6e6; }
// node:gpu+gpu|node:gpu; a MIG instance adds /profile@start. Into `out`, which it clears.
void placement_text(std::string& out, const Cluster& c, const PlacementView& p);
// Did the job end within its deadline? One that has not ended by the end of the run has not.
bool deadline_met(const Job& j, const JobRecord& rec, Duration deadline);
// How long after its deadline a completed job ended (0 when on time).
Duration lateness(const Job& j, const JobRecord& rec, Duration deadline);
// Mean and nearest-rank percentiles of waits in seconds, and the longest (where starvation shows).
Json wait_stats(std::vector<double> values);

}  // namespace gpusim::report_parts
