#include "gpusim/sim/world.hpp"

#include <fmt/format.h>

#include <algorithm>

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
    r.checkpoint = j.checkpoint ? &*j.checkpoint : &s.model.checkpoint.defaults[kind];
    if (!j.reference_gpu.empty()) r.reference = s.catalog->find_gpu(j.reference_gpu);
    const CommProfile& fallback = s.model.communication.defaults[kind];
    if (j.request.gpus >= 2) r.comm = j.communication.given() ? &j.communication : fallback.given() ? &fallback : nullptr;
  }
  return out;
}

}  // namespace

World build_world(const Scenario& s) {
  check_modelled(s);
  Cluster cluster = build_cluster(s);
  Shapes shapes(s.jobs, cluster, *s.catalog);
  for (const Job& j : s.jobs.jobs)
    if (const auto& why = shapes.of_job(j.id).never_fits; j.strict && why)
      throw InputError({j.origin.file, j.origin.line, "workload.jobs"},
                       fmt::format("job '{}' can never run: it {}", j.name, *why));
  return World{s, std::move(cluster), std::move(shapes), resolve(s)};
}

}  // namespace gpusim
