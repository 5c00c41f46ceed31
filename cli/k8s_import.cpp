#include "k8s_import.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "gpusim/core/error.hpp"
#include "gpusim/core/number.hpp"

namespace gpusim::cli {

namespace {

namespace fs = std::filesystem;

// One Kubernetes object and where it was read.
struct Object {
  YAML::Node node;
  std::string file;
  std::string kind, name, ns;
  std::string id() const { return ns.empty() ? fmt::format("{} {}", kind, name) : fmt::format("{} {}/{}", kind, ns, name); }
  [[noreturn]] void fail(const YAML::Node& at, const std::string& field, const std::string& why) const {
    const YAML::Node& n = at.IsDefined() && !at.IsNull() ? at : node;
    throw InputError({file, n.Mark().line + 1, field}, fmt::format("{}: {}", id(), why));
  }
};

std::string scalar(const YAML::Node& n) { return n && n.IsScalar() ? n.Scalar() : std::string(); }

// n[k0][k1]... through maps only: an undefined node where a key is missing or a value is no map
// (yaml-cpp throws on a key looked up in a missing node).
YAML::Node at(const YAML::Node& n, std::initializer_list<std::string_view> path) {
  YAML::Node cur = n;
  for (std::string_view k : path) {
    if (!cur || !cur.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
    YAML::Node next(YAML::NodeType::Undefined);
    for (const auto& kv : cur)
      if (kv.first.IsScalar() && kv.first.Scalar() == k) {
        next = kv.second;
        break;
      }
    cur.reset(next);
  }
  return cur;
}

std::string label(const Object& o, const std::string& key) { return scalar(at(o.node, {"metadata", "labels", key})); }

// --- reading files ----------------------------------------------------------------------------

void collect(const YAML::Node& doc, const std::string& file, std::vector<Object>& out) {
  if (!doc || doc.IsNull()) return;
  if (!doc.IsMap()) throw InputError({file, doc.Mark().line + 1, ""}, "expected a Kubernetes object (a map with kind:)");
  const std::string kind = scalar(at(doc, {"kind"}));
  if (kind.empty()) throw InputError({file, doc.Mark().line + 1, "kind"}, "expected a Kubernetes object's kind:");
  if (kind == "List" || kind.ends_with("List")) {  // kubectl get -o json/yaml: kind List, items [...]
    for (const auto& item : at(doc, {"items"})) collect(item, file, out);
    return;
  }
  out.push_back({doc, file, kind, scalar(at(doc, {"metadata", "name"})), scalar(at(doc, {"metadata", "namespace"}))});
}

std::vector<Object> read_objects(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<std::string> in_dir;
      for (const auto& e : fs::directory_iterator(p)) {
        const std::string ext = e.path().extension().string();
        if (e.is_regular_file() && (ext == ".yaml" || ext == ".yml" || ext == ".json")) in_dir.push_back(e.path().string());
      }
      std::sort(in_dir.begin(), in_dir.end());
      files.insert(files.end(), in_dir.begin(), in_dir.end());
    } else if (fs::is_regular_file(p, ec)) {
      files.push_back(p);
    } else {
      throw InputError({p, std::nullopt, ""}, "no such file or directory");
    }
  }
  std::vector<Object> out;
  for (const std::string& f : files) {
    try {
      for (const YAML::Node& doc : YAML::LoadAllFromFile(f)) collect(doc, f, out);
    } catch (const YAML::Exception& e) {
      throw InputError({f, e.mark.line + 1, ""}, fmt::format("malformed YAML or JSON: {}", e.msg));
    }
  }
  return out;
}

// --- quantities ---------------------------------------------------------------------------------

// A replica count (replicas, completions, parallelism): a whole number >= 0, `fallback` when absent.
int64_t count_field(const Object& o, const YAML::Node& n, const std::string& field, int64_t fallback) {
  if (!n) return fallback;
  const std::string text = scalar(n);
  int64_t v = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 0 || v > 1'000'000)
    o.fail(n, field, fmt::format("expected a whole number from 0 to 1000000, got '{}'", text));
  return v;
}

