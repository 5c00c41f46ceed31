#include "gpusim/sim/audit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gpusim/core/paged_vector.hpp"
#include "gpusim/core/time.hpp"
#include "gpusim/sim/metrics.hpp"
#include "gpusim/sim/power.hpp"
#include "gpusim/sim/power_budgets.hpp"
#include "gpusim/sim/scenario.hpp"

namespace gpusim {

namespace {

class Audit final : public Observer {
 public:
  void started(const RunState& run) override {
    const Cluster& c = run.cluster();
    used_milli_ = PagedVector<int64_t>(c.gpu_count());
    ready_gpus_of_ = PagedVector<uint32_t>(c.node_count());
    ready_gpus_ = 0;
    pool_used_milli_.assign(c.pools().size(), 0);
    c.for_each_node([&](NodeId n) { check_node(run, n, "start", 0); });
    (void)c.take_changed();
    last_ = run.now();
    draws_ = PagedVector<Draw>(c.gpu_count());
    for (PoolId p{0}; p < c.pools().size(); ++p)
      power_.push_back(c.pool(p).gpu ? run.model().power.of(*c.pool(p).gpu, c.pool(p).power_limit_w) : GpuPower{});
    c.for_each_node([&](NodeId n) { node_state(run, n, NodeState::off); });
  }

  // Energy, integrated here from what the audit sees (nodes powered while billed, each GPU's residents'
  // busy shares as the power model says) and checked against the engine's integrals at the end.
  void node_state(const RunState& run, NodeId n, NodeState) override {
    if (power_.empty()) return;  // before started(): started() reads every node's state
    const Node& node = run.cluster().node(n);
    for (GpuId g = node.first_gpu; g < node.first_gpu + node.gpu_count; ++g) {
      Draw& d = draws_[g];
      bring(d, node.pool, run.now());
      const bool on = node.state != NodeState::off;
      if (on && !d.powered) d = {true, false, false, run.now(), run.now(), 0, d.energy_ws};
      d.powered = on;
    }
  }
  void gpu_busy_changed(const RunState& run, GpuId g) override {
    const Gpu& gpu = run.cluster().gpu(g);
    const PoolId pool = run.cluster().node(gpu.node).pool;
    Draw& d = draws_[g];
    bring(d, pool, run.now());
    BoundMix mix{};
    for (JobId j : gpu.residents) {
      const BoundMix m = run.power_mix(j);
      for (std::size_t b = 0; b < mix.size(); ++b) mix[b] += run.busy_share(j) * m[b];
    }
    const bool busy = gpu.busy > 0;
    if (d.busy && !busy) {
      d.idle_from = run.now();
      d.ever_busy = true;
    }
    d.busy = busy;
    d.busy_w = busy ? gpu_power_w(power_[pool], mix, Duration()) : 0;
  }
  void job_started(const RunState&, JobId id) override { started_jobs_.push_back(id); }
  void finished(const RunState& run) override {
    const Cluster& c = run.cluster();
    std::vector<double> pool_ws(c.pools().size(), 0.0);
    c.for_each_node([&](NodeId n) {
      const Node& node = c.node(n);
      for (GpuId g = node.first_gpu; g < node.first_gpu + node.gpu_count; ++g) {
        Draw& d = draws_[g];
        bring(d, node.pool, run.now());
        const double engine_ws = run.metrics().gpu_energy_ws(g, run.now());
        if (std::abs(engine_ws - d.energy_ws) > 1e-9 * std::max(1.0, d.energy_ws))
          fail(
              run, "end", 0,
              fmt::format("energy not conserved on GPU {} of node {}: the metrics integrate {} W s, its draw over time is {} W s",
                          g - node.first_gpu, node.name, engine_ws, d.energy_ws));
        pool_ws[node.pool] += d.energy_ws;
      }
    });
    double facility_ws = 0, jobs_ws = 0;
    for (PoolId p{0}; p < c.pools().size(); ++p) {
      const PoolEnergy& e = run.metrics().pool_energy(p);
      if (std::abs(e.gpu_ws - pool_ws[p]) > 1e-9 * std::max(1.0, pool_ws[p]))
        fail(run, "end", 0,
             fmt::format("pool {}'s GPU energy {} W s is not the sum of its GPUs' {} W s", c.pool(p).name, e.gpu_ws, pool_ws[p]));
      facility_ws += (e.gpu_ws + e.host_ws) * c.pool(p).pue;
    }
    std::sort(started_jobs_.begin(), started_jobs_.end());
    started_jobs_.erase(std::unique(started_jobs_.begin(), started_jobs_.end()), started_jobs_.end());
    for (JobId j : started_jobs_) jobs_ws += run.record(j).energy_ws;  // a job never started holds nothing
    if (jobs_ws > facility_ws * (1 + 1e-9) + 1e-6)
      fail(run, "end", 0, fmt::format("jobs are charged {} W s, more than the fleet drew ({} W s)", jobs_ws, facility_ws));
  }

