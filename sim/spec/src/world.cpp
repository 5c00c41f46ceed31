#include "gpusim/sim/world.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>
#include <unordered_map>

#include "gpusim/core/error.hpp"
#include "gpusim/sim/replica_memory.hpp"

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

// A model of kind fixed needs its weights and a CUDA context on the device (activations are not
// modelled), on one GPU: its service time is measured on one.
void check_fixed_fit(const Scenario& s, const ServiceSpec& svc, const Pool& pool, const MigProfile* profile, int64_t memory_mib) {
  if (svc.tensor_parallel > 1)
    throw InputError({svc.where.file, svc.where.line, svc.where.field + ".tensor_parallel"},
                     fmt::format("service '{}': model {} is of kind fixed, measured on one GPU: expected tensor_parallel 1",
                                 svc.name, svc.model->name));
  const auto weights_mib = static_cast<int64_t>(std::ceil(svc.model->weights_bytes() / (1024.0 * 1024.0)));
  const int64_t context_mib = s.model.time_slicing.of(*pool.gpu).context_memory_mib;
  if (weights_mib + context_mib > memory_mib)
    throw InputError(
        {svc.where.file, svc.where.line, svc.where.field + ".model"},
        fmt::format("model {} does not fit a replica on pool {} ({}{} MiB): its weights take {} MiB and the "
                    "CUDA context {} MiB",
                    svc.model->name, pool.name, profile ? profile->name + ", " : "", memory_mib, weights_mib, context_mib));
}

