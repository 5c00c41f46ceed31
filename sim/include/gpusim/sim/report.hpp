#pragma once
// What a run writes (README, "Outputs"): summary.json (every figure, units in the key names), jobs.csv (one
// row per job), timeseries.csv, and the resolved scenario. All of it is deterministic text.
#include <ostream>
#include <string>

#include "gpusim/core/json.hpp"
#include "gpusim/sim/engine.hpp"
#include "gpusim/sim/scenario.hpp"

namespace gpusim {

inline constexpr const char* kVersion = "0.1.0";
inline constexpr double kHoursPerMonth = 730.0;  // monthly figures use 730 h (docs/hardware.md#prices-and-spot-behaviour)

// Nearest-rank percentile (the smallest value with at least p% of values at or below it).
double percentile(std::vector<double> values, double p);

Json summarize(const Scenario& scenario, const RunResult& result);

// The summary's numbers, one per dotted path ("jct_s.p99", "cost.by_market_usd.spot"), in the
// summary's order: one sweep row, and what `check` compares. Nulls (no value) are left out, and so
// are arrays, unless `arrays_by_name`: then an array's objects are keyed by their "name"
// ("pools.a100.cost_usd"), as the figures over seeds are.
std::vector<std::pair<std::string, double>> flatten_summary(const Json& summary, bool arrays_by_name = false);
void write_jobs_csv(std::ostream& out, const Scenario& scenario, const RunResult& result);
void write_timeseries_csv(std::ostream& out, const RunResult& result);
// The same samples per pool, one row per (time, pool): what per-pool plots draw.
void write_pool_timeseries_csv(std::ostream& out, const RunResult& result);
// One row per GPU: its final MIG layout and its effective utilization over the run, as DCGM would show.
void write_gpus_csv(std::ostream& out, const RunResult& result);

// Cost per pool, market and in total (billed, held by jobs, used by their SMs, idle, waste), then
// the jobs' held cost rolled up by tenant, job kind and GPU model.
void write_cost_csv(std::ostream& out, const Scenario& scenario, const RunResult& result);
// Every stretch in which a pool's effective utilization stayed under the alert threshold.
void write_low_utilization_csv(std::ostream& out, const RunResult& result);

}  // namespace gpusim