  bool wants_every_event() const override { return true; }

  void event_applied(const RunState& run, std::string_view what, uint32_t target) override {
    if (run.now() < last_) fail(run, what, target, fmt::format("the clock went back from t={}s", format_seconds(last_)));
    last_ = run.now();
    std::vector<NodeId> changed = run.cluster().take_changed();
    std::sort(changed.begin(), changed.end());
    changed.erase(std::unique(changed.begin(), changed.end()), changed.end());
    for (NodeId n : changed) check_node(run, n, what, target);
    const Cluster& c = run.cluster();
    if (c.ready_gpu_count() != ready_gpus_)
      fail(run, what, target,
           fmt::format("the cluster counts {} GPUs on ready nodes, its nodes have {}", c.ready_gpu_count(), ready_gpus_));
    if (run.power_budgets().any()) check_budgets(run, what, target);
    for (PoolId p{0}; p < c.pools().size(); ++p) {
      const double metered = run.metrics().allocated_gpus_now(p) * 1000.0;
      if (std::abs(metered - static_cast<double>(pool_used_milli_[p])) > 0.5)
        fail(run, what, target,
             fmt::format("GPU time not conserved in pool {}: the metrics integrate {:.3f} allocated GPUs, its GPUs hold {:.3f}",
                         c.pool(p).name, metered / 1000.0, static_cast<double>(pool_used_milli_[p]) / 1000.0));
    }
  }

 private:
  [[noreturn]] static void fail(const RunState& run, std::string_view what, uint32_t target, const std::string& why) {
    throw AuditError(fmt::format("audit: after {} {} at t={}s: {}", what, target, format_seconds(run.now()), why));
  }

  // Each power budget holds what its pools' powered nodes and the claims on their GPUs add up to, counted
  // again here from the cluster and the jobs, and no more than its limit.
  static void check_budgets(const RunState& run, std::string_view what, uint32_t target) {
    const PowerBudgets& b = run.power_budgets();
    const Cluster& c = run.cluster();
    std::vector<int64_t> held(b.count(), 0);
    c.for_each_node([&](NodeId n) {
      const Node& node = c.node(n);
      if (node.state != NodeState::off && b.budget_of(node.pool) >= 0)
        held[static_cast<std::size_t>(b.budget_of(node.pool))] += b.node_mw(node.pool, node.gpu_count);
    });
    for (JobId j{0}; j < run.scenario().jobs.jobs.size(); ++j) {
      const std::vector<GpuClaim>& claims = run.claims(j);
      for (std::size_t i = 0; i < claims.size(); ++i) {
        const PoolId p = c.node(c.gpu(run.last_placement(j).gpus[i]).node).pool;
        if (b.budget_of(p) >= 0)
          held[static_cast<std::size_t>(b.budget_of(p))] += b.claim_mw(p, run.job(j).kind,
                                                                       demand_on(run.job(j).request, c.pool(p)).milli);
      }
    }
    for (std::size_t i = 0; i < held.size(); ++i) {
      if (held[i] != b.held_mw(i))
        fail(run, what, target,
             fmt::format("power budget {} holds {} mW; its nodes and claims add up to {} mW", i, b.held_mw(i), held[i]));
      if (held[i] > b.limit_mw(i))
        fail(run, what, target, fmt::format("power budget {} holds {} mW, over its {} mW", i, held[i], b.limit_mw(i)));
    }
  }

