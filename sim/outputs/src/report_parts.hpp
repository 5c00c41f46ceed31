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
  GpuTime allocated_gpu;  // the share of GPUs its jobs held x time
  void add(const JobRecord& r) {
    ++jobs;
    cost_usd += r.cost_usd;
    busy_cost_usd += r.busy_cost_usd;
    energy_ws += r.energy_ws;
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
// node:gpu+gpu|node:gpu; a MIG instance adds /profile@start. Into `out`, which it clears.
void placement_text(std::string& out, const Cluster& c, const PlacementView& p);
// Did the job end within its deadline? One that has not ended by the end of the run has not.
bool deadline_met(const Job& j, const JobRecord& rec, Duration deadline);
// How long after its deadline a completed job ended (0 when on time).
Duration lateness(const Job& j, const JobRecord& rec, Duration deadline);
// Mean and nearest-rank percentiles of waits in seconds, and the longest (where starvation shows).
Json wait_stats(std::vector<double> values);

}  // namespace gpusim::report_parts
