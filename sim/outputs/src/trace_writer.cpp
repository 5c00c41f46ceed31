// trace.json: the run as a timeline in the Chrome/Perfetto JSON trace-event format (it opens in
// ui.perfetto.dev and chrome://tracing). One process per node with one track per GPU, per MIG
// slice, or per replica of a shared GPU; a slice per job residency; instant events for reclaims,
// preemptions, kills and MIG reconfigurations; counter tracks of allocated and busy GPUs per pool, and
// of an autoscaled service's replicas. A service's replicas are jobs: each residency is a slice; its
// router's decisions are instant events on a track of their own.
// Timestamps are the simulation's microseconds.
#include <fmt/format.h>

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpusim/core/paged_vector.hpp"
#include "gpusim/sim/outputs.hpp"
#include "gpusim/sim/tenancy_admission.hpp"

namespace gpusim {

namespace {

std::string json_string(std::string_view s) { return Json(s).dump(); }

class TraceWriter final : public OutputWriter, public WantsRoutes {
 public:
  void started(const RunState& run) override {
    const Cluster& c = run.cluster();
    event(fmt::format(R"({{"ph":"M","name":"process_name","pid":0,"args":{{"name":"cluster"}}}})"));
    named_.resize(c.node_count());
    c.for_each_node([&](NodeId n) { name_node(c, n); });
    lanes_.resize(c.gpu_count());
    counters(run);
  }

  void job_started(const RunState& run, JobId id) override {
    const JobRecord& r = run.record(id);
    Residency& open = open_[id];
    open.start = run.now();
    open.remaining = r.remaining;
    open.tracks.clear();
    const Cluster& c = run.cluster();
    const PlacementView p = run.last_placement(id);
    if (p.gpus.empty()) open.tracks.emplace_back(pid(p.nodes.front()), track(p.nodes.front(), "pods"));
    for (std::size_t i = 0; i < p.gpus.size(); ++i) {
      const GpuId g = p.gpus[i];
      const Gpu& gpu = c.gpu(g);
      const uint32_t local = g - c.node(gpu.node).first_gpu;
      std::string name = fmt::format("GPU {}", local);
      if (const std::optional<MigSlotIndex> slot = run.claims(id)[i].instance) {
        const MigInstance in = gpu.instances[*slot].instance;
        name += fmt::format(" {}@{}", c.pool_of(gpu.node).gpu->mig->profiles[in.profile].name, in.start);
      } else if (gpu.slots > 1 || run.claims(id)[i].milli < kWholeGpu) {
        // A shared GPU: each resident on its own lane, the lowest one free.
        auto& lanes = lanes_[g];
        std::size_t lane = 0;
        while (lane < lanes.size() && lanes[lane]) ++lane;
        if (lane == lanes.size()) lanes.emplace_back();
        lanes[lane] = id;
        name += fmt::format(" replica {}", lane);
      }
      open.tracks.emplace_back(pid(gpu.node), track(gpu.node, name));
    }
  }

  void job_stopping(const RunState& run, JobId id, StopCause cause) override {
    close(run, id, to_string(cause));
    if (cause == StopCause::killed) instant(run, id, "killed (out of memory or MPS fault)");
  }

  void job_preempted(const RunState& run, JobId id) override { instant(run, id, "preempted"); }
  void job_evicted(const RunState& run, JobId victim, JobId by, std::string_view reason) override {
    instant(run, victim,
            by == kNoJob ? fmt::format("evicted: {}", reason) : fmt::format("evicted: {} (for {})", reason, run.job(by).name));
  }

  void node_state(const RunState& run, NodeId n, NodeState from) override {
    name_node(run.cluster(), n);  // an autoscaled pool's slot built since the start
    const NodeState to = run.cluster().node(n).state;
    const char* what = to == NodeState::draining                             ? "spot reclaim notice"
                       : to == NodeState::off && from == NodeState::draining ? "node reclaimed"
                       : to == NodeState::off                                ? "node removed"
                       : to == NodeState::provisioning                       ? "node requested"
                                                                             : "node ready";
    event(fmt::format(R"({{"ph":"i","s":"p","name":"{}","pid":{},"tid":0,"ts":{}}})", what, pid(n), run.now().us()));
  }

  void mig_reconfigured(const RunState& run, GpuId g) override {
    const Cluster& c = run.cluster();
    const Gpu& gpu = c.gpu(g);
    std::string layout;
    for (const MigSlot& s : gpu.instances)
      layout += fmt::format("{}{}@{}", layout.empty() ? "" : " ", c.pool_of(gpu.node).gpu->mig->profiles[s.instance.profile].name,
                            s.instance.start);
    event(fmt::format(R"({{"ph":"i","s":"p","name":"MIG reconfigure","pid":{},"tid":0,"ts":{},"args":{{"gpu":{},"layout":{}}}}})",
                      pid(gpu.node), run.now().us(), g - c.node(gpu.node).first_gpu, json_string(layout)));
  }

