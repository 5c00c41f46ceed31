#pragma once
// Power budgets (issue 45; docs/guide/energy.md#power-budgets): the IT power a set of pools may hold at
// once. Holds are what could be drawn, not what is (sim/power.hpp node_budget_w, claim_budget_w): a
// powered node holds its idle draw, a job's claims what its kind wants under the cap (an inference claim,
// which may be a serving replica's, what the largest measured decode batch wants), so a budget kept
// at every bind and node request is never exceeded however the work runs. Kept in milliwatts, integers,
// so that what is given back is exactly what was taken.
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gpusim/core/units.hpp"
#include "gpusim/sim/cluster.hpp"
#include "gpusim/sim/execution.hpp"
#include "gpusim/workloads/job.hpp"

namespace gpusim {

// What a run reports of one budget.
struct PowerBudgetUse {
  std::string name;
  double limit_w = 0;
  double peak_w = 0;  // the most its pools held at once
  uint64_t pool_mask = 0;
  // Pending jobs it was the first to have no room for while their pool had the free GPUs they ask for, or
  // for whom a scale-up found no room for a node's idle draw.
  uint32_t jobs_waited = 0;
  uint32_t nodes_refused = 0;  // node requests refused (a spot replacement or a pool's minimum)
};

class PowerBudgets {
 public:
  static constexpr int64_t kNoLimit = std::numeric_limits<int64_t>::max();
  PowerBudgets(const std::vector<PowerBudget>& budgets, const Cluster& cluster, const PowerModel& power, std::size_t jobs);

  bool any() const { return any_; }  // a flag, not limit_mw_.empty(): placements ask it for every bucket
  // What a claim of `milli` of one GPU of pool p holds for a job of kind k (0 outside every budget).
  int64_t claim_mw(PoolId p, JobKind k, Milli milli) const {
    const int64_t whole = claim_mw_[p][static_cast<std::size_t>(k)];
    return (whole * milli.value + 999) / 1000;
  }
  // What a powered node of pool p with `gpus` GPUs holds.
  int64_t node_mw(PoolId p, uint16_t gpus) const;
  // Room left in pool p's budget (kNoLimit: in none).
  int64_t room_mw(PoolId p) const { return budget_of_[p] < 0 ? kNoLimit : room(budget_of_[p]); }
  // The budget pool p is in; -1: none.
  int budget_of(PoolId p) const { return budget_of_[p]; }
  int64_t room(int b) const { return limit_mw_[static_cast<std::size_t>(b)] - held_mw_[static_cast<std::size_t>(b)]; }
  std::size_t count() const { return limit_mw_.size(); }
  int64_t held_mw(std::size_t b) const { return held_mw_[b]; }
  int64_t limit_mw(std::size_t b) const { return limit_mw_[b]; }
  // Pool p's budget holds `mw` more (negative: gives it back).
  void hold(PoolId p, int64_t mw);
  // A pending job found no room in pool p's budget: counted once per job, against the first budget that
  // had none.
  void waited(JobId id, PoolId p) const;
  void node_refused(PoolId p) { ++use_[static_cast<std::size_t>(budget_of_[p])].nodes_refused; }
  std::vector<PowerBudgetUse> results() const;

 private:
  bool any_ = false;
  std::vector<int> budget_of_;                                      // per pool
  std::vector<std::array<int64_t, enum_count<JobKind>>> claim_mw_;  // per pool, by kind: one whole GPU
  std::vector<GpuPower> gpu_;                                       // per pool, under its cap
  std::vector<HostPower> host_;                                     // per pool
  std::vector<int64_t> limit_mw_, held_mw_, peak_mw_;               // per budget
  mutable std::vector<PowerBudgetUse> use_;
  mutable std::vector<bool> waited_;  // per job, when any budget is given
};

}  // namespace gpusim