// --- pods -------------------------------------------------------------------------------------

inline constexpr std::string_view kAnnotationPrefix = "gpusim.io/";

// What one pod asks: its GPU resource (summed over containers) and its CPU and memory requests.
struct PodRequest {
  int64_t gpus = 0;
  std::string resource;  // nvidia.com/gpu, nvidia.com/gpu.shared or nvidia.com/mig-<profile>
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
};

// A pod spec's request; `field` is the spec's path in the object (for messages).
PodRequest read_pod_spec(const Object& o, const YAML::Node& spec, const std::string& field) {
  PodRequest r;
  const YAML::Node containers = at(spec, {"containers"});
  if (!containers || !containers.IsSequence()) o.fail(spec, field + ".containers", "expected a list of containers");
  for (std::size_t i = 0; i < containers.size(); ++i) {
    const YAML::Node res = at(containers[i], {"resources"});
    const std::string path = fmt::format("{}.containers[{}].resources", field, i);
    // Extended resources (GPUs) are given as limits (requests, if given, must equal them); CPU and
    // memory requests default to their limits.
    for (const char* part : {"limits", "requests"}) {
      for (const auto& kv : at(res, {part})) {
        const std::string key = kv.first.Scalar();
        const std::string where = fmt::format("{}.{}.{}", path, part, key);
        if (key.starts_with("nvidia.com/")) {
          if (std::string_view(part) == "requests" && at(res, {"limits", key})) continue;
          const auto q = parse_quantity(scalar(kv.second));
          if (!q || *q < 0 || *q != std::floor(*q) || *q > 100000)
            o.fail(kv.second, where,
                   fmt::format("expected a whole number of devices from 0 to 100000, got '{}'", scalar(kv.second)));
          if (*q == 0) continue;
          if (key != "nvidia.com/gpu" && key != "nvidia.com/gpu.shared" && !key.starts_with("nvidia.com/mig-"))
            o.fail(kv.second, where, "expected nvidia.com/gpu, nvidia.com/gpu.shared or nvidia.com/mig-<profile>");
          if (!r.resource.empty() && r.resource != key)
            o.fail(kv.second, where, fmt::format("asks both {} and {}; gpusim models one GPU resource per pod", r.resource, key));
          r.resource = key;
          r.gpus += static_cast<int64_t>(*q);
        } else if (key == "cpu" || key == "memory") {
          if (std::string_view(part) == "limits" && at(res, {"requests", key})) continue;
          const auto q = parse_quantity(scalar(kv.second));
          if (!q || *q < 0) o.fail(kv.second, where, fmt::format("expected a quantity >= 0, got '{}'", scalar(kv.second)));
          if (key == "cpu") r.cpu_milli += static_cast<int64_t>(std::ceil(*q * 1000 - 1e-9));
          else r.memory_mib += static_cast<int64_t>(std::ceil(*q / 1048576.0 - 1e-9));
        }
      }
    }
  }
  if (r.gpus > 100000) o.fail(spec, field, fmt::format("asks {} GPUs; a pod has at most 100000", r.gpus));
  return r;
}

// A gpusim.io/<key> annotation of the object, else of its pod template.
std::optional<std::pair<std::string, YAML::Node>> annotation(const Object& o, const YAML::Node& tmpl, const std::string& key) {
  const std::string full = std::string(kAnnotationPrefix) + key;
  for (const YAML::Node& a : {at(o.node, {"metadata", "annotations", full}), at(tmpl, {"metadata", "annotations", full})})
    if (a) return std::pair(scalar(a), a);
  return std::nullopt;
}