  void check_node(const RunState& run, NodeId n, std::string_view what, uint32_t target) {
    const Cluster& c = run.cluster();
    const Node& node = c.node(n);
    const auto bad = [&](const std::string& why) { fail(run, what, target, fmt::format("node {}: {}", node.name, why)); };
    if (node.free_cpu_milli < 0 || node.free_memory_mib < 0 || node.free_cpu_milli > node.cpu_milli ||
        node.free_memory_mib > node.memory_mib)
      bad(fmt::format("free CPU {} milli / memory {} MiB outside [0, capacity {} / {}]", node.free_cpu_milli,
                      node.free_memory_mib, node.cpu_milli, node.memory_mib));
    const bool up = has_capacity(node.state);
    if (!up && (node.free_cpu_milli != node.cpu_milli || node.free_memory_mib != node.memory_mib))
      bad(fmt::format("is {} but pods still hold its CPU or memory", to_string(node.state)));
    const uint32_t ready_gpus = node.ready() ? node.gpu_count : 0;
    ready_gpus_ = ready_gpus_ + ready_gpus - ready_gpus_of_[n];
    ready_gpus_of_[n] = ready_gpus;
    const Pool& pool = c.pool(node.pool);
    for (GpuId g = node.first_gpu; g < node.first_gpu + node.gpu_count; ++g) {
      const Gpu& gpu = c.gpu(g);
      const auto gpu_bad = [&](const std::string& why) { bad(fmt::format("GPU {}: {}", g - node.first_gpu, why)); };
      if (!up && !gpu.residents.empty())
        gpu_bad(fmt::format("runs {} job(s) on a node that is {}", gpu.residents.size(), to_string(node.state)));
      int64_t milli = 0, reserve = 0, footprint = 0;
      for (JobId j : gpu.residents) {
        const JobRecord& r = run.record(j);
        if (r.status != JobStatus::running && r.status != JobStatus::pending)
          gpu_bad(fmt::format("holds job {}, which is {}", j, to_string(r.status)));
        const std::span<const GpuId> gpus = run.last_placement(j).gpus;
        const auto at = std::find(gpus.begin(), gpus.end(), g);
        if (at == gpus.end() || static_cast<std::size_t>(at - gpus.begin()) >= run.claims(j).size())
          gpu_bad(fmt::format("holds job {}, whose placement does not list it", j));
        const GpuClaim& claim = run.claims(j)[static_cast<std::size_t>(at - gpus.begin())];
        milli += claim.milli.value;
        reserve += claim.reserve_mib;
        footprint += claim.footprint_mib;
        if (claim.instance && gpu.instances[*claim.instance].job != j)
          gpu_bad(fmt::format("MIG slot {} does not name job {}, which claims it", *claim.instance, j));
      }
      if (gpu.free.value < 0 || gpu.free_memory_mib < 0 || gpu.used_memory_mib < 0)
        gpu_bad(fmt::format("over-committed: free share {} milli, free memory {} MiB, used memory {} MiB", gpu.free.value,
                            gpu.free_memory_mib, gpu.used_memory_mib));
      if (kWholeGpu.value - gpu.free.value != milli || pool.gpu->memory_mib - gpu.free_memory_mib != reserve ||
          gpu.used_memory_mib != footprint)
        gpu_bad(fmt::format("its residents claim {} milli and {} MiB ({} MiB in use) but it has {} milli and {} MiB ({}) taken",
                            milli, reserve, footprint, kWholeGpu.value - gpu.free.value,
                            pool.gpu->memory_mib - gpu.free_memory_mib, gpu.used_memory_mib));
      if (gpu.mig) {
        const MigTable& t = *pool.gpu->mig;
        MigLayout seen;
        for (const MigSlot& s : gpu.instances) {
          if (!exists(gpu, s)) continue;
          if (s.instance.profile < 0 || static_cast<std::size_t>(s.instance.profile) >= t.profiles.size())
            gpu_bad("a MIG instance has an unknown profile");
          if (auto why = mig_conflict(t, seen, s.instance.profile, s.instance.start))
            gpu_bad(fmt::format("MIG geometry: {}", *why));
          mig_add(seen, s.instance);
          if (s.job != kNoJob && std::find(gpu.residents.begin(), gpu.residents.end(), s.job) == gpu.residents.end())
            gpu_bad(fmt::format("MIG slot names job {}, which is not on the GPU", s.job));
        }
      } else if (gpu.free_slots() < 0) {
        gpu_bad(fmt::format("{} residents on {} replica(s)", gpu.residents.size(), gpu.slots));
      }
      pool_used_milli_[node.pool] += milli - used_milli_[g];
      used_milli_[g] = milli;
    }
  }

  struct Draw {
    bool powered = false, busy = false, ever_busy = false;
    Time since, idle_from;
    double busy_w = 0;
    double energy_ws = 0;  // up to `since`
  };
  void bring(Draw& d, PoolId pool, Time now) const {
    if (d.powered && now > d.since) {
      const GpuPower& p = power_[pool];
      d.energy_ws += d.busy ? d.busy_w * (now - d.since).seconds()
                            : idle_energy_ws(p, d.ever_busy ? d.since - d.idle_from : p.clock_hold, now - d.since);
    }
    d.since = now;
  }

  Time last_;
  std::vector<GpuPower> power_;  // per pool: its GPU model's draw
  PagedVector<Draw> draws_;      // per GPU
  std::vector<JobId> started_jobs_;
  PagedVector<int64_t> used_milli_;       // per GPU, at its last check
  std::vector<int64_t> pool_used_milli_;  // per pool: the sum of its GPUs' used_milli_
  PagedVector<uint32_t> ready_gpus_of_;   // per node: its GPUs if ready, at its last check
  uint64_t ready_gpus_ = 0;               // their sum
};

}  // namespace

std::unique_ptr<Observer> make_audit() { return std::make_unique<Audit>(); }

}  // namespace gpusim
