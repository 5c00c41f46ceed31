#pragma once
// The kernel's one class (private to sim/): the clock and the event queue, the loop over kernel
// events and modules' times, the Binder through which every placement passes, job lifecycle
// transitions, and calls to observers, admissions and modules at fixed points. Its definitions are
// in engine.cpp (the loop, arrivals, admission, events, the end), engine_queries.cpp (what policies
// and observers read) and engine_binder.cpp (what a placement, a stop and a rate change apply).
#include <algorithm>
#include <memory>
#include <set>

#include "gpusim/core/error.hpp"
#include "gpusim/sim/attempts.hpp"
#include "gpusim/sim/cost_ledger.hpp"
#include "gpusim/sim/engine.hpp"
#include "gpusim/sim/event_queue.hpp"
#include "gpusim/sim/gpu_faults.hpp"
#include "gpusim/sim/job_lifecycle.hpp"
#include "gpusim/sim/rates.hpp"

namespace gpusim {

// The observers of one run: the caller's, then the audit; and the caller's progress bar.
struct RunObservers {
  std::function<void(double)> progress;
  std::vector<Observer*> all;
  std::vector<Observer*> every_event;  // those that asked to see each event
  std::unique_ptr<Observer> audit;
};

// How often things happened, for the result.
struct RunCounts {
  uint64_t iterations = 0, events = 0, decision_points = 0;
  uint64_t oom_events = 0, mps_faults = 0, reconfigurations = 0, rate_changes = 0;
};

class Engine final : public RunState, public Binder, private NodeLifecycle::Host, private ModuleHost, private Attempts::Host {
 public:
  Engine(const World& w, Cluster cluster, Scheduler& scheduler, const RunOptions& options, const RunExtensions& extensions);
  KernelResult run();

  // RunState
  const Scenario& scenario() const override { return world_.scenario; }
  const JobRecord& record(JobId id) const override { return records_[id]; }
  const std::vector<GpuClaim>& claims(JobId id) const override { return flights_[records_[id]].claims; }
  PlacementView last_placement(JobId id) const override { return flights_.placement(records_[id]); }
  const Metrics& metrics() const override { return metrics_; }
  double busy_share(JobId id) const override;
  double switching(GpuId g) const override { return rates_.switching(g); }
  const std::vector<Admission*>& admissions() const override { return ext_.admissions; }
  const PowerBudgets& power_budgets() const override { return budgets_; }
  BoundMix power_mix(JobId id) const override {
    if (const Module* m = owner(id))
      if (auto mix = m->power_mix(id)) return *mix;
    return model().power.bound_by[static_cast<std::size_t>(job(id).kind)];
  }
  // ClusterView
  Time now() const override { return now_; }
  const Cluster& cluster() const override { return cluster_; }
  const Job& job(JobId id) const override { return jobs_[id]; }
  const ExecutionModel& model() const override { return world_.scenario.model; }
  const SchedulingOptions& scheduling() const override { return world_.scenario.scheduling; }
  // Here, not in engine_queries.cpp, so that fits_in_bucket's hot loop inlines it (callgrind: 4.5 % more
  // instructions in openb best-fit's simulate() when it was a call).
  int32_t gpus_to_place(JobId id) const override {
    const Request& q = job(id).request;
    const int32_t left = q.gpus - static_cast<int32_t>(flights_[records_[id]].claims.size());
    return !scheduling().gang && q.worker_gpus > 0 ? std::min(left, q.worker_gpus) : left;
  }
  void for_each_running(const std::function<void(JobId, Time)>& visit) const override;
  const ChunkedSet<JobId>& running_jobs() const override { return life_.running(); }
  const std::vector<JobId>& running_changes() const override { return life_.running_changes(); }
  void for_each_pending(const std::function<bool(JobId)>& visit) const override { life_.for_each_pending(visit); }
  void for_each_pending_by_shape(const std::function<PendingVisit(JobId)>& visit) const override {
    life_.for_each_pending_by_shape(visit);
  }
  const std::vector<JobId>& new_arrivals() const override { return life_.arrivals(); }
  bool is_pending(JobId id) const override { return records_[id].status == JobStatus::pending; }
  const Placement& placement(JobId id) const override;
  Time pending_since(JobId id) const override { return records_[id].queued_at; }
  Duration waited(JobId id) const override;
  std::optional<Duration> deadline(JobId id) const override { return world_.scenario.jobs.deadline(job(id)); }
  const CheckpointPolicy& checkpoint(JobId id) const override { return *world_.jobs[id].checkpoint; }
  bool capacity_grew() const override { return capacity_grew_; }
  uint32_t shape(JobId id) const override { return shapes_.of(id); }
  uint32_t shape_count() const override { return shapes_.count(); }
  uint32_t pending_shapes() const override { return life_.pending_shapes(); }
  bool pool_allowed(JobId id, PoolId pool) const override {
    if (!(shapes_.get(shapes_.of(id)).pool_mask >> pool & 1)) return false;
    if (budgets_.any()) [[unlikely]]
      return power_fits(id, pool);
    return true;
  }
  const std::vector<PoolPreference>& preferences(JobId id) const override { return shapes_.of_job(id).preferences; }
  GpuDemand gpu_demand(JobId id, PoolId pool) const override { return demand_on(job(id).request, cluster_.pool(pool)); }
  bool gpu_fits(JobId id, GpuId g) const override;
  bool fits_in_bucket(JobId id, BucketId b) const override;
  int32_t count_fitting_gpus(JobId id, NodeId n, int32_t limit) const override;
  void fitting_instances(JobId id, GpuId g, std::vector<MigSlotIndex>& out) const override;
  bool node_admits(JobId id, NodeId n) const override;
  GpuTime attained_gpu(JobId id) const override;
  GpuTime attained_gpu_before(JobId id) const override { return records_[id].attained_gpu; }
  Work remaining_work(JobId id) const override;
  double progress_rate(JobId id) const override {
    return records_[id].status == JobStatus::running ? std::as_const(flights_)[records_[id]].rate : 0.0;
  }
  Time start_time(JobId id) const override { return records_[id].start; }
  bool preemptible(JobId id) const override {
    return records_[id].status == JobStatus::running && !records_[id].evicting && !records_[id].terminating;
  }

