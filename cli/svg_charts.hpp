#pragma once
// The report's plots as inline SVG, pure functions of their data: lines over time, CDFs, stacked cost
// bars, the occupancy heat map and MIG layouts. html_report.cpp reads a run's files into them.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "gpusim/core/json.hpp"
#include "html_report.hpp"

namespace gpusim::cli::svg {

// A named line: (x, y) points, x in seconds where the chart is over time.
struct Series {
  std::string name;
  report_detail::Points points;
};

// One bar of cost_bars: USD parts of a pool, kind, model or tenant.
struct CostRow {
  std::string name;
  double busy = 0, unused = 0, idle = 0;  // USD: what jobs' SMs used, what jobs held unused, what nobody held
};

// A paragraph of the report's note style: what stands where a plot has nothing to draw.
std::string note(const std::string& text);
// Line series over time on one chart (a note instead when there is nothing to draw); `steps`: each
// value holds until the next point (samples of a state).
std::string time_chart(const std::string& title, const std::string& y_label, const std::vector<Series>& series, bool steps,
                       std::size_t max_points = 400);
// CDFs of durations (seconds) on one chart, a series per (name, values); `what`: what the values are of.
std::string cdf_chart(const std::string& title, const std::vector<std::pair<std::string, std::vector<double>>>& samples,
                      const std::string& what = "jobs");
// Horizontal stacked bars: each row's parts (busy, held unused, idle) in USD.
std::string cost_bars(const std::string& title, const std::vector<CostRow>& rows);
// occupancy.json as a heat map: a row per node group, a column per time bucket.
std::string heat_map(const Json& occ);
// One MIG layout (as gpus.csv writes it) on its GPU model, with the number of GPUs in it.
std::string mig_drawing(const std::string& model, const std::string& layout, std::size_t gpus);

}  // namespace gpusim::cli::svg
