#pragma once
// Human tables for the terminal: one list of metric rows serves `run` and `compare`.
#include <string>
#include <vector>

#include "gpusim/core/enum_table.hpp"
#include "gpusim/sim/report.hpp"
#include "seeds.hpp"

namespace gpusim::cli {

std::string run_table(const Json& summary);
// Policies side by side; the best value of each comparable row is marked with '*'.
std::string compare_table(const std::vector<Json>& summaries);

// The same tables over seeds: each figure as "mean ± half-width of its 95% confidence interval".
std::string run_table(const SeedSummary& summary);
std::string compare_table(const std::vector<SeedSummary>& summaries);

// --by: the breakdowns summary.json carries (pools, tenants, cost.by_kind, cost.by_gpu_model) as
// tables, read from the summary so they cannot disagree with it. A column no row reports is left out.
enum class Breakdown : uint8_t { pool, tenant, kind, model };
constexpr auto enum_table(Breakdown) {
  using B = Breakdown;
  return std::to_array<EnumName<B>>({{B::pool, "pool"}, {B::tenant, "tenant"}, {B::kind, "kind"}, {B::model, "model"}});
}
std::string breakdown_table(const Json& summary, Breakdown by);
std::string breakdown_table(const SeedSummary& summary, Breakdown by);

}  // namespace gpusim::cli