  // Binder
  void bind(JobId id, const Placement& placement) override;
  void preempt(JobId id) override;
  void evict(JobId id, Duration grace, JobId by, std::string_view reason) override;
  void reconfigure(GpuId gpu, const MigLayout& layout) override;
  void recheck_at(Time t) override {
    if (t > now_ && rechecks_.insert(t).second) events_.push(t, EventKind::decide, 0, 0);
  }

 private:
  // --- the loop (engine.cpp) ---
  // The time of the next arrival, event or module's due time (none once the run is over), the jobs
  // arriving now, one event, and the decision point after everything at this time.
  std::optional<Time> next_time() const;
  // Lets the module apply the instants of its own that leave the kernel as it was (Module::run_ahead).
  void run_ahead();
  // Counts `n` instants for the progress bar.
  void count_instants(uint64_t n = 1);
  // Whether the next job to arrive arrives now (most instants of a serving run, its replicas' steps, are
  // not an arrival: the loop asks this before calling arrive_due).
  bool arrival_now() const { return next_arrival_ < jobs_.size() && jobs_[next_arrival_].arrival == now_; }
  bool arrive_due();
  void apply(const Event& e);
  void decision_point(bool arrived);
  // Whether a decision point with no arrival at its instant has nothing to do: no arrival waits for a pass,
  // capacity and the network are as the last one left them, and no admission retries at every instant.
  bool nothing_to_decide() const {
    return life_.arrivals().empty() && !capacity_grew_ && !rates_.network_changed && ext_.admissions.empty();
  }
  // Starts the pending jobs bound to a node that fit there now, on its first fitting GPUs (and
  // smallest fitting MIG instances), before the scheduler's pass: a pod with spec.nodeName is never
  // the scheduler's, its node's kubelet admits it.
  void start_bound_jobs();
  void scale_up();  // asks the node lifecycle for the nodes the pending jobs would use
  KernelResult finish();
  void finish_costs();
  // Moves the metrics to t (before anything happens at t) and shows observers the samples taken.
  void advance_metrics(Time t);
  template <typename F>
  void notify(F&& call) {
    for (Observer* o : observers_.all) call(*o);
  }
  // Hands observers that audit the run each event applied.
  void applied(std::string_view what, uint32_t target) {
    for (Observer* o : observers_.every_event) o->event_applied(*this, what, target);
  }
  // The module that owns the job, or null.
  Module* owner(JobId id) const {
    for (Module* m : ext_.modules)
      if (m->owns(id)) return m;
    return nullptr;
  }

