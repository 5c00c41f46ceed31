#pragma once
// Per-namespace, per-ClusterQueue and per-cohort figures of a multi-tenant run (issue 17;
// docs/guide/tenants.md): how long each group's jobs waited, what it held against its fair share over time, how
// fair the cluster and each cohort were (Jain's index), what a ClusterQueue used, borrowed and lent
// of its quota, who was preempted or rejected and why, and what it cost. Kept by an observer the
// engine attaches when the scenario has a `tenancy:` block; exact time integrals, updated at every
// change.
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gpusim/core/time.hpp"
#include "gpusim/core/units.hpp"
#include "gpusim/sim/kueue_spec.hpp"
#include "gpusim/sim/observer.hpp"

namespace gpusim {

class KueueState;

// Max-min fair shares with weights (water-filling): `capacity` divided among claimants asking
// `demand[i]` with `weight[i]` > 0, none getting more than it asks, every unsatisfied one getting the
// same share per unit of weight. Sum of shares = min(capacity, sum of demands).
std::vector<double> weighted_fair_shares(double capacity, const std::vector<double>& demand, const std::vector<double>& weight);

// Jain's fairness index of x: (sum x)^2 / (n sum x^2), in [1/n, 1]; 1 when n <= 1 or all are 0.
double jain_index(const std::vector<double>& x);

// What the ledger keeps for a group of jobs: a namespace, a Kueue ClusterQueue (the jobs of its
// LocalQueues) or a cohort (the jobs of the ClusterQueues below it, at any depth).
struct GroupFigures {
  uint64_t jobs = 0, completed = 0, rejected = 0, admitted = 0;
  std::map<std::string, uint64_t, std::less<>> rejections;  // reason -> jobs
  // Arrival to first start; jobs that never started count with their wait up to the end (so the
  // maximum shows starvation).
  std::vector<double> wait_s;
  std::vector<double> admission_wait_s;  // arrival to first admission (by Kueue, else by the quotas)
  double held_gpu_s = 0;                 // integral of the GPUs its jobs held
  double fair_share_gpu_s = 0;           // integral of its fair share
  double demand_gpu_s = 0;               // integral of the GPUs its arrived, unfinished jobs hold or ask
  uint64_t preemptions_received = 0, preemptions_caused = 0;
  std::map<std::string, uint64_t, std::less<>> received_by_reason, caused_by_reason;
  double lost_gpu_s = 0;                   // GPU time its preempted, evicted or killed jobs must redo
  double cost_usd = 0, busy_cost_usd = 0;  // its jobs' held cost, and the part their SMs kept busy
  double energy_ws = 0;                    // the facility energy drawn for its jobs
  // ClusterQueues and cohorts (nvidia.com/gpu quota over all flavors; a cohort's figures are its own
  // quota plus its members', and the sums of its ClusterQueues' integrals).
  int64_t nominal_gpus = 0;
  double quota_used_gpu_hours = 0, borrowed_gpu_hours = 0, lent_gpu_hours = 0;
  // Cohorts: Jain's index of held / fair share over its direct members that want GPUs, averaged
  // over the time at least two want some (`contended_s`).
  double jain = 1;
  double contended_s = 0;
};

struct TenancyFigures {
  std::vector<GroupFigures> namespaces;      // by tenant index (JobSet::tenants)
  std::vector<GroupFigures> cluster_queues;  // by KueueSpec::cluster_queues index (empty without Kueue)
  std::vector<GroupFigures> cohorts;         // by KueueSpec::cohorts index
  // Time-weighted mean of Jain's index of held / fair share over the namespaces that want GPUs, over
  // the time at least two want some (`contended_s`); 1 when never contended.
  double jain = 1;
  double contended_s = 0;
  // Jobs rejected at admission, by reason, over every namespace.
  std::map<std::string, uint64_t, std::less<>> rejections() const;
};

// The fair shares of Kueue's quota tree (KueueSpec: cohorts and ClusterQueues) for given demands, in
// the demands' unit: what Kueue's fair sharing converges to. A root cohort divides its subtree's
// nominal quota; each member first gets what it asks up to its own subtree's nominal quota, then the
// rest goes to those that want more by weighted water-filling (Kueue's share, borrowed / lendable /
// weight, is then equal among them), none above its borrowing limit. A ClusterQueue without a
// cohort gets what it asks up to its nominal quota. Lending limits are not applied.
class KueueFairShares {
 public:
  // `quota_scale`: demand units per quota unit (1000 for milli-GPUs of nvidia.com/gpu quota).
  KueueFairShares(const KueueSpec& k, double quota_scale);
  // Shares per ClusterQueue and per cohort, from the ClusterQueues' demands.
  void compute(const std::vector<double>& queue_demand, std::vector<double>& queue_share,
               std::vector<double>& cohort_share) const;
  // The trees of the quota forest, numbered by their root: a root cohort's index, or the cohort
  // count + the index of a ClusterQueue without a cohort (the other numbers below tree_count() are
  // no tree). Shares of one tree depend on its demands alone.
  uint32_t tree_count() const { return static_cast<uint32_t>(cohorts_.size() + queues_.size()); }
  uint32_t tree_of_queue(uint32_t cq) const { return queue_tree_[cq]; }
  // The cohorts of a tree (none for a lone ClusterQueue).
  const std::vector<uint32_t>& tree_cohorts(uint32_t tree) const { return tree_cohorts_[tree]; }
  const std::vector<uint32_t>& tree_queues(uint32_t tree) const { return tree_queues_[tree]; }
  // Shares of one tree's ClusterQueues and cohorts, written into the shares given (sized for all;
  // the other trees' entries are left as they are).
  void compute_tree(uint32_t tree, std::span<const double> queue_demand, std::span<double> queue_share,
                    std::span<double> cohort_share) const;
  int64_t queue_nominal(uint32_t cq) const { return queues_[cq].nominal; }
  int64_t cohort_nominal(uint32_t c) const { return cohorts_[c].nominal; }  // its own plus its members'
  // A cohort's direct members: ClusterQueues, then cohorts.
  const std::vector<uint32_t>& member_queues(uint32_t c) const { return member_queues_[c]; }
  const std::vector<uint32_t>& member_cohorts(uint32_t c) const { return member_cohorts_[c]; }
  // The cohort a ClusterQueue or cohort is in; none for a root.
  std::optional<uint32_t> queue_parent(uint32_t cq) const { return queues_[cq].parent; }
  std::optional<uint32_t> cohort_parent(uint32_t c) const { return cohorts_[c].parent; }