// A duration annotation, checked here so that an error names the manifest, not the scenario.
std::string duration_annotation(const Object& o, const YAML::Node& tmpl, const std::string& key, const std::string& fallback) {
  const auto a = annotation(o, tmpl, key);
  if (!a) return fallback;
  try {
    parse_duration(a->first);
  } catch (const std::exception& e) {
    o.fail(a->second, "metadata.annotations." + std::string(kAnnotationPrefix) + key, e.what());
  }
  return a->first;
}

// One inline job of the scenario, written as a flow map.
struct JobOut {
  std::string name, tenant, kind, duration, arrival = "0", node, comment;
  PodRequest request;
  int64_t count = 1, workers = 1;
};

std::string yaml_quoted(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + '"';
}

std::string emit_job(const JobOut& j) {
  std::string s = fmt::format("    - {{name: {}", yaml_quoted(j.name));
  if (j.count > 1) s += fmt::format(", count: {}", j.count);
  if (j.workers > 1) s += fmt::format(", workers: {}", j.workers);
  s += fmt::format(", gpus: {}", j.request.gpus);
  if (!j.request.resource.empty() && j.request.resource != "nvidia.com/gpu")
    s += fmt::format(", resource: {}", j.request.resource);
  if (j.request.cpu_milli > 0) s += fmt::format(", cpu_milli: {}", j.request.cpu_milli);
  if (j.request.memory_mib > 0) s += fmt::format(", memory_mib: {}", j.request.memory_mib);
  s += fmt::format(", kind: {}, duration: {}, arrival: {}, tenant: {}", j.kind, yaml_quoted(j.duration), yaml_quoted(j.arrival),
                   yaml_quoted(j.tenant));
  if (!j.node.empty()) s += fmt::format(", node: {}", yaml_quoted(j.node));
  return s + fmt::format("}}   # {}\n", j.comment);
}

std::string flow(const YAML::Node& n) {
  YAML::Emitter e;
  e.SetMapFormat(YAML::Flow);
  e.SetSeqFormat(YAML::Flow);
  e << n;
  return e.c_str();
}

// --- the GPU feature discovery's product label -------------------------------------------------

// nvidia.com/gpu.product is nvidia-smi's name with spaces as dashes; with the single MIG strategy
// it ends in -MIG-<profile>, with sharing in -SHARED (gpu-feature-discovery README, "Generated Labels").
// The catalog's product_names are nvidia-smi's names.
const GpuModel* catalog_model(const Catalog& catalog, std::string product) {
  if (const auto mig = product.find("-MIG-"); mig != std::string::npos) product.resize(mig);
  if (product.ends_with("-SHARED")) product.resize(product.size() - 7);
  for (const GpuModel& g : catalog.gpus())
    for (std::string name : g.product_names) {
      std::replace(name.begin(), name.end(), ' ', '-');
      if (name == product) return &g;
    }
  return nullptr;
}

// --- ConfigMaps -------------------------------------------------------------------------------

struct Configs {
  std::map<std::string, YAML::Node> device_plugin;  // config name -> its parsed YAML (version: v1, flags, sharing)
  YAML::Node mig_configs;                           // mig-parted's mig-configs: name -> list of device filters
};

// Which of our ConfigMaps is it (device plugin, MIG manager), if any; each value is a YAML file.
bool read_config_map(const Object& o, Configs& configs) {
  bool used = false;
  for (const auto& kv : at(o.node, {"data"})) {
    const std::string key = kv.first.Scalar();
    YAML::Node doc;
    try {
      doc = YAML::Load(scalar(kv.second));
    } catch (const YAML::Exception& e) {
      o.fail(kv.second, "data." + key, fmt::format("malformed YAML: {}", e.msg));
    }
    if (!doc.IsMap()) continue;
    if (doc["mig-configs"]) {
      if (!doc["mig-configs"].IsMap()) o.fail(kv.second, "data." + key + ".mig-configs", "expected a map of config names");
      for (const auto& c : doc["mig-configs"]) configs.mig_configs[c.first.Scalar()] = c.second;
      used = true;
    } else if (doc["version"] && (doc["sharing"] || doc["flags"])) {
      configs.device_plugin[key] = doc;
      used = true;
    }
  }
  return used;
}

