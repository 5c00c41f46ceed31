#include "gpusim/sim/engine.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <bit>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <utility>

#include <boost/container/small_vector.hpp>
#include <boost/math/distributions/exponential.hpp>

#include <cmath>

#include "gpusim/core/error.hpp"
#include "gpusim/core/random.hpp"
#include "gpusim/sim/audit.hpp"
#include "gpusim/sim/autoscaler.hpp"
#include "gpusim/sim/cost_ledger.hpp"
#include "gpusim/sim/event_queue.hpp"
#include "gpusim/sim/goodput.hpp"
#include "gpusim/sim/job_lifecycle.hpp"
#include "gpusim/sim/kueue.hpp"
#include "gpusim/sim/network.hpp"
#include "gpusim/sim/node_lifecycle.hpp"
#include "gpusim/sim/service_controller.hpp"
#include "gpusim/sim/serving.hpp"

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

class Engine final : public RunState, public Binder, private NodeLifecycle::Host {
 public:
  // `cluster` is the world's at time 0: a copy, or the world's own when the world is not kept.
  Engine(const World& w, Cluster cluster, Scheduler& scheduler, const RunOptions& options)
      : scenario_(w.scenario),
        jobs_(w.scenario.jobs.jobs),
        resolved_(w.jobs),
        scheduler_(scheduler),
        options_(options),
        cluster_(std::move(cluster)),
        kueue_(w.scenario.tenancy.kueue.enabled() ? std::make_unique<Kueue>(w.scenario, cluster_, w.shapes) : nullptr),
        shapes_(kueue_ ? kueue_->shapes() : w.shapes),
        life_(jobs_.size(), shapes_),
        records_(life_.records()),
        gpu_rates_(cluster_.gpu_count()),
        metrics_(cluster_.pools().size(), scenario_.jobs.tenants.size(), cluster_.gpu_count(), scenario_.timeseries_step,
                 scenario_.model.low_utilization),
        ledger_(cluster_, metrics_),
        fault_rng_(make_stream(scenario_.seed, "mps-faults")),
        horizon_(scenario_.horizon.value_or(Time::max())),
        nodes_(scenario_.seed, cluster_, metrics_, events_, now_, *this) {
    observers_ = options.observers;
    if (scenario_.tenancy.given) {
      tenants_ = std::make_unique<TenantLedger>(scenario_);
      observers_.push_back(tenants_.get());
      life_.watch([this](JobId id, JobStatus from, JobStatus to) { tenants_->status_changed(*this, id, from, to); });
    }
    if (options.audit) {
      audit_ = make_audit();
      observers_.push_back(audit_.get());
      cluster_.track_changes(true);
    }
    bound_jobs_ = w.bound_jobs;
    // Most jobs end once, on one node: their placements' size in the archive.
    flights_.reserve_archive(
        jobs_.size(), std::accumulate(jobs_.begin(), jobs_.end(), std::size_t{0},
                                      [](std::size_t n, const Job& j) { return n + static_cast<std::size_t>(j.request.gpus); }));
    fit_cache_.resize(shapes_.count());
    fit_cache_usable_ = std::all_of(cluster_.pools().begin(), cluster_.pools().end(), [](const Pool& p) {
      return p.sharing.mode != Sharing::mig && p.topology_manager == TopologyPolicy::none;
    });
    for (Observer* o : observers_)
      if (o->wants_every_event()) every_event_.push_back(o);
    if (!scenario_.tenancy.resource_quotas.empty())
      quota_.emplace(scenario_.tenancy.resource_quotas, scenario_.tenancy.priority, scenario_.jobs);
    if (!scenario_.services.empty()) {
      const bool rows = std::any_of(observers_.begin(), observers_.end(), [](const Observer* o) { return o->wants_requests(); });
      serving_ = std::make_unique<Serving>(scenario_, rows);
      replicas_ = replica_jobs(scenario_.services);
      deployments_ = std::make_unique<ServiceController>(scenario_.services);
      autoscaled_ = deployments_->any_autoscaled();
      replica_arrived_.resize(replicas_);
      // The initial pods: their slots arrive with the other jobs at the start.
      for (uint32_t s = 0; s < scenario_.services.size(); ++s) deployments_->reconcile(s, Time(), slot_fn());
      ts_origin_.resize(cluster_.gpu_count());
    }
  }

  RunResult run();
  // The loop's steps: the time of the next arrival or event (none once the run is over), the jobs
  // arriving now, one event, and the decision point after everything at this time.
  std::optional<Time> next_time() const;
  bool arrive_due();
  void apply(const Event& e);
  void decision_point(bool arrived);
  // Starts the pending jobs bound to a node that fit there now, on its first fitting GPUs (and
  // smallest fitting MIG instances), before the scheduler's pass: a pod with spec.nodeName is never
  // the scheduler's, its node's kubelet admits it.
  void start_bound_jobs();
  RunResult finish();
  // Hands observers that audit the run each event applied.
  void applied(std::string_view what, uint32_t target) {
    for (Observer* o : every_event_) o->event_applied(*this, what, target);
  }
  template <typename F>
  void notify(F&& call) {
    for (Observer* o : observers_) call(*o);
  }
  // Integrates the metrics up to t (before anything happens at t) and shows observers the samples taken.
  void advance_metrics(Time t) {
    const std::size_t before = metrics_.samples().size();
    metrics_.advance(t, life_.running_count(), life_.pending_count() + life_.queued_count());
    for (std::size_t i = before; i < metrics_.samples().size(); ++i)
      notify([&](Observer& o) { o.sampled(*this, metrics_.samples()[i]); });
  }

