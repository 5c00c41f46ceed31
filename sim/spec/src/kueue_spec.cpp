#include "gpusim/sim/kueue_spec.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "gpusim/core/number.hpp"
#include "gpusim/sim/scenario.hpp"

namespace gpusim {

namespace {

// The value of E a field names, one of `allowed` (a Section's Type::enumeration subset documents
// them; ConfigNode::as_enum would take any of E's values, e.g. withinClusterQueue: Any).
template <NamedEnum E>
E one_of(const ConfigNode& n, std::initializer_list<E> allowed) {
  const std::string text = n.as_string();
  if (const auto v = parse_enum<E>(text); v && std::find(allowed.begin(), allowed.end(), *v) != allowed.end()) return *v;
  std::vector<std::string_view> names;
  for (E a : allowed) names.push_back(to_string(a));
  n.fail(fmt::format("expected one of {}, got '{}'", join_choices(names, ", "), text));
}

const Section& quota_section() {
  static const Section s{
      "kueue_resource_quota",
      "A resource's quota of one flavor (ResourceQuota of a FlavorQuotas)",
      {{"name", Type::string(), required, "",
        "The resource: cpu, memory, nvidia.com/gpu, nvidia.com/gpu.shared, nvidia.com/mig-<profile>, amd.com/gpu, "
        "amd.com/<compute>_<memory> or habana.ai/gaudi"},
       {"nominal_quota", Type::one_of({Type::number().at_least(0), Type::string()}), required, "",
        "nominalQuota: GPUs as a count, cpu in cores (or \"500m\"), memory as a Kubernetes quantity (\"64Gi\")"},
       {"borrowing_limit", Type::one_of({Type::number().at_least(0), Type::string()}), "", "",
        "borrowingLimit: how much more than its nominal quota it may borrow from its cohort; absent: no limit"},
       {"lending_limit", Type::one_of({Type::number().at_least(0), Type::string()}), "", "",
        "lendingLimit: how much of its unused nominal quota it lends to its cohort; absent: all of it"}}};
  return s;
}

const Section& flavor_quotas_section() {
  static const Section s{"kueue_flavor_quotas",
                         "A flavor's quotas in a resource group (FlavorQuotas)",
                         {{"name", Type::string(), required, "", "The ResourceFlavor"},
                          {"resources", Type::list(Type::section(quota_section())), required, "", "Quota per covered resource"}}};
  return s;
}

const Section& resource_group_section() {
  static const Section s{
      "kueue_resource_group",
      "Resources whose flavor is chosen together (ResourceGroup)",
      {{"covered_resources", Type::list(Type::string()), required, "", "coveredResources"},
       {"flavors", Type::list(Type::section(flavor_quotas_section())), required, "", "Flavors in the order they are tried"}}};
  return s;
}

const Section& fair_weight_section() {
  static const Section s{
      "kueue_fair_sharing_weight",
      "fairSharing of a ClusterQueue or Cohort",
      {{"weight", Type::number().at_least(0), "1", "", "Its weight in fair sharing (0: it yields to everyone)"}}};
  return s;
}

const Section& borrow_within_cohort_section() {
  static const Section s{
      "kueue_borrow_within_cohort",
      "preemption.borrowWithinCohort",
      {{"policy", Type::enumeration<KueuePreemptionPolicy>({KueuePreemptionPolicy::never, KueuePreemptionPolicy::lower_priority}),
        "Never", "", "May a workload that borrows preempt lower-priority workloads of other queues"},
       {"max_priority_threshold", Type::int32(), "", "", "Only workloads of at most this priority are preempted; absent: any"}}};
  return s;
}

const Section& preemption_section() {
  static const Section s{
      "kueue_preemption",
      "ClusterQueue.spec.preemption",
      {{"within_cluster_queue",
        Type::enumeration<KueuePreemptionPolicy>({KueuePreemptionPolicy::never, KueuePreemptionPolicy::lower_priority,
                                                  KueuePreemptionPolicy::lower_or_newer_equal_priority}),
        "Never", "", "withinClusterQueue"},
       {"reclaim_within_cohort",
        Type::enumeration<KueuePreemptionPolicy>(
            {KueuePreemptionPolicy::never, KueuePreemptionPolicy::lower_priority, KueuePreemptionPolicy::any}),
        "Never", "", "reclaimWithinCohort"},
       {"borrow_within_cohort", Type::section(borrow_within_cohort_section()), "", "", "borrowWithinCohort"}}};
  return s;
}

const Section& fungibility_section() {
  static const Section s{
      "kueue_flavor_fungibility",
      "ClusterQueue.spec.flavorFungibility",
      {{"when_can_borrow", Type::enumeration<Fungibility>({Fungibility::borrow, Fungibility::try_next_flavor}), "Borrow", "",
        "whenCanBorrow"},
       {"when_can_preempt", Type::enumeration<Fungibility>({Fungibility::preempt, Fungibility::try_next_flavor}), "TryNextFlavor",
        "", "whenCanPreempt"}}};
  return s;
}

const Section& cluster_queue_section() {
  static const Section s{
      "kueue_cluster_queue",
      "A ClusterQueue",
      {{"name", Type::string(), required, "", "metadata.name"},
       {"cohort", Type::string(), "", "", "spec.cohort; absent: none (it neither borrows nor lends)"},
       {"resource_groups", Type::list(Type::section(resource_group_section())), required, "", "resourceGroups"},
       {"queueing_strategy", Type::enumeration<QueueingStrategy>(), "BestEffortFIFO", "", "queueingStrategy"},
       {"preemption", Type::section(preemption_section()), "", "", "preemption; absent: none"},
       {"flavor_fungibility", Type::section(fungibility_section()), "", "", "flavorFungibility; absent: Kueue's defaults"},
       {"fair_sharing", Type::section(fair_weight_section()), "", "", "fairSharing"}}};
  return s;
}

const Section& cohort_section() {
  static const Section s{
      "kueue_cohort",
      "A Cohort (kueue.x-k8s.io Cohort): a node of a hierarchy of cohorts",
      {{"name", Type::string(), required, "", "metadata.name"},
       {"parent", Type::string(), "", "", "spec.parent; absent: a root"},
       {"resource_groups", Type::list(Type::section(resource_group_section())), "", "", "Quota of the cohort itself"},
       {"fair_sharing", Type::section(fair_weight_section()), "", "", "fairSharing"}}};
  return s;
}

const Section& flavor_section() {
  static const Section s{
      "kueue_resource_flavor",
      "A ResourceFlavor",
      {{"name", Type::string(), required, "", "metadata.name"},
       {"node_labels", Type::map(Type::string()), "", "", "spec.nodeLabels: the pools whose labels include all of them"}}};
  return s;
}

const Section& local_queue_section() {
  static const Section s{
      "kueue_local_queue",
      "A LocalQueue",
      {{"name", Type::string(), required, "", "metadata.name"},
       {"namespace", Type::string(), required, "", "metadata.namespace: jobs of this namespace (tenant) name it as queue"},
       {"cluster_queue", Type::string(), required, "", "spec.clusterQueue"}}};
  return s;
}

const Section& fair_sharing_section() {
  static const Section s{"kueue_fair_sharing",
                         "Kueue Configuration.fairSharing",
                         {{"enable", Type::boolean(), "false", "", "Fair sharing of the cohorts' borrowable quota"},
                          {"preemption_strategies", Type::list(Type::enumeration<FairSharingStrategy>()),
                           "[LessThanOrEqualToFinalShare, LessThanInitialShare]", "", "preemptionStrategies, tried in order"}}};
  return s;
}

// A Kubernetes quantity in gpusim's unit for `resource`: cpu in milli-CPU, memory in MiB (rounded up),
// devices as a whole count (at most 9e15, so that milli-CPU fits in 64 bits).
int64_t quantity(const ConfigNode& n, std::string_view resource) {
  double value = 0;
  try {
    value = parse_quantity(n.as_string(), Range::between(0, 9e15));
  } catch (const std::invalid_argument& e) {
    n.fail(e.what());
  }
  if (resource == "cpu") return static_cast<int64_t>(std::ceil(value * 1000 - 1e-9));
  if (resource == "memory") return static_cast<int64_t>(std::ceil(value / 1048576. - 1e-9));
  if (value != std::floor(value)) n.fail(fmt::format("expected a whole number of {}, got {}", resource, value));
  return static_cast<int64_t>(value);
}

bool known_resource(std::string_view r) { return r == "cpu" || r == "memory" || is_device_resource(r); }

std::vector<KueueResourceGroup> read_groups(const Fields& f, const std::map<std::string, uint32_t, std::less<>>& flavors) {
  std::vector<KueueResourceGroup> groups;
  std::set<std::string, std::less<>> covered_anywhere;
  std::set<std::string, std::less<>> flavors_anywhere;
  const auto list = f.get("resource_groups");
  if (!list) return groups;
  for (const ConfigNode& gn : list->items()) {
    const Fields g = resource_group_section().read(gn);
    KueueResourceGroup group;
    group.covered_resources = g.string_list("covered_resources");
    for (const std::string& r : group.covered_resources) {
      if (!known_resource(r))
        g.at("covered_resources").fail(fmt::format("unknown resource '{}'; expected cpu, memory, {}", r, kDeviceResources));
      if (!covered_anywhere.insert(r).second)
        g.at("covered_resources").fail(fmt::format("resource '{}' is covered by two resource groups", r));
    }
    for (const ConfigNode& fn : g.at("flavors").items()) {
      const Fields fq = flavor_quotas_section().read(fn);
      const std::string name = fq.at("name").as_string();
      const auto it = flavors.find(name);
      if (it == flavors.end()) {
        std::vector<std::string_view> known;
        for (const auto& [n, i] : flavors) known.push_back(n);
        fq.at("name").fail(fmt::format("unknown ResourceFlavor '{}'; expected one of tenancy.kueue.resource_flavors: {}", name,
                                       known.empty() ? "(none)" : fmt::format("{}", fmt::join(known, ", "))));
      }
      if (!flavors_anywhere.insert(name).second) fq.at("name").fail(fmt::format("flavor '{}' is listed twice", name));
      KueueFlavorQuotas quotas{it->second, {}};
      for (const ConfigNode& rn : fq.at("resources").items()) {
        const Fields rq = quota_section().read(rn);
        KueueResourceQuota q;
        q.resource = rq.at("name").as_string();
        if (std::find(group.covered_resources.begin(), group.covered_resources.end(), q.resource) ==
            group.covered_resources.end())
          rq.at("name").fail(fmt::format("resource '{}' is not one of the group's covered_resources ({})", q.resource,
                                         fmt::join(group.covered_resources, ", ")));
        const auto read = [&](std::string_view field) -> std::optional<int64_t> {
          const auto v = rq.get(field);
          if (!v) return std::nullopt;
          if (v->as_string().starts_with('-')) v->fail(fmt::format("expected a quantity of at least 0, got {}", v->as_string()));
          return quantity(*v, q.resource);
        };
        q.nominal = *read("nominal_quota");
        q.borrowing_limit = read("borrowing_limit");
        q.lending_limit = read("lending_limit");
        if (q.lending_limit && *q.lending_limit > q.nominal)
          rq.at("lending_limit").fail(fmt::format("expected at most the nominal quota ({})", q.nominal));
        quotas.resources.push_back(std::move(q));
      }
      group.flavors.push_back(std::move(quotas));
    }
    groups.push_back(std::move(group));
  }
  return groups;
}

double read_weight(const Fields& f) {
  const auto fs = f.get("fair_sharing");
  return fs ? fair_weight_section().read(*fs).number("weight") : 1.0;
}

}  // namespace

const Section& kueue_section() {
  static const Section s{
      "kueue",
      "Kueue: queues with quotas in front of the scheduler (docs/guide/tenants.md, Kueue)",
      {{"resource_flavors", Type::list(Type::section(flavor_section())), "", "", "ResourceFlavors"},
       {"cohorts", Type::list(Type::section(cohort_section())), "", "",
        "Cohorts (hierarchical); a name a ClusterQueue uses is one"},
       {"cluster_queues", Type::list(Type::section(cluster_queue_section())), required, "", "ClusterQueues"},
       {"local_queues", Type::list(Type::section(local_queue_section())), "", "", "LocalQueues jobs name with their queue field"},
       {"fair_sharing", Type::section(fair_sharing_section()), "", "", "Configuration.fairSharing"}}};
  return s;
}

KueueSpec read_kueue(const ConfigNode& node, const Scenario& sc) {
  // A workload Kueue evicts has its pods deleted: each terminates within its own
  // terminationGracePeriodSeconds, as with any other deletion (the field lived here for a day).
  if (const auto g = node.get("termination_grace"))
    g->fail("no longer read: a job Kueue evicts terminates within its own pods' grace period; expected the job's "
            "termination_grace_period (default 30s) instead");
  const Fields f = kueue_section().read(node);
  KueueSpec k;
  std::map<std::string, uint32_t, std::less<>> flavors;
  if (const auto list = f.get("resource_flavors")) {
    for (const ConfigNode& n : list->items()) {
      const Fields rf = flavor_section().read(n);
      KueueFlavor flavor;
      flavor.name = rf.at("name").as_string();
      if (const auto labels = rf.get("node_labels"))
        for (const auto& [key, value] : labels->entries()) flavor.node_labels.emplace_back(key, value.as_string());
      // A flavor selects the pools whose labels include all of its node labels (Kueue injects them as
      // a nodeSelector: ResourceFlavor docs, "nodeLabels").
      for (std::size_t p = 0; p < sc.pools.size(); ++p) {
        const auto& labels = sc.pools[p].labels;
        if (std::all_of(flavor.node_labels.begin(), flavor.node_labels.end(),
                        [&](const auto& l) { return std::find(labels.begin(), labels.end(), l) != labels.end(); }))
          flavor.pool_mask |= uint64_t{1} << p;
      }
      // As a node_selector that matches no pool: a workload admitted to it could never be placed.
      if (flavor.pool_mask == 0)
        rf.at("node_labels")
            .fail(fmt::format("no pool has all of ResourceFlavor '{}''s node labels: a workload admitted to it could never "
                              "run; expected labels of a pool (cluster.pools[].labels)",
                              flavor.name));
      if (!flavors.emplace(flavor.name, static_cast<uint32_t>(k.flavors.size())).second)
        rf.at("name").fail(fmt::format("ResourceFlavor '{}' is declared twice", flavor.name));
      k.flavors.push_back(std::move(flavor));
    }
  }
  std::map<std::string, uint32_t, std::less<>> cohorts;
  std::vector<ConfigNode> parent_fields;
  if (const auto list = f.get("cohorts")) {
    for (const ConfigNode& n : list->items()) {
      const Fields c = cohort_section().read(n);
      KueueCohort cohort;
      cohort.name = c.at("name").as_string();
      cohort.parent = c.has("parent") ? c.at("parent").as_string() : "";
      cohort.resource_groups = read_groups(c, flavors);
      cohort.weight = read_weight(c);
      if (!cohorts.emplace(cohort.name, static_cast<uint32_t>(k.cohorts.size())).second)
        c.at("name").fail(fmt::format("Cohort '{}' is declared twice", cohort.name));
      parent_fields.push_back(c.has("parent") ? c.at("parent") : c.node());
      k.cohorts.push_back(std::move(cohort));
    }
  }
  // A parent no cohort declares is created implicitly, as Kueue does; a cycle is an error.
  for (std::size_t i = 0; i < k.cohorts.size(); ++i) {
    const std::string parent = k.cohorts[i].parent;
    if (!parent.empty() && !cohorts.contains(parent)) {
      cohorts.emplace(parent, static_cast<uint32_t>(k.cohorts.size()));
      k.cohorts.push_back({parent, "", {}, 1.0, false});
    }
  }
  // Each cohort's walk towards its root stops at a cohort already known to reach one: linear in the
  // cohorts however long their chains (a chain of 30,000 loads at once).
  constexpr uint32_t kRoot = 0xFFFFFFFFu;
  std::vector<uint32_t> parent(k.cohorts.size(), kRoot);
  for (std::size_t i = 0; i < k.cohorts.size(); ++i)
    if (!k.cohorts[i].parent.empty()) parent[i] = cohorts.at(k.cohorts[i].parent);
  enum class Walk : uint8_t { unseen, on_path, reaches_root };
  std::vector<Walk> state(k.cohorts.size(), Walk::unseen);
  std::vector<uint32_t> path;
  for (std::size_t i = 0; i < k.cohorts.size(); ++i) {
    path.clear();
    uint32_t at = static_cast<uint32_t>(i);
    for (; at != kRoot && state[at] == Walk::unseen; at = parent[at]) {
      state[at] = Walk::on_path;
      path.push_back(at);
    }
    if (at != kRoot && state[at] == Walk::on_path) {
      // A cycle, reported at its first declared member, from it round to it again.
      const auto begin = std::find(path.begin(), path.end(), at);
      const uint32_t first = *std::min_element(begin, path.end());
      std::vector<std::string> names{k.cohorts[first].name};
      for (uint32_t c = parent[first]; names.size() == 1 || c != parent[first]; c = parent[c]) names.push_back(k.cohorts[c].name);
      constexpr std::size_t kShown = 10;  // a long cycle is named by its first members and its length
      if (names.size() > kShown + 1) {
        const std::size_t hidden = names.size() - kShown - 1;
        names.erase(names.begin() + kShown, names.end() - 1);
        names.insert(names.end() - 1, fmt::format("... ({} more)", hidden));
      }
      parent_fields[first].fail(fmt::format("the cohorts' parents form a cycle: {}; expected a tree", fmt::join(names, " -> ")));
    }
    for (uint32_t c : path) state[c] = Walk::reaches_root;
  }
  std::map<std::string, uint32_t, std::less<>> queues;
  for (const ConfigNode& n : f.at("cluster_queues").items()) {
    const Fields c = cluster_queue_section().read(n);
    KueueClusterQueue q;
    q.name = c.at("name").as_string();
    q.cohort = c.has("cohort") ? c.at("cohort").as_string() : "";
    if (!q.cohort.empty() && !cohorts.contains(q.cohort)) {
      cohorts.emplace(q.cohort, static_cast<uint32_t>(k.cohorts.size()));
      k.cohorts.push_back({q.cohort, "", {}, 1.0, false});
    }
    q.resource_groups = read_groups(c, flavors);
    q.queueing_strategy = c.value("queueing_strategy").as_enum<QueueingStrategy>();
    if (const auto p = c.get("preemption")) {
      const Fields pf = preemption_section().read(*p);
      using enum KueuePreemptionPolicy;
      q.within_cluster_queue = one_of(pf.value("within_cluster_queue"), {never, lower_priority, lower_or_newer_equal_priority});
      q.reclaim_within_cohort = one_of(pf.value("reclaim_within_cohort"), {never, lower_priority, any});
      if (const auto b = pf.get("borrow_within_cohort")) {
        const Fields bf = borrow_within_cohort_section().read(*b);
        q.borrow_within_cohort = one_of(bf.value("policy"), {never, lower_priority});
        if (bf.has("max_priority_threshold")) q.max_priority_threshold = bf.integer<int32_t>("max_priority_threshold");
      }
    }
    if (const auto ff = c.get("flavor_fungibility")) {
      const Fields fu = fungibility_section().read(*ff);
      q.when_can_borrow = one_of(fu.value("when_can_borrow"), {Fungibility::borrow, Fungibility::try_next_flavor});
      q.when_can_preempt = one_of(fu.value("when_can_preempt"), {Fungibility::preempt, Fungibility::try_next_flavor});
    }
    q.weight = read_weight(c);
    if (!queues.emplace(q.name, static_cast<uint32_t>(k.cluster_queues.size())).second)
      c.at("name").fail(fmt::format("ClusterQueue '{}' is declared twice", q.name));
    k.cluster_queues.push_back(std::move(q));
  }
  std::set<std::pair<std::string, std::string>> local_names;
  if (const auto list = f.get("local_queues")) {
    for (const ConfigNode& n : list->items()) {
      const Fields l = local_queue_section().read(n);
      KueueLocalQueue q{l.at("name").as_string(), l.at("namespace").as_string(), 0};
      const std::string cq = l.at("cluster_queue").as_string();
      const auto it = queues.find(cq);
      if (it == queues.end()) {
        std::vector<std::string_view> known;
        for (const auto& [name, i] : queues) known.push_back(name);
        l.at("cluster_queue")
            .fail(fmt::format("unknown ClusterQueue '{}'; expected one of tenancy.kueue.cluster_queues: {}", cq,
                              fmt::join(known, ", ")));
      }
      q.cluster_queue = it->second;
      if (!local_names.emplace(q.namespace_name, q.name).second)
        l.at("name").fail(fmt::format("LocalQueue '{}' of namespace '{}' is declared twice", q.name, q.namespace_name));
      k.local_queues.push_back(std::move(q));
    }
  }
  if (const auto fs = f.get("fair_sharing")) {
    const Fields ff = fair_sharing_section().read(*fs);
    k.fair_sharing = ff.value("enable").as_bool();
    k.fair_sharing_strategies.clear();
    for (const ConfigNode& s : ff.value("preemption_strategies").items())
      k.fair_sharing_strategies.push_back(s.as_enum<FairSharingStrategy>());
    // Kueue's Configuration validation accepts these three lists only (docs/concepts/preemption.md).
    using enum FairSharingStrategy;
    const std::vector<std::vector<FairSharingStrategy>> supported{{less_than_or_equal_to_final_share},
                                                                  {less_than_initial_share},
                                                                  {less_than_or_equal_to_final_share, less_than_initial_share}};
    if (std::find(supported.begin(), supported.end(), k.fair_sharing_strategies) == supported.end())
      ff.value("preemption_strategies")
          .fail("expected one of [LessThanOrEqualToFinalShare], [LessThanInitialShare] or "
                "[LessThanOrEqualToFinalShare, LessThanInitialShare] (the lists Kueue accepts)");
  }
  return k;
}

void check_kueue_queues(const KueueSpec& k, const Scenario& s) {
  // Jobs share few (PodSpec, namespace) pairs: each is looked up once.
  std::set<std::pair<uint16_t, uint16_t>> checked;
  for (const Job& j : s.jobs.jobs) {
    const PodSpec* pod = s.jobs.pod(j);
    if (!pod || pod->queue.empty() || !checked.emplace(j.pod, j.tenant).second) continue;
    const std::string& ns = s.jobs.tenants[j.tenant];
    if (std::any_of(k.local_queues.begin(), k.local_queues.end(),
                    [&](const KueueLocalQueue& q) { return q.name == pod->queue && q.namespace_name == ns; }))
      continue;
    std::vector<std::string_view> known;
    for (const KueueLocalQueue& q : k.local_queues)
      if (q.namespace_name == ns) known.push_back(q.name);
    SourceLocation where = s.jobs.where(j);
    where.field += ".queue";
    throw InputError(where,
                     fmt::format("job '{}': unknown LocalQueue '{}' in namespace '{}'; expected one of "
                                 "tenancy.kueue.local_queues of that namespace: {}",
                                 j.name, pod->queue, ns, known.empty() ? "(none)" : fmt::format("{}", fmt::join(known, ", "))));
  }
}

}  // namespace gpusim
