#pragma once
// `gpusim check BASELINE`: re-run every scenario x policy a baseline file records and compare each
// recorded figure with its tolerance. A baseline is YAML (or JSON):
//
//   version: 1
//   tolerances:                       # per metric: which way is worse and how far it may move
//     cost_usd: {worse: higher, rel: 0.001}
//     allocation_ratio: {worse: lower, abs: 0.001}
//   runs:
//     - scenario: ../scenarios/quickstart.yaml   # relative to the baseline file
//       variant: mps                             # optional: one of the scenario's variants
//       policy: fifo+best-fit                    # optional: the scenario's own
//       tolerances: {...}                        # optional: overrides for this run
//       metrics: {cost_usd: 9935.52, ...}        # dotted paths into summary.json
//
// A run without `metrics` records every metric that has a tolerance when `--update` writes it.
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpusim/core/enum_table.hpp"
#include "gpusim/core/error.hpp"
#include "gpusim/sim/report.hpp"
#include "runs.hpp"

namespace gpusim::cli {

enum class Worse : uint8_t { higher, lower, either };
constexpr auto enum_table(Worse) {
  return std::to_array<EnumName<Worse>>({{Worse::higher, "higher"}, {Worse::lower, "lower"}, {Worse::either, "either"}});
}

struct Tolerance {
  Worse worse = Worse::either;
  double abs = 0;  // allowed move in the metric's unit
  double rel = 0;  // allowed move as a fraction of the baseline value
  // The move allowed from `baseline`: the larger of the two.
  double allowance(double baseline) const;
};

// same: unchanged; within: moved inside the tolerance; better/worse: moved beyond it;
// missing: the run no longer reports the metric (a regression).
enum class Verdict : uint8_t { same, within, better, worse, missing };
constexpr auto enum_table(Verdict) {
  using V = Verdict;
  return std::to_array<EnumName<V>>(
      {{V::same, "same"}, {V::within, "within"}, {V::better, "better"}, {V::worse, "WORSE"}, {V::missing, "MISSING"}});
}
Verdict judge(double baseline, std::optional<double> now, const Tolerance& tolerance);

struct BaselineRun {
  std::string scenario;  // as written in the file
  std::string path;      // resolved against the baseline's folder
  std::string variant;   // "" for the scenario itself
  std::string policy;    // "" for the scenario's own
  std::vector<std::pair<std::string, Tolerance>> tolerances;  // this run's overrides
  std::vector<std::pair<std::string, double>> metrics;
  std::vector<SourceLocation> metric_where;  // where each of `metrics` is written
  SourceLocation where;
  SourceLocation policy_where;
};

struct Baseline {
  std::string file;
  std::vector<std::pair<std::string, Tolerance>> tolerances;
  std::vector<BaselineRun> runs;
  const Tolerance* tolerance(const BaselineRun& run, const std::string& metric) const;
};

Baseline read_baseline(const std::string& path);
// The JSON Schema (draft 2020-12) of baseline files, from the declarations read_baseline reads by.
Json baseline_schema();
// The runs to simulate, one per baseline run, in order (the policy resolved to the scenario's when unset).
std::vector<RunSpec> baseline_specs(const Baseline& baseline, const LoadOptions& options);

struct Finding {
  std::size_t run;  // index into Baseline::runs
  std::string metric;
  double baseline;
  std::optional<double> now;
  Tolerance tolerance;
  Verdict verdict;
};

struct CheckReport {
  std::vector<std::string> labels;  // per run
  std::vector<Finding> findings;    // every metric compared, in file order
  std::size_t count(Verdict v) const;
  bool regressed() const { return count(Verdict::worse) + count(Verdict::missing) > 0; }
};

CheckReport compare_with_baseline(const Baseline& baseline, const std::vector<RunOutcome>& outcomes);

// What moved, as a terminal table, then one line of totals.
std::string check_table(const CheckReport& report);
void write_junit(std::ostream& out, const CheckReport& report, const std::vector<RunOutcome>& outcomes);
void write_markdown(std::ostream& out, const CheckReport& report);
// The baseline with every run's metrics re-recorded from `outcomes`.
void write_baseline(std::ostream& out, const Baseline& baseline, const std::vector<RunOutcome>& outcomes);

}  // namespace gpusim::cli
