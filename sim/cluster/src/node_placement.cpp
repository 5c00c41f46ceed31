#include "gpusim/sim/node_placement.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "gpusim/core/ascii.hpp"
#include "gpusim/sim/fit.hpp"

namespace gpusim {

namespace {

std::string describe(const Taint& t) {
  return fmt::format("{}{}{}:{}", t.key, t.value.empty() ? "" : "=", t.value, to_string(t.effect));
}

}  // namespace

void add_node_labels(PoolSpec& pool, const NodeTemplate& t) {
  // Set by the kubelet on every node (https://kubernetes.io/docs/reference/labels-annotations-taints/).
  // The instance type is the catalog's node template (a cloud's machine type where it names one).
  // kubernetes.io/hostname is per node and not a pool label: selectors on it are refused (node_rules.cpp).
  Labels known{{"kubernetes.io/os", "linux"}, {"node.kubernetes.io/instance-type", t.name}};
  if (pool.gpu && t.gpus > 0 && pool.gpu->vendor == Vendor::amd) {
    // AMD's node labeller (ROCm/k8s-device-plugin cmd/k8s-node-labeller): product name with spaces as
    // underscores, VRAM in GiB with a G, compute units; the partition label on a partitioned node.
    const SharingConfig& c = pool.sharing;
    const MigProfile* partition = c.mode == Sharing::mig ? pool.gpu->mig->find(c.mig_config) : nullptr;
    known.emplace_back("amd.com/gpu.family", "AI");
    known.emplace_back("amd.com/gpu.product-name", pool.gpu->product_label('_'));
    known.emplace_back("amd.com/gpu.vram", fmt::format("{}G", pool.gpu->memory_mib / 1024));
    known.emplace_back("amd.com/gpu.cu-count", std::to_string(pool.gpu->sms));
    known.emplace_back("amd.com/gpu.compute-partitioning-supported", pool.gpu->partitions ? "true" : "false");
    if (partition) known.emplace_back("amd.com/gpu.compute-memory-partition", partition->name);
  } else if (pool.gpu && t.gpus > 0 && pool.gpu->vendor == Vendor::intel) {
    // Habana feature discovery (HabanaAI/gaudi-feature-discovery, collector.go DefaultLabels): family,
    // count and the device type the driver reports (GAUDI2, GAUDI3). Its product.name is the server's
    // DMI product name, not the accelerator's, and is not modelled.
    const std::string type = ascii_upper(pool.gpu->name);
    known.emplace_back("habana.ai/device.family", "gaudi");
    known.emplace_back("habana.ai/device.count", std::to_string(t.gpus));
    known.emplace_back("habana.ai/device.type", type);
  } else if (pool.gpu && t.gpus > 0) {
    // GPU Feature Discovery's labels (NVIDIA k8s-device-plugin, docs/gpu-feature-discovery/README.md,
    // "Generated Labels"); nvidia.com/gpu.present is the one the GPU Operator deploys GFD by.
    const GpuModel& g = *pool.gpu;
    const SharingConfig& c = pool.sharing;
    std::string product = g.product_label('-');
    int64_t count = t.gpus, memory_mib = g.memory_mib;
    const int major = static_cast<int>(g.compute_capability);
    known.emplace_back("nvidia.com/gpu.present", "true");
    known.emplace_back("nvidia.com/gpu.compute.major", std::to_string(major));
    known.emplace_back("nvidia.com/gpu.compute.minor", std::to_string(std::lround((g.compute_capability - major) * 10)));
    known.emplace_back("nvidia.com/mig.capable", g.mig ? "true" : "false");
    if (c.mode == Sharing::mig && !c.mig_partitionable) {  // a partitionable GPU has no device plugin and no strategy
      known.emplace_back("nvidia.com/mig.strategy", std::string(to_string(c.mig_strategy)));
      // The single strategy advertises the (identical) MIG devices as nvidia.com/gpu, and GFD
      // overrides product, count and memory with theirs ("MIG 'single' strategy").
      if (c.mig_strategy == MigStrategy::single && !c.mig_layouts.empty() && c.mig_layouts.front() &&
          !c.mig_layouts.front()->empty()) {
        const MigProfile& p = g.mig->profiles[c.mig_layouts.front()->front().profile];
        count = 0;
        for (const auto& layout : c.mig_layouts) count += layout ? static_cast<int64_t>(layout->size()) : 0;
        product += "-MIG-" + p.name;
        memory_mib = p.memory_mib;
      }
    } else if (c.mode == Sharing::time_slicing || c.mode == Sharing::mps) {
      // GPU sharing (GPU Operator docs, "Time-Slicing GPUs" / MPS): the replicas and strategy, and
      // -SHARED on the product unless the shared resource is renamed (renameByDefault).
      known.emplace_back("nvidia.com/gpu.replicas", std::to_string(c.replicas));
      known.emplace_back("nvidia.com/gpu.sharing-strategy", c.mode == Sharing::mps ? "mps" : "time-slicing");
      if (!c.rename_by_default) product += "-SHARED";
    } else {
      known.emplace_back("nvidia.com/gpu.replicas", "1");
      known.emplace_back("nvidia.com/gpu.sharing-strategy", "none");
    }
    known.emplace_back("nvidia.com/gpu.product", product);
    known.emplace_back("nvidia.com/gpu.count", std::to_string(count));
    known.emplace_back("nvidia.com/gpu.memory", std::to_string(memory_mib));
  }
  for (auto& l : known)
    if (!label(pool.labels, l.first)) pool.labels.push_back(std::move(l));
  std::sort(pool.labels.begin(), pool.labels.end());
}

std::optional<std::string> rules_refuse(const NodeRules& rules, const PoolSpec& pool) {
  // The TaintToleration filter: taints with effect NoSchedule or NoExecute must be tolerated.
  for (const Taint& t : pool.taints)
    if (t.effect != TaintEffect::prefer_no_schedule && !tolerated(rules.tolerations, t))
      return fmt::format("does not tolerate the taint {} of pool {}", describe(t), pool.name);
  for (const auto& [key, value] : rules.node_selector)
    if (const auto have = label(pool.labels, key); have != std::optional<std::string_view>(value))
      return have ? fmt::format("has node_selector {}={}; pool {} has {}={}", key, value, pool.name, key, *have)
                  : fmt::format("has node_selector {}={}; pool {} has no label {}", key, value, pool.name, key);
  if (!selects(rules, pool.labels))
    return fmt::format("has a required node affinity no term of which matches the labels of pool {}", pool.name);
  return std::nullopt;
}

std::vector<PoolPreference> preferences(const NodeRules& rules, std::span<const Pool> pools) {
  std::vector<PoolPreference> out;
  bool any = false;
  for (const Pool& pool : pools) {
    PoolPreference p{affinity_weight(rules, pool.labels), 0};
    for (const Taint& t : pool.taints)
      if (t.effect == TaintEffect::prefer_no_schedule && !tolerated(rules.tolerations, t)) ++p.untolerated_prefer_no_schedule;
    any = any || p.affinity_weight > 0 || p.untolerated_prefer_no_schedule > 0;
    out.push_back(p);
  }
  if (!any) out.clear();
  return out;
}

void preference_scores(const std::vector<PoolPreference>& per_pool, std::span<const PoolId> candidates,
                       std::vector<int64_t>& out) {
  constexpr int64_t kMaxNodeScore = 100;  // framework.MaxNodeScore
  constexpr int64_t kTaintWeight = 3, kAffinityWeight = 2;
  int64_t max_affinity = 0, max_taints = 0;
  for (PoolId p : candidates) {
    max_affinity = std::max<int64_t>(max_affinity, per_pool[p].affinity_weight);
    max_taints = std::max<int64_t>(max_taints, per_pool[p].untolerated_prefer_no_schedule);
  }
  out.clear();
  for (PoolId p : candidates) {
    // DefaultNormalizeScore: score * 100 / max (integer division); reversed: 100 - that; all 0
    // scores stay 0 (reversed: 100).
    const int64_t affinity = max_affinity == 0 ? 0 : kMaxNodeScore * per_pool[p].affinity_weight / max_affinity;
    const int64_t taints = kMaxNodeScore -
                           (max_taints == 0 ? 0 : kMaxNodeScore * per_pool[p].untolerated_prefer_no_schedule / max_taints);
    out.push_back(kAffinityWeight * affinity + kTaintWeight * taints);
  }
}

void add_extended_resource_tolerations(JobSet& jobs) {
  // One new pod spec per (pod spec, resource) pair, not one lookup per job.
  std::map<std::pair<uint16_t, std::string_view>, uint16_t> done;
  for (Job& j : jobs.jobs) {
    const Request& q = j.request;
    if (q.gpus == 0 || q.claim) continue;  // a capacity claim names no extended resource
    const std::string_view resource = resource_name(q);
    const auto [it, added] = done.try_emplace({j.pod, resource}, Job::kNoPod);
    if (added) {
      PodSpec spec = j.pod == Job::kNoPod ? PodSpec{} : jobs.pods[j.pod];
      NodeRules rules = spec.node_rules;
      const Toleration t{std::string(resource), TolerationOperator::exists, "", TaintEffect::no_schedule};
      if (std::find(rules.tolerations.begin(), rules.tolerations.end(), t) == rules.tolerations.end())
        rules.tolerations.push_back(t);
      spec.node_rules = rules;
      it->second = jobs.pod(std::move(spec));
    }
    j.pod = it->second;
  }
}

}  // namespace gpusim
