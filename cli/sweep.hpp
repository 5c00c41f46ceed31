#pragma once
// `gpusim sweep`: a grid of --set values x the scenario's variants x policies, every combination one
// run and one row. The points come in a fixed order (variants, then the grid with its last axis
// fastest, then policies), so rows are the same whatever runs them: threads here, a process pool or
// a Dask cluster from Python.
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "gpusim/sim/scenario.hpp"
#include "runs.hpp"
#include "seeds.hpp"

namespace gpusim::cli {

struct GridAxis {
  std::string path;
  std::vector<std::string> values;
};

// "cluster.pools[0].count=4,8,16"; an InputError naming --grid when malformed.
GridAxis parse_grid_axis(const std::string& spec);

struct SweepPoint {
  std::vector<std::pair<std::string, std::string>> columns;  // variant (when the scenario has any), each axis, policy
  std::vector<std::string> overrides;  // the variant's, then the caller's, then the axes'
  std::string policy;  // "" (and an empty policy column) for the scenario's own, which the runner fills in
};

// `policies` empty: the scenario's own (per variant).
std::vector<SweepPoint> sweep_points(const std::string& scenario, const LoadOptions& options, const std::vector<GridAxis>& axes,
                                     const std::vector<std::string>& policies);

// One CSV row per point: its columns, then every figure of the summary (dotted paths; the union
// over rows, in first-seen order; empty where a run has none).
void write_sweep_csv(std::ostream& out, const std::vector<SweepPoint>& points, const std::vector<RunOutcome>& outcomes);

// With --seeds: still one row per point (its columns, then `seeds` as given and `n`, the number of
// seeds), and per figure two columns, FIGURE_mean and FIGURE_ci95 (the half-width of the 95%
// confidence interval, Student t; empty with one seed). A figure some seeds do not report (a mean
// over no completed job) is averaged over the seeds that do. The per-seed values are in --json of
// `run` and `compare`, or a sweep with --grid seed=...
void write_sweep_seeds_csv(std::ostream& out, const std::vector<SweepPoint>& points, const std::vector<SeedSummary>& summaries);

}  // namespace gpusim::cli