 private:
  struct Member {
    double demand, nominal, cap;  // cap: nominal + borrowing limit, or none (infinity)
    double weight;
  };
  // Divides cohort c's `amount` among its direct members (their shares; not further down).
  void divide(uint32_t c, double amount, std::span<const double> queue_demand, std::span<double> queue_share,
              std::span<double> cohort_share) const;

  double scale_;
  // A ClusterQueue or cohort: its nvidia.com/gpu quota (a cohort's counts its members'), weight
  // and the cohort it is in.
  struct QuotaNode {
    int64_t nominal;
    std::optional<int64_t> borrow;  // borrowing limit; none: unlimited
    double weight;
    std::optional<uint32_t> parent;
  };
  std::vector<QuotaNode> queues_, cohorts_;
  std::vector<std::vector<uint32_t>> member_queues_, member_cohorts_;
  std::vector<uint32_t> queue_tree_;
  std::vector<std::vector<uint32_t>> tree_queues_, tree_cohorts_;  // per tree
  mutable std::vector<double> cohort_demand_;                      // compute_tree's scratch
};

class TenantLedger final : public Observer {
 public:
  // `kueue`: Kueue's state when the scenario has tenancy.kueue, for the quota figures.
  TenantLedger(const Scenario& s, const KueueState* kueue);
  void started(const RunState& run) override;
  // What a job asks counts from its arrival (also while it waits for admission) to its end.
  void job_transition(const RunState& run, JobId id, JobStatus from, JobStatus to, std::string_view cause) override;
  void job_started(const RunState& run, JobId id) override;
  void job_stopping(const RunState& run, JobId id, StopCause cause) override;
  void job_preempted(const RunState& run, JobId id) override;
  void job_evicted(const RunState& run, JobId victim, JobId by, std::string_view reason) override;
  void node_state(const RunState& run, NodeId node, NodeState from) override;
  void finished(const RunState& run) override;
  TenancyFigures take();

