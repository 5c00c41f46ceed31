#include "gpusim/sim/world.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "gpusim/core/error.hpp"

namespace gpusim {

namespace {

void check_modelled(const Scenario& s) {
  if (s.scheduling.gang) return;
  for (const PoolSpec& p : s.pools)
    if (p.spot.process != SpotConfig::Process::none || p.autoscale.enabled)
      throw InputError({s.file, std::nullopt, "scheduling.gang"},
                       fmt::format("gang: false (workers placed one at a time) is not modelled with spot or autoscaled pools "
                                   "(pool {})",
                                   p.name));
}

Cluster build_cluster(const Scenario& s) {
  Cluster c;
  for (const PoolSpec& p : s.pools) {
    Pool pool{p};
    pool.gpus_per_node = static_cast<uint16_t>(p.nodes.front().gpus);
    const PoolId id = c.add_pool(std::move(pool));
    // The other slots are built when the pool first provisions them.
    for (uint32_t i = 0; i < p.initial_nodes; ++i) c.build_node(id, NodeState::ready);
  }
  return c;
}

std::vector<ResolvedJob> resolve(const Scenario& s) {
  std::vector<ResolvedJob> out(s.jobs.jobs.size());
  for (const Job& j : s.jobs.jobs) {
    ResolvedJob& r = out[j.id];
    const auto kind = static_cast<std::size_t>(j.kind);
    const CheckpointPolicy* own = s.jobs.checkpoint(j);
    r.checkpoint = own ? own : &s.model.checkpoint.defaults[kind];
    if (const std::string_view gpu = s.jobs.reference_gpu(j); !gpu.empty()) r.reference = s.catalog->find_gpu(gpu);
    const CommProfile& fallback = s.model.communication.defaults[kind];
    if (const CommProfile* given = s.jobs.communication(j); j.request.gpus >= 2)
      r.comm = given ? given : fallback.given() ? &fallback : nullptr;
  }
  return out;
}

// Resolves each job's `node:` to a node ready at time 0 that could hold it (Kubernetes spec.nodeName:
// only that node is considered).
bool bind_nodes(const Scenario& s, const Cluster& c, std::vector<ResolvedJob>& out) {
  std::unordered_map<std::string_view, NodeId> by_name;
  for (const Job& j : s.jobs.jobs) {
    const std::string_view name = s.jobs.node(j);
    if (name.empty()) continue;
    if (by_name.empty()) c.for_each_node([&](NodeId n) { by_name.emplace(c.node(n).name, n); });
    SourceLocation where = s.jobs.where(j);
    where.field += ".node";
    const auto it = by_name.find(name);
    if (it == by_name.end())
      throw InputError(where, fmt::format("job '{}': no node named '{}' at time 0 (pools name their nodes <pool>-<i>, or "
                                          "node_names)",
                                          j.name, name));
    const Node& node = c.node(it->second);
    const Pool& pool = c.pool(node.pool);
    if (auto why = pool_refuses(j.request, pool, *s.catalog))
      throw InputError(where, fmt::format("job '{}' can never run on node {}: it {}", j.name, name, *why));
    if (j.request.gpus > node.gpu_count || !pods_fit(per_pod(j.request), 1, {node.cpu_milli, node.memory_mib}))
      throw InputError(
          where, fmt::format("job '{}' asks {} GPUs, {} milli-CPU and {} MiB; node {} has {}, {} and {}", j.name, j.request.gpus,
                             j.request.cpu_milli, j.request.memory_mib, name, node.gpu_count, node.cpu_milli, node.memory_mib));
    out[j.id].node = it->second;
  }
  return !by_name.empty();
}

}  // namespace

World build_world(const Scenario& s) {
  check_modelled(s);
  Cluster cluster = build_cluster(s);
  Shapes shapes(s.jobs, cluster, *s.catalog);
  for (const Job& j : s.jobs.jobs)
    if (const auto& why = shapes.of_job(j.id).never_fits; j.strict && why)
      throw InputError({s.jobs.where(j).file, s.jobs.where(j).line, "workload.jobs"},
                       fmt::format("job '{}' can never run: it {}", j.name, *why));
  std::vector<ResolvedJob> jobs = resolve(s);
  const bool bound = bind_nodes(s, cluster, jobs);
  return World{s, std::move(cluster), std::move(shapes), std::move(jobs), bound};
}

}  // namespace gpusim
