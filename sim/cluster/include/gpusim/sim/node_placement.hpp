#pragma once
// Where a pod's node rules (workloads/node_rules.hpp) let it go, pool by pool (issue 17;
// docs/guide/tenants.md, "Taints, selectors and affinity"). Pools are uniform (every node of a pool has its labels and
// taints), so the filter and the preferences are static per (request shape, pool): fit.cpp's
// analyse folds them into the request shapes, which every caller (engine, view, autoscaler) shares.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gpusim/hardware/catalog.hpp"
#include "gpusim/sim/cluster.hpp"
#include "gpusim/workloads/job.hpp"
#include "gpusim/workloads/node_rules.hpp"

namespace gpusim {

// Adds the labels every node of the pool carries, as the kubelet and NVIDIA GPU Feature Discovery
// set them, to the ones the scenario wrote (which win on the same key); keeps them sorted.
void add_node_labels(PoolSpec& pool, const NodeTemplate& t);

// Why the pod's rules keep it off `pool` (a NoSchedule or NoExecute taint it does not tolerate, its
// nodeSelector, its required node affinity); nullopt if they do not.
std::optional<std::string> rules_refuse(const NodeRules& rules, const PoolSpec& pool);

// What kube-scheduler scores a node by for the pod: NodeAffinity (the weights of the preferred
// terms its labels match) and TaintToleration (its PreferNoSchedule taints the pod does not tolerate).
struct PoolPreference {
  int32_t affinity_weight = 0;
  int32_t untolerated_prefer_no_schedule = 0;
};
// Per pool of `pools`; empty when they are alike on every pool (nothing to prefer).
std::vector<PoolPreference> preferences(const NodeRules& rules, std::span<const Pool> pools);

// kube-scheduler's combined score of each candidate pool (higher better): each plugin's raw scores
// normalised to 0-100 over the candidates (DefaultNormalizeScore: NodeAffinity by its maximum,
// TaintToleration reversed, fewer taints higher), weighted as the default profile does
// (TaintToleration 3, NodeAffinity 2: pkg/scheduler/apis/config/v1/default_plugins.go) and summed.
// `per_pool` is a shape's preferences (indexed by pool id); `candidates` the pools of the feasible nodes.
void preference_scores(const std::vector<PoolPreference>& per_pool, std::span<const PoolId> candidates,
                       std::vector<int64_t>& out);

// The ExtendedResourceToleration admission plugin (kube-apiserver): a pod that requests an extended
// resource (nvidia.com/gpu, nvidia.com/mig-..., nvidia.com/gpu.shared) gets a toleration with that
// key, operator Exists and effect NoSchedule, so that only such pods land on nodes tainted with it.
void add_extended_resource_tolerations(JobSet& jobs);

}  // namespace gpusim
