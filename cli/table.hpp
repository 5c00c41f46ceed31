#pragma once
// Human tables for the terminal: one list of metric rows serves `run` and `compare`.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gpusim/core/enum_table.hpp"
#include "gpusim/sim/report.hpp"
#include "seeds.hpp"

namespace gpusim::cli {

// Which way a metric is better: the one place compare learns it (MetricRow in table.cpp's list).
enum class Better : uint8_t { lower, higher, neither };
// gpus: a mean GPU count; index: a unitless index in [0, 1] (Jain's)
enum class Format : uint8_t { usd, percent, gpu_hours, count, seconds, ratio, gpus, index, latency, rate };

// When a row is shown: always; when some run has its figure (deadlines, services), so that other
// tables keep their rows; when some run's figure is not 0 (jobs not arrived by the end).
enum class Shown : uint8_t { always, when_given, when_nonzero };

struct MetricRow {
  const char* label;
  const char* pointer;  // JSON pointer into summary.json
  Format format;
  Better better;
  Shown shown;
};

// The rows the run and compare tables show, in order, with their directions.
std::span<const MetricRow> metric_rows();

// Which values of a compare row get '*': none when the metric has no direction or when every run
// prints the same (a difference the table does not show is no difference to its reader); else
// every run that prints what the best value prints, so ties in print are all marked.
std::vector<bool> best_marks(std::span<const std::optional<double>> values, std::span<const std::string> printed, Better better);

// A figure as the tables print it ("-" when absent).
std::string format_figure(std::optional<double> v, Format f);
// A row's figure of one run as every table prints it: a cost of a run with unpriced pools says it
// covers the priced ones only ("+ unpriced"; "unpriced" when no pool is priced).
std::string row_text(const MetricRow& row, std::optional<double> v, const Json& summary);
// Is the row shown, its runs' figures being `values` (MetricRow::shown)?
bool row_shown(const MetricRow& row, std::span<const std::optional<double>> values);

// What did not complete, by why: unschedulable, rejected and failed jobs, requests not completed.
struct NotCompleted {
  std::string title;                                   // "unschedulable jobs", "requests not completed", ...
  std::vector<std::pair<uint64_t, std::string>> rows;  // count, reason (a request's status before it)
};
std::vector<NotCompleted> not_completed(const Json& summary);

std::string run_table(const Json& summary);
// Policies side by side; the best value of each row with a direction is marked with '*'.
std::string compare_table(const std::vector<Json>& summaries);

// The same tables over seeds: each figure as "mean ± half-width of its 95% confidence interval".
std::string run_table(const SeedSummary& summary);
std::string compare_table(const std::vector<SeedSummary>& summaries);

// --by: the breakdowns summary.json carries (pools, tenants, cost.by_kind, cost.by_gpu_model, Kueue's
// tenancy.cluster_queues and tenancy.cohorts, the inference services) as tables, read from the summary so they cannot
// disagree with it. A column no row reports is left out.
enum class Breakdown : uint8_t { pool, tenant, kind, model, queue, cohort, service };
constexpr auto enum_table(Breakdown) {
  using B = Breakdown;
  return std::to_array<EnumName<B>>({{B::pool, "pool"},
                                     {B::tenant, "tenant"},
                                     {B::kind, "kind"},
                                     {B::model, "model"},
                                     {B::queue, "queue"},
                                     {B::cohort, "cohort"},
                                     {B::service, "service"}});
}
std::string breakdown_table(const Json& summary, Breakdown by);
std::string breakdown_table(const SeedSummary& summary, Breakdown by);

}  // namespace gpusim::cli
