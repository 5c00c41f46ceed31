#pragma once
// A placement filters the nodes a job fits on, scores them, and picks GPUs inside the chosen node
// (the filter/score phases of the Kubernetes scheduler framework). A new placement is one
// class overriding score() and perhaps choose_gpus(), plus one registration line.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "gpusim/core/random.hpp"
#include "gpusim/sim/scheduler.hpp"

namespace gpusim {

class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;
  // Lower is better; called only for nodes the whole job fits on. Must depend on the node's state
  // only (nodes in identical states are scored once). Ties: break_ties_* below (default: the lowest node id).
  virtual double score(const ClusterView& view, JobId job, NodeId node) const;
  // Picks `count` of `fitting` (the node's GPUs that can take one of the job's GPUs, in index order).
  virtual void choose_gpus(const ClusterView& view, JobId job, const std::vector<GpuId>& fitting, int32_t count,
                           std::vector<GpuId>& out) const;
  // On a MIG-enabled GPU, the instance to take among `fitting` (smallest first); default: the first.
  virtual MigSlotIndex choose_instance(const ClusterView& view, JobId job, GpuId gpu,
                                       const std::vector<MigSlotIndex>& fitting) const;
  // Called after a pass with the jobs that did not fit; a policy may reconfigure drained MIG GPUs or
  // ask for a later decision point here.
  virtual void after_pass(const ClusterView& view, Binder& binder, const std::vector<JobId>& unplaced);
  // Does it want every decision point, also those where nothing is pending (it moves running jobs)?
  virtual bool every_pass() const { return false; }
  // Called at the start of each pass, before any job is placed: a placement that moves running jobs
  // preempts them here (they are placed again in the same pass) and may ask for a later decision point.
  virtual void before_pass(const ClusterView&, Binder&) {}
  // May the job go to this pool now (beyond its own constraints)? The autoscaler asks the same.
  virtual bool admits_pool(const ClusterView& view, JobId job, PoolId pool) const;
  // Jobs of one request shape this placement may treat differently fall into `variants()` classes;
  // a pass stops trying a (shape, variant) once one of its jobs did not fit.
  virtual uint32_t variants() const { return 1; }
  virtual uint32_t variant(const ClusterView&, JobId) const { return 0; }
  // The whole decision for one job; nullopt when it does not fit now. The default: the best-scored
  // node that fits the whole job, else (multi_node jobs) the fewest nodes with free GPUs.
  virtual std::optional<Placement> place(const ClusterView& view, JobId job);

  // Ties in score go to the lowest node id (the default, deterministic), or, given a stream, to a
  // node drawn uniformly among the tied ones, as the Kubernetes scheduler picks among top scores.
  void break_ties_at_random(Rng rng) { tie_rng_ = rng; }
  // Or to the tied node of lowest rank in one random order of the nodes drawn from `rng` (a
  // permutation of the node ids), as the FGD artifact's Kubernetes fork takes the smallest node name
  // among equal scores and prefixes each name with a seeded random four-digit rank (simulator.go,
  // syncClusterResourceList).
  void break_ties_by_rank(Rng rng) { rank_rng_ = rng; }
  // Or by a given rank per node id (a replayed run's node order, PackingSpec::node_ranks).
  void break_ties_by_rank(std::vector<uint32_t> ranks) { rank_ = std::move(ranks); }
  // The node's rank in that order (drawn on first use over the nodes the cluster has then; nodes
  // added later rank after them by id).
  uint32_t rank(const Cluster& cluster, NodeId node) const;

 protected:
  // Among scored candidates (a node, standing for `weight` nodes in the same state), the best: the
  // lowest score, ties as set above (a drawn tie is one of the candidates' nodes, by weight).
  struct Candidate {
    NodeId node;
    uint32_t weight;
    double score;
  };
  // Only the candidates on the pools the job prefers most are kept first (keep_preferred).
  std::optional<NodeId> best_of(const ClusterView& view, JobId job, std::vector<Candidate>& candidates) const;
  // The job's node preferences come before a placement's own score: of the candidates (the feasible
  // nodes), only those whose pools kube-scheduler scores best by NodeAffinity and TaintToleration
  // (preference_scores) are kept, and the placement chooses among them. Scores of gpusim's
  // placements are not on kube-scheduler's 0-100 scale, so a weighted sum would let each
  // placement's scale decide; ranking keeps the user's preference binding for every placement (in
  // kube-scheduler the two preference plugins carry 5 of the 6 weights they share with NodeResourcesFit).
  template <class C, class PoolOf>
  void keep_preferred(const ClusterView& view, JobId job, std::vector<C>& candidates, PoolOf pool_of) const {
    const std::vector<PoolPreference>& per_pool = view.preferences(job);
    if (per_pool.empty() || candidates.size() < 2) return;
    pools_.clear();
    for (const C& c : candidates) pools_.push_back(pool_of(c));
    preference_scores(per_pool, pools_, scores_);
    const int64_t best = *std::max_element(scores_.begin(), scores_.end());
    std::size_t kept = 0;
    for (std::size_t i = 0; i < candidates.size(); ++i)
      if (scores_[i] == best) candidates[kept++] = candidates[i];
    candidates.resize(kept);
  }
  std::optional<Placement> place_on_node(const ClusterView& view, JobId job, NodeId node) const;
  // The best-scored node that fits the whole job; nullopt when none does.
  std::optional<Placement> place_on_one_node(const ClusterView& view, JobId job);
  // Multi-node jobs: the fewest nodes with free GPUs (inside one NVLink domain for a job whose
  // ComputeDomain needs it).
  std::optional<Placement> place_across_nodes(const ClusterView& view, JobId job) const;
  // Multi-node jobs inside one NVLink domain of a rack-scale pool (docs/guide/topology.md#nvlink-domains):
  // the domain with most free GPUs that holds the job, or with `pack` the one with least; nullopt when none holds it.
  std::optional<Placement> place_in_nvlink_domain(const ClusterView& view, JobId job, bool pack) const;
  // Fills placement.instances for the MIG-enabled GPUs among placement.gpus.
  void choose_instances(const ClusterView& view, JobId job, Placement& p) const;

 private:
  mutable std::optional<Rng> tie_rng_;
  mutable std::optional<Rng> rank_rng_;
  mutable std::vector<uint32_t> rank_;  // by node id, once drawn
  std::vector<Candidate> candidates_;
  mutable std::vector<PoolId> pools_;  // keep_preferred's scratch
  mutable std::vector<int64_t> scores_;
  mutable std::vector<GpuId> fitting_, chosen_;  // take_from's scratch
  int32_t usable_gpus(const ClusterView& view, JobId job, NodeId n, std::size_t fitting) const;
  bool take_from(const ClusterView& view, JobId job, NodeId n, int32_t most, Placement& p, int32_t& left) const;
};

// Leftover share of a node after placing `job` there: free GPU milli over GPU capacity plus free
// CPU over CPU capacity, each in [0, 1]. Best-fit minimises it; spread maximises it.
double leftover_after(const ClusterView& view, JobId job, NodeId node);

// The `count` GPUs of `fitting` with the least free share (ties in index order): best-fit inside a node.
void tightest_gpus(const ClusterView& view, const std::vector<GpuId>& fitting, int32_t count, std::vector<GpuId>& out);

}  // namespace gpusim