 private:
  // Integrates the state that held since the last change up to now.
  void advance(Time now);
  void arrived(Time now, JobId id);
  void ended(Time now, JobId id, JobStatus to);
  void admitted(Time now, JobId id);
  void rejected(JobId id, std::string_view reason);
  double asked_milli(JobId id) const;
  // Calls f(group) for each group the job counts in: its namespace, then its ClusterQueue and the
  // cohorts above it.
  template <class F>
  void for_each_group(JobId id, F&& f);
  void add_held(const RunState& run, JobId id, double sign);
  // The job's groups changed (what they hold or want): their shares or Jain's index are stale.
  void changed(JobId id);
  // Integrates group g's held, demand and (ClusterQueues and cohorts) fair share up to `now`.
  void settle(uint32_t g, Time now);
  // Namespace t's demand changed: it moves to its place in by_demand_.
  void demand_changed(uint16_t t);
  // Jain's index of held / fair share over those of `groups` that want GPUs; contended: two or more.
  double jain_of(const std::vector<uint32_t>& groups, bool& contended);

  static constexpr uint32_t kNoQueue = UINT32_MAX;
  const Scenario& scenario_;
  const KueueState* kueue_;
  // Groups: the namespaces, then the ClusterQueues, then the cohorts.
  std::vector<GroupFigures> groups_;
  uint32_t queue_base_ = 0, cohort_base_ = 0;
  std::optional<KueueFairShares> kueue_shares_;
  std::vector<uint32_t> job_queue_;                  // per job: its ClusterQueue; empty without Kueue
  std::vector<std::vector<uint32_t>> queue_groups_;  // per ClusterQueue: its group, then its cohorts'
  std::vector<double> held_milli_, demand_milli_;    // per group
  // Per job: not arrived yet, its ask is in demand_milli_ (from arrival), or it ended.
  enum : uint8_t { kNotArrived, kCounted, kEnded };
  std::vector<uint8_t> counted_;
  std::vector<Time> first_admitted_;  // per job; Time::max(): not yet
  double capacity_milli_ = 0;
  Time last_;
  std::vector<double> fair_;  // per group, for the current state
  // Per group, the integrals of held, fair share and demand (kept apart from groups_ so that the
  // pass over every group at each instant reads dense arrays).
  std::vector<double> held_gpu_s_, fair_gpu_s_, demand_gpu_s_;
  std::vector<Time> since_;  // per group: integrated up to then
  // What is stale: the namespaces' shares (a demand or the capacity changed), their Jain's index
  // (also what they hold), and the quota trees whose jobs changed (their shares and cohorts' index).
  bool shares_dirty_ = true, namespaces_dirty_ = true;
  std::vector<uint8_t> tree_dirty_;
  std::vector<uint32_t> dirty_trees_;
  std::vector<uint32_t> by_demand_, rank_;             // namespaces by demand (then index), and each one's place
  std::vector<uint32_t> namespace_groups_;             // 0 .. namespaces - 1
  std::vector<std::vector<uint32_t>> cohort_members_;  // per cohort: its direct members' groups
  std::vector<double> ratio_;                          // jain_of's scratch
  // Jain's index now, its time integral and the contended time: [0] over the namespaces, [1 + c]
  // over cohort c's members.
  std::vector<double> jain_now_, jain_weighted_s_, contended_s_;
  std::vector<uint8_t> contended_now_;
};

}  // namespace gpusim
