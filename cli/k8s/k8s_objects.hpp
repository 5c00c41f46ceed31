#pragma once
// What the parts of `gpusim import k8s` share (private to cli/): the objects read and the checked
// readers of their fields (k8s_objects.cpp), a pod's request and Kubernetes settings (k8s_pods.cpp),
// Nodes and ConfigMaps into pools (k8s_nodes.cpp), the tenancy objects (k8s_tenancy.cpp), the
// scenario written (k8s_emit.cpp); k8s_import.cpp reads the workloads and puts it together.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpusim/core/time.hpp"
#include "gpusim/hardware/catalog.hpp"
#include "k8s_import.hpp"

namespace gpusim::cli::k8s {

inline constexpr std::string_view kHostname = "kubernetes.io/hostname";
inline constexpr std::string_view kQueueLabel = "kueue.x-k8s.io/queue-name";

// --- the objects read (k8s_objects.cpp) ---------------------------------------------------------

// One Kubernetes object and where it was read.
struct Object {
  YAML::Node node;
  std::string file;
  std::string kind, name, ns;
  std::string id() const;
  // Throws InputError at `at` (else at the object) naming the file, the object and `field`.
  [[noreturn]] void fail(const YAML::Node& at, const std::string& field, const std::string& why) const;
};

// The objects of `paths` (files, or directories: their *.yaml, *.yml and *.json in name order).
std::vector<Object> read_objects(const std::vector<std::string>& paths);

// A scalar's text, "" for anything else: for nodes already checked, or read only into messages.
std::string scalar(const YAML::Node& n);
// n[k0][k1]... through maps only: an undefined node where a key is missing or a value is no map
// (yaml-cpp throws on a key looked up in a missing node).
YAML::Node at(const YAML::Node& n, std::initializer_list<std::string_view> path);
std::string label(const Object& o, const std::string& key);  // checked as text()
std::string ns_of(const Object& o);                          // its namespace, "default" when none is given

// `n` must be of `type` (a map, a list or a scalar) when given.
void expect(const Object& o, const YAML::Node& n, const std::string& field, YAML::NodeType::value type);
// A string field's text, "" when absent or null; a list or a map is an error naming the field.
std::string text(const Object& o, const YAML::Node& n, const std::string& field);
// What a loop over a map's entries takes: `n` itself when a map, none when absent or null, an error
// naming the field otherwise (yaml-cpp throws "invalid node" on a list iterated as a map).
YAML::Node entries(const Object& o, const YAML::Node& n, const std::string& field);
// The same for a list: `n` itself when a list, an empty one when absent or null, else an error.
YAML::Node items(const Object& o, const YAML::Node& n, const std::string& field);
// A whole number in [lo, hi].
int64_t whole(const Object& o, const YAML::Node& n, const std::string& field, int64_t lo, int64_t hi);
// One of `values` (Kubernetes' enumerations are case-sensitive).
std::string one_of(const Object& o, const YAML::Node& n, const std::string& field, const std::vector<std::string_view>& values);
// A Kubernetes quantity from 0 to `max`; quantity_text checks one the scenario takes as written.
double quantity(const Object& o, const YAML::Node& n, const std::string& field, double max);
std::string quantity_text(const Object& o, const YAML::Node& n, const std::string& field);
// A map of strings (labels, nodeSelector, nodeLabels), in the object's order.
YAML::Node string_map(const Object& o, const YAML::Node& n, const std::string& field);
// Keys of a map other than `known`, for the ignored report.
std::vector<std::string> other_keys(const YAML::Node& n, std::initializer_list<std::string_view> known);
void report_fields(const Object& o, const std::string& prefix, const std::vector<std::string>& keys, std::string_view why,
                   std::vector<std::string>& ignored);

// --- pods (k8s_pods.cpp) ------------------------------------------------------------------------

// What one pod asks: its GPU resource (summed over containers) and its CPU and memory requests.
struct PodRequest {
  int64_t gpus = 0;
  std::string resource;  // nvidia.com/gpu, nvidia.com/gpu.shared or nvidia.com/mig-<profile>
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
};

// A pod spec's request; `field` is the spec's path in the object (for messages).
PodRequest read_pod_spec(const Object& o, const YAML::Node& spec, const std::string& field);

// A gpusim.io/<key> annotation of the object, else of its pod template: its text and node.
std::optional<std::pair<std::string, YAML::Node>> annotation(const Object& o, const YAML::Node& tmpl, const std::string& key);
// A duration annotation, checked here so that an error names the manifest, not the scenario (a
// deadline must also be positive: how long after its arrival the job must end).
std::string duration_annotation(const Object& o, const YAML::Node& tmpl, const std::string& key, const std::string& fallback);

// What a pod template sets beside its resources.
struct PodRules {
  YAML::Node fields{YAML::NodeType::Map};  // the job's fields, in the scenario's names
  std::string priority_class, queue, hostname;
  YAML::Node queue_at;  // the queue label and its object's path, for messages
  std::string queue_at_field;
  std::vector<std::pair<std::string, bool>> claims;  // names, true: a ResourceClaimTemplate's
  YAML::Node claims_at;                              // for messages
};

// `tmpl` is the pod (template) with metadata and spec; `field` its path in the object ("" or "spec.template.").
PodRules read_pod_rules(const Object& o, const YAML::Node& tmpl, const std::string& field, bool with_labels,
                        std::vector<std::string>& ignored);

// Node label keys workloads select on (nodeSelector, node affinity): the pools carry those labels.
void selected_label_keys(const YAML::Node& n, bool in_affinity, std::set<std::string>& out);

// --- tenancy objects (k8s_tenancy.cpp) ----------------------------------------------------------

// A ResourceClaimTemplate or ResourceClaim read, for the pods that name it.
struct ClaimSource {
  std::string ns, name;
  bool from_template = true;
  std::size_t requests = 0;
  int64_t per_pod = 1;   // devices of its (one) request per pod
  std::string unusable;  // why pods naming it are ignored
};

// What goes into the scenario's tenancy: block, one flow map per item.
struct TenancyOut {
  std::vector<YAML::Node> priority_classes, budgets, quotas, flavors, cohorts, cluster_queues, local_queues, device_classes,
      claim_templates, resource_claims;
  std::set<std::string> class_names;
  std::set<std::pair<std::string, std::string>> queues;              // LocalQueues: (namespace, name)
  std::vector<std::pair<const Object*, std::string>> queue_targets;  // each LocalQueue and its ClusterQueue
  std::set<std::string> cluster_queue_names;
  std::vector<ClaimSource> claim_sources;
  std::set<std::string> label_keys;  // node label keys ResourceFlavors select on
  bool any() const;
};

// Which tenancy object is it; false: not one gpusim reads.
bool read_tenancy_object(const Object& o, TenancyOut& t, std::vector<std::string>& ignored);

// --- Nodes and ConfigMaps (k8s_nodes.cpp) -------------------------------------------------------

struct Configs {
  std::map<std::string, YAML::Node> device_plugin;  // config name -> its parsed YAML (version: v1, flags, sharing)
  YAML::Node mig_configs;                           // mig-parted's mig-configs: name -> list of device filters
};

// Which of our ConfigMaps is it (device plugin, MIG manager), if any; each value is a YAML file.
bool read_config_map(const Object& o, Configs& configs);

// Nodes alike in instance type, node template, config labels, selected labels and taints.
struct PoolOut {
  std::string key;  // what groups its nodes
  std::string name, node_template, instance_type, product, mig_config, plugin_config;
  std::string product_label;     // the label that named the GPU model: nvidia.com/gpu.product, amd.com/gpu.product-name, ...
  std::string partition;         // AMD: the node's compute and memory partition (amd.com/gpu.compute-memory-partition)
  std::string clique;            // NVIDIA: the NVLink clique (nvidia.com/gpu.clique): one domain
  int nvlink_domain_nodes = 0;   // of a clique's pool: its nodes, one NVLink domain
  bool plugin_fallback = false;  // no label chose plugin_config
  YAML::Node labels, taints;     // a map and a list, empty: none
  std::vector<std::string> nodes;
  const Object* first = nullptr;  // its first Node, for messages
};

// The GPU Nodes as pools (a Node without the GPU product label is ignored); `selected`: the label
// keys workloads and ResourceFlavors select on. `node_names` gets every pooled Node's name.
std::vector<PoolOut> read_pools(const std::vector<const Object*>& nodes, const std::set<std::string>& selected,
                                const Configs& configs, const Catalog& catalog, std::set<std::string>& node_names,
                                std::vector<std::string>& ignored);

// --- the scenario written (k8s_emit.cpp) --------------------------------------------------------

// One inline job of the scenario, written as a flow map.
struct JobOut {
  std::string name, tenant, kind, duration, arrival = "0", deadline, node, comment;
  PodRequest request;
  int64_t count = 1, workers = 1;
  YAML::Node rules;  // the pod's Kubernetes settings (PodRules::fields)
  std::string object_id;
  std::vector<std::string> named_claims;  // ResourceClaims its pod names (resourceClaimName)
  bool whole_horizon = false;             // serving: runs to the horizon
};

// A duration as a file would give it: "24h", "90m" or seconds.
std::string duration_text(Duration d);

// The scenario's text: a header saying how it was made and what was ignored, the pools, the jobs
// and the tenancy: block. Throws InputError for a pool's device plugin config the ConfigMaps lack.
std::string scenario_yaml(const K8sImportOptions& options, const std::vector<std::string>& ignored,
                          const std::vector<PoolOut>& pools, const Configs& configs, const std::vector<JobOut>& jobs,
                          const TenancyOut& tenancy);

}  // namespace gpusim::cli::k8s
