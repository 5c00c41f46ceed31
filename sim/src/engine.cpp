#include "gpusim/sim/engine.hpp"

#include <boost/container_hash/hash.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "gpusim/core/error.hpp"
#include "gpusim/sim/event_queue.hpp"

namespace gpusim {

std::string_view to_string(JobStatus s) {
  switch (s) {
    case JobStatus::not_arrived: return "not_arrived";
    case JobStatus::pending: return "pending";
    case JobStatus::running: return "running";
    case JobStatus::completed: return "completed";
    case JobStatus::unschedulable: return "unschedulable";
  }
  return "pending";
}

namespace {

// Jobs with equal requests behave alike in every fit check; they share a shape.
struct ShapeKey {
  int32_t gpus;
  int32_t milli;
  int64_t gpu_memory_mib, cpu_milli, memory_mib;
  bool multi_node;
  std::vector<std::string> models;
  bool operator==(const ShapeKey&) const = default;
};
struct ShapeKeyHash {
  std::size_t operator()(const ShapeKey& k) const {
    std::size_t h = 0;
    boost::hash_combine(h, k.gpus);
    boost::hash_combine(h, k.milli);
    boost::hash_combine(h, k.gpu_memory_mib);
    boost::hash_combine(h, k.cpu_milli);
    boost::hash_combine(h, k.memory_mib);
    boost::hash_combine(h, k.multi_node);
    boost::hash_combine(h, boost::hash_range(k.models.begin(), k.models.end()));
    return h;
  }
};

struct Shape {
  uint64_t pool_mask = 0;
  std::optional<std::string> never_fits;  // why no node of the cluster could ever hold it
};

GpuDemand demand_on(const Request& q, const Pool& pool) {
  if (pool.sharing == Sharing::exclusive) return {kWholeGpu, pool.gpu ? pool.gpu->memory_mib : 0};
  return {q.milli_per_gpu, q.gpu_memory_mib};
}

// Which pools a request may use, and whether an empty cluster could ever hold it.
Shape analyse(const Request& q, bool multi_node, const Cluster& c, const Catalog& catalog) {
  Shape s;
  std::vector<std::string> unknown;
  for (PoolId p = 0; p < c.pools().size(); ++p) {
    const Pool& pool = c.pool(p);
    bool allowed = q.gpus == 0 || (pool.gpu != nullptr && q.models.empty());
    for (const auto& m : q.models) {
      const GpuModel* g = catalog.find_gpu(m);
      if (!g && std::find(unknown.begin(), unknown.end(), m) == unknown.end()) unknown.push_back(m);
      allowed = allowed || (q.gpus > 0 && g != nullptr && g == pool.gpu);
    }
    if (allowed) s.pool_mask |= uint64_t{1} << p;
  }
  if (s.pool_mask == 0) {
    std::vector<std::string> have;
    for (const auto& p : c.pools())
      if (p.gpu && std::find(have.begin(), have.end(), p.gpu->name) == have.end()) have.push_back(p.gpu->name);
    s.never_fits = q.models.empty()
                       ? std::string("asks for GPUs but the cluster has no GPU nodes")
                       : fmt::format("asks for GPU model {} which the cluster lacks (it has {}){}", fmt::join(q.models, " or "),
                                     fmt::join(have, ", "),
                                     unknown.empty() ? "" : fmt::format("; {} not in the catalog", fmt::join(unknown, ", ")));
    return s;
  }
  int32_t largest = 0;
  int64_t gpus_total = 0;
  bool resources_fit = false, memory_fits = false;
  int64_t max_gpu_memory = 0;
  for (NodeId n = 0; n < c.nodes().size(); ++n) {
    const Node& node = c.node(n);
    if (!(s.pool_mask >> node.pool & 1)) continue;
    const Pool& pool = c.pool(node.pool);
    const int64_t gpu_memory = pool.gpu ? pool.gpu->memory_mib : 0;
    max_gpu_memory = std::max(max_gpu_memory, gpu_memory);
    if (q.gpus > 0 && q.gpu_memory_mib > gpu_memory) continue;  // covers demand_on's memory on either sharing
    memory_fits = true;
    if (node.cpu_milli < q.cpu_milli || node.memory_mib < q.memory_mib) continue;
    resources_fit = true;
    largest = std::max<int32_t>(largest, node.gpu_count);
    gpus_total += node.gpu_count;
  }
  if (!memory_fits)
    s.never_fits = fmt::format("asks {} MiB of GPU memory per GPU; the allowed GPUs have at most {} MiB", q.gpu_memory_mib,
                               max_gpu_memory);
  else if (!resources_fit)
    s.never_fits = fmt::format("asks {} milli-CPU and {} MiB of memory; no allowed node is that large", q.cpu_milli,
                               q.memory_mib);
  else if (q.gpus > largest && !multi_node)
    s.never_fits = fmt::format("asks {} GPUs on one node; the largest allowed node has {} (multi_node is off)", q.gpus,
                               largest);
  else if (q.gpus > gpus_total)
    s.never_fits = fmt::format("asks {} GPUs; the allowed nodes have {} in all", q.gpus, gpus_total);
  return s;
}

class Shapes {
 public:
  Shapes(const JobSet& jobs, const Cluster& c, const Catalog& catalog) : of_job_(jobs.jobs.size()) {
    std::unordered_map<ShapeKey, uint32_t, ShapeKeyHash> index;
    for (const Job& j : jobs.jobs) {
      const Request& q = j.request;
      ShapeKey key{q.gpus, q.milli_per_gpu.value, q.gpu_memory_mib, q.cpu_milli, q.memory_mib, j.multi_node, q.models};
      auto [it, added] = index.try_emplace(std::move(key), static_cast<uint32_t>(shapes_.size()));
      if (added) shapes_.push_back(analyse(q, j.multi_node, c, catalog));
      of_job_[j.id] = it->second;
    }
  }
  uint32_t of(JobId j) const { return of_job_[j]; }
  const Shape& get(uint32_t s) const { return shapes_[s]; }
  uint32_t count() const { return static_cast<uint32_t>(shapes_.size()); }