// A service's model must fit every device its replicas may be placed on (weights, activations and at
// least one KV block), and a tensor-parallel replica needs whole GPUs.
void check_services(const Scenario& s, const Cluster& c, const Shapes& shapes) {
  for (const ServiceSpec& svc : s.services) {
    // The first replica slot and the last: a baseline's template and the service's own.
    for (const uint32_t id : {svc.first_job, svc.first_job + static_cast<uint32_t>(svc.max_replicas) - 1}) {
      const Job& j = s.jobs.jobs[id];
      const uint64_t mask = shapes.of_job(j.id).pool_mask;
      for (PoolId p{0}; p < c.pools().size(); ++p) {
        if (!(mask >> p & 1)) continue;
        const Pool& pool = c.pool(p);
        const SourceLocation where{svc.where.file, svc.where.line, svc.where.field + ".model"};
        if (svc.tensor_parallel > 1 && pool.sharing.mode != Sharing::exclusive)
          throw InputError(
              {svc.where.file, svc.where.line, svc.where.field + ".tensor_parallel"},
              fmt::format("service '{}': a tensor-parallel replica needs whole GPUs, but pool {} shares its GPUs ({}); "
                          "restrict pod.models or use tensor_parallel: 1",
                          svc.name, pool.name, to_string(pool.sharing.mode)));
        const MigProfile* profile = requested_profile(j.request, *pool.gpu);
        // NVIDIA's MIG user guide: "GPU utilization is not supported when MIG mode is enabled".
        if (profile && svc.autoscaler && svc.autoscaler->reads(ServiceMetric::gpu_util))
          throw InputError({svc.where.file, svc.where.line, svc.where.field + ".autoscaler"},
                           fmt::format("service '{}': its replicas on pool {} hold MIG instances ({}), for which DCGM reports "
                                       "no DCGM_FI_DEV_GPU_UTIL; scale on vllm:num_requests_running, "
                                       "vllm:num_requests_waiting or gpusim_service_queue_length",
                                       svc.name, pool.name, profile->name));
        const int64_t memory = replica_memory_mib(j.request, pool, profile);
        if (svc.model->kind == ModelKind::fixed) {
          check_fixed_fit(s, svc, pool, profile, memory);
          continue;
        }
        const EngineLimits limits = engine_limits(s, svc, *pool.gpu, memory);
        // vLLM's rule (SchedulerConfig), here with the device's defaults for the one not given.
        if (limits.max_num_batched_tokens < limits.max_num_seqs)
          throw InputError(
              {svc.where.file, svc.where.line,
               svc.where.field + (svc.engine.max_num_batched_tokens ? ".engine.max_num_batched_tokens" : ".engine.max_num_seqs")},
              fmt::format("service '{}': on pool {} max_num_batched_tokens is {}{} and max_num_seqs {}{}: "
                          "expected max_num_batched_tokens >= max_num_seqs, as vLLM requires",
                          svc.name, pool.name, limits.max_num_batched_tokens,
                          svc.engine.max_num_batched_tokens ? "" : " (the default)", limits.max_num_seqs,
                          svc.engine.max_num_seqs ? "" : " (the default)"));
        const KvCapacity kv = kv_capacity(*svc.model, memory, svc.tensor_parallel, limits,
                                          s.model.time_slicing.of(*pool.gpu).context_memory_mib);
        if (kv.blocks <= 0)
          throw InputError(where,
                           fmt::format("model {} does not fit a replica on pool {} ({}{} MiB): at gpu_memory_utilization {:g} "
                                       "it gets {} MiB, its weights take {} MiB per GPU and activations {} MiB, leaving "
                                       "no room for the KV cache",
                                       svc.model->name, pool.name, profile ? profile->name + ", " : "", memory,
                                       limits.gpu_memory_utilization, kv.budget_mib, kv.weights_mib, kv.reserve_mib));
        // The engine counts a replica's KV blocks in 32 bits; only a model of a few bytes of KV per token reaches that.
        if (kv.blocks > std::numeric_limits<int32_t>::max())
          throw InputError(where,
                           fmt::format("model {}: a replica on pool {} would hold {} KV blocks ({:g} bytes of KV per "
                                       "token): expected at most {}; check its layers, kv_heads, head_dim and dtype_bytes",
                                       svc.model->name, pool.name, kv.blocks, svc.model->kv_bytes_per_token(svc.tensor_parallel),
                                       std::numeric_limits<int32_t>::max()));
      }
    }
  }
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

// A job's `node:` must name a node ready at time 0 that could hold it (Kubernetes spec.nodeName: only
// that node is considered); `n` is the node of that name, kNoNode if none.
void check_binding(const Scenario& s, const Cluster& c, const Job& j, std::string_view name, NodeId n) {
  SourceLocation where = s.jobs.where(j);
  where.field += ".node";
  if (n == kNoNode)
    throw InputError(where, fmt::format("job '{}': no node named '{}' at time 0 (pools name their nodes <pool>-<i>, or "
                                        "node_names)",
                                        j.name, name));
  const Node& node = c.node(n);
  const Pool& pool = c.pool(node.pool);
  if (auto why = pool_refuses(j.request, pool, *s.catalog))
    throw InputError(where, fmt::format("job '{}' can never run on node {}: it {}", j.name, name, *why));
  if (j.request.gpus > node.gpu_count || !pods_fit(per_pod(j.request), 1, {node.cpu_milli, node.memory_mib}))
    throw InputError(
        where, fmt::format("job '{}' asks {} GPUs, {} milli-CPU and {} MiB; node {} has {}, {} and {}", j.name, j.request.gpus,
                           j.request.cpu_milli, j.request.memory_mib, name, node.gpu_count, node.cpu_milli, node.memory_mib));
}

}  // namespace

JobReference job_reference(const Scenario& s, const Job& j) {
  if (const JobSpeed* own = s.jobs.speed(j); own && !own->reference_gpu.empty()) return {own->reference_gpu, false};
  if (!s.reference_gpu.empty()) return {s.reference_gpu, false};
  return {s.model.speed.reference_gpu, true};
}