  // The counters are sampled once each event is fully applied, when the metrics agree with the cluster.
  bool wants_every_event() const override { return true; }
  void event_applied(const RunState& run, std::string_view, uint32_t) override { counters(run); }

  void finished(const RunState& run) override {
    for (auto it = open_.begin(); it != open_.end();) close(run, (it++)->first, "running at the end");
    counters(run);
    flush();
  }

  void write(std::ostream& out, const Scenario& s, const RunResult& r, const Json&) const override {
    out << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n" << events_;
    // An autoscaled service's replicas over time: the autoscaler's count, the pods, the ready ones.
    for (const ReplicaCount& c : r.replica_counts)
      if (s.services[c.service].autoscaler)
        out << fmt::format(
            ",\n{{\"ph\":\"C\",\"name\":{},\"pid\":0,\"ts\":{},\"args\":{{\"desired\":{},\"pods\":{},\"ready\":{}}}}}",
            json_string(fmt::format("replicas of {}", s.services[c.service].deployment)), c.time.us(), c.desired, c.pods,
            c.ready);
    // Each service's router: a track in the cluster's process, an instant event per request routed.
    for (std::size_t k = 0; k < s.services.size(); ++k)
      out << fmt::format(",\n{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":{},\"args\":{{\"name\":{}}}}}",
                         kRouterTid + k,
                         json_string(fmt::format("router of {} ({})", s.services[k].deployment, s.services[k].router.name)));
    for (const RouteRow& q : r.routes) {
      const std::string& replica = s.jobs.jobs[q.replica].name;
      out << fmt::format(",\n{{\"ph\":\"i\",\"s\":\"t\",\"name\":{},\"pid\":0,\"tid\":{},\"ts\":{},\"args\":{{\"request\":{},"
                         "\"replica\":{}{}}}}}",
                         json_string(fmt::format("request {} to {}", q.request, replica)), kRouterTid + q.service, q.time.us(),
                         q.request, json_string(replica),
                         q.cached_tokens < 0 ? std::string() : fmt::format(",\"cached_prefix_tokens\":{}", q.cached_tokens));
    }
    out << "\n]}\n";
  }

 private:
  struct Residency {
    Time start;
    Work remaining;
    std::vector<std::pair<uint32_t, uint32_t>> tracks;  // (pid, tid)
  };

  static uint32_t pid(NodeId n) { return n + 1; }       // 0 is the cluster's counters
  static constexpr std::size_t kRouterTid = 1'000'000;  // + a service's index: its router's track in process 0
  // Names node n's process, once.
  void name_node(const Cluster& c, NodeId n) {
    if (std::exchange(named_[n], true)) return;
    event(fmt::format(R"({{"ph":"M","name":"process_name","pid":{},"args":{{"name":{}}}}})", pid(n),
                      json_string(fmt::format("{} ({})", c.node(n).name, c.pool_of(n).name))));
  }

  void event(const std::string& e) {
    if (!events_.empty()) events_ += ",\n";
    events_ += e;
  }

  // The tid of a named track on node n, named once in the trace when first used.
  uint32_t track(NodeId n, const std::string& name) {
    auto [it, added] = tids_.try_emplace({n, name}, static_cast<uint32_t>(tids_.size() + 1));
    if (added) {
      event(fmt::format(R"({{"ph":"M","name":"thread_name","pid":{},"tid":{},"args":{{"name":{}}}}})", pid(n), it->second,
                        json_string(name)));
      event(fmt::format(R"({{"ph":"M","name":"thread_sort_index","pid":{},"tid":{},"args":{{"sort_index":{}}}}})", pid(n),
                        it->second, it->second));
    }
    return it->second;
  }

  void close(const RunState& run, JobId id, std::string_view how) {
    const auto it = open_.find(id);
    if (it == open_.end()) return;
    const Residency& open = it->second;
    const JobRecord& r = run.record(id);
    const Job& j = run.job(id);
    const int64_t dur = (run.now() - open.start).us();
    // Its mean speed over the residency: work done over time held (pauses for checkpoints count).
    const double rate = dur > 0 ? (open.remaining - r.remaining).us() / static_cast<double>(dur) : 0.0;
    const std::string args = fmt::format(R"({{"job":{},"tenant":{},"kind":"{}","rate":{:.4f},"end":"{}"}})", id,
                                         json_string(run.scenario().jobs.tenants[j.tenant]), to_string(j.kind), rate, how);
    for (const auto& [p, t] : open.tracks)
      event(fmt::format(R"({{"ph":"X","name":{},"cat":"job","pid":{},"tid":{},"ts":{},"dur":{},"args":{}}})", json_string(j.name),
                        p, t, open.start.us(), dur, args));
    for (GpuId g : run.last_placement(id).gpus)
      for (std::optional<JobId>& lane : lanes_[g])
        if (lane == id) lane.reset();
    open_.erase(it);
  }

