// What policies and observers read of the run (ClusterView, RunState): the kernel's answers,
// with the fit rules of sim/fit.hpp applied to the cluster now.
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "engine_impl.hpp"

namespace gpusim {

double Engine::busy_share(JobId id) const {
  return records_[id].status == JobStatus::running ? active_u(id) * std::as_const(flights_)[records_[id]].sharing_rate : 0.0;
}

void Engine::for_each_running(const std::function<void(JobId, Time)>& visit) const {
  for (JobId id : life_.running()) {
    const JobRecord& r = records_[id];
    const JobFlight& f = flights_[r];
    // A job paused for a checkpoint or restore goes on at its computing rate once the pause ends.
    const double rate = f.rate > 0 ? f.rate : f.compute_rate;
    const Time from = f.rate > 0 ? now_ : std::max(now_, f.phase_end);
    visit(id, rate > 0 ? from + Duration::from_us(static_cast<int64_t>(std::ceil(remaining_now(r).us() / rate))) : Time::max());
  }
}

const Placement& Engine::placement(JobId id) const {
  static const Placement kNone;
  return records_[id].status == JobStatus::running ? std::as_const(flights_)[records_[id]].placement : kNone;
}

Duration Engine::waited(JobId id) const {
  // The time it held GPUs is its GPU time over its GPUs (JobRecord has no room for a wait counter).
  const double held_us = attained_gpu(id).us() / std::max(1, job(id).request.gpus);
  return (now_ - job(id).arrival) - Duration::from_us(static_cast<int64_t>(held_us));
}

bool Engine::gpu_fits(JobId id, GpuId g) const {
  const Node& node = cluster_.node(cluster_.gpu(g).node);
  return node.ready() && pool_allowed(id, node.pool) && node_allowed(id, cluster_.gpu(g).node) &&
         takes(job(id).request, cluster_.pool(node.pool), cluster_.gpu(g));
}

bool Engine::power_fits(JobId id, PoolId p) const {
  const int64_t room = budgets_.room_mw(p);
  if (room == PowerBudgets::kNoLimit) return true;
  const int32_t gpus = gpus_to_place(id);
  if (power_claim_mw(id, p) * gpus <= room) return true;
  // It waits for power, not for GPUs, when its pool has as many free as it asks for.
  if (records_[id].status == JobStatus::pending &&
      metrics_.free_milli_now(p) >= int64_t{demand_on(job(id).request, cluster_.pool(p)).milli.value} * gpus)
    budgets_.waited(id, p);
  return false;
}

std::optional<std::string> Engine::power_error(JobId id, const std::vector<GpuId>& gpus) const {
  std::vector<int64_t> need(budgets_.count(), 0);
  for (GpuId g : gpus) {
    const PoolId p = cluster_.node(cluster_.gpu(g).node).pool;
    if (const int b = budgets_.budget_of(p); b >= 0) need[static_cast<std::size_t>(b)] += power_claim_mw(id, p);
  }
  for (std::size_t b = 0; b < need.size(); ++b)
    if (need[b] > budgets_.room(static_cast<int>(b)))
      return fmt::format("power budget '{}' has {:.3f} kW free; the job's GPUs there hold {:.3f} kW",
                         world_.scenario.power_budgets[b].name, static_cast<double>(budgets_.room(static_cast<int>(b))) / 1e6,
                         static_cast<double>(need[b]) / 1e6);
  return std::nullopt;
}

bool Engine::fits_in_bucket(JobId id, BucketId b) const {
  const NodeBucket& bucket = cluster_.bucket(b);
  // A bucket's id and epoch name one state of free capacities (Cluster::signature), which is all
  // the fit of an unbound, not partly placed job depends on, except on MIG and topology-aligned
  // pools, whose fit also reads what the signature leaves out (reconfiguration, GPU positions), and
  // under power budgets, whose room it leaves out too.
  if (!fit_cache_usable_ || world_.jobs.node(id) != kNoNode || gpus_to_place(id) != job(id).request.gpus ||
      bucket.epoch >= (uint32_t{1} << 31) - 1)
    return fits_on_node(id, bucket.representative());
  std::vector<uint32_t>& known = fit_cache_[shapes_.of(id)];
  if (known.size() <= b) known.resize(b + 1u, 0);
  // (epoch + 1) * 2 + fits; 0: never asked
  const uint32_t stamp = (bucket.epoch + 1) * 2;
  if ((known[b] & ~1u) != stamp) known[b] = stamp | (fits_on_node(id, bucket.representative()) ? 1 : 0);
  return known[b] & 1;
}

// Policies ask this for every node bucket of every decision: the node's checks and the job's
// request are looked up once, not once per GPU.
int32_t Engine::count_fitting_gpus(JobId id, NodeId n, int32_t limit) const {
  const Node& node = cluster_.node(n);
  if (!node.ready() || !pool_allowed(id, node.pool) || !node_allowed(id, n)) return 0;
  const Request& q = job(id).request;
  const Pool& pool = cluster_.pool(node.pool);
  int32_t found = 0;
  for (GpuId g = node.first_gpu; g < node.first_gpu + node.gpu_count && found < limit; ++g)
    found += takes(q, pool, cluster_.gpu(g)) ? 1 : 0;
  return found;
}

void Engine::fitting_instances(JobId id, GpuId g, std::vector<MigSlotIndex>& out) const {
  out.clear();
  const Gpu& gpu = cluster_.gpu(g);
  for (std::size_t i = 0; i < gpu.instances.size(); ++i)
    if (claim_for(id, g, static_cast<MigSlotIndex>(i))) out.push_back(static_cast<MigSlotIndex>(i));
  const MigTable& t = *cluster_.pool_of(gpu.node).gpu->mig;
  std::stable_sort(out.begin(), out.end(), [&](MigSlotIndex a, MigSlotIndex b) {
    const MigProfile& x = t.profiles[gpu.instances[a].instance.profile];
    const MigProfile& y = t.profiles[gpu.instances[b].instance.profile];
    return std::pair(x.memory_slices, x.sms) < std::pair(y.memory_slices, y.sms);
  });
}

bool Engine::node_admits(JobId id, NodeId n) const {
  const Node& node = cluster_.node(n);
  const Request& q = job(id).request;
  return node.ready() && pool_allowed(id, node.pool) && node_allowed(id, n) && pods_fit(per_pod(q), 1, free_resources(node));
}

GpuTime Engine::attained_gpu(JobId id) const {
  const JobRecord& r = records_[id];
  GpuTime t = r.attained_gpu;
  if (r.status == JobStatus::running) t += GpuTime::of(now_ - r.start, static_cast<double>(flights_[r].placement.gpus.size()));
  return t;
}

Work Engine::remaining_work(JobId id) const {
  const JobRecord& r = records_[id];
  return r.status == JobStatus::running ? remaining_now(r) : r.remaining;
}

bool Engine::takes(const Request& q, const Pool& pool, const Gpu& gpu) const {
  if (gpu.reconfiguring) return false;
  const TimeSlicingModels& ts = model().time_slicing;
  if (fits_on(q, pool, gpu, std::nullopt, ts)) return true;  // not MIG, or a partitionable GPU whole
  for (std::size_t i = 0; i < gpu.instances.size(); ++i)
    if (fits_on(q, pool, gpu, static_cast<MigSlotIndex>(i), ts)) return true;
  return false;
}

std::optional<GpuClaim> Engine::claim_for(JobId id, GpuId g, std::optional<MigSlotIndex> instance) const {
  const Gpu& gpu = cluster_.gpu(g);
  const Node& node = cluster_.node(gpu.node);
  if (gpu.reconfiguring || !node.ready() || !pool_allowed(id, node.pool) || !node_allowed(id, gpu.node)) return std::nullopt;
  const Pool& pool = cluster_.pool(node.pool);
  std::optional<GpuClaim> c = claim_on(job(id).request, pool, gpu, instance, model().time_slicing);
  if (c)
    if (const Module* m = owner(id)) m->adjust_claim(id, pool, gpu, *c);
  return c;
}

double Engine::mtbf_hours(JobId id) const {
  double hazard = 0;
  for (NodeId n : flights_[records_[id]].placement.nodes) hazard += nodes_.pool(cluster_.node(n).pool).hazard_per_node_hour;
  return hazard > 0 ? 1.0 / hazard : std::numeric_limits<double>::infinity();
}

}  // namespace gpusim