  // --- admission (engine.cpp) ---
  void arrive(JobId id) override;
  // The job's pods are created and the admissions check them: nullopt when one rejects it for good,
  // else the cause of its entering the queue (kAdmitted when an admission checked them).
  std::optional<std::string_view> pods_created(JobId id);
  // The admissions' cycles at a decision point: admitted jobs enter the scheduler's queue, victims are evicted.
  void admission_cycles();
  // The one place what admission charged a job is given back: its pods are gone, `for_good` or until it is admitted again.
  void give_back(JobId id, bool for_good);
  // Does an admission take the job that left back (it evicted it)?
  bool taken_back(JobId id);
  // JobLifecycle's hook: observers, modules and admission follow each status change.
  void transition(JobId id, JobStatus from, JobStatus to, std::string_view cause);

  // --- placements and stops (engine_binder.cpp) ---
  [[noreturn]] void reject(JobId id, const std::string& why) const;
  // What job `id` would hold on GPU `g` (on `instance` of a MIG GPU), or nullopt if it does not fit.
  std::optional<GpuClaim> claim_for(JobId id, GpuId g, std::optional<MigSlotIndex> instance) const;
  // Can the request take the GPU (any one of its MIG slots), on a node the caller has checked?
  bool takes(const Request& q, const Pool& pool, const Gpu& gpu) const;
  // A job bound to a node (spec.nodeName) may use that node only.
  bool node_allowed(JobId id, NodeId n) const {
    const NodeId bound = world_.jobs.node(id);
    return bound == kNoNode || bound == n;
  }
  // Applies a checked placement: what it holds, and its start once its last worker is placed.
  void place(JobId id, const Placement& p, const std::vector<GpuClaim>& claims);
  // Does the rest of the job fit the room left in pool p's power budget (sim/power_budgets.hpp)? A pending
  // job that does not is counted as waiting for it.
  bool power_fits(JobId id, PoolId p) const;
  // What one of its GPUs on pool p holds of the pool's budget (its claim's share as demand_on gives it).
  int64_t power_claim_mw(JobId id, PoolId p) const {
    return budgets_.claim_mw(p, job(id).kind, demand_on(job(id).request, cluster_.pool(p)).milli);
  }
  // Why its claims on `gpus` do not fit their budgets' room; nullopt: they do.
  std::optional<std::string> power_error(JobId id, const std::vector<GpuId>& gpus) const;
  void started(JobId id);
  // Releases everything the job holds; the caller sets its new status.
  void stop(JobId id, StopCause cause);
  void complete(JobId id);
  // Kills every job on GPU g (`cause`: what killed them, for the reason of those that fail for good)
  // and applies the restart policy.
  void kill_all(GpuId g, std::string_view cause);
  // Kills the residents of time-sliced GPUs started on in this pass whose memory overflowed.
  void check_memory();
  // It leaves now, back to what it saved last (or its beginning), and queues again (or parks, or
  // waits for the admission that evicted it).
  void leave(JobId id) override;
  // Releases a suspended job's GPUs and queues it again with the progress it saved.
  void suspended(JobId id) override;
  // Recomputes the sharing rates on `changed` GPUs (and with `network`, every multi-node job's NIC
  // share) and moves the completions of jobs whose rate changed.
  void refresh_rates(const std::vector<GpuId>& changed, bool network = false);
  // GPU g's busy fraction and draw from its residents' busy shares and power mixes now.
  void refresh_draw(GpuId g);
  // What the job's busy share `busy` is charged its GPUs' energy at: busy x its power mix's demand over its
  // kind's (busy unless its module gives it a mix of its own).
  double energy_share(JobId id, double busy) const;
  // Shares the NICs once per instant, after the instant's events and decision pass, if a job
  // joined or left the network in it: sharing after each start or stop set rates that the next one
  // replaced at the same time (issue 22).
  void share_network();
  // Work left now, at the rate the job has run since its flight's `since`. (Here, as active_u, so
  // that the rate and cost code in every file of the engine inlines it.)
  Work remaining_now(const JobRecord& r) const {
    const JobFlight& f = flights_[r];
    return Work::from_us(std::max(0.0, r.remaining.us() - static_cast<double>((now_ - f.since).us()) * f.rate));
  }
  // Brings the job's remaining work and its busy cost up to now, at the rate and phase it had.
  void settle(JobId id) override;
  void schedule_completion(JobId id);
  // The SM demand the job puts on each of its GPUs now: u while it computes (a module's job: its
  // module's), nothing while it is paused or only partly placed.
  double active_u(JobId id) const {
    const JobRecord& r = records_[id];
    if (r.status != JobStatus::running || r.phase != JobPhase::computing) return 0.0;
    if (const Module* m = owner(id)) return m->demand(id);
    return job(id).u;
  }