namespace {

// Each JobSet::speeds entry (and none, first) for each kind, on each pool's GPU model.
std::vector<double> speed_table(const Scenario& s, const Cluster& c) {
  const Catalog& catalog = *s.catalog;
  std::vector<double> out;
  const JobSpeed none;
  for (std::size_t k = 0; k <= s.jobs.speeds.size(); ++k) {
    const JobSpeed& own = k == 0 ? none : s.jobs.speeds[k - 1];
    for (std::size_t kind = 0; kind < enum_count<JobKind>; ++kind) {
      Job probe;
      probe.speed = k == 0 ? Job::kNone : static_cast<uint32_t>(k - 1);
      const std::string_view reference = job_reference(s, probe).gpu;
      SpeedProfile p;
      p.reference = reference == JobSpeed::kAny ? nullptr : catalog.find_gpu(reference);
      p.throughput = catalog.find_throughput_class(own.throughput_class.empty() ? s.model.speed.classes[kind]
                                                                                : own.throughput_class);
      p.speedup = &own.speedup;
      for (const Pool& pool : c.pools()) out.push_back(pool.gpu ? speed_factor(catalog, *pool.gpu, p) : 1.0);
    }
  }
  return out;
}

}  // namespace

ResolvedJobs::ResolvedJobs(const Scenario& s, const Cluster& c)
    : scenario_(s), node_of_text_(s.jobs.texts.size(), kNoNode), speed_by_pool_(speed_table(s, c)), pools_(c.pools().size()) {
  std::unordered_map<std::string_view, NodeId> by_name;
  for (const Job& j : s.jobs.jobs) {
    if (j.node == Job::kNone) continue;
    if (by_name.empty()) c.for_each_node([&](NodeId n) { by_name.emplace(c.node(n).name, n); });
    const std::string_view name = s.jobs.node(j);
    const auto it = by_name.find(name);
    const NodeId n = it == by_name.end() ? kNoNode : it->second;
    check_binding(s, c, j, name, n);
    node_of_text_[j.node] = n;
    any_bound_ = true;
  }
}

ResolvedJob ResolvedJobs::operator[](std::size_t job) const {
  const Scenario& s = scenario_;
  const Job& j = s.jobs.jobs[job];
  const auto kind = static_cast<std::size_t>(j.kind);
  ResolvedJob r;
  const CheckpointPolicy* own = s.jobs.checkpoint(j);
  r.checkpoint = own ? own : &s.model.checkpoint.defaults[kind];
  const CommProfile& fallback = s.model.communication.defaults[kind];
  if (const CommProfile* given = s.jobs.communication(j); j.request.gpus >= 2)
    r.comm = given ? given : fallback.given() ? &fallback : nullptr;
  r.node = node(job);
  return r;
}

World build_world(const Scenario& s) {
  check_modelled(s);
  Cluster cluster = build_cluster(s);
  Shapes shapes(s.jobs, cluster, *s.catalog);
  const uint32_t replicas = replica_jobs(s.services);
  for (const Job& j : s.jobs.jobs)
    if (const auto& why = shapes.of_job(j.id).never_fits; j.strict && why)
      throw InputError({s.jobs.where(j).file, s.jobs.where(j).line, j.id < replicas ? "workload.services" : "workload.jobs"},
                       fmt::format("{} '{}' can never run: it {}", j.id < replicas ? "replica" : "job", j.name, *why));
  check_services(s, cluster, shapes);
  ResolvedJobs jobs(s, cluster);
  const bool bound = jobs.any_bound();
  return World{s, std::move(cluster), std::move(shapes), std::move(jobs), bound};
}