// --- nodes ------------------------------------------------------------------------------------

struct PoolOut {
  std::string key;  // what groups its nodes
  std::string name, node_template, instance_type, product, mig_config, plugin_config;
  bool plugin_fallback = false;  // no label chose plugin_config
  std::vector<std::string> nodes;
};

std::string pool_block(const PoolOut& p, const Configs& configs, const Object& first) {
  std::string s = fmt::format("    # nodes labelled nvidia.com/gpu.product={}", p.product);
  if (!p.instance_type.empty()) s += fmt::format(", node.kubernetes.io/instance-type={}", p.instance_type);
  if (!p.mig_config.empty()) s += fmt::format(", nvidia.com/mig.config={}", p.mig_config);
  if (!p.plugin_config.empty())
    s += p.plugin_fallback
             ? fmt::format("; no nvidia.com/device-plugin.config label: the plugin's fallback config {}", p.plugin_config)
             : fmt::format(", nvidia.com/device-plugin.config={}", p.plugin_config);
  s += fmt::format("\n    - name: {}\n      node: {}\n      node_names: [{}]\n", yaml_quoted(p.name), p.node_template,
                   fmt::join(p.nodes, ", "));
  YAML::Node plugin;
  if (!p.plugin_config.empty()) {
    const auto it = configs.device_plugin.find(p.plugin_config);
    if (it == configs.device_plugin.end()) {
      std::vector<std::string> known;
      for (const auto& [k, v] : configs.device_plugin) known.push_back(k);
      first.fail(at(first.node, {"metadata", "labels", "nvidia.com/device-plugin.config"}),
                 "metadata.labels.nvidia.com/device-plugin.config",
                 fmt::format("no device plugin config '{}' in the ConfigMaps read (known: {})", p.plugin_config,
                             known.empty() ? "none" : fmt::format("{}", fmt::join(known, ", "))));
    }
    plugin = it->second;
  }
  if (!p.mig_config.empty() && p.mig_config != "all-disabled") {
    // The device plugin's flags.migStrategy; none given (or none): mixed, which advertises each profile.
    std::string strategy = scalar(at(plugin, {"flags", "migStrategy"}));
    if (strategy.empty() || strategy == "none") strategy = "mixed";
    std::string mig = fmt::format("{{strategy: {}, config: {}", strategy, yaml_quoted(p.mig_config));
    if (configs.mig_configs[p.mig_config]) {
      YAML::Node one;
      one[p.mig_config] = configs.mig_configs[p.mig_config];
      mig += ", mig-configs: " + flow(one);
    }
    s += fmt::format("      mig: {}}}\n", mig);
  } else if (const YAML::Node sharing = at(plugin, {"sharing"})) {
    s += fmt::format("      sharing: {}\n", flow(sharing));
  }
  return s;
}

// A duration as a file would give it: "24h", "90m" or seconds.
std::string duration_text(Duration d) {
  const int64_t s = d.us() / 1'000'000;
  if (d.us() % 1'000'000 != 0) return format_seconds(d);
  if (s > 0 && s % 3600 == 0) return fmt::format("{}h", s / 3600);
  if (s > 0 && s % 60 == 0) return fmt::format("{}m", s / 60);
  return fmt::format("{}", s);
}

std::string kind_for_owner(const std::string& owner) {
  if (owner == "ReplicaSet" || owner == "StatefulSet") return "inference";
  if (owner == "PyTorchJob") return "training";
  return "batch";
}

}  // namespace

