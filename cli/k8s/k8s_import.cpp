#include "k8s_import.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "gpusim/core/ascii.hpp"
#include "gpusim/core/error.hpp"
#include "gpusim/sim/scenario.hpp"
#include "gpusim/sim/world.hpp"
#include "k8s_objects.hpp"

namespace gpusim::cli {

namespace k8s {

namespace {

// A replica count (replicas, completions, parallelism): a whole number >= 0, `fallback` when absent.
int64_t count_field(const Object& o, const YAML::Node& n, const std::string& field, int64_t fallback) {
  if (!n) return fallback;
  return whole(o, n, field, 0, 1'000'000);
}

std::string kind_for_owner(const std::string& owner) {
  if (owner == "ReplicaSet" || owner == "StatefulSet") return "inference";
  if (owner == "PyTorchJob") return "training";
  return "batch";
}

// ResourceClaims named by pods: (namespace, name) -> how many pods name it.
using ClaimNames = std::map<std::pair<std::string, std::string>, int64_t>;

// DRA: each pod gets a claim from each template and the ResourceClaims it names; gpusim holds one
// device request per job. Sets the job's GPUs and the claims it names; why it cannot be written, if so.
std::string read_claims(const Object& o, const PodRules& rules, const std::string& tmpl_field, const TenancyOut& tenancy,
                        JobOut& j, ClaimNames& pods_naming) {
  std::size_t requests = 0;
  std::string unusable;
  for (const auto& claim : rules.claims) {
    const std::string& c = claim.first;
    const bool from_template = claim.second;
    const std::string_view kind = from_template ? "ResourceClaimTemplate" : "ResourceClaim";
    const auto t = std::find_if(tenancy.claim_sources.begin(), tenancy.claim_sources.end(), [&](const ClaimSource& x) {
      return x.name == c && x.ns == j.tenant && x.from_template == from_template;
    });
    if (t == tenancy.claim_sources.end())
      o.fail(rules.claims_at, tmpl_field + "spec.resourceClaims",
             fmt::format("no {} '{}' in namespace {} among the objects read", kind, c, j.tenant));
    if (!t->unusable.empty()) unusable = fmt::format("claims from {} {}, which is ignored", kind, c);
    requests += t->requests;
    j.request.gpus = t->per_pod;
    if (!from_template && std::find(j.named_claims.begin(), j.named_claims.end(), c) == j.named_claims.end()) {
      j.named_claims.push_back(c);  // a pod listing a claim twice still names it once
      pods_naming[{j.tenant, c}] += j.count * j.workers;
    }
  }
  // Kubernetes lets the pods naming one ResourceClaim share its devices (status.reservedFor
  // lists them all); gpusim gives a device to one job at a time and refuses a shared claim
  // (sim/spec/src/dra.cpp), so such a workload is reported rather than written. Across workloads: read_jobs.
  if (!j.named_claims.empty() && j.count * j.workers > 1 && unusable.empty())
    unusable = fmt::format("its {} pods name ResourceClaim {} (sharing a ResourceClaim's devices between pods is not "
                           "modelled; a ResourceClaimTemplate gives each pod its own)",
                           j.count * j.workers, j.named_claims.front());
  if (requests != 1 && unusable.empty())
    unusable = fmt::format("its claims hold {} device requests; gpusim places one kind of device per job", requests);
  if (!j.request.resource.empty())
    unusable = fmt::format("asks both {} and DRA claims; gpusim's jobs take one or the other", j.request.resource);
  return unusable;
}

// Workloads: one inline job per controller (its replicas as count or workers) or per pod.
std::vector<JobOut> read_jobs(const std::vector<const Object*>& workloads, const TenancyOut& tenancy,
                              const std::set<std::string>& node_names, const K8sImportOptions& options,
                              std::vector<std::string>& ignored) {
  std::vector<JobOut> jobs;
  ClaimNames pods_naming;
  std::map<std::string, const Object*> by_name;  // the job names given, for duplicates
  const std::string horizon = duration_text(options.horizon);
  const std::string duration = duration_text(options.duration);
  for (const Object* op : workloads) {
    const Object& o = *op;
    const YAML::Node spec = at(o.node, {"spec"});
    JobOut j;
    j.tenant = ns_of(o);
    j.name = fmt::format("{}/{}/{}", ascii_lower(o.kind), j.tenant, o.name);
    // The API server keeps one object of a kind and name per namespace: two are two snapshots mixed.
    if (const auto [first, fresh] = by_name.emplace(j.name, &o); !fresh)
      o.fail(at(o.node, {"metadata", "name"}), "metadata.name",
             fmt::format("a second {} of this name in namespace {} (the first is in {} line {})", o.kind, j.tenant,
                         first->second->file, at(first->second->node, {"metadata", "name"}).Mark().line + 1));
    YAML::Node tmpl;
    std::string tmpl_field = "spec.template.";  // its path in the object, for messages
    bool serving = false;                       // replicas that run until stopped
    if (o.kind == "Pod") {
      tmpl = o.node;
      tmpl_field = "";
      const std::string phase = text(o, at(o.node, {"status", "phase"}), "status.phase");
      if (phase == "Succeeded" || phase == "Failed") {
        ignored.push_back(fmt::format("{}: {} (finished)", o.id(), phase));
        continue;
      }
      const YAML::Node owners = items(o, at(o.node, {"metadata", "ownerReferences"}), "metadata.ownerReferences");
      const YAML::Node owner = owners.size() > 0 ? owners[0] : YAML::Node(YAML::NodeType::Undefined);
      const std::string owner_kind = text(o, at(owner, {"kind"}), "metadata.ownerReferences[0].kind");
      j.kind = kind_for_owner(owner_kind);
      serving = j.kind == "inference";
      j.node = text(o, at(spec, {"nodeName"}), "spec.nodeName");
      j.comment = j.node.empty() ? fmt::format("{} ({})", o.id(), phase.empty() ? "not scheduled" : phase)
                                 : fmt::format("{} ({} on {})", o.id(), phase.empty() ? "bound" : phase, j.node);
      if (owner)
        j.comment += fmt::format(", owned by {} {}", owner_kind,
                                 text(o, at(owner, {"name"}), "metadata.ownerReferences[0].name"));
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
        ignored.push_back(fmt::format("{}: parallelism {} (all {} completions queue at once)", o.id(), parallelism, j.count));
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
        if (!tmpl) {
          tmpl = at(r, {"template"});
          tmpl_field = fmt::format("spec.pytorchReplicaSpecs.{}.template.", role);
        }
        j.workers += n;
        parts.push_back(fmt::format("{} {}", n, role));
      }
      if (!per_pod) o.fail(specs, "spec.pytorchReplicaSpecs", "expected Master and/or Worker replica specs");
      j.request = *per_pod;
      j.comment = fmt::format("{}: {}, gang-scheduled", o.id(), fmt::join(parts, " + "));
    }
    if (o.kind != "PyTorchJob") j.request = read_pod_spec(o, at(tmpl, {"spec"}), o.kind == "Pod" ? "spec" : "spec.template.spec");
    const PodRules rules = read_pod_rules(o, tmpl, tmpl_field, tenancy.any(), ignored);
    // (The API server's own classes always exist; a scenario knows them too.)
    if (!rules.priority_class.empty() && !tenancy.class_names.count(rules.priority_class) &&
        rules.priority_class != "system-cluster-critical" && rules.priority_class != "system-node-critical")
      o.fail(at(tmpl, {"spec", "priorityClassName"}), tmpl_field + "spec.priorityClassName",
             fmt::format("no PriorityClass '{}' among the objects read (Kubernetes refuses the pod)", rules.priority_class));
    if (!rules.queue.empty() && !tenancy.queues.count({j.tenant, rules.queue}))
      o.fail(rules.queue_at, fmt::format("{}metadata.labels.{}", rules.queue_at_field, kQueueLabel),
             fmt::format("no LocalQueue '{}' in namespace {} among the objects read", rules.queue, j.tenant));
    if (!rules.claims.empty()) {
      if (const std::string why = read_claims(o, rules, tmpl_field, tenancy, j, pods_naming); !why.empty()) {
        ignored.push_back(fmt::format("{}: {}", o.id(), why));
        continue;
      }
    }
    if (!rules.hostname.empty() && j.workers > 1) {
      ignored.push_back(fmt::format("{}: nodeSelector {}={} (gpusim's workers of a gang take a node each; node: is for "
                                    "single pods)",
                                    o.id(), kHostname, rules.hostname));
    } else if (!rules.hostname.empty()) {
      if (j.node.empty()) j.node = rules.hostname;
      j.comment += fmt::format(", nodeSelector {}={}", kHostname, rules.hostname);
    }
    j.rules = rules.fields;
    if (j.count == 0 || j.workers == 0) {
      ignored.push_back(o.id() + ": no replicas");
      continue;
    }
    if (j.request.gpus == 0) {
      ignored.push_back(o.id() + ": asks no GPU");
      continue;
    }
    if (!j.node.empty() && !node_names.count(j.node))
      o.fail(at(spec, {"nodeName"}), "spec.nodeName", fmt::format("runs on node '{}', which is not a GPU Node read", j.node));
    // (Each worker gets a claim of its own from a template: whole devices, as nvidia.com/gpu.)
    if (j.workers > 1 && rules.claims.empty() && j.request.resource != "nvidia.com/gpu")
      o.fail(spec, "spec.pytorchReplicaSpecs", "workers of several pods take whole GPUs (nvidia.com/gpu)");
    if (const auto k = annotation(o, tmpl, "kind"))
      j.kind = one_of(o, k->second, "metadata.annotations.gpusim.io/kind", {"training", "inference", "notebook", "batch"});
    j.arrival = duration_annotation(o, tmpl, "arrival", "0");
    j.deadline = duration_annotation(o, tmpl, "deadline", "");
    if (serving && !annotation(o, tmpl, "duration")) {
      j.duration = horizon;
      j.whole_horizon = true;
    } else {
      j.duration = duration_annotation(o, tmpl, "duration", duration);
    }
    j.object_id = o.id();
    jobs.push_back(std::move(j));
  }
  // A ResourceClaim named by the pods of several workloads is shared, as above: none of them is written.
  std::erase_if(jobs, [&](const JobOut& j) {
    for (const std::string& c : j.named_claims)
      if (const int64_t n = pods_naming[{j.tenant, c}]; n > 1) {
        ignored.push_back(fmt::format("{}: ResourceClaim {} is named by {} pods (sharing a ResourceClaim's devices "
                                      "between pods is not modelled; a ResourceClaimTemplate gives each pod its own)",
                                      j.object_id, c, n));
        return true;
      }
    return false;
  });
  return jobs;
}

}  // namespace

}  // namespace k8s

