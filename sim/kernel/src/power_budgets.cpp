#include "gpusim/sim/power_budgets.hpp"

#include <algorithm>
#include <cmath>

namespace gpusim {

namespace {
int64_t to_mw(double w) { return static_cast<int64_t>(std::ceil(w * 1000.0)); }
}  // namespace

PowerBudgets::PowerBudgets(const std::vector<PowerBudget>& budgets, const Cluster& cluster, const PowerModel& power,
                           std::size_t jobs)
    : any_(!budgets.empty()),
      budget_of_(cluster.pools().size(), -1),
      claim_mw_(cluster.pools().size()),
      gpu_(cluster.pools().size()),
      host_(cluster.pools().size()) {
  if (budgets.empty()) return;
  for (const PowerBudget& b : budgets) {
    limit_mw_.push_back(static_cast<int64_t>(std::floor(b.limit_w * 1000.0)));
    use_.push_back({b.name, b.limit_w, 0, b.pool_mask, 0, 0});
  }
  held_mw_.assign(budgets.size(), 0);
  peak_mw_.assign(budgets.size(), 0);
  waited_.assign(jobs, false);
  for (PoolId p{0}; p < cluster.pools().size(); ++p) {
    const Pool& pool = cluster.pool(p);
    for (std::size_t b = 0; b < budgets.size(); ++b)
      if (budgets[b].pool_mask >> p & 1) budget_of_[p] = static_cast<int>(b);
    if (budget_of_[p] < 0) continue;
    host_[p] = pool.host_power;
    if (pool.gpu) gpu_[p] = power.of(*pool.gpu, pool.power_limit_w);
    if (!pool.gpu || pool.gpus_per_node == 0) continue;
    for (std::size_t k = 0; k < enum_count<JobKind>; ++k) {
      double w = claim_budget_w(gpu_[p], host_[p], pool.gpus_per_node, power.bound_by[k]);
      // A serving replica's mix follows its batch: it may draw what the largest measured batch does.
      if (static_cast<JobKind>(k) == JobKind::inference && !power.serving_decode.empty())
        w = std::max(w,
                     claim_budget_w(gpu_[p], host_[p], pool.gpus_per_node, power.serving_mix(power.serving_decode.back().batch)));
      claim_mw_[p][k] = to_mw(w);
    }
  }
}

int64_t PowerBudgets::node_mw(PoolId p, uint16_t gpus) const {
  return budget_of_[p] < 0 ? 0 : to_mw(node_budget_w(gpu_[p], host_[p], gpus));
}

void PowerBudgets::hold(PoolId p, int64_t mw) {
  const int b = budget_of_[p];
  if (b < 0) return;
  const auto i = static_cast<std::size_t>(b);
  held_mw_[i] += mw;
  peak_mw_[i] = std::max(peak_mw_[i], held_mw_[i]);
}

void PowerBudgets::waited(JobId id, PoolId p) const {
  if (waited_[id] || budget_of_[p] < 0) return;
  waited_[id] = true;
  ++use_[static_cast<std::size_t>(budget_of_[p])].jobs_waited;
}

std::vector<PowerBudgetUse> PowerBudgets::results() const {
  std::vector<PowerBudgetUse> out = use_;
  for (std::size_t b = 0; b < out.size(); ++b) out[b].peak_w = static_cast<double>(peak_mw_[b]) / 1000.0;
  return out;
}

}  // namespace gpusim
