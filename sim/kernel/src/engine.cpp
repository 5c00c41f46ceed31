// The kernel's loop: arrivals, admission, events, decision points and the end of a run
// (engine_impl.hpp has the class and says where the rest of it is).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <utility>

#include "engine_impl.hpp"
#include "gpusim/core/prefetch.hpp"
#include "gpusim/sim/audit.hpp"
#include "gpusim/sim/autoscaler.hpp"
#include "gpusim/sim/priority_classes.hpp"

namespace gpusim {

void JobReasons::add(JobId id, std::string why) {
  auto it = std::find(texts.begin(), texts.end(), why);
  if (it == texts.end()) it = texts.insert(texts.end(), std::move(why));
  of_job.emplace_back(id, static_cast<uint32_t>(it - texts.begin()));
}

std::string_view JobReasons::of(JobId id) const {
  const auto it = std::lower_bound(of_job.begin(), of_job.end(), std::pair{id, uint32_t{0}});
  return it != of_job.end() && it->first == id ? std::string_view(texts[it->second]) : std::string_view();
}

namespace {

const Shapes& shapes_of(const World& w, const RunExtensions& ext) {
  for (const Admission* a : ext.admissions)
    if (const Shapes* s = a->shapes()) return *s;
  return w.shapes;
}

}  // namespace

Engine::Engine(const World& w, Cluster cluster, Scheduler& scheduler, const RunOptions& options, const RunExtensions& extensions)
    : world_(w),
      scheduler_(scheduler),
      jobs_(w.scenario.jobs.jobs),
      ext_(extensions),
      cluster_(std::move(cluster)),
      shapes_(shapes_of(w, extensions)),
      life_(w.scenario.jobs.jobs.size(), shapes_),
      records_(life_.records()),
      rates_(cluster_.gpu_count()),
      metrics_(cluster_.pools().size(), w.scenario.jobs.tenants.size(), cluster_.gpu_count(), w.scenario.timeseries_step,
               w.scenario.model.low_utilization),
      ledger_(cluster_, metrics_, w.scenario.jobs.jobs.size()),
      attempts_(records_, flights_, w.scenario.jobs.jobs, w.jobs, w.scenario.model, events_, now_, *this),
      faults_(w.scenario.seed),
      budgets_(w.scenario.power_budgets, cluster_, w.scenario.model.power, w.scenario.jobs.jobs.size()),
      nodes_(w.scenario.seed, cluster_, metrics_, budgets_, events_, now_, *this) {
  std::vector<PoolPower> power;
  for (PoolId p{0}; p < cluster_.pools().size(); ++p) {
    const Pool& pool = cluster_.pool(p);
    PoolPower& pp = power.emplace_back();
    pp.host = pool.host_power;
    pp.pue = pool.pue;
    pp.has_gpus = pool.gpu != nullptr && pool.gpu_count > 0;
    pp.factors = {pool.carbon_g_per_kwh.get(), pool.electricity_usd_per_kwh.get(),
                  pool.market == Market::owned ? pool.electricity_usd_per_kwh.get() : nullptr};
    if (!pool.gpu) continue;
    pp.gpu = model().power.of(*pool.gpu, pool.power_limit_w);
    if (pool.power_limit_w) pp.unlimited = model().power.of(*pool.gpu);
    for (std::size_t k = 0; k < pp.demand_w.size(); ++k) pp.demand_w[k] = demand_above_idle_w(pp.gpu, model().power.bound_by[k]);
  }
  metrics_.set_power(std::move(power));
  observers_.progress = options.progress;
  observers_.all = options.observers;
  if (options.audit) {
    observers_.audit = make_audit();
    observers_.all.push_back(observers_.audit.get());
    cluster_.track_changes(true);
  }
  for (Observer* o : observers_.all)
    if (o->wants_every_event()) observers_.every_event.push_back(o);
  life_.watch([this](JobId id, JobStatus from, JobStatus to, std::string_view cause) { transition(id, from, to, cause); });
  if (scheduler_.watches_running()) life_.watch_running();
  const std::vector<Job>& jobs = w.scenario.jobs.jobs;
  // Most jobs end once, on one node: their placements' size in the archive.
  flights_.reserve_archive(
      jobs.size(), std::accumulate(jobs.begin(), jobs.end(), std::size_t{0},
                                   [](std::size_t n, const Job& j) { return n + static_cast<std::size_t>(j.request.gpus); }));
  fit_cache_.resize(shapes_.count());
  // A power budget's room is not in a bucket's state: with one, every fit is asked afresh.
  fit_cache_usable_ = !budgets_.any() && std::all_of(cluster_.pools().begin(), cluster_.pools().end(), [](const Pool& p) {
    return p.sharing.mode != Sharing::mig && p.topology_manager == TopologyPolicy::none;
  });
}

KernelResult Engine::run() {
  for (Module* m : ext_.modules) m->start(*this);
  nodes_.start();
  notify([&](Observer& o) { o.started(*this); });
  for (;;) {
    run_ahead();
    const std::optional<Time> t = next_time();
    if (!t) break;
    advance_metrics(*t);
    now_ = *t;
    const bool arrived = arrival_now() && arrive_due();
    while (!events_.empty() && events_.top().time == now_) {
      const Event e = events_.top();
      events_.pop();
      // The next job to end was most likely last touched hours ago: its record and job are fetched
      // while this event is applied, and its in-flight block (whose slot the record names) after it,
      // rather than each when it is needed (cache misses per job on a long run).
      const auto next_completion = [&] {
        return !events_.empty() && events_.top().kind == EventKind::completion ? JobId{events_.top().target} : kNoJob;
      };
      if (const JobId next = next_completion(); next != kNoJob) {
        prefetch(records_[next]);
        prefetch(jobs_[next]);
      }
      apply(e);
      if (const JobId next = next_completion(); next != kNoJob) prefetch(std::as_const(flights_)[records_[next]]);
      applied(to_string(e.kind), e.target);
    }
    for (Module* m : ext_.modules) m->advance(now_);
    decision_point(arrived);
    for (Module* m : ext_.modules) m->decided(now_);
    count_instants();
  }
  return finish();
}

void Engine::count_instants(uint64_t n) {
  const uint64_t before = counts_.iterations;
  counts_.iterations += n;
  if (observers_.progress && (before >> 12) != (counts_.iterations >> 12))  // every 4,096
    observers_.progress(scenario().horizon ? now_.seconds() / scenario().horizon->seconds()
                                           : static_cast<double>(next_arrival_) / static_cast<double>(jobs_.size()));
}

// An instant with nothing of the kernel's (no arrival, no event), whose module changes nothing the kernel
// sees, would find the decision point nothing to do (its early return), and the metrics nothing to
// integrate. With one module, it applies those itself (a serving run's steps: the engine's polling was a
// tenth of its time). It stops at the next time-series sample, so that the progress bar moves on a long
// stretch of them.
void Engine::run_ahead() {
  if (ext_.modules.size() != 1 || !nothing_to_decide()) return;
  Time until = std::min(scenario().horizon.value_or(Time::max()), metrics_.next_sample());
  if (next_arrival_ < jobs_.size()) until = std::min(until, jobs_[next_arrival_].arrival);
  if (!events_.empty()) until = std::min(until, events_.top().time);
  const Module::Ahead ahead = ext_.modules.front()->run_ahead(until);
  if (ahead.instants == 0) return;
  now_ = ahead.last;
  count_instants(ahead.instants);
}

std::optional<Time> Engine::next_time() const {
  const bool have_arrival = next_arrival_ < jobs_.size();
  const bool idle = !have_arrival && events_.empty();
  std::optional<Time> due;  // the modules' earliest
  for (Module* m : ext_.modules)
    if (const std::optional<Time> t = m->next_time(idle)) due = due ? std::min(*due, *t) : *t;
  if (idle && !due) return std::nullopt;
  // Without a horizon the run ends with the last job and the modules' work, whatever the market still
  // has queued; a module's jobs run until then (the modules are asked only when the run could end).
  if (!have_arrival && !scenario().horizon &&
      std::all_of(ext_.modules.begin(), ext_.modules.end(), [](const Module* m) { return m->done(); })) {
    uint32_t live = 0;  // jobs of modules that run until stopped: the run does not wait for them
    for (const Module* m : ext_.modules) live += m->live_jobs();
    if (life_.unfinished() == live) return std::nullopt;
  }
  Time t = have_arrival ? jobs_[next_arrival_].arrival : Time::max();
  if (!events_.empty()) t = std::min(t, events_.top().time);
  if (due) t = std::min(t, *due);
  if (t >= scenario().horizon.value_or(Time::max())) return std::nullopt;
  return t;
}

bool Engine::arrive_due() {
  const std::size_t before = next_arrival_;
  for (; arrival_now(); ++next_arrival_) {
    arrive(static_cast<JobId>(next_arrival_));
    applied("arrival", static_cast<uint32_t>(next_arrival_));
  }
  return next_arrival_ != before;
}

void Engine::advance_metrics(Time t) {
  const std::size_t before = metrics_.samples().size();
  metrics_.advance(t, life_.running_count(), life_.pending_count() + life_.queued_count());
  for (std::size_t i = before; i < metrics_.samples().size(); ++i)
    notify([&](Observer& o) { o.sampled(*this, metrics_.samples()[i]); });
}

// --- admission ----------------------------------------------------------------------------------

void Engine::arrive(JobId id) {
  if (Module* m = owner(id); m && !m->arrives(id)) return;
  ++counts_.events;
  if (shapes_.of_job(id).never_fits) {
    life_.unschedulable(id);
    return;
  }
  records_[id].remaining = Work::of(job(id).work, 1.0);
  for (Admission* a : ext_.admissions)
    if (a->holds(id)) {
      life_.hold(id);
      a->wait(id, now_);  // it waits in its admission's queue, suspended: no pod of it exists yet
      return;
    }
  if (const auto cause = pods_created(id)) life_.arrive(id, scheduler_.queue_key(job(id)), now_, *cause);
}

std::optional<std::string_view> Engine::pods_created(JobId id) {
  bool checked = false;
  for (Admission* a : ext_.admissions) {
    if (const auto why = a->admit(id)) {
      reasons_.add(id, std::string(*why));
      life_.reject(id, *why);
      return std::nullopt;
    }
    checked = checked || a->checks_pods();
  }
  return checked ? kAdmitted : std::string_view();
}

void Engine::pod_created(JobId id) {
  ++counts_.events;
  if (const auto cause = pods_created(id)) life_.enqueue(id, now_, *cause);
}

void Engine::pod_deleted(JobId id) {
  ++counts_.events;
  if (records_[id].status == JobStatus::pending) life_.withdraw(id);
  give_back(id, true);
}

void Engine::give_back(JobId id, bool for_good) {
  for (Admission* a : ext_.admissions) a->released(id, now_, for_good);
}

bool Engine::taken_back(JobId id) {
  for (Admission* a : ext_.admissions)
    if (a->takes_back(id, now_)) return true;
  return false;
}

void Engine::transition(JobId id, JobStatus from, JobStatus to, std::string_view cause) {
  notify([&](Observer& o) { o.job_transition(*this, id, from, to, cause); });
  const bool ended = to == JobStatus::completed || to == JobStatus::failed || to == JobStatus::rejected;
  if (!ended) return;
  if (to != JobStatus::completed)
    if (Module* m = owner(id)) m->ended(id);
  give_back(id, true);
}

void Engine::admission_cycles() {
  if (ext_.admissions.empty()) return;  // no ResourceQuota and no Kueue: nothing to cycle
  std::vector<JobId> admitted_now;
  std::vector<AdmissionEviction> evictions;
  for (Admission* a : ext_.admissions) {
    // Evictions without a grace period release quota at once: the next cycle, at this same time;
    // once they are over, their victims wait in their queues again and are tried at this time too.
    do {
      do {
        admitted_now.clear();
        evictions.clear();
        a->cycle(now_, *this, admitted_now, evictions);
        // Unsuspended, its pods are created: the admissions apply now, then it is the scheduler's.
        for (JobId id : admitted_now)
          if (pods_created(id)) life_.arrive(id, scheduler_.queue_key(job(id)), now_, kAdmitted);
        for (const AdmissionEviction& e : evictions) {
          if (records_[e.victim].status == JobStatus::running) {
            // Its pods are deleted: each terminates within its own terminationGracePeriodSeconds.
            evict(e.victim, PrioritySpec::termination_grace(scenario().jobs, job(e.victim)), e.by, e.reason);
            continue;
          }
          // Admitted but not placed yet: its pods are deleted before they run. A preemption all the
          // same, counted where evict() counts one.
          life_.take_back(e.victim);
          give_back(e.victim, false);
          ++records_[e.victim].preemptions;
          notify([&](Observer& o) { o.job_preempted(*this, e.victim); });
          notify([&](Observer& o) { o.job_evicted(*this, e.victim, e.by, e.reason); });
          taken_back(e.victim);
        }
      } while (!evictions.empty() && a->pending_work());
    } while (a->requeue_evicted(now_));
  }
}

// --- events and decision points -------------------------------------------------------------------

void Engine::apply(const Event& e) {
  const JobId id{e.target};
  switch (e.kind) {
    case EventKind::completion:
      if (e.generation == records_[id].generation && records_[id].status == JobStatus::running) complete(id);
      break;
    case EventKind::requeue:
      if (Module* m = owner(id); m && !m->restart_due(id, e.generation)) break;
      ++counts_.events;
      life_.enqueue(id, now_);
      break;
    case EventKind::fault:
      if (records_[id].status == JobStatus::running && records_[id].attempt == e.generation) {
        ++counts_.events;
        ++counts_.mps_faults;
        for (GpuId g : std::vector<GpuId>(flights_[records_[id]].placement.gpus)) kill_all(g, "an MPS client fault");
      }
      break;
    case EventKind::layout_ready:
      ++counts_.events;
      cluster_.finish_layout(GpuId{e.target});
      cluster_.reindex(cluster_.gpu(GpuId{e.target}).node);
      capacity_grew_ = true;
      break;
    case EventKind::checkpoint:
    case EventKind::phase_end:
      if (records_[id].status == JobStatus::running && records_[id].phase_generation == e.generation) {
        ++counts_.events;
        if (e.kind == EventKind::checkpoint) attempts_.checkpoint_due(id);
        else attempts_.end_phase(id);
      }
      break;
    case EventKind::node_ready:
    case EventKind::reclaim:
    case EventKind::node_gone:
    case EventKind::idle_check:
    case EventKind::market_tick: nodes_.apply(e); break;
    case EventKind::terminate:
      if (records_[id].status == JobStatus::running && records_[id].attempt == e.generation && records_[id].terminating) {
        ++counts_.events;
        leave(id);
      }
      break;
    case EventKind::decide:
      rechecks_.erase(e.time);
      capacity_grew_ = true;  // a full pass: a wait may have reached a threshold
      break;
  }
}

void Engine::decision_point(bool arrived) {
  std::vector<JobId>& arrivals = life_.arrivals();
  // Most instants of a serving run are a replica's step: nothing came, nothing was freed, nothing to decide.
  if (!arrived && nothing_to_decide()) return;
  admission_cycles();
  const std::size_t seen = arrivals.size();  // the arrivals this pass hands the scheduler
  const bool pass = (capacity_grew_ || !arrivals.empty()) && (life_.any_pending() || scheduler_.decides_when_idle());
  if (pass) {
    std::sort(arrivals.begin(), arrivals.end(),
              [&](JobId a, JobId b) { return std::pair(life_.key(a), a) < std::pair(life_.key(b), b); });
    ++counts_.decision_points;
    if (world_.bound_jobs) start_bound_jobs();
    // The running changes the pass reads are dropped after it; those it makes are the next pass's.
    std::vector<JobId>& changes = life_.running_changes();
    const std::size_t read = changes.size();
    scheduler_.decide(*this, *this);
    changes.erase(changes.begin(), changes.begin() + static_cast<std::ptrdiff_t>(read));
    life_.end_pass();
    check_memory();
    applied("decision", 0);
  }
  share_network();
  if (pass || arrived) notify([&](Observer& o) { o.decided(*this); });
  if (nodes_.any_autoscaled() && pass && life_.any_pending()) scale_up();
  // A job the pass preempted that left at once (it was still restoring) is queued again now and its
  // GPUs are free: it is new to the next pass, which comes at this same time.
  arrivals.erase(arrivals.begin(), arrivals.begin() + static_cast<std::ptrdiff_t>(seen));
  if (!arrivals.empty()) {
    rechecks_.insert(now_);
    events_.push(now_, EventKind::decide, 0, 0);
  }
  capacity_grew_ = false;
}

void Engine::start_bound_jobs() {
  std::vector<JobId> bound;
  life_.for_each_pending([&](JobId id) {
    if (world_.jobs.node(id) != kNoNode) bound.push_back(id);
    return true;
  });
  std::vector<GpuId> fitting;
  std::vector<MigSlotIndex> instances;
  for (JobId id : bound) {
    const NodeId n = world_.jobs.node(id);
    if (!fits_on_node(id, n)) continue;
    Placement p;
    p.nodes.push_back(n);
    const int32_t need = gpus_to_place(id);
    aligned_gpus(id, n, need, fitting);
    p.gpus.assign(fitting.begin(), fitting.begin() + need);
    for (std::size_t i = 0; i < p.gpus.size(); ++i) {
      if (!cluster_.gpu(p.gpus[i]).mig) continue;
      p.instances.resize(p.gpus.size());
      fitting_instances(id, p.gpus[i], instances);
      if (!instances.empty()) p.instances[i] = instances.front();  // none: a partitionable GPU, whole
    }
    bind(id, p);
  }
}

void Engine::scale_up() {
  ScaleUpPlan plan;
  std::vector<PoolId> scalable;
  for (PoolId p{0}; p < cluster_.pools().size(); ++p) {
    const Pool& pool = cluster_.pool(p);
    if (!pool.autoscale.enabled) continue;
    const NodeLifecycle::PoolState& rt = nodes_.pool(p);
    const int64_t limit = std::min<int64_t>(pool.autoscale.max_nodes, rt.cap);
    plan.add_pool(cluster_, p, rt.provisioning, static_cast<uint32_t>(std::max<int64_t>(0, limit - rt.alive)),
                  metrics_.price_per_gpu_hour_usd(p));
    if (budgets_.budget_of(p) >= 0) plan.set_power(p, budgets_.budget_of(p), budgets_.node_mw(p, pool.gpus_per_node));
    scalable.push_back(p);
  }
  if (budgets_.any()) {
    std::vector<int64_t> room;
    for (std::size_t b = 0; b < budgets_.count(); ++b) room.push_back(budgets_.room(static_cast<int>(b)));
    plan.set_budget_room(std::move(room));
  }
  Time next = Time::max();
  std::vector<PodDemand> options;
  for_each_pending([&](JobId id) {
    options.clear();
    const Request& q = job(id).request;
    for (PoolId p : scalable) {
      if (!pool_allowed(id, p) || !scheduler_.would_use(*this, id, p)) continue;
      // A pod counts once it has stayed unschedulable for the scale-up delay.
      const Time due = records_[id].queued_at + cluster_.pool(p).autoscale.scale_up_delay;
      if (due > now_) {
        next = std::min(next, due);
        continue;
      }
      options.push_back(pod_demand(q, job(id).multi_node, cluster_.pool(p), p));
      options.back().power_mw = power_claim_mw(id, p) * q.gpus;
    }
    if (!options.empty() && plan.place(options) == ScaleUp::no_power) budgets_.waited(id, options.front().pool);
    return true;
  });
  for (PoolId p : scalable)
    for (uint32_t k = plan.added(p); k > 0; --k) nodes_.request_node(p);
  if (next != Time::max()) recheck_at(next);
}

// --- the end ------------------------------------------------------------------------------------

KernelResult Engine::finish() {
  const Time end = scenario().horizon.value_or(now_);
  advance_metrics(end);
  metrics_.finish(end);
  now_ = end;
  finish_costs();
  for (PoolId p{0}; p < cluster_.pools().size(); ++p)
    if (cluster_.pool(p).market == Market::owned) metrics_.add_owned_electricity(p, ledger_.owned_idle_usd()[p]);
  uint64_t module_events = 0;
  for (const Module* m : ext_.modules) module_events += m->events();
  notify([&](Observer& o) { o.finished(*this); });

  std::map<std::string, uint64_t> reasons;
  for (JobId id{0}; id < records_.size(); ++id)
    if (records_[id].status == JobStatus::unschedulable) {
      reasons[*shapes_.of_job(id).never_fits]++;
      reasons_.add(id, *shapes_.of_job(id).never_fits);
    }
  std::sort(reasons_.of_job.begin(), reasons_.of_job.end());
  std::vector<std::pair<std::string, uint64_t>> sorted(reasons.begin(), reasons.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return KernelResult{scheduler_.name(),
                      end,
                      std::move(cluster_),
                      std::move(records_),
                      std::move(flights_),
                      std::move(metrics_),
                      std::move(sorted),
                      std::move(reasons_),
                      counts_.events + nodes_.events_applied() + module_events,
                      counts_.decision_points,
                      counts_.oom_events,
                      counts_.mps_faults,
                      counts_.reconfigurations,
                      counts_.rate_changes,
                      nodes_.take_activity(),
                      ledger_.take_job_factors(),
                      budgets_.results()};
}

void Engine::finish_costs() {
  // Jobs still holding GPUs at the end: their busy cost and held share up to the end.
  for (JobId id{0}; id < records_.size(); ++id) {
    JobRecord& r = records_[id];
    if (std::as_const(flights_)[r].claims.empty()) continue;
    if (r.status == JobStatus::running) settle(id);
    ledger_.released(id, r, flights_[r], now_);
  }
}

KernelResult run_kernel(const World& world, Cluster cluster, Scheduler& scheduler, const RunOptions& options,
                        const RunExtensions& extensions) {
  Engine engine(world, std::move(cluster), scheduler, options, extensions);
  return engine.run();
}

}  // namespace gpusim