 private:
  std::vector<uint32_t> of_job_;
  std::vector<Shape> shapes_;
};

class Engine final : public ClusterView, public Binder {
 public:
  Engine(const Scenario& s, Scheduler& scheduler, const RunOptions& options)
      : scenario_(s),
        jobs_(s.jobs.jobs),
        scheduler_(scheduler),
        options_(options),
        cluster_(build_cluster(s)),
        shapes_(s.jobs, cluster_, *s.catalog),
        records_(jobs_.size()),
        pending_by_shape_(shapes_.count(), 0),
        keys_(jobs_.size()),
        metrics_(cluster_.pools().size(), s.jobs.tenants.size(), s.timeseries_step) {}

  RunResult run();

  // ClusterView
  Time now() const override { return now_; }
  const Cluster& cluster() const override { return cluster_; }
  const Job& job(JobId id) const override { return jobs_[id]; }
  void for_each_pending(const std::function<bool(JobId)>& visit) const override {
    // Jobs bound during this pass leave pending_ only after it, so the iteration stays valid.
    for (const auto& [key, id] : pending_)
      if (records_[id].status == JobStatus::pending && !visit(id)) return;
  }
  const std::vector<JobId>& new_arrivals() const override { return new_arrivals_; }
  bool is_pending(JobId id) const override { return records_[id].status == JobStatus::pending; }
  bool capacity_grew() const override { return capacity_grew_; }
  uint32_t shape(JobId id) const override { return shapes_.of(id); }
  uint32_t shape_count() const override { return shapes_.count(); }
  uint32_t pending_shapes() const override { return distinct_pending_shapes_; }
  bool pool_allowed(JobId id, PoolId pool) const override { return shapes_.get(shapes_.of(id)).pool_mask >> pool & 1; }
  GpuDemand gpu_demand(JobId id, PoolId pool) const override { return demand_on(jobs_[id].request, cluster_.pool(pool)); }
  bool gpu_fits(JobId id, GpuId g) const override {
    const Gpu& gpu = cluster_.gpu(g);
    const Pool& pool = cluster_.pool_of(gpu.node);
    if (pool.sharing == Sharing::exclusive) return gpu.jobs == 0;
    const GpuDemand d = demand_on(jobs_[id].request, pool);
    return gpu.free >= d.milli && gpu.free_memory_mib >= d.memory_mib;
  }
  bool node_admits(JobId id, NodeId n) const override {
    const Node& node = cluster_.node(n);
    const Request& q = jobs_[id].request;
    return pool_allowed(id, node.pool) && node.free_cpu_milli >= q.cpu_milli && node.free_memory_mib >= q.memory_mib;
  }

  // Binder
  void bind(JobId id, const Placement& placement) override;

 private:
  [[noreturn]] void reject(JobId id, const std::string& why) const {
    throw PolicyError(fmt::format("policy {} made an invalid decision at t={}s: job {} ({}): {}", scheduler_.name(),
                                  format_seconds(now_), jobs_[id].name, id, why));
  }
  void arrive(JobId id);
  void complete(JobId id);
  void change_gpu(GpuId g, JobId id, bool start);