K8sImport import_k8s(const K8sImportOptions& options, const Catalog& catalog) {
  using namespace k8s;
  const std::vector<Object> objects = read_objects(options.paths);
  K8sImport out;
  Configs configs;
  TenancyOut tenancy;
  std::vector<const Object*> nodes, workloads;
  for (const Object& o : objects) {
    if (o.kind == "Node") nodes.push_back(&o);
    else if (read_tenancy_object(o, tenancy, out.ignored)) continue;
    else if (o.kind == "ConfigMap") {
      if (!read_config_map(o, configs))
        out.ignored.push_back(o.id() + ": neither the device plugin's nor the MIG manager's config");
    } else if (o.kind == "Pod" || o.kind == "Deployment" || o.kind == "StatefulSet" || o.kind == "Job" || o.kind == "PyTorchJob")
      workloads.push_back(&o);
    else out.ignored.push_back(o.id() + ": kind not modelled");
  }

  std::set<std::string> selected = tenancy.label_keys;
  for (const Object* w : workloads) selected_label_keys(w->node, false, selected);
  // Nodes: pools of nodes alike in instance type, GPU product and count, and configs chosen by labels.
  std::set<std::string> node_names;
  const std::vector<PoolOut> pools = read_pools(nodes, selected, configs, catalog, node_names, out.ignored);
  const std::string first_path = options.paths.empty() ? "" : options.paths.front();
  if (pools.empty())
    throw InputError({first_path, std::nullopt, "Node"},
                     "no GPU Node objects (with nvidia.com/gpu.product and nvidia.com/gpu.count labels): the cluster needs "
                     "them, e.g. kubectl get nodes -o yaml");
  for (const auto& [queue, cluster_queue] : tenancy.queue_targets)
    if (!tenancy.cluster_queue_names.count(cluster_queue))
      queue->fail(at(queue->node, {"spec", "clusterQueue"}), "spec.clusterQueue",
                  fmt::format("no ClusterQueue '{}' among the objects read", cluster_queue));
  const std::vector<JobOut> jobs = read_jobs(workloads, tenancy, node_names, options, out.ignored);
  if (jobs.empty())
    throw InputError({first_path, std::nullopt, "Pod"},
                     "no workload asking for GPUs (Pods, Deployments, StatefulSets, Jobs, PyTorchJobs)");
  out.scenario_yaml = scenario_yaml(options, out.ignored, pools, configs, jobs, tenancy);
  // The checks above name the object at fault; what the scenario reader would still refuse is refused
  // here too, so that nothing is written that gpusim run cannot read.
  try {
    LoadOptions load;
    load.text = out.scenario_yaml;
    (void)build_world(load_scenario(options.name + ".yaml", load));
  } catch (const InputError& e) {
    throw InputError({first_path, std::nullopt, ""},
                     fmt::format("the scenario made from these objects would be refused: {}", e.what()));
  }
  return out;
}

}  // namespace gpusim::cli