K8sImport import_k8s(const K8sImportOptions& options, const Catalog& catalog) {
  const std::vector<Object> objects = read_objects(options.paths);
  K8sImport out;
  Configs configs;
  std::vector<const Object*> nodes, workloads;
  for (const Object& o : objects) {
    if (o.kind == "Node") nodes.push_back(&o);
    else if (o.kind == "ConfigMap") {
      if (!read_config_map(o, configs))
        out.ignored.push_back(o.id() + ": neither the device plugin's nor the MIG manager's config");
    } else if (o.kind == "Pod" || o.kind == "Deployment" || o.kind == "StatefulSet" || o.kind == "Job" || o.kind == "PyTorchJob")
      workloads.push_back(&o);
    else out.ignored.push_back(o.id() + ": kind not modelled");
  }

  // Nodes: pools of nodes alike in instance type, GPU product and count, and configs chosen by labels.
  std::vector<PoolOut> pools;
  std::map<std::string, const Object*> first_of_pool;
  std::set<std::string> node_names;
  for (const Object* n : nodes) {
    const std::string product = label(*n, "nvidia.com/gpu.product");
    if (product.empty()) {
      out.ignored.push_back(n->id() + ": no nvidia.com/gpu.product label (not a GPU node)");
      continue;
    }
    const YAML::Node labels = at(n->node, {"metadata", "labels"});
    const GpuModel* gpu = catalog_model(catalog, product);
    if (!gpu)
      n->fail(at(labels, {"nvidia.com/gpu.product"}), "metadata.labels.nvidia.com/gpu.product",
              fmt::format("GPU product '{}' is not in gpusim's catalog (gpusim catalog lists the models)", product));
    const std::string count_text = label(*n, "nvidia.com/gpu.count");
    int count = 0;
    const auto [end, ec] = std::from_chars(count_text.data(), count_text.data() + count_text.size(), count);
    if (ec != std::errc() || end != count_text.data() + count_text.size() || count < 1)
      n->fail(at(labels, {"nvidia.com/gpu.count"}), "metadata.labels.nvidia.com/gpu.count",
              fmt::format("expected a GPU count >= 1, got '{}'", count_text));
    const auto t = std::find_if(catalog.nodes().begin(), catalog.nodes().end(),
                                [&](const NodeTemplate& c) { return c.gpu == gpu->name && c.gpus == count; });
    if (t == catalog.nodes().end())
      n->fail(at(labels, {"nvidia.com/gpu.count"}), "metadata.labels.nvidia.com/gpu.count",
              fmt::format("no catalog node template has {} x {} (gpusim catalog --view nodes; add one under catalog.nodes)",
                          count, gpu->name));
    PoolOut p;
    p.node_template = t->name;
    p.instance_type = label(*n, "node.kubernetes.io/instance-type");
    p.product = product;
    p.mig_config = label(*n, "nvidia.com/mig.config");
    p.plugin_config = label(*n, "nvidia.com/device-plugin.config");
    // No label: the plugin's fallbacks (its helm chart's config.fallbackStrategies, "named" then
    // "single"): a config named default, else the only config there is.
    if (p.plugin_config.empty() && !configs.device_plugin.empty()) {
      if (configs.device_plugin.count("default")) p.plugin_config = "default";
      else if (configs.device_plugin.size() == 1) p.plugin_config = configs.device_plugin.begin()->first;
      p.plugin_fallback = !p.plugin_config.empty();
    }
    p.key = fmt::format("{}|{}|{}|{}", p.instance_type, t->name, p.mig_config, p.plugin_config);
    if (!node_names.insert(n->name).second)
      n->fail(at(n->node, {"metadata", "name"}), "metadata.name", "two Nodes have this name");
    auto it = std::find_if(pools.begin(), pools.end(), [&](const PoolOut& q) { return q.key == p.key; });
    if (it == pools.end()) {
      std::string base = p.instance_type.empty() ? t->name : p.instance_type;
      for (const std::string& c : {p.mig_config, p.plugin_config})
        if (!c.empty()) base += "-" + c;
      p.name = base;
      for (int i = 2; std::any_of(pools.begin(), pools.end(), [&](const PoolOut& q) { return q.name == p.name; }); ++i)
        p.name = fmt::format("{}-{}", base, i);
      pools.push_back(p);
      it = pools.end() - 1;
      first_of_pool[p.key] = n;
    }
    it->nodes.push_back(n->name);
  }
  if (pools.empty())
    throw InputError({options.paths.empty() ? "" : options.paths.front(), std::nullopt, "Node"},
                     "no GPU Node objects (with nvidia.com/gpu.product and nvidia.com/gpu.count labels): the cluster needs "
                     "them, e.g. kubectl get nodes -o yaml");

  // Workloads: one inline job per controller (its replicas as count or workers) or per pod.
  std::vector<JobOut> jobs;
  bool long_running = false;
  const std::string horizon = duration_text(options.horizon);
  const std::string duration = duration_text(options.duration);
  for (const Object* op : workloads) {
    const Object& o = *op;
    const YAML::Node spec = at(o.node, {"spec"});
    JobOut j;
    j.tenant = o.ns.empty() ? "default" : o.ns;
    std::string lower = o.kind;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    j.name = fmt::format("{}/{}/{}", lower, j.tenant, o.name);
    YAML::Node tmpl;
    bool serving = false;  // replicas that run until stopped
    if (o.kind == "Pod") {
      tmpl = o.node;
      const std::string phase = scalar(at(o.node, {"status", "phase"}));
      if (phase == "Succeeded" || phase == "Failed") {
        out.ignored.push_back(fmt::format("{}: {} (finished)", o.id(), phase));
        continue;
      }
      const YAML::Node owners = at(o.node, {"metadata", "ownerReferences"});
      const YAML::Node owner = owners && owners.IsSequence() && owners.size() > 0 ? owners[0]
                                                                                  : YAML::Node(YAML::NodeType::Undefined);
      j.kind = kind_for_owner(scalar(at(owner, {"kind"})));
      serving = j.kind == "inference";
      j.node = scalar(at(spec, {"nodeName"}));
      j.comment = j.node.empty() ? fmt::format("{} ({})", o.id(), phase.empty() ? "not scheduled" : phase)
                                 : fmt::format("{} ({} on {})", o.id(), phase.empty() ? "bound" : phase, j.node);
      if (owner) j.comment += fmt::format(", owned by {} {}", scalar(at(owner, {"kind"})), scalar(at(owner, {"name"})));
    } else if (o.kind == "Deployment" || o.kind == "StatefulSet") {
      tmpl = at(spec, {"template"});
      j.kind = "inference";
      serving = true;
      j.count = count_field(o, at(spec, {"replicas"}), "spec.replicas", 1);
      j.comment = fmt::format("{}: {} replicas, serving for the whole horizon", o.id(), j.count);
    } else if (o.kind == "Job") {
      tmpl = at(spec, {"template"});
      j.kind = "batch";
      const int64_t parallelism = count_field(o, at(spec, {"parallelism"}), "spec.parallelism", 1);
      j.count = count_field(o, at(spec, {"completions"}), "spec.completions", parallelism);
      j.comment = fmt::format("{}: completions {}", o.id(), j.count);
      if (parallelism < j.count)
        out.ignored.push_back(fmt::format("{}: parallelism {} (all {} completions queue at once)", o.id(), parallelism, j.count));
    } else {  // PyTorchJob (Kubeflow training operator): Master and Worker replicas, one gang
      j.kind = "training";
      const YAML::Node specs = at(spec, {"pytorchReplicaSpecs"});
      if (!specs || !specs.IsMap()) o.fail(spec, "spec.pytorchReplicaSpecs", "expected Master and/or Worker replica specs");
      j.workers = 0;
      std::optional<PodRequest> per_pod;
      std::vector<std::string> parts;
      for (const char* role : {"Master", "Worker"}) {
        const YAML::Node r = at(specs, {role});
        if (!r) continue;
        const int64_t n = count_field(o, at(r, {"replicas"}), fmt::format("spec.pytorchReplicaSpecs.{}.replicas", role), 1);
        const PodRequest q = read_pod_spec(o, at(r, {"template", "spec"}),
                                           fmt::format("spec.pytorchReplicaSpecs.{}.template.spec", role));
        if (per_pod && (q.gpus != per_pod->gpus || q.resource != per_pod->resource))
          o.fail(r, fmt::format("spec.pytorchReplicaSpecs.{}", role),
                 fmt::format("its pods ask {} x {}, the Master's {} x {}; gpusim's workers are alike", q.gpus, q.resource,
                             per_pod->gpus, per_pod->resource));
        per_pod = q;
        if (!tmpl) tmpl = at(r, {"template"});
        j.workers += n;
        parts.push_back(fmt::format("{} {}", n, role));
      }
      if (!per_pod) o.fail(specs, "spec.pytorchReplicaSpecs", "expected Master and/or Worker replica specs");
      j.request = *per_pod;
      j.comment = fmt::format("{}: {}, gang-scheduled", o.id(), fmt::join(parts, " + "));
    }
    if (o.kind != "PyTorchJob") j.request = read_pod_spec(o, at(tmpl, {"spec"}), o.kind == "Pod" ? "spec" : "spec.template.spec");
    if (j.count == 0 || j.workers == 0) {
      out.ignored.push_back(o.id() + ": no replicas");
      continue;
    }
    if (j.request.gpus == 0) {
      out.ignored.push_back(o.id() + ": asks no GPU");
      continue;
    }
    if (!j.node.empty() && !node_names.count(j.node))
      o.fail(at(spec, {"nodeName"}), "spec.nodeName", fmt::format("runs on node '{}', which is not a GPU Node read", j.node));
    if (j.workers > 1 && j.request.resource != "nvidia.com/gpu")
      o.fail(spec, "spec.pytorchReplicaSpecs", "workers of several pods take whole GPUs (nvidia.com/gpu)");
    if (const auto k = annotation(o, tmpl, "kind")) j.kind = k->first;
    j.arrival = duration_annotation(o, tmpl, "arrival", "0");
    if (serving && !annotation(o, tmpl, "duration")) {
      j.duration = horizon;
      long_running = true;
    } else {
      j.duration = duration_annotation(o, tmpl, "duration", duration);
    }
    jobs.push_back(std::move(j));
  }
  if (jobs.empty())
    throw InputError({options.paths.empty() ? "" : options.paths.front(), std::nullopt, "Pod"},
                     "no workload asking for GPUs (Pods, Deployments, StatefulSets, Jobs, PyTorchJobs)");

  std::string y = fmt::format(
      "# Written by gpusim import k8s {} (README, \"Kubernetes objects in\").\n"
      "# Run times: annotation gpusim.io/duration, else --duration {}; serving replicas (Deployments,\n"
      "# StatefulSets, pods of ReplicaSets) run for the whole horizon. Arrivals: gpusim.io/arrival, else 0.\n"
      "# Pods bound to a node (spec.nodeName) start there at time 0; other pods are queued at time 0.\n",
      fmt::join(options.paths, " "), duration);
  if (out.ignored.empty()) y += "# Ignored: nothing.\n";
  else {
    y += "# Ignored:\n";
    for (const std::string& i : out.ignored) y += "#   " + i + "\n";
  }
  y += fmt::format("name: {}\nversion: 1\nseed: 0\n", yaml_quoted(options.name));
  if (long_running) y += fmt::format("horizon: {}\n", yaml_quoted(horizon));
  y += "cluster:\n  pools:\n";
  for (const PoolOut& p : pools) y += pool_block(p, configs, *first_of_pool[p.key]);
  y += "workload:\n  jobs:\n";
  for (const JobOut& j : jobs) y += emit_job(j);
  out.scenario_yaml = std::move(y);
  return out;
}

}  // namespace gpusim::cli
