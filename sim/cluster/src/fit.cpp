#include "gpusim/sim/fit.hpp"

#include <boost/container_hash/hash.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <bit>
#include <unordered_map>

#include "gpusim/sim/execution.hpp"
#include "gpusim/sim/topology_manager.hpp"

namespace gpusim {

namespace {

// Jobs with equal requests behave alike in every fit check; they share a shape.
struct ShapeKey {
  int32_t gpus;
  int32_t milli;
  int64_t gpu_memory_mib, cpu_milli, memory_mib;
  bool multi_node;
  Interned<std::vector<std::string>> models;
  Interned<std::string> resource;
  bool claim;
  uint16_t device_selector;
  bool one_nvlink_domain;
  int32_t min_sms;
  int64_t limit_mib;
  int32_t thread_percent;
  int32_t worker_gpus;
  std::string node;        // a job bound to a node fits where another of its request may not
  const NodeRules* rules;  // interned: equal rules share an address
  bool operator==(const ShapeKey&) const = default;
};
struct ShapeKeyHash {
  std::size_t operator()(const ShapeKey& k) const {
    std::size_t h = 0;
    boost::hash_combine(h, k.gpus);
    boost::hash_combine(h, k.milli);
    boost::hash_combine(h, k.gpu_memory_mib);
    boost::hash_combine(h, k.cpu_milli);
    boost::hash_combine(h, k.memory_mib);
    boost::hash_combine(h, k.multi_node);
    boost::hash_combine(h, &k.models.get());  // interned: equal lists share an address
    boost::hash_combine(h, &k.resource.get());
    boost::hash_combine(h, k.claim);
    boost::hash_combine(h, k.device_selector);
    boost::hash_combine(h, k.one_nvlink_domain);
    boost::hash_combine(h, k.min_sms);
    boost::hash_combine(h, k.limit_mib);
    boost::hash_combine(h, k.thread_percent);
    boost::hash_combine(h, k.worker_gpus);
    boost::hash_combine(h, k.node);
    boost::hash_combine(h, k.rules);
    return h;
  }
};

bool mig_off_gpus(const SharingConfig& c) {
  return std::any_of(c.mig_layouts.begin(), c.mig_layouts.end(), [](const auto& l) { return !l.has_value(); });
}
}  // namespace

bool partition_conflicts(const MigTable& t, const Gpu& gpu, MigInstance instance) {
  if (held_whole(gpu)) return true;
  MigLayout existing;
  for (const MigSlot& s : gpu.instances)
    if (s.job != kNoJob) existing.push_back(s.instance);
  return mig_conflict(t, existing, instance.profile, instance.start).has_value();
}

std::optional<std::string> pool_refuses(const Request& q, const Pool& pool, const Catalog& catalog) {
  if (q.gpus == 0) return std::nullopt;
  if (!pool.gpu) return fmt::format("pool {} has no GPUs", pool.name);
  if (!q.models->empty() &&
      std::none_of(q.models->begin(), q.models->end(), [&](const std::string& m) { return catalog.find_gpu(m) == pool.gpu; }))
    return fmt::format("asks for GPU model {}; pool {} has {}", fmt::join(*q.models, " or "), pool.name, pool.gpu->name);
  const SharingConfig& c = pool.sharing;
  const std::string_view want = q.resource->empty() ? c.device_resource : std::string_view(*q.resource);
  if (const auto vendor = resource_vendor(want); vendor && *vendor != pool.gpu->vendor)
    return fmt::format("asks {}; pool {} has {} GPUs ({}), which advertise {}", want, pool.name, to_string(pool.gpu->vendor),
                       pool.gpu->name, c.device_resource);
  const bool shared = c.mode == Sharing::time_slicing || c.mode == Sharing::mps;
  if (q.fractional() && c.mode != Sharing::fractional && c.mode != Sharing::exclusive)
    return fmt::format("asks a {}-milli GPU share; pool {} ({}) does not split GPUs by milli", q.milli_per_gpu.value, pool.name,
                       to_string(c.mode));
  if (c.mig_partitionable && !q.claim)
    return fmt::format("asks {}; pool {} publishes its GPUs' MIG partitions through DRA only (partitionable): ask with "
                       "resource_claims",
                       want, pool.name);
  if (q.claim) {
    if (shared || c.mode == Sharing::fractional)
      return fmt::format("a capacity claim takes a MIG instance or a whole GPU; pool {} shares GPUs by {}", pool.name,
                         to_string(c.mode));
    const bool whole = c.mode == Sharing::exclusive || mig_off_gpus(c) || c.mig_partitionable;
    if (whole && pool.gpu->memory_mib >= q.gpu_memory_mib && whole_gpu_serves_claim(q, pool)) return std::nullopt;
    if (c.mode == Sharing::mig)
      for (std::size_t i = 0; i < pool.gpu->mig->profiles.size(); ++i)
        if (profile_serves(q, pool, i)) return std::nullopt;
    if (q.device_selector)
      return fmt::format("finds no GPU or MIG device of pool {} ({}) that its DRA claim's selectors accept with {} MiB",
                         pool.name, pool.gpu->name, q.gpu_memory_mib);
    return fmt::format("claims {} MiB and {} SMs; no GPU or MIG profile of pool {} has that much", q.gpu_memory_mib, q.min_sms,
                       pool.name);
  }
  if (shared) {
    if (want != c.gpu_resource())
      return fmt::format("asks {}; pool {} advertises {} ({} replicas {})", want, pool.name, c.gpu_resource(), to_string(c.mode),
                         c.replicas);
    if (q.gpus > 1 && c.fail_requests_greater_than_one)
      return fmt::format("pool {}: maximum request size for shared resources is 1 (failRequestsGreaterThanOne)", pool.name);
    if (c.mode == Sharing::mps && q.gpu_memory_mib > mps_memory_limit_mib(q, pool))
      return fmt::format("uses {} MiB of GPU memory; an MPS client on pool {} is limited to {} MiB", q.gpu_memory_mib, pool.name,
                         mps_memory_limit_mib(q, pool));
    return std::nullopt;
  }
  if (c.mode == Sharing::mig) {
    const auto profile = mig_profile_name(q);
    const bool amd = pool.gpu->partitions.has_value();
    if (!profile.empty() && c.mig_strategy == MigStrategy::single)
      return amd ? fmt::format("asks {}; pool {} uses the single naming strategy, which advertises partitions as amd.com/gpu",
                               want, pool.name)
                 : fmt::format("asks {}; pool {} uses the single MIG strategy, which advertises instances as nvidia.com/gpu",
                               want, pool.name);
    if (want == c.device_resource && c.mig_strategy == MigStrategy::mixed) {
      if (!mig_off_gpus(c))
        return amd ? fmt::format("asks amd.com/gpu; pool {} partitions every GPU (mixed naming: ask amd.com/{})", pool.name,
                                 c.mig_config)
                   : fmt::format("asks nvidia.com/gpu; pool {} has MIG on every GPU (mixed strategy: ask "
                                 "nvidia.com/mig-<profile>)",
                                 pool.name);
    } else if (want != c.device_resource || c.mig_strategy == MigStrategy::single) {
      if (!profile.empty() && !pool.gpu->mig->find(profile))
        return fmt::format("asks {}; {} has no {} {}", want, pool.gpu->name, amd ? "partition mode" : "MIG profile", profile);
      if (want == "nvidia.com/gpu.shared") return fmt::format("asks {}; pool {} is a MIG pool", want, pool.name);
      bool served = false;
      for (std::size_t i = 0; i < pool.gpu->mig->profiles.size(); ++i) served = served || profile_serves(q, pool, i);
      if (!served) return fmt::format("uses {} MiB of GPU memory; the {} instance has less", q.gpu_memory_mib, want);
      return std::nullopt;
    }
  } else if (want != c.device_resource) {
    return fmt::format("asks {}; pool {} advertises {}", want, pool.name, c.device_resource);
  }
  if (q.gpu_memory_mib > pool.gpu->memory_mib)
    return fmt::format("asks {} MiB of GPU memory per GPU; pool {} has {} MiB GPUs", q.gpu_memory_mib, pool.name,
                       pool.gpu->memory_mib);
  return std::nullopt;
}

RequestShape analyse(const Request& q, bool multi_node, const Cluster& c, const Catalog& catalog, const NodeRules& rules,
                     uint64_t allowed) {
  RequestShape s;
  std::vector<std::string> reasons;
  for (PoolId p{0}; p < c.pools().size(); ++p) {
    if (!(allowed >> p & 1)) continue;
    std::optional<std::string> why = pool_refuses(q, c.pool(p), catalog);
    if (!why) why = rules_refuse(rules, c.pool(p));
    if (why) {
      if (std::find(reasons.begin(), reasons.end(), *why) == reasons.end()) reasons.push_back(std::move(*why));
    } else {
      s.pool_mask |= uint64_t{1} << p;
    }
  }
  s.preferences = preferences(rules, c.pools());
  if (s.pool_mask == 0) {
    if (reasons.empty()) reasons.push_back("may use none of the pools (its Kueue flavor's)");
    if (reasons.size() > 3) reasons.resize(3);
    s.never_fits = fmt::format("{}", fmt::join(reasons, "; "));
    return s;
  }
  int32_t largest = 0;
  int64_t gpus_total = 0, largest_domain = 0;  // a ComputeDomain's job: the GPUs of the largest NVLink domain
  bool resources_fit = false;
  // Every slot counts, built or not: an autoscaled pool may provision it.
  for (PoolId p{0}; p < c.pools().size(); ++p) {
    if (!(s.pool_mask >> p & 1)) continue;
    c.pool(p).for_each_shape([&](const PoolSpec::NodeSpec& node, uint32_t slots) {
      if (slots == 0 || !pods_fit(per_pod(q), 1, {node.cpu_milli, node.memory_mib})) return;
      resources_fit = true;
      largest = std::max<int32_t>(largest, node.gpus);
      gpus_total += int64_t{slots} * node.gpus;
      const uint32_t domain = c.pool(p).nvlink_domain_nodes;
      largest_domain = std::max<int64_t>(largest_domain, int64_t{node.gpus} * std::min(slots, std::max(domain, 1u)));
    });
  }
  if (!resources_fit)
    s.never_fits = fmt::format("asks {} milli-CPU and {} MiB of memory; no allowed node is that large", q.cpu_milli,
                               q.memory_mib);
  else if (q.gpus > largest && !multi_node)
    s.never_fits = fmt::format("asks {} GPUs on one node; the largest allowed node has {} (multi_node is off)", q.gpus, largest);
  else if (q.worker_gpus > largest)
    s.never_fits = fmt::format("asks {} GPUs per worker; the largest allowed node has {}", q.worker_gpus, largest);
  else if (q.gpus > gpus_total) s.never_fits = fmt::format("asks {} GPUs; the allowed nodes have {} in all", q.gpus, gpus_total);
  else if (q.one_nvlink_domain && q.gpus > largest_domain)
    s.never_fits = fmt::format("asks {} GPUs in one NVLink domain (its ComputeDomain); the largest allowed domain has {}", q.gpus,
                               largest_domain);
  return s;
}

Shapes::Shapes(const JobSet& jobs, const Cluster& c, const Catalog& catalog) : of_job_(jobs.jobs.size()) {
  std::unordered_map<ShapeKey, uint32_t, ShapeKeyHash> index;
  for (const Job& j : jobs.jobs) {
    const Request& q = j.request;
    const PodSpec* pod = jobs.pod(j);
    const NodeRules& rules = pod ? pod->node_rules.get() : Interned<NodeRules>().get();
    ShapeKey key{q.gpus,
                 q.milli_per_gpu.value,
                 q.gpu_memory_mib,
                 q.cpu_milli,
                 q.memory_mib,
                 j.multi_node,
                 q.models,
                 q.resource,
                 q.claim,
                 q.device_selector,
                 q.one_nvlink_domain,
                 q.min_sms,
                 q.gpu_memory_limit_mib,
                 q.thread_percent,
                 q.worker_gpus,
                 std::string(jobs.node(j)),
                 &rules};
    auto [it, added] = index.try_emplace(std::move(key), static_cast<uint32_t>(shapes_.size()));
    if (added) shapes_.push_back(analyse(q, j.multi_node, c, catalog, rules));
    of_job_[j.id] = it->second;
  }
}

uint32_t Shapes::restricted(uint32_t base, const JobSet& jobs, const Job& j, uint64_t pool_mask, const Cluster& c,
                            const Catalog& catalog) {
  if ((shapes_[base].pool_mask & pool_mask) == shapes_[base].pool_mask) return base;
  const auto [it, added] = restricted_.try_emplace({base, pool_mask}, static_cast<uint32_t>(shapes_.size()));
  const PodSpec* pod = jobs.pod(j);
  if (added)
    shapes_.push_back(
        analyse(j.request, j.multi_node, c, catalog, pod ? pod->node_rules.get() : Interned<NodeRules>().get(), pool_mask));
  return it->second;
}

std::optional<std::string> placement_error(const Cluster& c, const Job& j, const Placement& p, const PlacementRules& rules,
                                           std::vector<GpuClaim>& claims) {
  if (p.nodes.empty()) return "placement names no node";
  if (static_cast<int32_t>(p.gpus.size()) != rules.gpus_to_place)
    return rules.gpus_to_place == j.request.gpus
               ? fmt::format("placement has {} GPUs, the job asks {} (all together: gang scheduling)", p.gpus.size(),
                             j.request.gpus)
               : fmt::format("placement has {} GPUs; the job's next worker takes {}", p.gpus.size(), rules.gpus_to_place);
  if (!p.instances.empty() && p.instances.size() != p.gpus.size())
    return fmt::format("placement lists {} MIG instances for {} GPUs", p.instances.size(), p.gpus.size());
  if ((p.nodes.size() > 1 || rules.held_gpus > 0) && !j.multi_node && p.nodes != rules.held->nodes)
    return "placement spans nodes but the job may not (multi_node is off)";
  if (j.request.gpus == 0 && p.nodes.size() != 1) return "a job without GPUs runs on exactly one node";
  if (j.request.one_nvlink_domain) {
    std::vector<NodeId> all = p.nodes;  // with the nodes its placed workers hold
    if (rules.held_gpus > 0) all.insert(all.end(), rules.held->nodes.begin(), rules.held->nodes.end());
    if (!c.one_nvlink_domain(all)) return "placement spans NVLink domains but the job's ComputeDomain needs one";
  }
  for (std::size_t i = 0; i < p.nodes.size(); ++i) {
    const NodeId n = p.nodes[i];
    if (n >= c.node_count()) return fmt::format("unknown node id {}", n);
    if (!c.has_node(n)) return fmt::format("node {} is off, not ready", c.slot_node(n).name);
    for (std::size_t k = 0; k < i; ++k)
      if (p.nodes[k] == n) return fmt::format("node {} listed twice", c.node(n).name);
    if (!(rules.pool_mask >> c.node(n).pool & 1))
      return fmt::format("node {} is in pool {}, which the job may not use", c.node(n).name, c.pool_of(n).name);
    const Node& node = c.node(n);
    if (!node.ready()) return fmt::format("node {} is {}, not ready", node.name, to_string(node.state));
    const uint32_t mask = c.gpu_mask(n, p.gpus);  // the job's GPUs on this node
    const int32_t here = std::popcount(mask);
    if (j.request.gpus > 0 && here == 0) return fmt::format("node {} holds none of the job's GPUs", node.name);
    const int64_t pods = j.request.pods_on_node(here);
    if (!pods_fit(per_pod(j.request), pods, free_resources(node)))
      return fmt::format("node {} lacks the CPU or memory the job asks ({} pod(s))", node.name, pods);
    if (j.request.worker_gpus > 0 && here % j.request.worker_gpus != 0)
      return fmt::format("node {} holds {} of its GPUs; workers take {} GPUs each, on one node", node.name, here,
                         j.request.worker_gpus);
    const TopologyPolicy tm = c.pool(node.pool).topology_manager;
    if (here > 0 && !topology_manager_admits(tm, *node.topology, mask))
      return fmt::format("the {} Topology Manager of node {} refuses GPUs spanning {} NUMA nodes", to_string(tm), node.name,
                         node.topology->numa_span(mask));
  }
  claims.clear();
  for (std::size_t i = 0; i < p.gpus.size(); ++i) {
    const GpuId g = p.gpus[i];
    if (g >= c.gpu_count()) return fmt::format("unknown GPU id {}", g);
    for (std::size_t k = 0; k < i; ++k)
      if (p.gpus[k] == g) return fmt::format("GPU {} listed twice", g);
    // The listed nodes are built: a GPU of a slot never built is on none of them.
    const NodeId on = c.has_gpu(g) ? c.gpu(g).node : c.slot_gpu(g).node;
    if (std::find(p.nodes.begin(), p.nodes.end(), on) == p.nodes.end())
      return fmt::format("GPU {} is on node {}, which the placement does not list", g, c.slot_node(on).name);
    const std::string& node = c.node(on).name;
    const std::optional<MigSlotIndex> instance = p.instances.empty() ? std::nullopt : p.instances[i];
    if (c.gpu(g).mig && !c.gpu(g).partitionable && !instance)
      return fmt::format("GPU {} of node {} has MIG on; the placement names no instance", g, node);
    const std::optional<GpuClaim> claim = rules.claim(g, instance);
    if (!claim)
      return instance ? fmt::format("MIG instance {} of GPU {} of node {} does not have room", *instance, g, node)
                      : fmt::format("GPU {} of node {} does not have room", g, node);
    claims.push_back(*claim);
  }
  const bool partial = static_cast<int32_t>(rules.held_gpus + p.gpus.size()) < j.request.gpus;
  for (NodeId n : p.nodes)
    if (const Sharing mode = c.pool_of(n).sharing.mode; partial && mode != Sharing::exclusive && mode != Sharing::mig)
      return "workers placed one at a time (gang scheduling off) are modelled on whole GPUs and MIG instances only";
  return std::nullopt;
}

std::optional<std::string> layout_error(const Cluster& c, GpuId g, const MigLayout& layout, MigLayout& checked) {
  const Gpu& gpu = c.gpu(g);
  const Pool& pool = c.pool_of(gpu.node);
  if (!gpu.mig) return "the GPU does not have MIG enabled";
  if (gpu.partitionable) return "the GPU is partitionable: its MIG devices are created per claim, it has no layout to change";
  if (!c.node(gpu.node).ready())
    return fmt::format("node {} is {}, not ready", c.node(gpu.node).name, to_string(c.node(gpu.node).state));
  if (!gpu.residents.empty())
    return fmt::format("the GPU still runs {} job(s); only a drained GPU can be reconfigured", gpu.residents.size());
  if (gpu.reconfiguring) return "the GPU is already being reconfigured";
  const MigTable& t = *pool.gpu->mig;
  checked.clear();
  for (const MigInstance& in : layout) {
    if (in.profile < 0 || static_cast<std::size_t>(in.profile) >= t.profiles.size()) return "unknown MIG profile index";
    if (auto why = mig_conflict(t, checked, in.profile, in.start)) return why;
    if (pool.sharing.mig_strategy == MigStrategy::single && !checked.empty() && checked.front().profile != in.profile)
      return "the pool uses the single MIG strategy: one profile per GPU";
    mig_add(checked, in);
  }
  if (t.one_mode && !checked.empty() && static_cast<int>(checked.size()) != t.profiles[checked.front().profile].max_count)
    return fmt::format("an AMD GPU in {} has all {} of its partitions", t.profiles[checked.front().profile].name,
                       t.profiles[checked.front().profile].max_count);
  return std::nullopt;
}

}  // namespace gpusim