  // NodeLifecycle::Host
  void notice(JobId id, Time gone) override;
  void node_lost(JobId id) override {
    if (records_[id].status == JobStatus::running) leave(id);
  }
  void capacity_added() override { capacity_grew_ = true; }
  bool jobs_pending() const override { return life_.any_pending(); }
  void node_changed(NodeId n, NodeState from) override {
    notify([&](Observer& o) { o.node_state(*this, n, from); });
  }
  // ModuleHost
  const RunState& state() const override { return *this; }
  const JobFlight& flight(JobId id) const override { return flights_[records_[id]]; }
  double demand(JobId id) const override { return active_u(id); }
  void demand_changed(std::vector<GpuId> gpus) override { refresh_rates(gpus); }
  void settle_energy(JobId id) override;
  void power_changed(std::vector<GpuId> gpus) override {
    for (GpuId g : gpus) refresh_draw(g);
  }
  void pod_created(JobId id) override;
  void pod_deleted(JobId id) override;
  void terminating(JobId id, std::optional<Time> leave_at) override;
  void count_event() override { ++counts_.events; }
  // Attempts::Host
  void phase_changed(JobId id, JobPhase from) override;
  double mtbf_hours(JobId id) const override;
  bool keeps_progress(JobId id) const override { return owner(id) == nullptr; }

  const World& world_;
  Scheduler& scheduler_;
  const std::vector<Job>& jobs_;  // the world's, indexed by JobId (read at every fit query)
  RunObservers observers_;
  RunExtensions ext_;
  Cluster cluster_;
  const Shapes& shapes_;  // the world's, or an admission's (with each job's shapes restricted to what it may be admitted to)
  JobLifecycle life_;
  std::vector<JobRecord>& records_;  // life_'s: every status change goes through life_
  JobFlights flights_;               // of the jobs between their first placement and their end
  SharingRates rates_;
  Metrics metrics_;
  CostLedger ledger_;
  EventQueue events_;
  Time now_;
  Attempts attempts_;
  GpuFaults faults_;
  std::set<Time> rechecks_;  // decision points asked for, not yet reached
  bool capacity_grew_ = false;
  PowerBudgets budgets_;
  NodeLifecycle nodes_;
  std::size_t next_arrival_ = 0;  // jobs are in arrival order
  RunCounts counts_;
  JobReasons reasons_;  // of the jobs that end without completing
  // By shape, then bucket: see fits_in_bucket; unused on MIG and topology-aligned pools.
  mutable std::vector<std::vector<uint32_t>> fit_cache_;
  bool fit_cache_usable_ = false;
};

}  // namespace gpusim
