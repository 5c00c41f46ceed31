#pragma once
// The HTML report (issue 21): one self-contained file, plots drawn here as inline SVG (no script,
// no network at view time). One renderer for every front end: `gpusim report RUN_DIR`, `run
// --report`, `compare --report` and Python's gpusim.report() all hand it a run's files, read from
// a run directory or kept in memory (RunOutputs::texts), so a report never depends on where its
// figures came from.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "gpusim/sim/outputs.hpp"

namespace gpusim::cli {

// A run's files by name: summary.json, timeseries.csv, ... and occupancy.json when it was asked for.
using RunFiles = std::map<std::string, std::string>;

// The files the report reads (summary.json required; the others shown when present).
const std::vector<std::string_view>& report_files();
// The on-request outputs a run keeps for its report: occupancy (the heat map), and requests (the
// latency curves) when the scenario has services.
std::vector<std::string> report_outputs(const Scenario& s);
// Those files of a run directory. InputError naming the path when `dir` is missing or not a run directory.
RunFiles read_run_dir(const std::string& dir);
// Those files of a run in memory, as `outputs` would write them (ask it for "occupancy" for the heat map).
RunFiles run_files(const RunOutputs& outputs, const Scenario& s, const RunResult& r, const Json& summary);

// `where` names the run's files in error messages (its directory, or "run" for one in memory).
std::string html_report(const RunFiles& run, const std::string& where);
// Runs side by side (compare): (label, files) each.
std::string html_compare_report(const std::vector<std::pair<std::string, RunFiles>>& runs, const std::string& title);

// The pure pieces, exposed for their unit tests.
namespace report_detail {

// Round tick values covering [lo, hi]: a step of 1, 2 or 5 x 10^k giving at most `max_ticks` ticks,
// the first tick <= lo and the last >= hi.
struct Ticks {
  double lo = 0, hi = 1, step = 1;
  std::vector<double> values;
};
Ticks nice_ticks(double lo, double hi, int max_ticks);

using Points = std::vector<std::pair<double, double>>;
// At most `max_points`: consecutive groups of ceil(n / max_points) points become their first x and
// their mean y.
Points downsample(const Points& points, std::size_t max_points);
// The empirical CDF of `values` as (value, share of values <= it), at most `max_points` of them,
// always including the largest value (share 1).
Points cdf_points(std::vector<double> values, std::size_t max_points);

// One MIG instance drawn on its GPU: the memory slices it takes and the compute slices (GPCs).
struct MigBox {
  std::string profile;
  int memory_start = 0, memory_slices = 0;
  int compute_start = 0, compute_slices = 0;
};
// A layout as gpus.csv writes it ("3g.40gb@4+4g.40gb@0"); unknown profiles are skipped.
struct MigGeometry {
  int memory_slices = 0, compute_slices = 0;
  std::vector<MigBox> boxes;
};
MigGeometry mig_geometry(const std::string& gpu_model, const std::string& layout);

}  // namespace report_detail

}  // namespace gpusim::cli
