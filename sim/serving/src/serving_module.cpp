#include "gpusim/sim/serving_module.hpp"

#include <algorithm>
#include <limits>

#include "gpusim/sim/observer.hpp"
#include "gpusim/sim/priority_classes.hpp"
#include "gpusim/sim/scenario.hpp"
#include "gpusim/sim/serving_profile.hpp"
#include "gpusim/sim/sharing.hpp"

namespace gpusim {

ServingModule::ServingModule(const Scenario& s, ServingRecords keep) : scenario_(s), serving_(s, keep), deployments_(s.services) {
  end_job = JobId{replica_jobs(s.services)};  // replicas are the scenario's first jobs (read_services)
  arrived_.resize(end_job);
}

void ServingModule::start(ModuleHost& host) {
  host_ = &host;
  for (uint8_t level = 0; level <= 64; ++level)
    level_mix_.push_back(scenario_.model.power.serving_mix(Serving::level_batch(level)));
  serving_.kv_links([this](JobId from, JobId to) { return kv_link_bytes_per_s(from, to); });
  // The initial pods: their slots arrive with the other jobs at the start.
  for (uint32_t s = 0; s < scenario_.services.size(); ++s) deployments_.reconcile(s, Time(), slot_fn(Time()));
}

std::optional<Time> ServingModule::next_time(bool idle) {
  std::optional<Time> t = serving_.next_time();
  // Autoscalers alone keep the run going only while they may still change a count (e.g. wake a
  // service its held requests wait for).
  idle = idle && !t;
  if (const std::optional<Time> scaling = deployments_.any_autoscaled() ? deployments_.next_time() : std::nullopt)
    if (!idle || !deployments_.settled(*scaling)) t = t ? std::min(*t, *scaling) : *scaling;
  return t;
}

void ServingModule::advance(Time now) {
  serve(now);
  if (!deployments_.any_autoscaled()) return;
  const std::optional<Time> due = deployments_.next_time();
  if (!due || *due != now) return;
  for (uint32_t s : deployments_.evaluate(now, serving_, slot_fn(now))) reconcile(s, now);
}

void ServingModule::decided(Time now) {
  if (!serving_.settled(now)) serve(now);  // what the engine's decisions changed here (placed, stopped, ...)
  if (deployments_.any_autoscaled())
    for (uint32_t s = 0; s < scenario_.services.size(); ++s) deployments_.note_counts(s, now, serving_.ready(s));
}

Module::Ahead ServingModule::run_ahead(Time until) {
  // An autoscaler's evaluation reads the replicas: it comes at its own instant.
  if (deployments_.any_autoscaled())
    if (const std::optional<Time> due = deployments_.next_time()) until = std::min(until, *due);
  return serving_.run_ahead(until);
}

bool ServingModule::arrives(JobId id) {
  if (!deployments_.has_pod(id)) return false;  // a slot its service has no pod for yet
  arrived_[id] = true;
  return true;
}

// A replica's engine takes what its model needs of a GPU that isolates no memory, not its request's.
void ServingModule::adjust_claim(JobId id, const Pool& pool, const Gpu& gpu, GpuClaim& claim) const {
  if (!gpu.mig && pool.sharing.mode == Sharing::time_slicing)
    claim.footprint_mib = replica_footprint_mib(scenario_, scenario_.services[deployments_.service_of(id)],
                                                scenario_.jobs.jobs[id].request, pool);
}

void ServingModule::placed(JobId id, Time now) { serving_.placed(id, now, device(id), share(id)); }

void ServingModule::share_changed(JobId id, Time now) { serving_.share_changed(id, now, share(id)); }

bool ServingModule::notice(JobId id, Time now) {
  // Its pod is terminating: the Service's endpoints drop it, and it finishes what it has until the node goes.
  serving_.draining(id, now);
  return true;
}

bool ServingModule::restart_due(JobId id, uint32_t kills) const {
  // A replica whose pod was deleted during its back-off stays parked; one whose slot has a new pod
  // since (created pending, or running) is not this back-off's.
  const JobRecord& r = host_->state().record(id);
  return deployments_.has_pod(id) && r.status == JobStatus::not_arrived && r.kills == kills;
}

ReplicaShare ServingModule::share(JobId id) const {
  const RunState& run = host_->state();
  const Cluster& cluster = run.cluster();
  const JobFlight& f = host_->flight(id);
  const GpuModel& model = *cluster.pool_of(cluster.gpu(f.placement.gpus.front()).node).gpu;
  ReplicaShare s;
  s.hw.tp = static_cast<int32_t>(f.placement.gpus.size());
  s.hw.eff = &scenario_.model.serving_efficiency(model);
  s.hw.link_bytes_per_s = run.record(id).link.gb_per_s * 1e9;
  double compute = 1, bandwidth = 1;  // the smallest over its GPUs
  std::vector<double> demands, shares;
  for (GpuId g : f.placement.gpus) {
    const Gpu& gpu = cluster.gpu(g);
    const Pool& pool = cluster.pool_of(gpu.node);
    const std::size_t at = static_cast<std::size_t>(std::find(gpu.residents.begin(), gpu.residents.end(), id) -
                                                    gpu.residents.begin());
    if (gpu.mig && !held_whole(gpu)) {
      // A MIG instance has its SMs and its memory slices' share of the bandwidth, whatever its neighbours do.
      const HardwareShare instance = mig_share(*pool.gpu, held_profile(gpu, *pool.gpu, id));
      compute = std::min(compute, instance.compute);
      bandwidth = std::min(bandwidth, instance.bandwidth);
    } else if (pool.sharing.rate_model() == Sharing::time_slicing) {
      // The whole GPU in its turns (a time-shared replica holds one GPU: world.cpp): the serving
      // component plays the GPU's round robin of replicas' steps and the other jobs with work.
      s.ts_gpu = g;
      for (JobId j : gpu.residents)
        if (!owns(j) && host_->demand(j) > 0) s.ts_fluid.push_back(static_cast<uint32_t>(j));
      std::sort(s.ts_fluid.begin(), s.ts_fluid.end());
    } else if (pool.sharing.rate_model() == Sharing::mps) {
      // SMs as the fluid model shares them (thread caps, interference: the replica's sharing rate, the
      // smallest over its GPUs); bandwidth has no QoS under MPS: max-min fair over the busy clients' demands.
      compute = std::min(compute, f.sharing_rate);
      demands.clear();
      for (JobId j : gpu.residents) demands.push_back(j == id ? 1.0 : host_->demand(j));
      shares.assign(demands.size(), 0.0);
      max_min_shares(demands, shares);
      bandwidth = std::min(bandwidth, shares[at]);
    }
  }
  s.hw.flops_per_s = model.bf16_tflops * 1e12 * compute;
  s.hw.bytes_per_s = model.memory_bandwidth_gb_per_s * 1e9 * bandwidth;
  return s;
}

// Within a node, the slowest link between a GPU of one and a GPU of the other, once per pair of GPUs the
// cache moves between (each of the fewer GPUs sends or takes its heads' share); a GPU to itself copies at
// half its memory bandwidth (a read and a write). Across nodes, the NICs of the replicas' GPUs: each GPU has
// its share of its node's NICs (an HGX node's rail of one NIC a GPU), the slower side bounding the transfer.
double ServingModule::kv_link_bytes_per_s(JobId from, JobId to) const {
  const Cluster& cluster = host_->state().cluster();
  const auto& a = host_->flight(from).placement.gpus;
  const auto& b = host_->flight(to).placement.gpus;
  const NodeId na = cluster.gpu(a.front()).node, nb = cluster.gpu(b.front()).node;
  if (na != nb) {
    const auto nics = [&](NodeId n, std::size_t gpus) {
      const Node& node = cluster.node(n);
      return cluster.pool_of(n).network.gb_per_s() * std::min(1.0, static_cast<double>(gpus) / node.gpu_count);
    };
    return std::min(nics(na, a.size()), nics(nb, b.size())) * 1e9;
  }
  const Node& node = cluster.node(na);
  double slowest = std::numeric_limits<double>::infinity();
  for (GpuId g : a)
    for (GpuId h : b) {
      const double link =
          g == h ? cluster.pool_of(na).gpu->memory_bandwidth_gb_per_s / 2
                 : node.topology->link(static_cast<int>(g - node.first_gpu), static_cast<int>(h - node.first_gpu)).gb_per_s;
      slowest = std::min(slowest, link);
    }
  return slowest * static_cast<double>(std::min(a.size(), b.size())) * 1e9;
}

ReplicaDevice ServingModule::device(JobId id) const {
  const Cluster& cluster = host_->state().cluster();
  const JobFlight& f = host_->flight(id);
  const GpuId g = f.placement.gpus.front();
  const Pool& pool = cluster.pool_of(cluster.gpu(g).node);
  const MigProfile* profile = nullptr;
  if (!f.mig.empty()) profile = &pool.gpu->mig->profiles[f.mig.front().profile];
  return ReplicaDevice{pool.gpu, replica_memory_mib(scenario_.jobs.jobs[id].request, pool, profile), cluster.gpu(g).node};
}

void ServingModule::serve(Time now) {
  serving_.advance(now);
  if (!serving_.has_busy_changes()) return;  // most instants: nothing for the engine
  const RunState& run = host_->state();
  std::vector<GpuId> gpus;
  // What a replica's busy GPU share cost so far is charged at the demand it had.
  const auto settle_running = [&](JobId id) {
    if (run.record(id).status == JobStatus::running) host_->settle(id);
  };
  // A replica busy all along whose batch moved to another power level: its energy so far at the old mix.
  const auto settle_energy = [&](JobId id) {
    if (run.record(id).status == JobStatus::running) host_->settle_energy(id);
  };
  std::vector<JobId> drained, levels;
  for (JobId id : serving_.take_busy_changes(now, settle_running, settle_energy, levels))
    if (run.record(id).status == JobStatus::running) {
      const auto& held = host_->flight(id).placement.gpus;
      gpus.insert(gpus.end(), held.begin(), held.end());
      // A deleted pod that has served what it had exits before its grace period ends.
      if (run.record(id).terminating && !deployments_.has_pod(id) && !serving_.busy(id)) drained.push_back(id);
    }
  if (!gpus.empty()) {
    std::sort(gpus.begin(), gpus.end());
    gpus.erase(std::unique(gpus.begin(), gpus.end()), gpus.end());
    host_->demand_changed(std::move(gpus));
  }
  std::vector<GpuId> drawing;
  for (JobId id : levels)
    if (run.record(id).status == JobStatus::running) {
      const auto& held = host_->flight(id).placement.gpus;
      drawing.insert(drawing.end(), held.begin(), held.end());
    }
  if (!drawing.empty()) {
    std::sort(drawing.begin(), drawing.end());
    drawing.erase(std::unique(drawing.begin(), drawing.end()), drawing.end());
    host_->power_changed(std::move(drawing));
  }
  for (JobId id : drained) host_->leave(id);
}

std::optional<BoundMix> ServingModule::power_mix(JobId id) const {
  if (!serving_.is_replica(id)) return std::nullopt;
  return level_mix_[serving_.power_level(id)];
}

SlotState ServingModule::slot_state(JobId id, Time now) const {
  const JobRecord& r = host_->state().record(id);
  switch (r.status) {
    case JobStatus::pending: return SlotState::pending;
    case JobStatus::not_arrived: return deployments_.has_pod(id) ? SlotState::pending : SlotState::free;  // back-off
    case JobStatus::running: {
      if (r.terminating) return SlotState::terminating;
      const ReplicaGauges g = serving_.gauges(id, now);
      return g.draining ? SlotState::terminating : g.ready ? SlotState::ready : SlotState::starting;
    }
    default: return SlotState::terminating;  // failed or rejected for good: never free again
  }
}

void ServingModule::reconcile(uint32_t service, Time now) {
  const ServiceController::Actions a = deployments_.reconcile(service, now, slot_fn(now));
  for (JobId id : a.remove) delete_pod(id, now);
  for (JobId id : a.create) create_pod(id);
}

void ServingModule::create_pod(JobId id) {
  if (arrived_[id]) host_->pod_created(id);
  else host_->arrive(id);
}

void ServingModule::delete_pod(JobId id, Time now) {
  const JobRecord& r = host_->state().record(id);
  switch (r.status) {
    case JobStatus::pending:
    case JobStatus::not_arrived:  // in its restart back-off: its requeue finds no pod
      host_->pod_deleted(id);
      break;
    case JobStatus::running:
      host_->count_event();
      if (r.terminating) break;  // already going: it parks when it leaves
      // Its endpoint is removed; it serves what it has, within its termination grace period.
      host_->terminating(id, std::nullopt);
      serving_.draining(id, now);
      if (!serving_.busy(id)) {
        host_->leave(id);
        break;
      }
      host_->terminating(id, now + PrioritySpec::termination_grace(scenario_.jobs, scenario_.jobs.jobs[id]));
      break;
    default: host_->count_event(); break;
  }
}

}  // namespace gpusim
