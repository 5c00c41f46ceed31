// The Binder, the one door through which jobs take and leave GPUs: a checked placement applied
// (sim/fit.hpp has the checks), stops, kills, preemptions and evictions, MIG layout changes, and the
// sharing rates that follow each of them.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>

#include "engine_impl.hpp"
#include "gpusim/sim/network.hpp"

namespace gpusim {

void Engine::reject(JobId id, const std::string& why) const {
  throw PolicyError(fmt::format("policy {} made an invalid decision at t={}s: job {} ({}): {}", scheduler_.name(),
                                format_seconds(now_), job(id).name, id, why));
}

void Engine::bind(JobId id, const Placement& p) {
  if (id >= records_.size()) throw PolicyError(fmt::format("policy {} bound unknown job id {}", scheduler_.name(), id));
  if (records_[id].status != JobStatus::pending)
    reject(id, fmt::format("job is {}, not pending", to_string(records_[id].status)));
  // What it holds already (workers placed one at a time).
  const JobFlight& held = std::as_const(flights_)[records_[id]];
  const PlacementRules rules{gpus_to_place(id), &held.placement, held.claims.size(), shapes_.get(shapes_.of(id)).pool_mask,
                             [&](GpuId g, std::optional<MigSlotIndex> instance) { return claim_for(id, g, instance); }};
  std::vector<GpuClaim> claims;
  if (const auto why = placement_error(cluster_, job(id), p, rules, claims)) reject(id, *why);
  if (budgets_.any())
    if (const auto why = power_error(id, p.gpus)) reject(id, *why);
  place(id, p, claims);
}

void Engine::place(JobId id, const Placement& p, const std::vector<GpuClaim>& claims) {
  const Job& j = job(id);
  JobRecord& r = records_[id];
  for (NodeId n : p.nodes) {
    const int64_t pods = j.request.pods_on_node(std::popcount(cluster_.gpu_mask(n, p.gpus)));
    cluster_.allocate(n, pods * j.request.cpu_milli, pods * j.request.memory_mib);
    nodes_.job_placed(n, id);
  }
  if (r.flight == kNoFlight) flights_.acquire(r).saved_remaining = Work::of(j.work, 1.0);  // its first placement
  JobFlight& f = flights_[r];
  if (f.claims.empty()) {
    f.placement = {};
    f.mig.clear();
    f.pool = kNoPool;
    f.one_pool = true;
  }
  for (std::size_t i = 0; i < p.gpus.size(); ++i) {
    const PoolId pool = cluster_.node(cluster_.gpu(p.gpus[i]).node).pool;
    ledger_.claimed(f, pool, p.gpus[i], now_);
    if (budgets_.any()) budgets_.hold(pool, power_claim_mw(id, pool));
    cluster_.attach(p.gpus[i], id, claims[i]);
    metrics_.add_allocation(pool, j.tenant, claims[i].milli.value);
    f.claims.push_back(claims[i]);
    f.held_gpus += claims[i].milli.gpus();
    f.placement.gpus.push_back(p.gpus[i]);
    f.one_pool = f.one_pool && (f.pool == kNoPool || f.pool == pool);
    f.pool = pool;
    // Instances are listed once one GPU is MIG (as placements give them: empty when none is).
    if (claims[i].instance || !f.placement.instances.empty()) {
      f.placement.instances.resize(f.placement.gpus.size() - 1);
      f.placement.instances.push_back(claims[i].instance);
    }
    if (claims[i].instance) f.mig.push_back(cluster_.gpu(p.gpus[i]).instances[*claims[i].instance].instance);
  }
  for (NodeId n : p.nodes) {
    cluster_.reindex(n);
    if (std::find(f.placement.nodes.begin(), f.placement.nodes.end(), n) == f.placement.nodes.end())
      f.placement.nodes.push_back(n);
  }
  // With gang scheduling off, placed workers hold their GPUs until the last one is placed.
  if (static_cast<int32_t>(f.claims.size()) == j.request.gpus) started(id);
}

void Engine::started(JobId id) {
  JobRecord& r = records_[id];
  JobFlight& f = flights_[r];
  life_.start(id);
  r.start = now_;
  if (r.attempt == 0) r.first_start = now_;
  f.since = now_;
  ledger_.start_busy(f, job(id).kind, now_);
  const Placement full = f.placement;  // refresh_rates reads the in-flight placement
  f.rate = 0;
  ++r.attempt;
  attempts_.begin(id);
  notify([&](Observer& o) { o.job_started(*this, id); });
  if (full.gpus.empty()) {
    f.compute_rate = f.sharing_rate = 1.0;
    f.rate = r.phase == JobPhase::computing ? 1.0 : 0.0;
    schedule_completion(id);
    return;
  }
  f.intra = r.link = ring_link(cluster_, full);
  f.reference = ring_link(cluster_, full, true);
  if (full.nodes.size() > 1 && world_.jobs[id].comm && !cluster_.one_nvlink_domain(full.nodes)) {
    rates_.network.join(id);
    rates_.network_changed = true;
  }
  refresh_rates(full.gpus);
  if (Module* m = owner(id)) m->placed(id, now_);
  // MPS clients may fault (fault injection); the fault takes down every client of the GPU. Memory of
  // time-sliced GPUs is checked once the pass has started everything (check_memory).
  if (const auto fault = faults_.started(cluster_, cluster_.pool_of(full.nodes.front()), full.gpus, model().mps))
    events_.push(now_ + *fault, EventKind::fault, id, r.attempt);
}

void Engine::check_memory() {
  std::vector<GpuId>& gpus = faults_.to_check();  // sorted once; killing starts nothing, so it stays as it is
  for (GpuId g : gpus)
    // No memory isolation: when the residents together outgrow the GPU, all of them die.
    if (GpuFaults::out_of_memory(cluster_, g)) {
      ++counts_.oom_events;
      kill_all(g, "out of memory on a time-sliced GPU");
    }
  gpus.clear();
}

void Engine::reconfigure(GpuId g, const MigLayout& layout) {
  if (!cluster_.has_gpu(g)) throw PolicyError(fmt::format("policy {} reconfigured unknown GPU {}", scheduler_.name(), g));
  MigLayout checked;
  if (const auto why = layout_error(cluster_, g, layout, checked))
    throw PolicyError(fmt::format("policy {} made an invalid decision at t={}s: reconfigure GPU {} of node {}: {}",
                                  scheduler_.name(), format_seconds(now_), g, cluster_.node(cluster_.gpu(g).node).name, *why));
  cluster_.start_layout(g, checked);
  cluster_.reindex(cluster_.gpu(g).node);
  ++counts_.reconfigurations;
  notify([&](Observer& o) { o.mig_reconfigured(*this, g); });
  const bool amd = cluster_.pool_of(cluster_.gpu(g).node).gpu->partitions.has_value();
  events_.push(now_ + (amd ? model().mig.partition_reconfiguration_delay : model().mig.reconfiguration_delay),
               EventKind::layout_ready, g, 0);
}

void Engine::stop(JobId id, StopCause cause) {
  JobRecord& r = records_[id];
  const Job& j = job(id);
  settle(id);
  if (Module* m = owner(id)) m->stopping(id, now_);
  notify([&](Observer& o) { o.job_stopping(*this, id, cause); });
  JobFlight& f = flights_[r];
  r.attained_gpu += GpuTime::of(now_ - r.start, static_cast<double>(f.placement.gpus.size()));
  ledger_.released(id, r, f, now_);
  for (std::size_t i = 0; i < f.placement.gpus.size(); ++i) {
    const GpuId g = f.placement.gpus[i];
    const GpuClaim& held = f.claims[i];
    cluster_.detach(g, id, held);
    if (budgets_.any()) {
      const PoolId pool = pool_of(cluster_, f, g);
      budgets_.hold(pool, -power_claim_mw(id, pool));
    }
    metrics_.add_allocation(pool_of(cluster_, f, g), j.tenant, -held.milli.value);
  }
  for (NodeId n : f.placement.nodes) {
    const int64_t pods = j.request.pods_on_node(std::popcount(cluster_.gpu_mask(n, f.placement.gpus)));
    cluster_.release(n, pods * j.request.cpu_milli, pods * j.request.memory_mib);
    cluster_.reindex(n);
    nodes_.job_left(n, id);
  }
  f.claims = {};  // its memory too: a million finished jobs hold none
  f.held_gpus = 0;
  ++r.generation;  // drops its pending completion
  attempts_.stopped(id);
  capacity_grew_ = true;
  if (rates_.network.leave(id)) rates_.network_changed = true;
  refresh_rates(f.placement.gpus);
  r.end = now_;
}

void Engine::complete(JobId id) {
  ++counts_.events;
  stop(id, StopCause::completed);
  life_.complete(id);
  flights_.release(records_[id]);
}

void Engine::kill_all(GpuId g, std::string_view cause) {
  const auto victims = cluster_.gpu(g).residents;  // a copy: stop() edits the list
  const RestartModel& policy = model().restart;
  for (JobId id : victims) {
    JobRecord& r = records_[id];
    stop(id, StopCause::killed);
    ++r.kills;
    attempts_.rollback(id);  // to its last checkpoint, or the beginning
    if (!policy.requeue || r.kills > static_cast<uint32_t>(policy.max_restarts)) {
      reasons_.add(id, policy.requeue ? fmt::format("killed by {}, past its {} restarts (model.restart.max_restarts)", cause,
                                                    policy.max_restarts)
                                      : fmt::format("killed by {} (model.restart.policy: fail)", cause));
      life_.fail(id);
      flights_.release(r);
      continue;
    }
    life_.back_off(id);  // waiting out its back-off
    if (Module* m = owner(id); m && m->leaving(id) == Departure::parked) {
      // Its pod was deleted: no restart, and its module may use its place for another.
      give_back(id, true);
      m->parked(id, now_);
      continue;
    }
    Duration backoff = policy.backoff;
    for (uint32_t k = 1; k < r.kills && backoff < policy.backoff_max; ++k) backoff = backoff + backoff;
    events_.push(now_ + std::min(backoff, policy.backoff_max), EventKind::requeue, id, r.kills);
  }
}

void Engine::leave(JobId id) {
  JobRecord& r = records_[id];
  Module* m = owner(id);
  const bool parked = m && m->leaving(id) == Departure::parked;
  if (!r.terminating) ++r.evictions;  // else counted as a preemption when it was told to go
  stop(id, parked ? StopCause::scaled_down : StopCause::evicted);
  attempts_.rollback(id);
  if (parked) {
    // Its pod is gone: it waits until its module creates one again.
    give_back(id, true);
    life_.back_off(id);
    m->parked(id, now_);
    return;
  }
  if (taken_back(id)) {
    give_back(id, false);  // its pods are deleted; they count again when it is re-admitted
    life_.requeue(id);     // the admission that evicted it holds it again
    return;
  }
  life_.enqueue(id, now_);  // the job controller recreates the pod at once
}

void Engine::suspended(JobId id) {
  stop(id, StopCause::suspended);
  attempts_.rollback(id);  // to what it saved: nothing is lost
  life_.enqueue(id, now_);
}

void Engine::evict(JobId id, Duration grace, JobId by, std::string_view reason) {
  JobRecord& r = records_[id];
  if (!preemptible(id)) reject(id, "evict: the job is not running (or is already leaving)");
  ++r.preemptions;
  notify([&](Observer& o) { o.job_preempted(*this, id); });
  notify([&](Observer& o) { o.job_evicted(*this, id, by, reason); });
  attempts_.terminate(id);
  life_.note_running_change(id);
  if (grace <= Duration()) {
    leave(id);
    return;
  }
  // As at a spot notice: a checkpoint that ends in time is written, and the job leaves when it is.
  notice(id, now_ + grace);
  if (r.status == JobStatus::running) events_.push(now_ + grace, EventKind::terminate, id, r.attempt);
}

void Engine::preempt(JobId id) {
  if (!preemptible(id)) reject(id, "preempt: the job is not running (or is already leaving)");
  ++records_[id].preemptions;
  notify([&](Observer& o) { o.job_preempted(*this, id); });
  life_.note_running_change(id);
  attempts_.preempt(id);
}

void Engine::notice(JobId id, Time gone) {
  const JobRecord& r = records_[id];
  if (r.status != JobStatus::running || r.evicting) return;
  if (Module* m = owner(id); m && m->notice(id, now_)) return;
  attempts_.notice(id, gone);
  life_.note_running_change(id);
}

void Engine::terminating(JobId id, std::optional<Time> leave_at) {
  attempts_.terminate(id);
  life_.note_running_change(id);
  if (leave_at) events_.push(*leave_at, EventKind::terminate, id, records_[id].attempt);
}

void Engine::phase_changed(JobId id, JobPhase from) {
  refresh_rates(flights_[records_[id]].placement.gpus);
  notify([&](Observer& o) { o.job_phase(*this, id, from); });
}

// --- rates --------------------------------------------------------------------------------------

void Engine::settle(JobId id) {
  JobRecord& r = records_[id];
  JobFlight& f = flights_[r];
  if (f.rate > 0) {  // goodput's integrals, over the same stretch at the same rate
    const GpuTime computing = GpuTime::of(now_ - f.since, f.held_gpus);
    r.computing_gpu += computing;
    r.comm_stall_gpu += computing * f.stall_fraction;
  }
  r.remaining = remaining_now(r);
  f.since = now_;
  const double busy = active_u(id) * f.sharing_rate;
  ledger_.settle_busy(id, r, f, job(id).kind, busy, energy_share(id, busy), now_);
  life_.note_running_change(id);  // its rate may change now
}

double Engine::energy_share(JobId id, double busy) const {
  const Module* m = owner(id);
  if (!m || busy == 0) return busy;
  const std::optional<BoundMix> mix = m->power_mix(id);
  if (!mix) return busy;
  const JobFlight& f = flights_[records_[id]];
  const PoolPower& pp = metrics_.pool_power(pool_of(cluster_, f, f.placement.gpus.front()));
  const double kind_w = pp.demand_w[static_cast<std::size_t>(job(id).kind)];
  return kind_w > 0 ? busy * demand_above_idle_w(pp.gpu, *mix) / kind_w : busy;
}

void Engine::settle_energy(JobId id) {
  JobRecord& r = records_[id];
  JobFlight& f = flights_[r];
  const double busy = active_u(id) * f.sharing_rate;
  ledger_.settle_energy(id, r, f, job(id).kind, busy, energy_share(id, busy), now_);
}

void Engine::schedule_completion(JobId id) {
  JobRecord& r = records_[id];
  const JobFlight& f = flights_[r];
  ++r.generation;
  if (f.rate <= 0) return;  // paused: the completion is scheduled again when it computes
  if (owner(id)) return;    // a module's job runs until it is stopped
  const double us = std::ceil(r.remaining.us() / f.rate);
  // A rate the inputs make tiny (collectives far longer than the computation) must not wrap the clock.
  if (static_cast<double>(now_.us()) + us >= static_cast<double>(Time::max().us()))
    throw InputError(scenario().jobs.where(job(id)),
                     fmt::format("at {:g} of its ideal speed the job would run {:g} s more, past the clock's range (292,000 "
                                 "years): check its communication (bytes_per_iteration, compute_per_iteration)",
                                 f.rate, us / 1e6));
  events_.push(now_ + Duration::from_us(static_cast<int64_t>(us)), EventKind::completion, id, r.generation);
}

void Engine::share_network() {
  if (!rates_.network_changed) return;
  rates_.network_changed = false;
  refresh_rates({}, true);
}

void Engine::refresh_rates(const std::vector<GpuId>& changed, bool network) {
  std::vector<JobId>& touched = rates_.touched;
  touched.clear();
  if (network) rates_.network.share(cluster_, records_, flights_, touched);
  std::vector<double>& u = rates_.u;
  for (GpuId g : changed) {
    u.clear();
    // A partly placed job (gang scheduling off) holds the GPU but computes nothing yet; nor does a
    // job writing or restoring a checkpoint.
    for (JobId j : cluster_.gpu(g).residents) {
      u.push_back(active_u(j));
      touched.push_back(j);
    }
    rates_.share_gpu(cluster_, g, model(), jobs_, u);
  }
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  std::vector<GpuId>& busy_changed = rates_.busy_changed;
  busy_changed.assign(changed.begin(), changed.end());
  for (JobId j : touched) {
    JobRecord& r = records_[j];
    if (r.status != JobStatus::running) continue;
    JobFlight& f = flights_[r];
    const double sharing = rates_.job_rate(cluster_, f.placement.gpus, j);
    const ResolvedJob settings = world_.jobs[j];  // worked out from the Job: once
    const PoolId pool = cluster_.node(cluster_.gpu(f.placement.gpus.front()).node).pool;
    double rate = sharing * world_.jobs.speed(j, pool);
    // Under a power limit, work the cap holds back runs slower (its own demand: limit_speed).
    if (const PoolPower& pp = metrics_.pool_power(pool); pp.unlimited) {
      BoundMix demand = model().power.bound_by[static_cast<std::size_t>(job(j).kind)];
      for (double& x : demand) x *= job(j).u;
      rate *= limit_speed(*pp.unlimited, pp.gpu, demand);
    }
    double stall = 0;
    if (const CommProfile* c = settings.comm) {
      const int ranks = static_cast<int>(f.placement.gpus.size());
      const double collective_s = collective_time_s(*c, ranks, r.link.gb_per_s);
      stall = collective_stall_fraction(rate, *c, collective_s);
      rate = communication_rate(rate, *c, collective_s,
                                c->work_is_compute ? 0.0 : collective_time_s(*c, ranks, f.reference.gb_per_s));
    }
    f.compute_rate = rate;
    if (r.phase != JobPhase::computing) rate = 0;
    // The stall fraction changes with the rate; when the rate stays (to the last bit) the fraction
    // it had is kept, so that goodput's integrals need no settle the rate itself does not need.
    if (rate == f.rate && sharing == f.sharing_rate) continue;
    const bool started = f.rate > 0;
    settle(j);
    f.rate = rate;
    f.sharing_rate = sharing;
    f.stall_fraction = stall;
    if (started) ++counts_.rate_changes;
    schedule_completion(j);
    busy_changed.insert(busy_changed.end(), f.placement.gpus.begin(), f.placement.gpus.end());
  }
  std::sort(busy_changed.begin(), busy_changed.end());
  busy_changed.erase(std::unique(busy_changed.begin(), busy_changed.end()), busy_changed.end());
  for (JobId j : touched)
    if (Module* m = owner(j); m && records_[j].status == JobStatus::running) m->share_changed(j, now_);
  for (GpuId g : busy_changed) refresh_draw(g);
}

void Engine::refresh_draw(GpuId g) {
  const Gpu& gpu = cluster_.gpu(g);
  double busy = 0;
  BoundMix mix{};  // what the residents' busy shares are bound by (the power model)
  for (JobId j : gpu.residents) {
    const double share = active_u(j) * flights_[records_[j]].sharing_rate;
    busy += share;
    const BoundMix m = power_mix(j);
    for (std::size_t b = 0; b < mix.size(); ++b) mix[b] += share * m[b];
  }
  busy = std::clamp(busy, 0.0, 1.0);
  metrics_.add_busy(cluster_.node(gpu.node).pool, g, busy - gpu.busy, now_);
  metrics_.set_draw(g, mix, busy, now_);
  cluster_.set_busy(g, busy);
  notify([&](Observer& o) { o.gpu_busy_changed(*this, g); });
}

}  // namespace gpusim