  const Scenario& scenario_;
  const std::vector<Job>& jobs_;
  Scheduler& scheduler_;
  const RunOptions& options_;
  Cluster cluster_;
  Shapes shapes_;
  std::vector<JobRecord> records_;
  std::vector<uint32_t> pending_by_shape_;
  uint32_t distinct_pending_shapes_ = 0;
  std::vector<QueueKey> keys_;
  Metrics metrics_;
  EventQueue events_;
  std::set<std::pair<QueueKey, JobId>> pending_;
  std::vector<JobId> new_arrivals_;
  std::vector<JobId> bound_;  // bound in the current decision pass
  bool capacity_grew_ = false;
  Time now_;
  uint32_t running_ = 0;
  uint64_t event_count_ = 0;
  uint64_t decision_points_ = 0;
};

void Engine::arrive(JobId id) {
  ++event_count_;
  if (shapes_.get(shapes_.of(id)).never_fits) {
    records_[id].status = JobStatus::unschedulable;
    return;
  }
  records_[id].status = JobStatus::pending;
  keys_[id] = scheduler_.queue_key(jobs_[id]);
  pending_.emplace(keys_[id], id);
  if (pending_by_shape_[shapes_.of(id)]++ == 0) ++distinct_pending_shapes_;
  new_arrivals_.push_back(id);
}

void Engine::change_gpu(GpuId g, JobId id, bool start) {
  const Gpu& gpu = cluster_.gpu(g);
  const PoolId pool = cluster_.node(gpu.node).pool;
  const GpuDemand d = demand_on(jobs_[id].request, cluster_.pool(pool));
  const double u = jobs_[id].u;
  const double before = busy_fraction(gpu.demand);
  if (start) cluster_.allocate_gpu(g, d.milli, d.memory_mib, u);
  else cluster_.release_gpu(g, d.milli, d.memory_mib, u);
  metrics_.add_busy(pool, busy_fraction(cluster_.gpu(g).demand) - before);
  metrics_.add_allocation(pool, jobs_[id].tenant, start ? d.milli.value : -d.milli.value);
}

void Engine::bind(JobId id, const Placement& p) {
  if (id >= jobs_.size()) throw PolicyError(fmt::format("policy {} bound unknown job id {}", scheduler_.name(), id));
  const Job& j = jobs_[id];
  if (records_[id].status != JobStatus::pending) reject(id, fmt::format("job is {}, not pending", to_string(records_[id].status)));
  if (p.nodes.empty()) reject(id, "placement names no node");
  if (static_cast<int32_t>(p.gpus.size()) != j.request.gpus)
    reject(id, fmt::format("placement has {} GPUs, the job asks {}", p.gpus.size(), j.request.gpus));
  if (p.nodes.size() > 1 && !j.multi_node) reject(id, "placement spans nodes but the job may not (multi_node is off)");
  if (j.request.gpus == 0 && p.nodes.size() != 1) reject(id, "a job without GPUs runs on exactly one node");
  for (std::size_t i = 0; i < p.nodes.size(); ++i) {
    const NodeId n = p.nodes[i];
    if (n >= cluster_.nodes().size()) reject(id, fmt::format("unknown node id {}", n));
    for (std::size_t k = 0; k < i; ++k)
      if (p.nodes[k] == n) reject(id, fmt::format("node {} listed twice", cluster_.node(n).name));
    if (!pool_allowed(id, cluster_.node(n).pool))
      reject(id, fmt::format("node {} is in pool {}, which the job may not use", cluster_.node(n).name, cluster_.pool_of(n).name));
    if (!node_admits(id, n)) reject(id, fmt::format("node {} lacks the CPU or memory the job asks", cluster_.node(n).name));
    if (j.request.gpus > 0 && std::none_of(p.gpus.begin(), p.gpus.end(), [&](GpuId g) {
          return g < cluster_.gpu_count() && cluster_.gpu(g).node == n;
        }))
      reject(id, fmt::format("node {} holds none of the job's GPUs", cluster_.node(n).name));
  }
  for (std::size_t i = 0; i < p.gpus.size(); ++i) {
    const GpuId g = p.gpus[i];
    if (g >= cluster_.gpu_count()) reject(id, fmt::format("unknown GPU id {}", g));
    for (std::size_t k = 0; k < i; ++k)
      if (p.gpus[k] == g) reject(id, fmt::format("GPU {} listed twice", g));
    if (std::find(p.nodes.begin(), p.nodes.end(), cluster_.gpu(g).node) == p.nodes.end())
      reject(id, fmt::format("GPU {} is on node {}, which the placement does not list", g, cluster_.node(cluster_.gpu(g).node).name));
    if (!gpu_fits(id, g)) reject(id, fmt::format("GPU {} of node {} does not have room", g, cluster_.node(cluster_.gpu(g).node).name));
  }
  for (NodeId n : p.nodes) cluster_.allocate(n, j.request.cpu_milli, j.request.memory_mib);
  for (GpuId g : p.gpus) change_gpu(g, id, true);
  for (NodeId n : p.nodes) cluster_.reindex(n);
  JobRecord& r = records_[id];
  r.status = JobStatus::running;
  r.start = now_;
  r.placement = p;
  bound_.push_back(id);
  if (--pending_by_shape_[shapes_.of(id)] == 0) --distinct_pending_shapes_;
  ++running_;
  events_.push(now_ + j.work, EventKind::completion, id, r.generation);
}

void Engine::complete(JobId id) {
  ++event_count_;
  JobRecord& r = records_[id];
  const Job& j = jobs_[id];
  for (GpuId g : r.placement.gpus) change_gpu(g, id, false);
  for (NodeId n : r.placement.nodes) {
    cluster_.release(n, j.request.cpu_milli, j.request.memory_mib);
    cluster_.reindex(n);
  }
  r.status = JobStatus::completed;
  r.end = now_;
  --running_;
  capacity_grew_ = true;
}

RunResult Engine::run() {
  const Time horizon = scenario_.horizon.value_or(Time::max());
  std::size_t next_arrival = 0;
  uint64_t iterations = 0;
  while (true) {
    const bool have_arrival = next_arrival < jobs_.size();
    if (!have_arrival && events_.empty()) break;
    Time t = Time::max();
    if (have_arrival) t = jobs_[next_arrival].arrival;
    if (!events_.empty()) t = std::min(t, events_.top().time);
    if (t >= horizon) break;
    metrics_.advance(t, running_, static_cast<uint32_t>(pending_.size()));
    now_ = t;
    while (next_arrival < jobs_.size() && jobs_[next_arrival].arrival == t) arrive(static_cast<JobId>(next_arrival++));
    while (!events_.empty() && events_.top().time == t) {
      const Event e = events_.top();
      events_.pop();
      if (e.generation != records_[e.target].generation) continue;  // moved since it was scheduled
      complete(e.target);
    }
    if (!pending_.empty() && (capacity_grew_ || !new_arrivals_.empty())) {
      std::sort(new_arrivals_.begin(), new_arrivals_.end(),
                [&](JobId a, JobId b) { return std::pair(keys_[a], a) < std::pair(keys_[b], b); });
      ++decision_points_;
      scheduler_.decide(*this, *this);
      for (JobId id : bound_) pending_.erase({keys_[id], id});
      bound_.clear();
    }
    new_arrivals_.clear();
    capacity_grew_ = false;
    if (options_.progress && (++iterations & 0xFFF) == 0)
      options_.progress(scenario_.horizon ? t.seconds() / horizon.seconds()
                                          : static_cast<double>(next_arrival) / static_cast<double>(jobs_.size()));
  }
  const Time end = scenario_.horizon ? horizon : now_;
  metrics_.advance(end, running_, static_cast<uint32_t>(pending_.size()));

  std::map<std::string, uint64_t> reasons;
  for (JobId id = 0; id < jobs_.size(); ++id)
    if (records_[id].status == JobStatus::unschedulable) reasons[*shapes_.get(shapes_.of(id)).never_fits]++;
  std::vector<std::pair<std::string, uint64_t>> sorted(reasons.begin(), reasons.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return RunResult{scheduler_.name(), end,          std::move(cluster_),        std::move(records_),
                   std::move(metrics_), std::move(sorted), event_count_, decision_points_};
}

}  // namespace

void validate_scenario(const Scenario& s) {
  if (std::none_of(s.jobs.jobs.begin(), s.jobs.jobs.end(), [](const Job& j) { return j.strict; })) return;
  const Cluster c = build_cluster(s);
  for (const Job& j : s.jobs.jobs) {
    if (!j.strict) continue;
    const Shape shape = analyse(j.request, j.multi_node, c, *s.catalog);
    if (shape.never_fits) {
      const auto colon = j.origin.rfind(':');
      std::optional<int> line;
      std::string file = j.origin;
      if (colon != std::string::npos) {
        line = std::stoi(j.origin.substr(colon + 1));
        file = j.origin.substr(0, colon);
      }
      throw InputError({file, line, "workload.jobs"}, fmt::format("job '{}' can never run: it {}", j.name, *shape.never_fits));
    }
  }
}

RunResult simulate(const Scenario& scenario, Scheduler& scheduler, const RunOptions& options) {
  validate_scenario(scenario);
  Engine engine(scenario, scheduler, options);
  return engine.run();
}

}  // namespace gpusim