namespace {

// Replicas on a time-sliced pool share its GPUs' memory without isolation: the most memory the
// replicas that may land on one GPU can take together, against the GPU's (the arithmetic said out).
void warn_shared_memory(const World& world, std::vector<std::string>& out) {
  const Scenario& s = world.scenario;
  for (PoolId p{0}; p < world.cluster.pools().size(); ++p) {
    const Pool& pool = world.cluster.pool(p);
    if (pool.sharing.mode != Sharing::time_slicing) continue;
    struct Replica {
      int64_t footprint_mib;
      const ServiceSpec* service;
    };
    std::vector<Replica> replicas;
    for (const ServiceSpec& svc : s.services)
      for (int32_t k = 0; k < svc.max_replicas; ++k) {
        const Job& j = s.jobs.jobs[svc.first_job + static_cast<uint32_t>(k)];
        if (world.shapes.of_job(j.id).pool_mask >> p & 1)
          replicas.push_back({replica_footprint_mib(s, svc, j.request, pool), &svc});
      }
    const auto per_gpu = static_cast<std::size_t>(
        std::min(pool.sharing.replicas, s.model.time_slicing.of(*pool.gpu).max_contexts));
    const std::size_t k = std::min(per_gpu, replicas.size());
    std::partial_sort(replicas.begin(), replicas.begin() + static_cast<std::ptrdiff_t>(k), replicas.end(),
                      [](const Replica& a, const Replica& b) { return a.footprint_mib > b.footprint_mib; });
    int64_t total = 0;
    std::vector<std::string> parts, names;
    for (std::size_t i = 0; i < k; ++i) {
      total += replicas[i].footprint_mib;
      parts.push_back(std::to_string(replicas[i].footprint_mib));
    }
    for (const ServiceSpec& svc : s.services)  // in the scenario's order
      if (std::any_of(replicas.begin(), replicas.begin() + static_cast<std::ptrdiff_t>(k),
                      [&](const Replica& r) { return r.service == &svc; }))
        names.push_back(svc.name);
    const int64_t memory = pool.gpu->memory_mib;
    if (k < 2 || total <= memory) continue;
    out.push_back(located(
        {s.file, std::nullopt, fmt::format("cluster.pools[{}]", static_cast<std::size_t>(p))},
        fmt::format("pool {} time-slices each GPU into {} replicas with no memory isolation: {} replicas of {} may share one "
                    "GPU and take {} = {} MiB of its {} MiB (a vLLM engine takes its gpu_memory_utilization, {:g} by "
                    "default, of the memory it sees): every pod on that GPU would be killed (out of memory); give each "
                    "service engine.gpu_memory_utilization of at most {:.2f}, or the pods a gpu_memory_limit_mib",
                    pool.name, pool.sharing.replicas, k, fmt::join(names, ", "), fmt::join(parts, " + "), total, memory,
                    s.model.serving.gpu_memory_utilization, std::floor(100.0 / static_cast<double>(k)) / 100.0)));
  }
}

// The GPUs of node n job j could take in cluster `c` now (claims on each, the first that fits).
std::vector<std::pair<GpuId, GpuClaim>> free_gpus_for(const Cluster& c, const Scenario& s, const Job& j, NodeId n) {
  std::vector<std::pair<GpuId, GpuClaim>> out;
  const Node& node = c.node(n);
  const Pool& pool = c.pool(node.pool);
  for (GpuId g = node.first_gpu; g < node.first_gpu + node.gpu_count; ++g) {
    const Gpu& gpu = c.gpu(g);
    std::optional<GpuClaim> claim;
    if (gpu.mig)
      for (std::size_t k = 0; k < gpu.instances.size() && !claim; ++k)
        claim = claim_on(j.request, pool, gpu, static_cast<MigSlotIndex>(k), s.model.time_slicing);
    if (!claim) claim = claim_on(j.request, pool, gpu, std::nullopt, s.model.time_slicing);
    if (claim) out.emplace_back(g, *claim);
  }
  return out;
}

// The first node (by id) of the pools job j may use where all its GPUs fit on their own; none: kNoNode.
NodeId first_fit(const World& w, const Cluster& c, const Job& j) {
  const uint64_t mask = w.shapes.of_job(j.id).pool_mask;
  NodeId found = kNoNode;
  c.for_each_node([&](NodeId n) {
    if (found != kNoNode || !(mask >> c.node(n).pool & 1) || !c.node(n).ready()) return;
    if (free_gpus_for(c, w.scenario, j, n).size() >= static_cast<std::size_t>(j.request.gpus)) found = n;
  });
  return found;
}

// Services whose replicas hold GPUs for the whole run (no autoscaler) may leave a job's pools with no
// node it fits: placed first-fit before the jobs (they arrive first), which jobs written in the
// scenario could then never start? (Another placement may pack the replicas differently: a hint.)
void warn_services_block_jobs(const World& w, std::vector<std::string>& out) {
  const Scenario& s = w.scenario;
  Cluster c = w.cluster;
  std::vector<std::string> holders;
  for (const ServiceSpec& svc : s.services) {
    if (svc.autoscaler) continue;
    for (int32_t k = 0; k < svc.replicas; ++k) {
      const Job& r = s.jobs.jobs[svc.first_job + static_cast<uint32_t>(k)];
      const NodeId n = first_fit(w, c, r);
      if (n == kNoNode) continue;
      const auto gpus = free_gpus_for(c, s, r, n);
      for (int32_t i = 0; i < r.request.gpus; ++i)
        c.attach(gpus[static_cast<std::size_t>(i)].first, r.id, gpus[static_cast<std::size_t>(i)].second);
      if (std::find(holders.begin(), holders.end(), svc.name) == holders.end()) holders.push_back(svc.name);
    }
  }
  if (holders.empty()) return;
  constexpr std::size_t kNamed = 3;  // services named in the hint; the rest counted
  const std::string services = holders.size() <= kNamed + 1
                                   ? fmt::format("{}", fmt::join(holders, ", "))
                                   : fmt::format("{} and {} more services",
                                                 fmt::join(holders.begin(), holders.begin() + kNamed, ", "),
                                                 holders.size() - kNamed);
  std::vector<bool> checked(w.shapes.count(), false);  // jobs of one shape fit alike: one warning each
  for (const Job& j : s.jobs.jobs) {
    if (j.id < replica_jobs(s.services) || !j.strict || j.request.gpus == 0 || j.multi_node) continue;
    if (checked[w.shapes.of(j.id)]) continue;
    checked[w.shapes.of(j.id)] = true;
    if (first_fit(w, w.cluster, j) == kNoNode || first_fit(w, c, j) != kNoNode) continue;
    out.push_back(located(s.jobs.where(j),
                          fmt::format("job '{}' ({} GPU{}) fits an empty cluster but no node its pools have once the "
                                      "replicas of {} hold their GPUs (placed first-fit, for the whole run): it would never "
                                      "start; give the services' pods a node_selector (or the job one) so they use "
                                      "separate nodes, or add nodes",
                                      j.name, j.request.gpus, j.request.gpus == 1 ? "" : "s", services)));
  }
}

}  // namespace

