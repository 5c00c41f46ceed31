#pragma once
// --seeds: one setup run once per seed, each figure reported as the mean over the seeds with a 95%
// confidence interval. `run`, `compare`, `sweep` and `packing` share the parser; the first three
// share the aggregation below.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpusim/sim/report.hpp"

namespace gpusim::cli {

// "1-10", "1,3,5" or "1-3,7" -> seeds in the order given; an InputError naming --seeds when
// malformed, when a range runs backwards, when a seed repeats, or past 10,000 seeds.
std::vector<uint64_t> parse_seeds(const std::string& text);

// "1-5", "1-3,7": seeds as --seeds takes them.
std::string seeds_text(const std::vector<uint64_t>& seeds);

// The half-width of the 95% confidence interval of the mean of `values`: t(0.975, n-1) x s / sqrt(n)
// with s the sample standard deviation; nullopt for fewer than two values.
std::optional<double> ci95_half_width(const std::vector<double>& values);

// One figure over the seeds: values[i] is seed i's (nullopt when that run does not report it, e.g.
// a mean over no completed job); mean and n over the seeds that do.
struct SeedFigure {
  std::optional<double> mean;
  std::optional<double> ci95;  // half-width
  std::size_t n = 0;
  std::vector<std::optional<double>> values;
  Json json() const;
};

// Every numeric figure of the seeds' summaries by dotted path (as sweep CSVs and baselines name
// them); arrays of named objects are keyed by name: pools.<pool>.cost_usd, tenants.<tenant>.jobs.
// The seed itself is not a figure. Paths come in first-seen order.
struct SeedSummary {
  std::vector<uint64_t> seeds;
  Json first;  // seed 1's summary: names, header fields and the breakdowns' rows
  std::vector<std::string> paths;
  std::map<std::string, SeedFigure> figures;
  const SeedFigure* figure(const std::string& path) const;
  // {label, scenario, policy, seeds, figures: {path: {mean, ci95, n, values}}}
  Json json() const;
};

// `summaries[i]` is the run with `seeds[i]`.
SeedSummary aggregate_seeds(const std::vector<uint64_t>& seeds, const std::vector<Json>& summaries);

// Numeric leaves by dotted path, arrays of objects with a "name" keyed by it (the aggregation's
// paths; flatten_summary skips arrays).
std::vector<std::pair<std::string, double>> keyed_figures(const Json& summary);

}  // namespace gpusim::cli