  void instant(const RunState& run, JobId id, std::string_view what) {
    const auto it = open_.find(id);
    if (it == open_.end() || it->second.tracks.empty()) return;
    const auto [p, t] = it->second.tracks.front();
    event(fmt::format(R"({{"ph":"i","s":"t","name":{},"pid":{},"tid":{},"ts":{},"args":{{"job":{}}}}})", json_string(what), p, t,
                      run.now().us(), id));
  }

  // Allocated and busy GPUs per pool. A sample is final once time moves on (a later change at the
  // same time replaces it), and is written only when it differs from the last one written.
  void counters(const RunState& run) {
    if (pending_at_ != run.now()) flush();
    pending_at_ = run.now();
    const Cluster& c = run.cluster();
    pending_.resize(c.pools().size());
    for (PoolId p{0}; p < pending_.size(); ++p)
      pending_[p] = {run.metrics().allocated_gpus_now(p), run.metrics().busy_gpus_now(p)};
    if (names_.empty())
      for (const Pool& p : c.pools()) names_.push_back(json_string(p.name));
    // With a tenancy: block, the GPUs each namespace holds (docs/guide/tenants.md).
    if (run.scenario().tenancy.given) {
      const std::vector<std::string>& tenants = run.scenario().jobs.tenants;
      pending_tenants_.resize(tenants.size());
      for (uint16_t t = 0; t < tenants.size(); ++t) pending_tenants_[t] = run.metrics().tenant_gpus_now(t);
      if (tenant_names_.empty())
        for (const std::string& t : tenants) tenant_names_.push_back(json_string(t));
    }
    // With Kueue, the quota each ClusterQueue's admitted jobs use.
    if (const KueueState* k = kueue_state(run)) {
      pending_queues_.resize(k->queue_count());
      for (uint32_t q = 0; q < k->queue_count(); ++q) pending_queues_[q] = k->queue(q).usage_gpus;
      if (queue_names_.empty())
        for (uint32_t q = 0; q < k->queue_count(); ++q) queue_names_.push_back(json_string(k->queue(q).name));
    }
  }

  // A counter event of `name` with one value per series, when they differ from the last written.
  template <class T>
  void counter(std::string_view name, const std::vector<std::string>& series, const std::vector<T>& pending,
               std::vector<T>& written) {
    if (pending.empty() || pending == written) return;
    std::string args;
    for (std::size_t i = 0; i < pending.size(); ++i)
      args += fmt::format("{}{}:{:.3f}", i ? "," : "", series[i], static_cast<double>(pending[i]));
    event(fmt::format(R"({{"ph":"C","name":"{}","pid":0,"ts":{},"args":{{{}}}}})", name, pending_at_.us(), args));
    written = pending;
  }

  void flush() {
    counter("GPUs held by namespace", tenant_names_, pending_tenants_, written_tenants_);
    counter("Kueue quota used by ClusterQueue (GPUs)", queue_names_, pending_queues_, written_queues_);
    if (pending_.empty() || pending_ == written_) return;
    std::string allocated, busy;
    for (std::size_t p = 0; p < pending_.size(); ++p) {
      allocated += fmt::format("{}{}:{:.3f}", p ? "," : "", names_[p], pending_[p].first);
      busy += fmt::format("{}{}:{:.3f}", p ? "," : "", names_[p], pending_[p].second);
    }
    event(fmt::format(R"({{"ph":"C","name":"allocated GPUs","pid":0,"ts":{},"args":{{{}}}}})", pending_at_.us(), allocated));
    event(fmt::format(R"({{"ph":"C","name":"busy GPUs","pid":0,"ts":{},"args":{{{}}}}})", pending_at_.us(), busy));
    written_ = pending_;
  }

  std::string events_;
  std::map<JobId, Residency> open_;
  std::map<std::pair<NodeId, std::string>, uint32_t> tids_;
  PagedVector<bool> named_;                                   // per node: its process named
  PagedVector<std::vector<std::optional<JobId>>> lanes_;      // per GPU: the resident on each replica lane, if any
  std::vector<std::string> names_;                            // pools, quoted
  std::vector<std::pair<double, double>> pending_, written_;  // per pool: allocated, busy
  std::vector<std::string> tenant_names_;                     // quoted, with a tenancy: block
  std::vector<double> pending_tenants_, written_tenants_;     // per namespace: GPUs held
  std::vector<std::string> queue_names_;                      // quoted, with Kueue
  std::vector<int64_t> pending_queues_, written_queues_;      // per ClusterQueue: quota used (GPUs)
  Time pending_at_;
};

}  // namespace

std::unique_ptr<OutputWriter> make_trace_writer() { return std::make_unique<TraceWriter>(); }

}  // namespace gpusim