std::vector<std::string> scenario_warnings(const World& world) {
  const Scenario& s = world.scenario;
  std::vector<std::string> out;
  warn_shared_memory(world, out);
  warn_services_block_jobs(world, out);
  // A bare number is seconds, as every duration: `ttft: 200` is 200 s, which no interactive service means.
  constexpr double kLongTargetS = 10;
  for (const ServiceSpec& svc : s.services)
    for (const SloTarget& t : svc.slo)
      if (t.limit.seconds() > kLongTargetS)
        out.push_back(located(t.where, fmt::format("{:g} s is a long latency target (a bare number is seconds); for "
                                                   "milliseconds write {}: {:g}ms",
                                                   t.limit.seconds(), t.key, t.limit.seconds())));
  // Prefix caching needs to know what a prompt holds: without it, the switch changes nothing.
  for (const ServiceSpec& svc : s.services)
    if (svc.role != PoolRole::decode && svc.engine.enable_prefix_caching.value_or(false) && !svc.requests->has_content())
      out.push_back(located(svc.where, fmt::format("service '{}': enable_prefix_caching is on, but its requests carry no "
                                                   "content (hash ids, or a generator's shared_prefix_tokens or sessions): "
                                                   "no prefix is shared, nothing is reused",
                                                   svc.name)));
  return out;
}

}  // namespace gpusim
