#include "k8s_objects.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>

#include "gpusim/core/ascii.hpp"
#include "gpusim/core/config.hpp"
#include "gpusim/core/error.hpp"
#include "gpusim/core/yaml_documents.hpp"

namespace gpusim::cli::k8s {

// --- ConfigMaps -------------------------------------------------------------------------------

bool read_config_map(const Object& o, Configs& configs) {
  bool used = false;
  for (const auto& kv : entries(o, at(o.node, {"data"}), "data")) {
    const std::string key = kv.first.Scalar();
    const std::string embedded = text(o, kv.second, "data." + key);  // a file inside the manifest
    YAML::Node doc;
    try {
      doc = yaml_document(embedded, o.file);
    } catch (const InputError& e) {  // (its lines are the embedded file's: the manifest's line is the entry's)
      o.fail(kv.second, "data." + key, e.reason());
    }
    // A file inside a manifest: the same checks as the manifest's (keys given twice, alias bombs).
    ConfigNode::check_keys(doc, o.file, "data." + key);
    if (!doc.IsMap()) continue;
    if (doc["mig-configs"]) {
      if (!doc["mig-configs"].IsMap()) o.fail(kv.second, "data." + key + ".mig-configs", "expected a map of config names");
      for (const auto& c : doc["mig-configs"]) configs.mig_configs[c.first.Scalar()] = c.second;
      used = true;
    } else if (doc["version"] && (doc["sharing"] || doc["flags"])) {
      // (Messages point at the data entry: the lines of the file inside it are its own.)
      if (const YAML::Node s = at(doc, {"flags", "migStrategy"});
          s && !(s.IsScalar() && (s.Scalar() == "none" || s.Scalar() == "single" || s.Scalar() == "mixed")))
        o.fail(kv.second, "data." + key + ".flags.migStrategy",
               fmt::format("expected one of none, single, mixed, got '{}'", scalar(s)));
      configs.device_plugin[key] = doc;
      used = true;
    }
  }
  return used;
}

// --- Nodes ------------------------------------------------------------------------------------

namespace {

// The vendor's model whose product name, spaces as `space`, is the label's value.
const GpuModel* labelled_model(const Catalog& catalog, const std::string& product, char space, Vendor vendor) {
  for (const GpuModel& g : catalog.gpus())
    for (std::string name : g.product_names) {
      std::replace(name.begin(), name.end(), ' ', space);
      if (g.vendor == vendor && name == product) return &g;
    }
  return nullptr;
}

// nvidia.com/gpu.product is nvidia-smi's name with spaces as dashes; with the single MIG strategy
// it ends in -MIG-<profile>, with sharing in -SHARED (gpu-feature-discovery README, "Generated Labels").
// The catalog's product_names are nvidia-smi's names.
const GpuModel* catalog_model(const Catalog& catalog, std::string product) {
  if (const auto mig = product.find("-MIG-"); mig != std::string::npos) product.resize(mig);
  if (product.ends_with("-SHARED")) product.resize(product.size() - 7);
  return labelled_model(catalog, product, '-', Vendor::nvidia);
}

// A Node's spec.taints as the pool's taints (timeAdded, set by the node controller, is not a rule).
YAML::Node node_taints(const Object& n) {
  const YAML::Node taints = at(n.node, {"spec", "taints"});
  expect(n, taints, "spec.taints", YAML::NodeType::Sequence);
  YAML::Node list(YAML::NodeType::Sequence);
  for (std::size_t i = 0; taints && i < taints.size(); ++i) {
    const std::string f = fmt::format("spec.taints[{}]", i);
    const YAML::Node key = at(taints[i], {"key"});
    if (!key || !key.IsScalar() || key.Scalar().empty()) n.fail(taints[i], f + ".key", "expected a taint key");
    YAML::Node t(YAML::NodeType::Map);
    t["key"] = key.Scalar();
    if (const std::string v = text(n, at(taints[i], {"value"}), f + ".value"); !v.empty()) t["value"] = v;
    t["effect"] = one_of(n, at(taints[i], {"effect"}), f + ".effect", {"NoSchedule", "PreferNoSchedule", "NoExecute"});
    list.push_back(t);
  }
  return list;
}

// The Node's labels that workloads or ResourceFlavors select on, except those every gpusim pool of
// this template has anyway (sim/node_placement.cpp, add_node_labels): kubernetes.io/os=linux, the
// instance type when it is the template's name, and the GPU product and count the pool was matched
// by. kubernetes.io/hostname is per node: a nodeSelector on it becomes the job's node:.
YAML::Node node_labels(const Object& n, const std::set<std::string>& keys, const std::string& node_template) {
  YAML::Node out(YAML::NodeType::Map);
  for (const std::string& key : keys) {
    const YAML::Node v = at(n.node, {"metadata", "labels", key});
    if (!v) continue;
    const std::string value = text(n, v, "metadata.labels." + key);
    if (key == kHostname || (key == "kubernetes.io/os" && value == "linux") ||
        (key == "node.kubernetes.io/instance-type" && value == node_template) || key == "nvidia.com/gpu.product" ||
        key == "nvidia.com/gpu.count" || key == "nvidia.com/gpu.clique" || key == "amd.com/gpu.product-name" ||
        key == "amd.com/gpu.compute-memory-partition" || key == "habana.ai/device.type" || key == "habana.ai/device.name")
      continue;
    out[key] = value;
  }
  return out;
}

// Habana feature discovery's habana.ai/device.type (GAUDI2, GAUDI3), or habana.ai/device.name (gaudi3: the
// collector defines it, releases 1.23-1.24 do not write it): a Gaudi model's name or alias, case and dashes aside.
const GpuModel* gaudi_model(const Catalog& catalog, const std::string& device) {
  const auto plain = [](std::string s) {
    std::erase(s, '-');
    return ascii_lower(s);
  };
  for (const GpuModel& g : catalog.gpus())
    if (g.vendor == Vendor::intel &&
        (plain(g.name) == plain(device) ||
         std::any_of(g.aliases.begin(), g.aliases.end(), [&](const std::string& a) { return plain(a) == plain(device); })))
      return &g;
  return nullptr;
}

// The label that names a GPU Node's model, and the one that counts its GPUs: GPU feature discovery's
// (NVIDIA), AMD's node labeller's (its counter form beta.amd.com/gpu.product-name.<name>=<GPUs>),
// Habana feature discovery's; none: not a GPU node.
struct ModelLabels {
  std::string product, count;
};
std::optional<ModelLabels> model_labels(const Object& n) {
  if (!label(n, "nvidia.com/gpu.product").empty()) return ModelLabels{"nvidia.com/gpu.product", "nvidia.com/gpu.count"};
  if (const std::string amd = label(n, "amd.com/gpu.product-name"); !amd.empty())
    return ModelLabels{"amd.com/gpu.product-name", "beta.amd.com/gpu.product-name." + amd};
  for (const char* gaudi : {"habana.ai/device.type", "habana.ai/device.name"})
    if (!label(n, gaudi).empty()) return ModelLabels{gaudi, "habana.ai/device.count"};
  return std::nullopt;
}

// A GPU Node as a pool of its own, not yet named: its node template (the catalog's first of its GPU
// model and count) and what else sets it apart.
PoolOut node_pool(const Object& n, const std::set<std::string>& selected, const Configs& configs, const Catalog& catalog) {
  const ModelLabels names = *model_labels(n);
  const std::string product = label(n, names.product);
  const YAML::Node labels = at(n.node, {"metadata", "labels"});
  const GpuModel* gpu = names.product.starts_with("nvidia.com/") ? catalog_model(catalog, product)
                        : names.product.starts_with("amd.com/")  ? labelled_model(catalog, product, '_', Vendor::amd)
                                                                 : gaudi_model(catalog, product);
  if (!gpu)
    n.fail(at(labels, {names.product}), "metadata.labels." + names.product,
           fmt::format("GPU product '{}' is not in gpusim's catalog (gpusim catalog lists the models)", product));
  const std::string count_text = label(n, names.count);
  int count = 0;
  const auto [end, ec] = std::from_chars(count_text.data(), count_text.data() + count_text.size(), count);
  if (ec != std::errc() || end != count_text.data() + count_text.size() || count < 1)
    n.fail(at(labels, {names.count}), "metadata.labels." + names.count,
           fmt::format("expected a GPU count >= 1, got '{}'", count_text));
  const auto t = std::find_if(catalog.nodes().begin(), catalog.nodes().end(),
                              [&](const NodeTemplate& c) { return c.gpu == gpu->name && c.gpus == count; });
  if (t == catalog.nodes().end())
    n.fail(at(labels, {names.count}), "metadata.labels." + names.count,
           fmt::format("no catalog node template has {} x {} (gpusim catalog nodes; add one under catalog.nodes)", count,
                       gpu->name));
  PoolOut p;
  p.product_label = names.product;
  p.partition = label(n, "amd.com/gpu.compute-memory-partition");
  if (!p.partition.empty() && (!gpu->partitions || !gpu->mig->find(p.partition)))
    n.fail(at(labels, {"amd.com/gpu.compute-memory-partition"}), "metadata.labels.amd.com/gpu.compute-memory-partition",
           fmt::format("{} has no partition mode '{}' (gpusim catalog gpus --gpu {})", gpu->name, p.partition, gpu->name));
  p.clique = label(n, "nvidia.com/gpu.clique");
  if (!p.clique.empty() && t->nvlink_domain_nodes == 0)
    n.fail(at(labels, {"nvidia.com/gpu.clique"}), "metadata.labels.nvidia.com/gpu.clique",
           fmt::format("node template {} has no NVLink domain across nodes (a GB200 NVL72 tray has)", t->name));
  p.node_template = t->name;
  p.instance_type = label(n, "node.kubernetes.io/instance-type");
  p.product = product;
  p.mig_config = label(n, "nvidia.com/mig.config");
  p.plugin_config = label(n, "nvidia.com/device-plugin.config");
  // No label: the plugin's fallbacks (its helm chart's config.fallbackStrategies, "named" then
  // "single"): a config named default, else the only config there is.
  if (p.plugin_config.empty() && !configs.device_plugin.empty() && gpu->vendor == Vendor::nvidia) {
    if (configs.device_plugin.count("default")) p.plugin_config = "default";
    else if (configs.device_plugin.size() == 1) p.plugin_config = configs.device_plugin.begin()->first;
    p.plugin_fallback = !p.plugin_config.empty();
  }
  p.labels = node_labels(n, selected, t->name);
  p.taints = node_taints(n);
  p.key = fmt::format("{}|{}|{}|{}|{}|{}|{}|{}", p.instance_type, t->name, p.mig_config, p.plugin_config, YAML::Dump(p.labels),
                      YAML::Dump(p.taints), p.partition, p.clique);
  p.first = &n;
  return p;
}

// The instance type (else the node template) and the config labels, numbered from 2 when taken.
std::string pool_name(const PoolOut& p, const std::vector<PoolOut>& pools) {
  std::string base = p.instance_type.empty() ? p.node_template : p.instance_type;
  for (const std::string& c : {p.mig_config, p.plugin_config})
    if (!c.empty()) base += "-" + c;
  std::string name = base;
  for (int i = 2; std::any_of(pools.begin(), pools.end(), [&](const PoolOut& q) { return q.name == name; }); ++i)
    name = fmt::format("{}-{}", base, i);
  return name;
}

}  // namespace

std::vector<PoolOut> read_pools(const std::vector<const Object*>& nodes, const std::set<std::string>& selected,
                                const Configs& configs, const Catalog& catalog, std::set<std::string>& node_names,
                                std::vector<std::string>& ignored) {
  std::vector<PoolOut> pools;
  for (const Object* n : nodes) {
    if (!model_labels(*n)) {
      ignored.push_back(n->id() +
                        ": no nvidia.com/gpu.product, amd.com/gpu.product-name or habana.ai/device.type (or device.name) label "
                        "(not a GPU node)");
      continue;
    }
    PoolOut p = node_pool(*n, selected, configs, catalog);
    if (!node_names.insert(n->name).second)
      n->fail(at(n->node, {"metadata", "name"}), "metadata.name", "two Nodes have this name");
    auto it = std::find_if(pools.begin(), pools.end(), [&](const PoolOut& q) { return q.key == p.key; });
    if (it == pools.end()) {
      p.name = pool_name(p, pools);
      pools.push_back(p);
      it = pools.end() - 1;
    }
    it->nodes.push_back(n->name);
  }
  // A clique is one NVLink domain: its pool's nodes, at most a rack of them.
  for (PoolOut& p : pools) {
    if (p.clique.empty()) continue;
    const int rack = catalog.find_node(p.node_template)->nvlink_domain_nodes;
    if (static_cast<int>(p.nodes.size()) > rack)
      p.first->fail(at(p.first->node, {"metadata", "labels", "nvidia.com/gpu.clique"}), "metadata.labels.nvidia.com/gpu.clique",
                    fmt::format("clique {} has {} nodes; an NVLink domain of {} spans at most {}", p.clique, p.nodes.size(),
                                p.node_template, rack));
    p.nvlink_domain_nodes = static_cast<int>(p.nodes.size());
  }
  return pools;
}

}  // namespace gpusim::cli::k8s
