#include "k8s_objects.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "gpusim/core/ascii.hpp"

namespace gpusim::cli::k8s {

std::string duration_text(Duration d) {
  const int64_t s = d.us() / 1'000'000;
  if (d.us() % 1'000'000 != 0) return format_seconds(d);
  if (s > 0 && s % 3600 == 0) return fmt::format("{}h", s / 3600);
  if (s > 0 && s % 60 == 0) return fmt::format("{}m", s / 60);
  return fmt::format("{}", s);
}

namespace {

// `n` as a flow map or list on one line, whatever style it was read in.
YAML::Node one_line(const YAML::Node& n) {
  YAML::Node c = YAML::Clone(n);
  c.SetStyle(YAML::EmitterStyle::Flow);
  return c;
}

// A key and its value, double-quoted: names and durations stay strings whatever they look like.
void quoted(YAML::Emitter& e, std::string_view key, const std::string& value) {
  e << YAML::Key << std::string(key) << YAML::Value << YAML::DoubleQuoted << value;
}

// `mixed_vendors`: the cluster has other vendors' GPUs, where a pod's nvidia.com/gpu must stay NVIDIA's
// (alone, an unnamed resource is any vendor's whole GPU and reads the same).
void emit_job(YAML::Emitter& e, const JobOut& j, bool mixed_vendors) {
  e << YAML::Flow << YAML::BeginMap;
  quoted(e, "name", j.name);
  if (j.count > 1) e << YAML::Key << "count" << YAML::Value << j.count;
  if (j.workers > 1) e << YAML::Key << "workers" << YAML::Value << j.workers;
  e << YAML::Key << "gpus" << YAML::Value << j.request.gpus;
  if (!j.request.resource.empty() && (mixed_vendors || j.request.resource != "nvidia.com/gpu"))
    e << YAML::Key << "resource" << YAML::Value << j.request.resource;
  if (j.request.cpu_milli > 0) e << YAML::Key << "cpu_milli" << YAML::Value << j.request.cpu_milli;
  if (j.request.memory_mib > 0) e << YAML::Key << "memory_mib" << YAML::Value << j.request.memory_mib;
  e << YAML::Key << "kind" << YAML::Value << j.kind;
  quoted(e, "duration", j.duration);
  quoted(e, "arrival", j.arrival);
  quoted(e, "tenant", j.tenant);
  if (!j.deadline.empty()) quoted(e, "deadline", j.deadline);
  if (!j.node.empty()) quoted(e, "node", j.node);
  // The pod's Kubernetes settings go on the job's line.
  for (const auto& kv : j.rules) e << YAML::Key << kv.first << YAML::Value << kv.second;
  e << YAML::EndMap << YAML::Comment(j.comment);
}

// Which labels chose the pool's nodes and configs.
std::string pool_comment(const PoolOut& p) {
  std::string s = fmt::format("nodes labelled {}={}", p.product_label, p.product);
  if (!p.clique.empty()) s += fmt::format(", nvidia.com/gpu.clique={}", p.clique);
  if (!p.partition.empty()) s += fmt::format(", amd.com/gpu.compute-memory-partition={}", p.partition);
  if (!p.instance_type.empty()) s += fmt::format(", node.kubernetes.io/instance-type={}", p.instance_type);
  if (!p.mig_config.empty()) s += fmt::format(", nvidia.com/mig.config={}", p.mig_config);
  if (!p.plugin_config.empty())
    s += p.plugin_fallback
             ? fmt::format("; no nvidia.com/device-plugin.config label: the plugin's fallback config {}", p.plugin_config)
             : fmt::format(", nvidia.com/device-plugin.config={}", p.plugin_config);
  return s;
}

// The device plugin config the pool's nodes use (a null node when none); one the ConfigMaps lack is
// an error naming the pool's first node.
YAML::Node plugin_config(const PoolOut& p, const Configs& configs) {
  if (p.plugin_config.empty()) return YAML::Node();
  const auto it = configs.device_plugin.find(p.plugin_config);
  if (it == configs.device_plugin.end()) {
    std::vector<std::string> known;
    for (const auto& [k, v] : configs.device_plugin) known.push_back(k);
    p.first->fail(at(p.first->node, {"metadata", "labels", "nvidia.com/device-plugin.config"}),
                  "metadata.labels.nvidia.com/device-plugin.config",
                  fmt::format("no device plugin config '{}' in the ConfigMaps read (known: {})", p.plugin_config,
                              known.empty() ? "none" : fmt::format("{}", fmt::join(known, ", "))));
  }
  return it->second;
}

void emit_pool(YAML::Emitter& e, const PoolOut& p, const Configs& configs) {
  e << YAML::BeginMap;
  quoted(e, "name", p.name);
  e << YAML::Key << "node" << YAML::Value << p.node_template;
  e << YAML::Key << "node_names" << YAML::Value << YAML::Flow << p.nodes << YAML::Comment(pool_comment(p));
  if (p.labels.size() > 0) e << YAML::Key << "labels" << YAML::Value << one_line(p.labels);
  if (p.taints.size() > 0) e << YAML::Key << "taints" << YAML::Value << one_line(p.taints);
  if (p.nvlink_domain_nodes > 1) e << YAML::Key << "nvlink_domain_nodes" << YAML::Value << p.nvlink_domain_nodes;
  const YAML::Node plugin = plugin_config(p, configs);
  if (!p.partition.empty()) {
    // AMD's label gives the mode as the mixed-strategy name: cpx_nps4 -> CPX, NPS4.
    const std::string upper = ascii_upper(p.partition);
    const auto cut = upper.find('_');
    e << YAML::Key << "partition" << YAML::Value << YAML::Flow << YAML::BeginMap;
    e << YAML::Key << "computePartition" << YAML::Value << upper.substr(0, cut);
    e << YAML::Key << "memoryPartition" << YAML::Value << upper.substr(cut + 1) << YAML::EndMap;
  } else if (!p.mig_config.empty() && p.mig_config != "all-disabled") {
    // The device plugin's flags.migStrategy; none given (or none): mixed, which advertises each profile.
    std::string strategy = scalar(at(plugin, {"flags", "migStrategy"}));
    if (strategy.empty() || strategy == "none") strategy = "mixed";
    e << YAML::Key << "mig" << YAML::Value << YAML::Flow << YAML::BeginMap;
    e << YAML::Key << "strategy" << YAML::Value << strategy;
    quoted(e, "config", p.mig_config);
    if (const YAML::Node devices = configs.mig_configs[p.mig_config]) {
      e << YAML::Key << "mig-configs" << YAML::Value << YAML::BeginMap;
      e << YAML::Key << p.mig_config << YAML::Value << devices << YAML::EndMap;
    }
    e << YAML::EndMap;
  } else if (const YAML::Node sharing = at(plugin, {"sharing"})) {
    e << YAML::Key << "sharing" << YAML::Value << one_line(sharing);
  }
  e << YAML::EndMap;
}

// A list of flow maps under `key`, none when empty.
void emit_items(YAML::Emitter& e, std::string_view key, const std::vector<YAML::Node>& items) {
  if (items.empty()) return;
  e << YAML::Key << std::string(key) << YAML::Value << YAML::BeginSeq;
  for (const YAML::Node& item : items) e << one_line(item);
  e << YAML::EndSeq;
}

void emit_tenancy(YAML::Emitter& e, const TenancyOut& t) {
  e << YAML::Key << "tenancy" << YAML::Value << YAML::BeginMap;
  emit_items(e, "priority_classes", t.priority_classes);
  emit_items(e, "pod_disruption_budgets", t.budgets);
  emit_items(e, "resource_quotas", t.quotas);
  if (!t.flavors.empty() || !t.cohorts.empty() || !t.cluster_queues.empty() || !t.local_queues.empty()) {
    e << YAML::Key << "kueue" << YAML::Value << YAML::BeginMap;
    emit_items(e, "resource_flavors", t.flavors);
    emit_items(e, "cohorts", t.cohorts);
    emit_items(e, "cluster_queues", t.cluster_queues);
    emit_items(e, "local_queues", t.local_queues);
    e << YAML::EndMap;
  }
  emit_items(e, "device_classes", t.device_classes);
  emit_items(e, "resource_claim_templates", t.claim_templates);
  emit_items(e, "resource_claims", t.resource_claims);
  e << YAML::EndMap;
}

// How the scenario was made, and what was ignored.
std::string header(const K8sImportOptions& options, const std::vector<std::string>& ignored) {
  std::string s = fmt::format(
      "Written by gpusim import k8s {} (docs/guide/kubernetes.md).\n"
      "Run times: annotation gpusim.io/duration, else --duration {}; serving replicas (Deployments,\n"
      "StatefulSets, pods of ReplicaSets) run for the whole horizon. Arrivals: gpusim.io/arrival, else 0.\n"
      "Pods bound to a node (spec.nodeName) start there at time 0; other pods are queued at time 0.\n",
      fmt::join(options.paths, " "), duration_text(options.duration));
  if (ignored.empty()) return s + "Ignored: nothing.";
  s += "Ignored:";
  for (const std::string& i : ignored) s += "\n  " + i;
  return s;
}

}  // namespace

std::string scenario_yaml(const K8sImportOptions& options, const std::vector<std::string>& ignored,
                          const std::vector<PoolOut>& pools, const Configs& configs, const std::vector<JobOut>& jobs,
                          const TenancyOut& tenancy) {
  YAML::Emitter e;
  e.SetPreCommentIndent(3);
  e << YAML::Comment(header(options, ignored)) << YAML::BeginMap;
  quoted(e, "name", options.name);
  e << YAML::Key << "version" << YAML::Value << 1;
  e << YAML::Key << "seed" << YAML::Value << 0;
  if (std::any_of(jobs.begin(), jobs.end(), [](const JobOut& j) { return j.whole_horizon; }))
    quoted(e, "horizon", duration_text(options.horizon));
  e << YAML::Key << "cluster" << YAML::Value << YAML::BeginMap << YAML::Key << "pools" << YAML::Value << YAML::BeginSeq;
  for (const PoolOut& p : pools) emit_pool(e, p, configs);
  e << YAML::EndSeq << YAML::EndMap;
  // The run times are as a pod took on the cluster, whatever GPU it got there: the same on every model
  // until the user names the GPU they were measured on.
  e << YAML::Key << "workload" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "reference_gpu" << YAML::Value << "any"
    << YAML::Comment("run times hold on every GPU model; name the GPU they were measured on to scale them "
                     "(docs/hardware.md#job-speed)");
  e << YAML::Key << "jobs" << YAML::Value << YAML::BeginSeq;
  const bool mixed_vendors = std::any_of(pools.begin(), pools.end(),
                                         [](const PoolOut& p) { return !p.product_label.starts_with("nvidia.com/"); });
  for (const JobOut& j : jobs) emit_job(e, j, mixed_vendors);
  e << YAML::EndSeq << YAML::EndMap;
  if (tenancy.any()) emit_tenancy(e, tenancy);
  e << YAML::EndMap;
  return std::string(e.c_str()) + "\n";
}

}  // namespace gpusim::cli::k8s