  // RunState
  const Scenario& scenario() const override { return scenario_; }
  const JobRecord& record(JobId id) const override { return records_[id]; }
  const std::vector<GpuClaim>& claims(JobId id) const override { return flights_[records_[id]].claims; }
  PlacementView last_placement(JobId id) const override { return flights_.placement(records_[id]); }
  const Metrics& metrics() const override { return metrics_; }
  double busy_share(JobId id) const override {
    return records_[id].status == JobStatus::running ? active_u(id) * std::as_const(flights_)[records_[id]].sharing_rate : 0.0;
  }
  const KueueState* kueue() const override { return kueue_.get(); }
  // ClusterView
  Time now() const override { return now_; }
  const Cluster& cluster() const override { return cluster_; }
  const Job& job(JobId id) const override { return jobs_[id]; }
  const ExecutionModel& model() const override { return scenario_.model; }
  const SchedulingOptions& scheduling() const override { return scenario_.scheduling; }
  int32_t gpus_to_place(JobId id) const override {
    const Request& q = jobs_[id].request;
    const int32_t left = q.gpus - static_cast<int32_t>(flights_[records_[id]].claims.size());
    return !scenario_.scheduling.gang && q.worker_gpus > 0 ? std::min(left, q.worker_gpus) : left;
  }
  void for_each_running(const std::function<void(JobId, Time)>& visit) const override {
    for (JobId id : life_.running()) {
      const JobRecord& r = records_[id];
      const JobFlight& f = flights_[r];
      // A job paused for a checkpoint or restore goes on at its computing rate once the pause ends.
      const double rate = f.rate > 0 ? f.rate : f.compute_rate;
      const Time from = f.rate > 0 ? now_ : std::max(now_, f.phase_end);
      visit(id, rate > 0 ? from + Duration::from_us(static_cast<int64_t>(std::ceil(remaining_now(r).us() / rate))) : Time::max());
    }
  }
  void for_each_pending(const std::function<bool(JobId)>& visit) const override { life_.for_each_pending(visit); }
  void for_each_pending_by_shape(const std::function<PendingVisit(JobId)>& visit) const override {
    life_.for_each_pending_by_shape(visit);
  }
  const std::vector<JobId>& new_arrivals() const override { return life_.arrivals(); }
  bool is_pending(JobId id) const override { return records_[id].status == JobStatus::pending; }
  const Placement& placement(JobId id) const override {
    static const Placement kNone;
    return records_[id].status == JobStatus::running ? std::as_const(flights_)[records_[id]].placement : kNone;
  }
  Time pending_since(JobId id) const override { return records_[id].queued_at; }
  Duration waited(JobId id) const override {
    // The time it held GPUs is its GPU time over its GPUs (JobRecord has no room for a wait counter).
    const double held_us = attained_gpu(id).us() / std::max(1, jobs_[id].request.gpus);
    return (now_ - jobs_[id].arrival) - Duration::from_us(static_cast<int64_t>(held_us));
  }
  std::optional<Duration> deadline(JobId id) const override { return scenario_.jobs.deadline(jobs_[id]); }
  const CheckpointPolicy& checkpoint(JobId id) const override { return *resolved_[id].checkpoint; }
  bool capacity_grew() const override { return capacity_grew_; }
  uint32_t shape(JobId id) const override { return shapes_.of(id); }
  uint32_t shape_count() const override { return shapes_.count(); }
  uint32_t pending_shapes() const override { return life_.pending_shapes(); }
  bool pool_allowed(JobId id, PoolId pool) const override { return shapes_.get(shapes_.of(id)).pool_mask >> pool & 1; }
  const std::vector<PoolPreference>& preferences(JobId id) const override { return shapes_.of_job(id).preferences; }
  GpuDemand gpu_demand(JobId id, PoolId pool) const override { return demand_on(jobs_[id].request, cluster_.pool(pool)); }
  bool gpu_fits(JobId id, GpuId g) const override {
    const Node& node = cluster_.node(cluster_.gpu(g).node);
    return node.ready() && pool_allowed(id, node.pool) && node_allowed(id, cluster_.gpu(g).node) &&
           takes(jobs_[id].request, cluster_.pool(node.pool), cluster_.gpu(g));
  }
  bool fits_in_bucket(JobId id, BucketId b) const override {
    const NodeBucket& bucket = cluster_.bucket(b);
    // A bucket's id and epoch name one state of free capacities (Cluster::signature), which is all
    // the fit of an unbound, not partly placed job depends on, except on MIG and topology-aligned
    // pools, whose fit also reads what the signature leaves out (reconfiguration, GPU positions).
    if (!fit_cache_usable_ || resolved_.node(id) != kNoNode || gpus_to_place(id) != jobs_[id].request.gpus ||
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
  int32_t count_fitting_gpus(JobId id, NodeId n, int32_t limit) const override {
    const Node& node = cluster_.node(n);
    if (!node.ready() || !pool_allowed(id, node.pool) || !node_allowed(id, n)) return 0;
    const Request& q = jobs_[id].request;
    const Pool& pool = cluster_.pool(node.pool);
    int32_t found = 0;
    for (GpuId g = node.first_gpu; g < node.first_gpu + node.gpu_count && found < limit; ++g)
      found += takes(q, pool, cluster_.gpu(g)) ? 1 : 0;
    return found;
  }
  void fitting_instances(JobId id, GpuId g, std::vector<MigSlotIndex>& out) const override {
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
  bool node_admits(JobId id, NodeId n) const override {
    const Node& node = cluster_.node(n);
    const Request& q = jobs_[id].request;
    return node.ready() && pool_allowed(id, node.pool) && node_allowed(id, n) && pods_fit(per_pod(q), 1, free_resources(node));
  }
  // A job bound to a node (spec.nodeName) may use that node only.
  bool node_allowed(JobId id, NodeId n) const {
    const NodeId bound = resolved_.node(id);
    return bound == kNoNode || bound == n;
  }

  GpuTime attained_gpu(JobId id) const override {
    const JobRecord& r = records_[id];
    GpuTime t = r.attained_gpu;
    if (r.status == JobStatus::running) t += GpuTime::of(now_ - r.start, static_cast<double>(flights_[r].placement.gpus.size()));
    return t;
  }
  Work remaining_work(JobId id) const override {
    const JobRecord& r = records_[id];
    return r.status == JobStatus::running ? remaining_now(r) : r.remaining;
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
  [[noreturn]] void reject(JobId id, const std::string& why) const {
    throw PolicyError(fmt::format("policy {} made an invalid decision at t={}s: job {} ({}): {}", scheduler_.name(),
                                  format_seconds(now_), jobs_[id].name, id, why));
  }
  // Can the request take the GPU (any one of its MIG slots), on a node the caller has checked?
  bool takes(const Request& q, const Pool& pool, const Gpu& gpu) const {
    if (gpu.reconfiguring) return false;
    const TimeSlicingModel& ts = scenario_.model.time_slicing;
    if (fits_on(q, pool, gpu, std::nullopt, ts)) return true;  // not MIG, or a partitionable GPU whole
    for (std::size_t i = 0; i < gpu.instances.size(); ++i)
      if (fits_on(q, pool, gpu, static_cast<MigSlotIndex>(i), ts)) return true;
    return false;
  }
  int32_t gpus_on(const Placement& p, NodeId n) const { return std::popcount(cluster_.gpu_mask(n, p.gpus)); }
  // What job `id` would hold on GPU `g` (on `instance` of a MIG GPU), or nullopt if it does not fit.
  std::optional<GpuClaim> claim_for(JobId id, GpuId g, std::optional<MigSlotIndex> instance) const;
  void arrive(JobId id);
  // The job's pods are created: namespace ResourceQuota admission; false when it is rejected for good.
  bool pods_created(JobId id);
  // Kueue's cycles at a decision point: admitted jobs enter the scheduler's queue, victims are evicted.
  void admit_kueue();
  // Releases everything the job holds; the caller sets its new status.
  void stop(JobId id, StopCause cause);
  void complete(JobId id);
  // Kills every job on GPU g (out-of-memory blast radius, MPS fault) and applies the restart policy.
  // Kills every job on GPU g (`cause`: what killed them, for the reason of those that fail for good).
  void kill_all(GpuId g, std::string_view cause);
  // Kills the residents of time-sliced GPUs started on in this pass whose memory overflowed.
  void check_memory();
  // Recomputes the sharing rates on `changed` GPUs (and with `network`, every multi-node job's NIC
  // share) and moves the completions of jobs whose rate changed.
  void refresh_rates(const std::vector<GpuId>& changed, bool network = false);
  // Shares the NICs once per instant, after the instant's events and decision pass, if a job
  // joined or left the network in it: sharing after each start or stop set rates that the next one
  // replaced at the same time (issue 22).
  void share_network();
  double job_sharing_rate(JobId id) const;
  // Work left now, at the rate the job has run since its flight's `since`.
  Work remaining_now(const JobRecord& r) const {
    const JobFlight& f = flights_[r];
    return Work::from_us(std::max(0.0, r.remaining.us() - static_cast<double>((now_ - f.since).us()) * f.rate));
  }
  // Brings the job's remaining work and its busy cost up to now, at the rate and phase it had.
  void settle(JobId id) {
    JobRecord& r = records_[id];
    JobFlight& f = flights_[r];
    if (f.rate > 0) {  // goodput's integrals, over the same stretch at the same rate
      double held = 0;
      for (const GpuClaim& c : f.claims) held += c.milli.gpus();
      const GpuTime computing = GpuTime::of(now_ - f.since, held);
      r.computing_gpu += computing;
      r.comm_stall_gpu += computing * f.stall_fraction;
    }
    r.remaining = remaining_now(r);
    f.since = now_;
    ledger_.settle_busy(r, f, active_u(id) * f.sharing_rate, now_);
  }
  // The goodput the job has so far: computing, less collectives and work already thrown away.
  static GpuTime kept_gpu(const JobRecord& r) { return goodput({r.computing_gpu, r.comm_stall_gpu, r.rerun_gpu}); }
  void schedule_completion(JobId id) {
    JobRecord& r = records_[id];
    const JobFlight& f = flights_[r];
    ++r.generation;
    if (f.rate <= 0) return;     // paused: the completion is scheduled again when it computes
    if (is_replica(id)) return;  // it serves until it is stopped
    const double us = std::ceil(r.remaining.us() / f.rate);
    // A rate the inputs make tiny (collectives far longer than the computation) must not wrap the clock.
    if (static_cast<double>(now_.us()) + us >= static_cast<double>(Time::max().us()))
      throw InputError(scenario_.jobs.where(jobs_[id]),
                       fmt::format("at {:g} of its ideal speed the job would run {:g} s more, past the clock's range (292,000 "
                                   "years): check its communication (bytes_per_iteration, compute_per_iteration)",
                                   f.rate, us / 1e6));
    events_.push(now_ + Duration::from_us(static_cast<int64_t>(us)), EventKind::completion, id, r.generation);
  }
  // The SM demand the job puts on each of its GPUs now: u while it computes, nothing while it is
  // paused or only partly placed.
  double active_u(JobId id) const {
    const JobRecord& r = records_[id];
    if (r.status != JobStatus::running || r.phase != JobPhase::computing) return 0.0;
    if (is_replica(id)) return serving_->busy(id) ? 1.0 : 0.0;  // a replica keeps its GPU busy while it has requests
    return jobs_[id].u;
  }
  bool is_replica(JobId id) const { return id < replicas_; }

  // --- inference services ---
  // What the replica has of its GPUs now (MIG slice, MPS shares, its turn on a time-sliced GPU).
  ReplicaShare replica_share(JobId id) const;
  ReplicaDevice replica_device(JobId id) const;
  // Serves what is due now, then applies the replicas' busy changes to their GPUs' sharing.
  void serve();
  // Where a replica slot's pod is.
  SlotState slot_state(JobId id) const;
  std::function<SlotState(JobId)> slot_fn() const {
    return [this](JobId id) { return slot_state(id); };
  }
  // Runs the pod autoscalers due now and lets the services' Deployments create and delete pods.
  void autoscale();
  void reconcile(uint32_t service);
  void create_pod(JobId id);
  void delete_pod(JobId id);

  // --- checkpointing (issue 5) ---
  // Starts an attempt: a restore first when it resumes from a checkpoint, else its checkpoint clock.
  void begin_attempt(JobId id);
  // Arms the job's next checkpoint after its interval of computing (fixed, or Young/Daly's).
  void schedule_checkpoint(JobId id);
  void start_checkpoint(JobId id, Duration cost);
  void end_phase(JobId id);
  // Releases a suspended job's GPUs and queues it again with the progress it saved.
  void suspended(JobId id);
  void change_phase(JobId id, JobPhase phase);
  // Hours between interruptions of the nodes the job runs on (infinite on nodes that are never reclaimed).
  double mtbf_hours(const JobRecord& r) const;
  // Throws away the progress since the job's last durable checkpoint.
  void rollback(JobId id);
  // Stops the job, rolls it back to its checkpoint and queues it again (spot reclaim).
  // It leaves now, back to what it saved last (or its beginning), and queues again.
  void leave(JobId id);
  // The node the job runs on will be gone at `gone`: write a checkpoint and leave if there is time.
  void notice(JobId id, Time gone) override;

  void scale_up();  // asks the node lifecycle for the nodes the pending jobs would use

  // NodeLifecycle::Host
  void node_lost(JobId id) override {
    if (records_[id].status == JobStatus::running) leave(id);
  }
  void capacity_added() override { capacity_grew_ = true; }
  bool jobs_pending() const override { return life_.any_pending(); }
  void node_changed(NodeId n, NodeState from) override {
    notify([&](Observer& o) { o.node_state(*this, n, from); });
  }
  void finish_costs();

  const Scenario& scenario_;
  const std::vector<Job>& jobs_;
  const ResolvedJobs& resolved_;
  Scheduler& scheduler_;
  const RunOptions& options_;
  std::unique_ptr<Observer> audit_;
  std::unique_ptr<TenantLedger> tenants_;  // when the scenario has a tenancy: block
  std::vector<Observer*> observers_;       // the caller's, then the audit
  std::vector<Observer*> every_event_;     // those that asked to see each event
  Cluster cluster_;
  std::unique_ptr<Kueue> kueue_;  // admission in front of the scheduler; null without tenancy.kueue
  const Shapes& shapes_;          // the world's, or Kueue's (with each job's flavor-restricted shapes)
  JobLifecycle life_;
  std::optional<QuotaAdmission> quota_;  // when the scenario has tenancy.resource_quotas
  std::vector<JobRecord>& records_;      // life_'s: every status change goes through life_
  JobFlights flights_;                   // of the jobs between their first placement and their end
  NetworkSharing network_;
  bool network_changed_ = false;                                      // a job joined or left network_ in this instant
  PagedVector<boost::container::small_vector<double, 4>> gpu_rates_;  // per GPU, parallel to residents
  std::set<Time> rechecks_;      // decision points asked for, not yet reached
  Metrics metrics_;
  CostLedger ledger_;
  EventQueue events_;
  Rng fault_rng_;
  std::vector<JobId> touched_;
  // refresh_rates' scratch, kept so that it allocates nothing once grown
  std::vector<double> rate_u_, rate_caps_;
  std::vector<GpuId> busy_changed_;
  std::vector<GpuId> memory_check_;
  bool capacity_grew_ = false;
  Time now_;
  const Time horizon_;
  NodeLifecycle nodes_;
  std::size_t next_arrival_ = 0;  // jobs are in arrival order
  uint64_t iterations_ = 0;
  uint64_t event_count_ = 0;
  uint64_t decision_points_ = 0;
  uint64_t oom_events_ = 0, mps_faults_ = 0, reconfigurations_ = 0, rate_changes_ = 0;
  JobReasons reasons_;                                    // of the jobs that end without completing
  bool bound_jobs_ = false;                               // does any job name its node (ResolvedJob::node)?
  std::unique_ptr<Serving> serving_;                      // when the scenario has services
  uint32_t replicas_ = 0;                                 // jobs 0 .. replicas_ - 1 are replicas
  uint32_t replicas_ended_ = 0;                           // replicas failed or rejected for good
  std::unique_ptr<ServiceController> deployments_;        // with serving_
  std::vector<bool> replica_arrived_;                     // per replica slot: has it had a pod yet?
  bool autoscaled_ = false;                               // has a service an autoscaler?
  std::vector<Time> ts_origin_;                           // per GPU: when its time-slicing round robin last restarted
  mutable std::vector<std::vector<uint32_t>> fit_cache_;  // by shape, then bucket: see fits_in_bucket
  bool fit_cache_usable_ = false;
};

std::optional<GpuClaim> Engine::claim_for(JobId id, GpuId g, std::optional<MigSlotIndex> instance) const {
  const Gpu& gpu = cluster_.gpu(g);
  const Node& node = cluster_.node(gpu.node);
  if (gpu.reconfiguring || !node.ready() || !pool_allowed(id, node.pool) || !node_allowed(id, gpu.node)) return std::nullopt;
  const Pool& pool = cluster_.pool(node.pool);
  std::optional<GpuClaim> c = claim_on(jobs_[id].request, pool, gpu, instance, scenario_.model.time_slicing);
  // A replica's engine takes what its model needs of a GPU that isolates no memory, not its request's.
  if (c && is_replica(id) && !gpu.mig && pool.sharing.mode == Sharing::time_slicing)
    c->footprint_mib = replica_footprint_mib(scenario_, scenario_.services[deployments_->service_of(id)], jobs_[id].request,
                                             pool);
  return c;
}

void Engine::arrive(JobId id) {
  if (is_replica(id)) {
    if (!deployments_->has_pod(id)) return;  // a slot its service has no pod for yet
    replica_arrived_[id] = true;
  }
  ++event_count_;
  if (shapes_.of_job(id).never_fits) {
    life_.unschedulable(id);
    return;
  }
  records_[id].remaining = Work::of(jobs_[id].work, 1.0);
  notify([&](Observer& o) { o.job_arrived(*this, id); });
  if (kueue_ && kueue_->manages(id)) {
    life_.hold(id);
    kueue_->arrive(id, now_);  // it waits in its ClusterQueue, suspended: no pod of it exists yet
    return;
  }
  if (!pods_created(id)) return;
  if (quota_) notify([&](Observer& o) { o.job_admitted(*this, id); });
  life_.arrive(id, scheduler_.queue_key(jobs_[id]), now_);
}

bool Engine::pods_created(JobId id) {
  if (!quota_) return true;
  if (const auto why = quota_->admit(jobs_[id])) {
    reasons_.add(id, std::string(*why));
    life_.reject(id);
    if (is_replica(id)) ++replicas_ended_;
    notify([&](Observer& o) { o.job_rejected(*this, id, *why); });
    return false;
  }
  return true;
}

void Engine::admit_kueue() {
  std::vector<JobId> admitted;
  std::vector<KueueEviction> evictions;
  // Evictions without a grace period release quota at once: Kueue's next cycle, at this same time;
  // once they are over, their victims wait in their queues again and are tried at this time too.
  do {
    do {
      admitted.clear();
      evictions.clear();
      kueue_->schedule(now_, *this, admitted, evictions);
      for (JobId id : admitted) {
        // Unsuspended, its pods are created: namespace quotas apply now, then it is the scheduler's.
        if (!pods_created(id)) {
          kueue_->finished(id, now_);
          continue;
        }
        notify([&](Observer& o) { o.job_admitted(*this, id); });
        life_.arrive(id, scheduler_.queue_key(jobs_[id]), now_);
      }
      for (const KueueEviction& e : evictions) {
        if (records_[e.victim].status == JobStatus::running) {
          // Its pods are deleted: each terminates within its own terminationGracePeriodSeconds.
          evict(e.victim, PrioritySpec::termination_grace(scenario_.jobs, jobs_[e.victim]), e.by, e.reason);
          continue;
        }
        // Admitted but not placed yet: its pods are deleted before they run. A preemption all the same,
        // counted where evict() counts one.
        life_.take_back(e.victim);
        if (quota_) quota_->release(jobs_[e.victim]);
        ++records_[e.victim].preemptions;
        notify([&](Observer& o) { o.job_preempted(*this, e.victim); });
        notify([&](Observer& o) { o.job_evicted(*this, e.victim, e.by, e.reason); });
        kueue_->left(e.victim, now_);
      }
    } while (!evictions.empty() && kueue_->pending_work());
  } while (kueue_->requeue_evicted(now_));
}

double Engine::job_sharing_rate(JobId id) const {
  double rate = 1.0;
  for (GpuId g : flights_[records_[id]].placement.gpus) {
    const Gpu& gpu = cluster_.gpu(g);
    const auto pos = std::find(gpu.residents.begin(), gpu.residents.end(), id) - gpu.residents.begin();
    rate = std::min(rate, gpu_rates_[g][static_cast<std::size_t>(pos)]);
  }
  return rate;
}

void Engine::refresh_rates(const std::vector<GpuId>& changed, bool network) {
  std::vector<double>& u = rate_u_;
  std::vector<double>& caps = rate_caps_;
  touched_.clear();
  if (network) network_.share(cluster_, records_, flights_, touched_);
  for (GpuId g : changed) {
    const Gpu& gpu = cluster_.gpu(g);
    const Pool& pool = cluster_.pool_of(gpu.node);
    auto& rates = gpu_rates_[g];
    rates.assign(gpu.residents.size(), 1.0);
    if (serving_) ts_origin_[g] = now_;  // its residents or their demands changed: the round robin starts over
    u.clear();
    caps.clear();
    for (JobId j : gpu.residents) {
      // A partly placed job (gang scheduling off) holds the GPU but computes nothing yet; nor does a
      // job writing or restoring a checkpoint.
      u.push_back(active_u(j));
      const Request& q = jobs_[j].request;
      caps.push_back(pool.sharing.mode == Sharing::mps ? mps_thread_fraction(q, pool.sharing) : q.milli_per_gpu.value / 1000.0);
      touched_.push_back(j);
    }
    if (gpu.mig && !held_whole(gpu)) {  // held whole, its one job runs as on a whole GPU
      for (std::size_t i = 0; i < gpu.residents.size(); ++i) {
        const MigProfile& p = held_profile(gpu, *pool.gpu, gpu.residents[i]);
        rates[i] = mig_rate(static_cast<double>(p.sms) / pool.gpu->sms, u[i]);
      }
    } else if (pool.sharing.rate_model() == Sharing::time_slicing) {
      time_slicing_rates(u, scenario_.model.time_slicing, std::span<double>(rates.data(), rates.size()));
    } else if (pool.sharing.rate_model() == Sharing::mps) {
      mps_rates(u, caps, scenario_.model.mps, std::span<double>(rates.data(), rates.size()));
    }
  }
  std::sort(touched_.begin(), touched_.end());
  touched_.erase(std::unique(touched_.begin(), touched_.end()), touched_.end());
  std::vector<GpuId>& busy_changed = busy_changed_;
  busy_changed.assign(changed.begin(), changed.end());
  for (JobId j : touched_) {
    JobRecord& r = records_[j];
    if (r.status != JobStatus::running) continue;
    const double sharing = job_sharing_rate(j);
    JobFlight& f = flights_[r];
    const ResolvedJob settings = resolved_[j];  // worked out from the Job: once
    double rate = sharing * resolved_.speed(j, cluster_.node(cluster_.gpu(f.placement.gpus.front()).node).pool);
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
    if (started) ++rate_changes_;
    schedule_completion(j);
    busy_changed.insert(busy_changed.end(), f.placement.gpus.begin(), f.placement.gpus.end());
  }
  std::sort(busy_changed.begin(), busy_changed.end());
  busy_changed.erase(std::unique(busy_changed.begin(), busy_changed.end()), busy_changed.end());
  if (serving_)
    for (JobId j : touched_)
      if (is_replica(j) && records_[j].status == JobStatus::running) serving_->share_changed(j, now_, replica_share(j));
  for (GpuId g : busy_changed) {
    const Gpu& gpu = cluster_.gpu(g);
    double busy = 0;
    for (JobId j : gpu.residents) busy += active_u(j) * flights_[records_[j]].sharing_rate;
    busy = std::clamp(busy, 0.0, 1.0);
    metrics_.add_busy(cluster_.node(gpu.node).pool, g, busy - gpu.busy, now_);
    cluster_.set_busy(g, busy);
    notify([&](Observer& o) { o.gpu_busy_changed(*this, g); });
  }
}

ReplicaShare Engine::replica_share(JobId id) const {
  const JobRecord& r = records_[id];
  const JobFlight& f = flights_[r];
  const GpuModel& model = *cluster_.pool_of(cluster_.gpu(f.placement.gpus.front()).node).gpu;
  ReplicaShare s;
  s.hw.tp = static_cast<int32_t>(f.placement.gpus.size());
  s.hw.eff = &scenario_.model.serving_efficiency(model);
  s.hw.link_bytes_per_s = r.link.gb_per_s * 1e9;
  double compute = 1, bandwidth = 1;  // the smallest over its GPUs
  std::vector<double> demands, shares;
  for (GpuId g : f.placement.gpus) {
    const Gpu& gpu = cluster_.gpu(g);
    const Pool& pool = cluster_.pool_of(gpu.node);
    const std::size_t at = static_cast<std::size_t>(std::find(gpu.residents.begin(), gpu.residents.end(), id) -
                                                    gpu.residents.begin());
    if (gpu.mig && !held_whole(gpu)) {
      // A MIG instance has its SMs and its memory slices' share of the bandwidth, whatever its neighbours do.
      const MigProfile& p = held_profile(gpu, *pool.gpu, id);
      compute = std::min(compute, static_cast<double>(p.sms) / pool.gpu->sms);
      bandwidth = std::min(bandwidth, static_cast<double>(p.memory_slices) / pool.gpu->mig->memory_slices);
    } else if (pool.sharing.rate_model() == Sharing::time_slicing) {
      // The whole GPU in its turns: its place among the GPU's busy contexts (itself counted).
      int32_t n = 0, position = 0;
      for (JobId j : gpu.residents) {
        if (j == id) position = n;
        if (j == id || active_u(j) > 0) ++n;
      }
      s.ts_contexts = n;
      s.ts_position = position;
      s.ts_origin = ts_origin_[g];
    } else if (pool.sharing.rate_model() == Sharing::mps) {
      // SMs as the fluid model shares them (thread caps, interference); bandwidth has no QoS under
      // MPS: max-min fair over the busy clients' demands.
      compute = std::min(compute, gpu_rates_[g][at]);
      demands.clear();
      for (JobId j : gpu.residents) demands.push_back(j == id ? 1.0 : active_u(j));
      shares.assign(demands.size(), 0.0);
      max_min_shares(demands, shares);
      bandwidth = std::min(bandwidth, shares[at]);
    }
  }
  s.hw.flops_per_s = model.bf16_tflops * 1e12 * compute;
  s.hw.bytes_per_s = model.memory_bandwidth_gb_per_s * 1e9 * bandwidth;
  return s;
}

ReplicaDevice Engine::replica_device(JobId id) const {
  const JobFlight& f = flights_[records_[id]];
  const GpuId g = f.placement.gpus.front();
  const Pool& pool = cluster_.pool_of(cluster_.gpu(g).node);
  const MigProfile* profile = nullptr;
  if (!f.mig.empty()) profile = &pool.gpu->mig->profiles[f.mig.front().profile];
  return ReplicaDevice{pool.gpu, replica_memory_mib(jobs_[id].request, pool, profile), cluster_.gpu(g).node};
}

void Engine::serve() {
  if (!serving_) return;
  serving_->advance(now_);
  std::vector<GpuId> gpus;
  // What a replica's busy GPU share cost so far is charged at the demand it had.
  const auto settle_running = [&](JobId id) {
    if (records_[id].status == JobStatus::running) settle(id);
  };
  std::vector<JobId> drained;
  for (JobId id : serving_->take_busy_changes(now_, settle_running))
    if (records_[id].status == JobStatus::running) {
      const auto& held = flights_[records_[id]].placement.gpus;
      gpus.insert(gpus.end(), held.begin(), held.end());
      // A deleted pod that has served what it had exits before its grace period ends.
      if (records_[id].terminating && !deployments_->has_pod(id) && !serving_->busy(id)) drained.push_back(id);
    }
  if (!gpus.empty()) {
    std::sort(gpus.begin(), gpus.end());
    gpus.erase(std::unique(gpus.begin(), gpus.end()), gpus.end());
    refresh_rates(gpus);
  }
  for (JobId id : drained) leave(id);
}

SlotState Engine::slot_state(JobId id) const {
  const JobRecord& r = records_[id];
  switch (r.status) {
    case JobStatus::pending: return SlotState::pending;
    case JobStatus::not_arrived: return deployments_->has_pod(id) ? SlotState::pending : SlotState::free;  // back-off
    case JobStatus::running: {
      if (r.terminating) return SlotState::terminating;
      const ReplicaGauges g = serving_->gauges(id, now_);
      return g.draining ? SlotState::terminating : g.ready ? SlotState::ready : SlotState::starting;
    }
    default: return SlotState::terminating;  // failed or rejected for good: never free again
  }
}

void Engine::autoscale() {
  if (!autoscaled_) return;
  const std::optional<Time> due = deployments_->next_time();
  if (!due || *due != now_) return;
  for (uint32_t s : deployments_->evaluate(now_, *serving_, slot_fn())) reconcile(s);
}

void Engine::reconcile(uint32_t service) {
  const ServiceController::Actions a = deployments_->reconcile(service, now_, slot_fn());
  for (JobId id : a.remove) delete_pod(id);
  for (JobId id : a.create) create_pod(id);
}

void Engine::create_pod(JobId id) {
  if (!replica_arrived_[id]) {
    arrive(id);
    return;
  }
  ++event_count_;
  if (!pods_created(id)) return;
  if (quota_) notify([&](Observer& o) { o.job_admitted(*this, id); });
  life_.enqueue(id, now_);
}

void Engine::delete_pod(JobId id) {
  ++event_count_;
  JobRecord& r = records_[id];
  switch (r.status) {
    case JobStatus::pending:
      life_.withdraw(id);
      if (quota_) quota_->release(jobs_[id]);
      break;
    case JobStatus::running:
      if (r.terminating) break;  // already going: it parks when it leaves
      // Its endpoint is removed; it serves what it has, within its termination grace period.
      r.terminating = true;
      serving_->draining(id, now_);
      if (!serving_->busy(id)) {
        leave(id);
        break;
      }
      events_.push(now_ + PrioritySpec::termination_grace(scenario_.jobs, jobs_[id]), EventKind::terminate, id, r.attempt);
      break;
    case JobStatus::not_arrived:  // in its restart back-off: its requeue finds no pod
      if (quota_) quota_->release(jobs_[id]);
      break;
    default: break;
  }
}

void Engine::share_network() {
  if (!network_changed_) return;
  network_changed_ = false;
  refresh_rates({}, true);
}

void Engine::bind(JobId id, const Placement& p) {
  if (id >= jobs_.size()) throw PolicyError(fmt::format("policy {} bound unknown job id {}", scheduler_.name(), id));
  const Job& j = jobs_[id];
  if (records_[id].status != JobStatus::pending) reject(id, fmt::format("job is {}, not pending", to_string(records_[id].status)));
  if (p.nodes.empty()) reject(id, "placement names no node");
  if (static_cast<int32_t>(p.gpus.size()) != gpus_to_place(id))
    reject(id, gpus_to_place(id) == j.request.gpus
                   ? fmt::format("placement has {} GPUs, the job asks {} (all together: gang scheduling)", p.gpus.size(), j.request.gpus)
                   : fmt::format("placement has {} GPUs; the job's next worker takes {}", p.gpus.size(), gpus_to_place(id)));
  if (!p.instances.empty() && p.instances.size() != p.gpus.size())
    reject(id, fmt::format("placement lists {} MIG instances for {} GPUs", p.instances.size(), p.gpus.size()));
  // What it holds already (workers placed one at a time); read before any flight is acquired below.
  const JobFlight& held = std::as_const(flights_)[records_[id]];
  if ((p.nodes.size() > 1 || !held.claims.empty()) && !j.multi_node && p.nodes != held.placement.nodes)
    reject(id, "placement spans nodes but the job may not (multi_node is off)");
  if (j.request.gpus == 0 && p.nodes.size() != 1) reject(id, "a job without GPUs runs on exactly one node");
  for (std::size_t i = 0; i < p.nodes.size(); ++i) {
    const NodeId n = p.nodes[i];
    if (n >= cluster_.node_count()) reject(id, fmt::format("unknown node id {}", n));
    if (!cluster_.has_node(n)) reject(id, fmt::format("node {} is off, not ready", cluster_.slot_node(n).name));
    for (std::size_t k = 0; k < i; ++k)
      if (p.nodes[k] == n) reject(id, fmt::format("node {} listed twice", cluster_.node(n).name));
    if (!pool_allowed(id, cluster_.node(n).pool))
      reject(id, fmt::format("node {} is in pool {}, which the job may not use", cluster_.node(n).name, cluster_.pool_of(n).name));
    const Node& node = cluster_.node(n);
    if (!node.ready()) reject(id, fmt::format("node {} is {}, not ready", node.name, to_string(node.state)));
    const uint32_t mask = cluster_.gpu_mask(n, p.gpus);  // the job's GPUs on this node
    const int32_t here = std::popcount(mask);
    if (j.request.gpus > 0 && here == 0) reject(id, fmt::format("node {} holds none of the job's GPUs", node.name));
    const int64_t pods = j.request.pods_on_node(here);
    if (!pods_fit(per_pod(j.request), pods, free_resources(node)))
      reject(id, fmt::format("node {} lacks the CPU or memory the job asks ({} pod(s))", node.name, pods));
    if (j.request.worker_gpus > 0 && here % j.request.worker_gpus != 0)
      reject(id, fmt::format("node {} holds {} of its GPUs; workers take {} GPUs each, on one node", node.name, here,
                             j.request.worker_gpus));
    const TopologyPolicy tm = cluster_.pool(node.pool).topology_manager;
    if (here > 0 && !topology_manager_admits(tm, *node.topology, mask))
      reject(id, fmt::format("the {} Topology Manager of node {} refuses GPUs spanning {} NUMA nodes", to_string(tm), node.name,
                             node.topology->numa_span(mask)));
  }
  std::vector<GpuClaim> claims;
  for (std::size_t i = 0; i < p.gpus.size(); ++i) {
    const GpuId g = p.gpus[i];
    if (g >= cluster_.gpu_count()) reject(id, fmt::format("unknown GPU id {}", g));
    for (std::size_t k = 0; k < i; ++k)
      if (p.gpus[k] == g) reject(id, fmt::format("GPU {} listed twice", g));
    // The listed nodes are built: a GPU of a slot never built is on none of them.
    const NodeId on = cluster_.has_gpu(g) ? cluster_.gpu(g).node : cluster_.slot_gpu(g).node;
    if (std::find(p.nodes.begin(), p.nodes.end(), on) == p.nodes.end())
      reject(id, fmt::format("GPU {} is on node {}, which the placement does not list", g, cluster_.slot_node(on).name));
    const std::string& node = cluster_.node(on).name;
    const std::optional<MigSlotIndex> instance = p.instances.empty() ? std::nullopt : p.instances[i];
    if (cluster_.gpu(g).mig && !cluster_.gpu(g).partitionable && !instance)
      reject(id, fmt::format("GPU {} of node {} has MIG on; the placement names no instance", g, node));
    auto c = claim_for(id, g, instance);
    if (!c)
      reject(id, instance ? fmt::format("MIG instance {} of GPU {} of node {} does not have room", *instance, g, node)
                          : fmt::format("GPU {} of node {} does not have room", g, node));
    claims.push_back(*c);
  }
  const bool partial = static_cast<int32_t>(held.claims.size() + p.gpus.size()) < j.request.gpus;
  for (NodeId n : p.nodes)
    if (const Sharing mode = cluster_.pool_of(n).sharing.mode; partial && mode != Sharing::exclusive && mode != Sharing::mig)
      reject(id, "workers placed one at a time (gang scheduling off) are modelled on whole GPUs and MIG instances only");
  JobRecord& r = records_[id];
  for (NodeId n : p.nodes) {
    const int64_t pods = j.request.pods_on_node(gpus_on(p, n));
    cluster_.allocate(n, pods * j.request.cpu_milli, pods * j.request.memory_mib);
    nodes_.job_placed(n, id);
  }
  if (r.flight == kNoFlight) flights_.acquire(r).saved_remaining = Work::of(j.work, 1.0);  // its first placement
  JobFlight& f = flights_[r];
  if (f.claims.empty()) {
    f.placement = {};
    f.mig.clear();
  }
  for (std::size_t i = 0; i < p.gpus.size(); ++i) {
    const PoolId pool = cluster_.node(cluster_.gpu(p.gpus[i]).node).pool;
    ledger_.claimed(id, p.gpus[i], now_);
    cluster_.attach(p.gpus[i], id, claims[i]);
    metrics_.add_allocation(pool, j.tenant, claims[i].milli.value);
    f.claims.push_back(claims[i]);
    f.placement.gpus.push_back(p.gpus[i]);
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
  if (partial) return;
  life_.start(id);
  r.start = now_;
  if (r.attempt == 0) r.first_start = now_;
  f.since = now_;
  ledger_.start_busy(f, now_);
  const Placement full = f.placement;  // refresh_rates reads the in-flight placement
  f.rate = 0;
  ++r.attempt;
  begin_attempt(id);
  notify([&](Observer& o) { o.job_started(*this, id); });
  if (p.gpus.empty()) {
    f.compute_rate = f.sharing_rate = 1.0;
    f.rate = r.phase == JobPhase::computing ? 1.0 : 0.0;
    schedule_completion(id);
    return;
  }
  f.intra = r.link = ring_link(cluster_, full);
  f.reference = ring_link(cluster_, full, true);
  const bool spans = full.nodes.size() > 1 && resolved_[id].comm;
  if (spans) {
    network_.join(id);
    network_changed_ = true;
  }
  refresh_rates(full.gpus);
  if (is_replica(id)) serving_->placed(id, now_, replica_device(id), replica_share(id));
  // MPS clients may fault (fault injection); the fault takes down every client of the GPU.
  const Pool& pool = cluster_.pool_of(full.nodes.front());
  if (scenario_.model.mps.fault_rate_per_hour > 0 && pool.sharing.rate_model() == Sharing::mps && !cluster_.gpu(full.gpus.front()).mig) {
    const double hours = boost::math::quantile(boost::math::exponential_distribution<>(scenario_.model.mps.fault_rate_per_hour),
                                               uniform01(fault_rng_));
    events_.push(now_ + sampled_wait(hours), EventKind::fault, id, r.attempt);
  }
  // Memory of time-sliced GPUs is checked once the pass has started everything (check_memory).
  for (GpuId g : full.gpus)
    if (!cluster_.gpu(g).mig && pool.sharing.mode == Sharing::time_slicing) memory_check_.push_back(g);
}

void Engine::check_memory() {
  std::sort(memory_check_.begin(), memory_check_.end());
  memory_check_.erase(std::unique(memory_check_.begin(), memory_check_.end()), memory_check_.end());
  for (GpuId g : memory_check_) {
    const Gpu& gpu = cluster_.gpu(g);
    // No memory isolation: when the residents together outgrow the GPU, all of them die.
    if (gpu.used_memory_mib > cluster_.pool_of(gpu.node).gpu->memory_mib) {
      ++oom_events_;
      kill_all(g, "out of memory on a time-sliced GPU");
    }
  }
  memory_check_.clear();
}

void Engine::reconfigure(GpuId g, const MigLayout& layout) {
  if (!cluster_.has_gpu(g)) throw PolicyError(fmt::format("policy {} reconfigured unknown GPU {}", scheduler_.name(), g));
  const Gpu& gpu = cluster_.gpu(g);
  const Pool& pool = cluster_.pool_of(gpu.node);
  const auto fail = [&](const std::string& why) {
    throw PolicyError(fmt::format("policy {} made an invalid decision at t={}s: reconfigure GPU {} of node {}: {}", scheduler_.name(),
                                  format_seconds(now_), g, cluster_.node(gpu.node).name, why));
  };
  if (!gpu.mig) fail("the GPU does not have MIG enabled");
  if (gpu.partitionable) fail("the GPU is partitionable: its MIG devices are created per claim, it has no layout to change");
  if (!cluster_.node(gpu.node).ready()) fail(fmt::format("node {} is {}, not ready", cluster_.node(gpu.node).name,
                                                        to_string(cluster_.node(gpu.node).state)));
  if (!gpu.residents.empty()) fail(fmt::format("the GPU still runs {} job(s); only a drained GPU can be reconfigured", gpu.residents.size()));
  if (gpu.reconfiguring) fail("the GPU is already being reconfigured");
  const MigTable& t = *pool.gpu->mig;
  MigLayout checked;
  for (const MigInstance& in : layout) {
    if (in.profile < 0 || static_cast<std::size_t>(in.profile) >= t.profiles.size()) fail("unknown MIG profile index");
    if (auto why = mig_conflict(t, checked, in.profile, in.start)) fail(*why);
    if (pool.sharing.mig_strategy == MigStrategy::single && !checked.empty() && checked.front().profile != in.profile)
      fail("the pool uses the single MIG strategy: one profile per GPU");
    mig_add(checked, in);
  }
  cluster_.start_layout(g, checked);
  cluster_.reindex(gpu.node);
  ++reconfigurations_;
  notify([&](Observer& o) { o.mig_reconfigured(*this, g); });
  events_.push(now_ + scenario_.model.mig.reconfiguration_delay, EventKind::layout_ready, g, 0);
}

void Engine::stop(JobId id, StopCause cause) {
  JobRecord& r = records_[id];
  const Job& j = jobs_[id];
  settle(id);
  if (is_replica(id)) serving_->stopped(id, now_);
  notify([&](Observer& o) { o.job_stopping(*this, id, cause); });
  JobFlight& f = flights_[r];
  r.attained_gpu += GpuTime::of(now_ - r.start, static_cast<double>(f.placement.gpus.size()));
  ledger_.released(id, r, f, now_);
  for (std::size_t i = 0; i < f.placement.gpus.size(); ++i) {
    const GpuId g = f.placement.gpus[i];
    const GpuClaim& held = f.claims[i];
    cluster_.detach(g, id, held);
    metrics_.add_allocation(cluster_.node(cluster_.gpu(g).node).pool, j.tenant, -held.milli.value);
  }
  for (NodeId n : f.placement.nodes) {
    const int64_t pods = j.request.pods_on_node(gpus_on(f.placement, n));
    cluster_.release(n, pods * j.request.cpu_milli, pods * j.request.memory_mib);
    cluster_.reindex(n);
    nodes_.job_left(n, id);
  }
  f.claims = {};   // its memory too: a million finished jobs hold none
  ++r.generation;  // drops its pending completion
  ++r.phase_generation;  // and its checkpoint or phase event
  r.phase = JobPhase::computing;
  r.evicting = false;
  r.suspending = false;
  r.terminating = false;
  capacity_grew_ = true;
  if (network_.leave(id)) network_changed_ = true;
  refresh_rates(f.placement.gpus);
  r.end = now_;
}

void Engine::complete(JobId id) {
  ++event_count_;
  stop(id, StopCause::completed);
  life_.complete(id);
  if (quota_) quota_->release(jobs_[id]);
  if (kueue_) kueue_->finished(id, now_);
  flights_.release(records_[id]);
}

void Engine::kill_all(GpuId g, std::string_view cause) {
  const auto victims = cluster_.gpu(g).residents;  // a copy: stop() edits the list
  const RestartModel& policy = scenario_.model.restart;
  for (JobId id : victims) {
    JobRecord& r = records_[id];
    stop(id, StopCause::killed);
    ++r.kills;
    rollback(id);  // to its last checkpoint, or the beginning
    if (!policy.requeue || r.kills > static_cast<uint32_t>(policy.max_restarts)) {
      reasons_.add(id, policy.requeue ? fmt::format("killed by {}, past its {} restarts (model.restart.max_restarts)", cause,
                                                    policy.max_restarts)
                                      : fmt::format("killed by {} (model.restart.policy: fail)", cause));
      life_.fail(id);
      if (is_replica(id)) ++replicas_ended_;
      if (quota_) quota_->release(jobs_[id]);
      if (kueue_) kueue_->finished(id, now_);
      flights_.release(r);
      continue;
    }
    life_.back_off(id);  // waiting out its back-off
    if (is_replica(id) && !deployments_->has_pod(id)) {
      // Its pod was deleted: no restart, and its slot is free for the service's next pod.
      if (quota_) quota_->release(jobs_[id]);
      reconcile(deployments_->service_of(id));
      continue;
    }
    Duration backoff = policy.backoff;
    for (uint32_t k = 1; k < r.kills && backoff < policy.backoff_max; ++k) backoff = backoff + backoff;
    events_.push(now_ + std::min(backoff, policy.backoff_max), EventKind::requeue, id, r.kills);
  }
}

RunResult Engine::run() {
  nodes_.start();
  notify([&](Observer& o) { o.started(*this); });
  while (const std::optional<Time> t = next_time()) {
    advance_metrics(*t);
    now_ = *t;
    const bool arrived = arrive_due();
    while (!events_.empty() && events_.top().time == now_) {
      const Event e = events_.top();
      events_.pop();
      apply(e);
      applied(to_string(e.kind), e.target);
    }
    serve();
    autoscale();
    decision_point(arrived);
    serve();
    if (autoscaled_)
      for (uint32_t s = 0; s < scenario_.services.size(); ++s) deployments_->note_counts(s, now_, serving_->ready(s));
    if (options_.progress && (++iterations_ & 0xFFF) == 0)
      options_.progress(scenario_.horizon ? now_.seconds() / horizon_.seconds()
                                          : static_cast<double>(next_arrival_) / static_cast<double>(jobs_.size()));
  }
  return finish();
}

std::optional<Time> Engine::next_time() const {
  const bool have_arrival = next_arrival_ < jobs_.size();
  std::optional<Time> serving = serving_ ? serving_->next_time() : std::nullopt;
  // Autoscalers alone keep the run going only while they may still change a count (e.g. wake a
  // service its held requests wait for).
  const bool idle = !have_arrival && events_.empty() && !serving;
  if (const std::optional<Time> scaling = autoscaled_ ? deployments_->next_time() : std::nullopt)
    if (!idle || !deployments_->settled(*scaling)) serving = serving ? std::min(*serving, *scaling) : *scaling;
  if (!have_arrival && events_.empty() && !serving) return std::nullopt;
  // Without a horizon the run ends with the last job and the last request, whatever the market still
  // has queued; replicas serve until then.
  if (!have_arrival && !scenario_.horizon && life_.unfinished() == replicas_ - replicas_ended_ && (!serving_ || serving_->done()))
    return std::nullopt;
  Time t = have_arrival ? jobs_[next_arrival_].arrival : Time::max();
  if (!events_.empty()) t = std::min(t, events_.top().time);
  if (serving) t = std::min(t, *serving);
  if (t >= horizon_) return std::nullopt;
  return t;
}

bool Engine::arrive_due() {
  const std::size_t before = next_arrival_;
  for (; next_arrival_ < jobs_.size() && jobs_[next_arrival_].arrival == now_; ++next_arrival_) {
    arrive(static_cast<JobId>(next_arrival_));
    applied("arrival", static_cast<uint32_t>(next_arrival_));
  }
  return next_arrival_ != before;
}

void Engine::apply(const Event& e) {
  switch (e.kind) {
    case EventKind::completion:
      if (e.generation == records_[e.target].generation && records_[e.target].status == JobStatus::running)
        complete(JobId{e.target});
      break;
    case EventKind::requeue:
      // A replica whose pod was deleted during its back-off stays parked; one whose slot has a new pod
      // since (created pending, or running) is not this back-off's.
      if (is_replica(JobId{e.target}) &&
          (!deployments_->has_pod(JobId{e.target}) || records_[e.target].status != JobStatus::not_arrived ||
           records_[e.target].kills != e.generation))
        break;
      ++event_count_;
      life_.enqueue(JobId{e.target}, now_);
      break;
    case EventKind::fault:
      if (records_[e.target].status == JobStatus::running && records_[e.target].attempt == e.generation) {
        ++event_count_;
        ++mps_faults_;
        for (GpuId g : std::vector<GpuId>(flights_[records_[e.target]].placement.gpus)) kill_all(g, "an MPS client fault");
      }
      break;
    case EventKind::layout_ready:
      ++event_count_;
      cluster_.finish_layout(GpuId{e.target});
      cluster_.reindex(cluster_.gpu(GpuId{e.target}).node);
      capacity_grew_ = true;
      break;
    case EventKind::checkpoint:
    case EventKind::phase_end:
      if (records_[e.target].status == JobStatus::running && records_[e.target].phase_generation == e.generation) {
        ++event_count_;
        if (e.kind == EventKind::checkpoint) start_checkpoint(JobId{e.target}, resolved_[e.target].checkpoint->cost);
        else end_phase(JobId{e.target});
      }
      break;
    case EventKind::node_ready:
    case EventKind::reclaim:
    case EventKind::node_gone:
    case EventKind::idle_check:
    case EventKind::market_tick: nodes_.apply(e); break;
    case EventKind::terminate:
      if (records_[e.target].status == JobStatus::running && records_[e.target].attempt == e.generation &&
          records_[e.target].terminating) {
        ++event_count_;
        leave(JobId{e.target});
      }
      break;
    case EventKind::decide:
      rechecks_.erase(e.time);
      capacity_grew_ = true;  // a full pass: a wait may have reached a threshold
      break;
  }
}

void Engine::decision_point(bool arrived) {
  if (kueue_) admit_kueue();
  std::vector<JobId>& arrivals = life_.arrivals();
  const std::size_t seen = arrivals.size();  // the arrivals this pass hands the scheduler
  const bool pass = (life_.any_pending() || scheduler_.decides_when_idle()) && (capacity_grew_ || !arrivals.empty());
  if (pass) {
    std::sort(arrivals.begin(), arrivals.end(),
              [&](JobId a, JobId b) { return std::pair(life_.key(a), a) < std::pair(life_.key(b), b); });
    ++decision_points_;
    if (bound_jobs_) start_bound_jobs();
    scheduler_.decide(*this, *this);
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
    if (resolved_.node(id) != kNoNode) bound.push_back(id);
    return true;
  });
  std::vector<GpuId> fitting;
  std::vector<MigSlotIndex> instances;
  for (JobId id : bound) {
    const NodeId n = resolved_.node(id);
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

RunResult Engine::finish() {
  const Time end = scenario_.horizon ? horizon_ : now_;
  advance_metrics(end);
  metrics_.finish(end);
  now_ = end;
  finish_costs();
  const uint64_t serving_events = serving_ ? serving_->events() : 0;
  std::vector<ServiceFigures> services;
  if (serving_) services = serving_->finish(end);
  std::vector<ScalingFigures> scaling;
  if (deployments_) scaling = deployments_->finish(end);
  notify([&](Observer& o) { o.finished(*this); });

  std::map<std::string, uint64_t> reasons;
  for (JobId id{0}; id < jobs_.size(); ++id)
    if (records_[id].status == JobStatus::unschedulable) {
      reasons[*shapes_.of_job(id).never_fits]++;
      reasons_.add(id, *shapes_.of_job(id).never_fits);
    }
  std::sort(reasons_.of_job.begin(), reasons_.of_job.end());
  std::vector<std::pair<std::string, uint64_t>> sorted(reasons.begin(), reasons.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return RunResult{scheduler_.name(),
                   end,
                   std::move(cluster_),
                   std::move(records_),
                   std::move(flights_),
                   std::move(metrics_),
                   std::move(sorted),
                   std::move(reasons_),
                   event_count_ + nodes_.events_applied() + serving_events,
                   decision_points_,
                   oom_events_,
                   mps_faults_,
                   reconfigurations_,
                   rate_changes_,
                   nodes_.take_activity(),
                   tenants_ ? std::optional(tenants_->take()) : std::nullopt,
                   std::move(services),
                   serving_ ? serving_->take_requests() : std::vector<RequestRow>{},
                   std::move(scaling),
                   deployments_ ? deployments_->take_counts() : std::vector<ReplicaCount>{},
                   deployments_ ? deployments_->take_first_created() : std::vector<Time>{}};
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

// --- checkpointing ----------------------------------------------------------------------------

void Engine::begin_attempt(JobId id) {
  JobRecord& r = records_[id];
  JobFlight& f = flights_[r];
  const CheckpointPolicy& policy = *resolved_[id].checkpoint;
  r.attempt_work = r.remaining;
  r.phase = JobPhase::computing;
  r.evicting = false;
  // Resuming from a checkpoint (its own, or the state a preemption saved) costs a restore first; every
  // start, the first too, costs its restart overhead (issue 23).
  const Duration restore = policy.enabled ? policy.restore : r.preemptions > 0 ? scenario_.model.preemption.resume : Duration();
  const bool resuming = f.saved_remaining < Work::of(jobs_[id].work, 1.0);
  const Duration pause = (resuming ? restore : Duration()) + policy.restart_overhead;
  if (pause > Duration()) {
    r.phase = JobPhase::restoring;
    f.phase_start = now_;
    f.phase_end = now_ + pause;
    events_.push(f.phase_end, EventKind::phase_end, id, ++r.phase_generation);
    return;
  }
  schedule_checkpoint(id);
}

double Engine::mtbf_hours(const JobRecord& r) const {
  double hazard = 0;
  for (NodeId n : flights_[r].placement.nodes) hazard += nodes_.pool(cluster_.node(n).pool).hazard_per_node_hour;
  return hazard > 0 ? 1.0 / hazard : std::numeric_limits<double>::infinity();
}

void Engine::schedule_checkpoint(JobId id) {
  JobRecord& r = records_[id];
  const CheckpointPolicy& policy = *resolved_[id].checkpoint;
  if (!policy.enabled || is_replica(id)) return;  // a replica saves nothing: a new one loads its model
  const std::optional<Duration> interval = policy.auto_interval ? young_daly_interval(policy.cost, mtbf_hours(r))
                                                                : policy.interval;
  if (interval) events_.push(now_ + *interval, EventKind::checkpoint, id, ++r.phase_generation);
}

void Engine::change_phase(JobId id, JobPhase phase) {
  JobRecord& r = records_[id];
  settle(id);  // up to now at the old phase's rate and busy share
  const JobPhase from = r.phase;
  r.phase = phase;
  refresh_rates(flights_[r].placement.gpus);
  notify([&](Observer& o) { o.job_phase(*this, id, from); });
}

void Engine::start_checkpoint(JobId id, Duration cost) {
  JobRecord& r = records_[id];
  JobFlight& f = flights_[r];
  change_phase(id, JobPhase::checkpointing);
  f.writing_remaining = r.remaining;  // the state it writes: its progress now
  f.writing_kept_gpu = kept_gpu(r);
  f.phase_start = now_;
  f.phase_end = now_ + cost;
  events_.push(f.phase_end, EventKind::phase_end, id, ++r.phase_generation);
}

void Engine::end_phase(JobId id) {
  JobRecord& r = records_[id];
  JobFlight& f = flights_[r];
  const GpuTime held = GpuTime::of(f.phase_end - f.phase_start, static_cast<double>(f.placement.gpus.size()));
  if (r.phase == JobPhase::checkpointing) {
    f.saved_remaining = f.writing_remaining;
    f.saved_kept_gpu = f.writing_kept_gpu;
    ++r.checkpoints;
    r.checkpoint_gpu += held;
    if (r.suspending) {
      suspended(id);  // preempted: it leaves with everything saved
      return;
    }
    if (r.evicting) {
      leave(id);  // its node is going, or its grace period: it leaves with everything saved
      return;
    }
  } else {
    r.restore_gpu += held;
  }
  change_phase(id, JobPhase::computing);
  schedule_checkpoint(id);
}

void Engine::rollback(JobId id) {
  if (is_replica(id)) return;  // a replica has no progress to lose: its requests are retried (Serving::stopped)
  JobRecord& r = records_[id];
  JobFlight& f = flights_[r];
  const Work lost = std::max(Work(), f.saved_remaining - r.remaining);
  r.lost_work += lost;
  r.lost_gpu += GpuTime::from_us(lost.us() * std::max<double>(1.0, jobs_[id].request.gpus));
  r.remaining = f.saved_remaining;
  // Goodput: the computing since that checkpoint was for nothing (stop() settled it up to now).
  r.rerun_gpu += std::max(GpuTime(), kept_gpu(r) - f.saved_kept_gpu);
}

void Engine::leave(JobId id) {
  JobRecord& r = records_[id];
  const bool deleted = is_replica(id) && !deployments_->has_pod(id);
  if (!r.terminating) ++r.evictions;  // else counted as a preemption when it was told to go
  stop(id, deleted ? StopCause::scaled_down : StopCause::evicted);
  rollback(id);
  if (deleted) {
    // Its pod is gone: the slot is parked until its service creates a pod in it again.
    if (quota_) quota_->release(jobs_[id]);
    life_.back_off(id);
    reconcile(deployments_->service_of(id));
    return;
  }
  if (kueue_ && kueue_->left(id, now_)) {
    if (quota_) quota_->release(jobs_[id]);  // its pods are deleted; they count again when it is re-admitted
    life_.requeue(id);                       // Kueue evicted it: it waits in its ClusterQueue again
    return;
  }
  life_.enqueue(id, now_);  // the job controller recreates the pod at once
}

void Engine::evict(JobId id, Duration grace, JobId by, std::string_view reason) {
  JobRecord& r = records_[id];
  if (!preemptible(id)) reject(id, "evict: the job is not running (or is already leaving)");
  ++r.preemptions;
  notify([&](Observer& o) { o.job_preempted(*this, id); });
  notify([&](Observer& o) { o.job_evicted(*this, id, by, reason); });
  r.terminating = true;
  if (grace <= Duration()) {
    leave(id);
    return;
  }
  // As at a spot notice: a checkpoint that ends in time is written, and the job leaves when it is.
  notice(id, now_ + grace);
  if (r.status == JobStatus::running) events_.push(now_ + grace, EventKind::terminate, id, r.attempt);
}

void Engine::preempt(JobId id) {
  JobRecord& r = records_[id];
  if (!preemptible(id)) reject(id, "preempt: the job is not running (or is already leaving)");
  ++r.preemptions;
  notify([&](Observer& o) { o.job_preempted(*this, id); });
  r.suspending = r.evicting = true;
  const CheckpointPolicy& policy = *resolved_[id].checkpoint;
  switch (r.phase) {
    case JobPhase::restoring:  // nothing new to save: it leaves now
      suspended(id);
      break;
    case JobPhase::checkpointing:  // it leaves once the checkpoint under way is written
      break;
    case JobPhase::computing: {
      const Duration cost = policy.enabled ? policy.cost : scenario_.model.preemption.suspend;
      if (cost > Duration()) {
        start_checkpoint(id, cost);
      } else {
        settle(id);
        flights_[r].saved_remaining = r.remaining;
        flights_[r].saved_kept_gpu = kept_gpu(r);
        suspended(id);
      }
      break;
    }
  }
}

void Engine::suspended(JobId id) {
  stop(id, StopCause::suspended);
  rollback(id);  // to what it saved: nothing is lost
  life_.enqueue(id, now_);
}

void Engine::notice(JobId id, Time gone) {
  JobRecord& r = records_[id];
  if (r.status != JobStatus::running || r.evicting) return;
  if (is_replica(id)) {
    // Its pod is terminating: the Service's endpoints drop it, and it finishes what it has until the node goes.
    serving_->draining(id, now_);
    return;
  }
  const CheckpointPolicy& policy = *resolved_[id].checkpoint;
  switch (r.phase) {
    case JobPhase::restoring:
      leave(id);  // nothing new to save; it leaves now
      break;
    case JobPhase::checkpointing:
      if (flights_[r].phase_end <= gone) r.evicting = true;  // the checkpoint under way finishes in time
      break;
    case JobPhase::computing:
      if (policy.enabled && now_ + policy.cost <= gone) {
        start_checkpoint(id, policy.cost);
        r.evicting = true;
      }
      break;  // otherwise it runs on until the node goes, and loses what it did since its checkpoint
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
    const PoolSpec::NodeSpec& shape = pool.nodes.front();
    plan.add_pool(p, {shape.gpus, pool.gpu ? pool.gpu->memory_mib : 0, shape.cpu_milli, shape.memory_mib}, rt.provisioning,
                  static_cast<uint32_t>(std::max<int64_t>(0, limit - rt.alive)), metrics_.price_per_gpu_hour_usd(p));
    std::vector<int32_t> milli;
    std::vector<int64_t> memory;
    for (NodeId n = pool.first_node; n < pool.first_node + pool.built; ++n) {
      const Node& node = cluster_.node(n);
      if (!node.ready()) continue;
      milli.clear();
      memory.clear();
      bool room = node.gpu_count == 0;
      for (GpuId g = node.first_gpu; g < node.first_gpu + node.gpu_count; ++g) {
        const Gpu& gpu = cluster_.gpu(g);
        // A shared GPU has room only while it has a free slot (replicas) and no reconfiguration.
        const bool open = !gpu.reconfiguring && gpu.free_slots() > 0 && !gpu.mig && gpu.free.value > 0;
        milli.push_back(open ? gpu.free.value : 0);
        memory.push_back(open ? gpu.free_memory_mib : 0);
        room = room || open;
      }
      if (room) plan.add_free_node(p, milli, memory, node.free_cpu_milli, node.free_memory_mib);  // full nodes add nothing
    }
    scalable.push_back(p);
  }
  Time next = Time::max();
  std::vector<PodDemand> options;
  for_each_pending([&](JobId id) {
    options.clear();
    const Request& q = jobs_[id].request;
    for (PoolId p : scalable) {
      if (!pool_allowed(id, p) || !scheduler_.would_use(*this, id, p)) continue;
      // A pod counts once it has stayed unschedulable for the scale-up delay.
      const Time due = records_[id].queued_at + cluster_.pool(p).autoscale.scale_up_delay;
      if (due > now_) {
        next = std::min(next, due);
        continue;
      }
      const GpuDemand d = demand_on(q, cluster_.pool(p));
      options.push_back({p, q.gpus, d.milli, q.gpu_memory_mib, q.cpu_milli, q.memory_mib, std::max(1, q.worker_gpus),
                         q.worker_gpus > 0, jobs_[id].multi_node});
    }
    if (!options.empty()) plan.place(options);
    return true;
  });
  for (PoolId p : scalable)
    for (uint32_t k = plan.added(p); k > 0; --k) nodes_.request_node(p);
  if (next != Time::max()) recheck_at(next);
}

}  // namespace

RunResult simulate(const World& world, Scheduler& scheduler, const RunOptions& options) {
  Engine engine(world, world.cluster, scheduler, options);
  return engine.run();
}

RunResult simulate(const Scenario& scenario, Scheduler& scheduler, const RunOptions& options) {
  World world = build_world(scenario);
  Cluster cluster = std::move(world.cluster);  // the world is not kept: its run takes the cluster
  Engine engine(world, std::move(cluster), scheduler, options);
  return engine.run();
}

}  // namespace gpusim
