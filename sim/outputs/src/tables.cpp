// The result tables (report.hpp): jobs.csv, cost.csv, gpus.csv, the time series and tenants.csv, cell by
// cell into a TableSink (the CSV writer here, or Python's columns).
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <ostream>
#include <string>

#include "gpusim/sim/report.hpp"
#include "gpusim/sim/world.hpp"
#include "report_parts.hpp"

namespace gpusim {

using namespace report_parts;

void CsvSink::header(std::span<const std::string_view> columns) {
  for (std::string_view c : columns) {
    separate();
    buffer_ += c;
  }
  end_row();
}
void CsvSink::separate() {
  if (!first_) buffer_ += ',';
  first_ = false;
}
void CsvSink::cell(int64_t v) {
  separate();
  fmt::format_to(std::back_inserter(buffer_), "{}", v);
}
void CsvSink::cell(double v) {
  separate();
  fmt::format_to(std::back_inserter(buffer_), "{}", v);
}
void CsvSink::cell(Duration v) {
  separate();
  buffer_ += format_seconds(v);
}
void CsvSink::cell(std::string_view v) {
  separate();
  buffer_ += v;
}
void CsvSink::empty() { separate(); }
void CsvSink::end_row() {
  buffer_ += '\n';
  first_ = true;
  if (buffer_.size() >= 1 << 16) flush();
}
void CsvSink::flush() {
  out_ << buffer_;
  buffer_.clear();
}

void jobs_table(TableSink& sink, const Scenario& s, const RunResult& r) {
  std::vector<std::string_view> columns = {"id",
                                           "name",
                                           "tenant",
                                           "kind",
                                           "arrival_s",
                                           "start_s",
                                           "end_s",
                                           "queue_delay_s",
                                           "jct_s",
                                           "gpus",
                                           "gpu_milli",
                                           "u",
                                           "status",
                                           "pool",
                                           "placement",
                                           "slowdown",
                                           "kills",
                                           "lost_work_s",
                                           "link",
                                           "link_gb_per_s",
                                           "attempts",
                                           "evictions",
                                           "preemptions",
                                           "checkpoints",
                                           "lost_gpu_hours",
                                           "cost_usd",
                                           "unused_cost_usd",
                                           "energy_kwh"};
  // Carbon and energy cost only where some grid gives them, so that other runs keep their columns.
  const std::array<bool, kReportedFactors> factors = factors_given(r);
  for (std::size_t k = 0; k < kReportedFactors; ++k)
    if (factors[k]) columns.push_back(kFactorKeys[k]);
  // Only when some job has a deadline, so that runs without one keep their columns.
  const bool deadlines = s.jobs.any_deadline();
  if (deadlines) columns.insert(columns.end(), {"deadline_s", "deadline_met", "lateness_s"});
  columns.push_back("reason");  // why an unschedulable, rejected or failed job ended
  sink.header(columns);
  std::string reason;
  // A field that applies to the row, or an empty one.
  const auto cell_if = [&](bool applies, auto v) { applies ? sink.cell(v) : sink.empty(); };
  sink.reserve(s.jobs.jobs.size());
  std::string placement;
  for (const Job& j : s.jobs.jobs) {
    const JobRecord& rec = r.jobs[j.id];
    const bool started = rec.attempt > 0;
    const bool placed = rec.status == JobStatus::running || rec.status == JobStatus::completed;
    const bool done = rec.status == JobStatus::completed;
    const bool linked = placed && j.request.gpus >= 2;
    sink.cell(static_cast<int64_t>(j.id));
    sink.cell(j.name);
    sink.cell(s.jobs.tenants[j.tenant]);
    sink.cell(to_string(j.kind));
    sink.cell(r.arrival(j));
    cell_if(started, rec.first_start);
    cell_if(done, rec.end);
    cell_if(started, rec.first_start - r.arrival(j));
    cell_if(done, rec.end - r.arrival(j));
    sink.cell(static_cast<int64_t>(j.request.gpus));
    sink.cell(static_cast<int64_t>(j.request.gpus ? j.request.milli_per_gpu.value : 0));
    sink.cell(j.u);
    sink.cell(to_string(rec.status));
    if (placed) {
      const PlacementView p = r.placement(j.id);
      sink.cell(r.cluster.pool_of(p.nodes.front()).name);
      placement_text(placement, r.cluster, p);
      sink.cell(placement);
    } else {
      sink.empty();
      sink.empty();
    }
    cell_if(done, done ? round_to(rec.slowdown(), 6) : 0.0);
    sink.cell(static_cast<int64_t>(rec.kills));
    sink.cell(round_to(rec.lost_work.seconds(), 6));
    if (linked) {
      sink.cell(link_code(rec.link));
      sink.cell(round_to(rec.link.gb_per_s, 6));
    } else {
      sink.empty();
      sink.empty();
    }
    sink.cell(static_cast<int64_t>(rec.attempt));
    sink.cell(static_cast<int64_t>(rec.evictions));
    sink.cell(static_cast<int64_t>(rec.preemptions));
    sink.cell(static_cast<int64_t>(rec.checkpoints));
    sink.cell(round_to(rec.lost_gpu.hours(), 6));
    sink.cell(round_to(rec.cost_usd, 4));
    sink.cell(round_to(rec.cost_usd - rec.busy_cost_usd, 4));
    sink.cell(round_to(rec.energy_ws / 3.6e6, 6));
    for (std::size_t k = 0; k < kReportedFactors; ++k)
      if (factors[k]) sink.cell(round_to(per_kwh(r.job_factors[j.id][k]) * kFactorScale[k], 6));
    if (deadlines) {
      const std::optional<Duration> d = s.jobs.deadline(j);
      cell_if(d.has_value(), j.arrival + d.value_or(Duration()));
      cell_if(d.has_value(), static_cast<int64_t>(d && deadline_met(j, rec, *d)));
      cell_if(d && done, d && done ? lateness(j, rec, *d) : Duration());
    }
    // gpusim's CSV files are unquoted: a reason's commas are written as semicolons.
    reason = r.reasons.of(j.id);
    std::replace(reason.begin(), reason.end(), ',', ';');
    sink.cell(reason);
    sink.end_row();
  }
}

void write_jobs_csv(std::ostream& out, const Scenario& s, const RunResult& r) {
  CsvSink sink(out);
  jobs_table(sink, s, r);
}

void cost_table(TableSink& sink, const Scenario& s, const RunResult& r) {
  const Cluster& c = r.cluster;
  sink.header({"scope", "name", "market", "cost_usd", "allocated_cost_usd", "busy_cost_usd", "idle_cost_usd",
               "unused_allocated_cost_usd", "waste_usd", "gpu_hours_capacity", "gpu_hours_allocated", "gpu_hours_busy",
               "energy_kwh"});
  // An unpriced pool's row leaves its cost cells empty: what it cost is not known. Energy: the facility's,
  // of a pool's nodes, or drawn for a group's jobs.
  const auto row = [&](std::string_view scope, std::string_view name, std::string_view market, double cost, double allocated,
                       double busy, std::optional<double> capacity_h, double allocated_h, std::optional<double> busy_h,
                       double energy_kwh, bool priced) {
    const auto opt = [&](std::optional<double> v) { v ? sink.cell(round_to(*v, 6)) : sink.empty(); };
    const auto usd = [&](std::optional<double> v) { v&& priced ? sink.cell(round_to(*v, 2)) : sink.empty(); };
    sink.cell(scope);
    sink.cell(name);
    sink.cell(market);
    usd(cost);
    usd(allocated);
    usd(busy);
    usd(capacity_h ? std::optional(cost - allocated) : std::nullopt);
    usd(allocated - busy);
    usd(cost - busy);
    opt(capacity_h);
    sink.cell(round_to(allocated_h, 6));
    opt(busy_h);
    sink.cell(round_to(energy_kwh, 6));
    sink.end_row();
  };
  // Pools, then markets, then the total: billed cost, split into what jobs held and used.
  struct Sum {
    double cost = 0, allocated = 0, busy = 0, capacity_h = 0, allocated_h = 0, busy_h = 0, energy_kwh = 0;
    bool priced = false;  // any of its pools: a sum of unpriced pools alone is no cost either
  };
  std::map<std::string, Sum> markets;
  Sum total;
  for (PoolId p{0}; p < c.pools().size(); ++p) {
    const PoolEnergy& e = r.metrics.pool_energy(p);
    const Sum x{r.metrics.cost_usd(p),
                r.metrics.allocated_cost_usd(p),
                r.metrics.busy_cost_usd(p),
                r.metrics.capacity_gpu_time(p).hours(),
                r.metrics.allocated_gpu_time(p).hours(),
                r.metrics.busy_gpu_time(p).hours(),
                (e.gpu_ws + e.host_ws) * c.pool(p).pue / 3.6e6,
                c.pool(p).priced()};
    const std::string market(to_string(c.pool(p).market));
    row("pool", c.pool(p).name, market, x.cost, x.allocated, x.busy, x.capacity_h, x.allocated_h, x.busy_h, x.energy_kwh,
        x.priced);
    for (Sum* acc : {&markets[market], &total}) {
      acc->priced = acc->priced || x.priced;
      acc->cost += x.cost;
      acc->allocated += x.allocated;
      acc->busy += x.busy;
      acc->capacity_h += x.capacity_h;
      acc->allocated_h += x.allocated_h;
      acc->busy_h += x.busy_h;
      acc->energy_kwh += x.energy_kwh;
    }
  }
  for (const auto& [m, x] : markets)
    row("market", m, m, x.cost, x.allocated, x.busy, x.capacity_h, x.allocated_h, x.busy_h, x.energy_kwh, x.priced);
  row("total", "all", "", total.cost, total.allocated, total.busy, total.capacity_h, total.allocated_h, total.busy_h,
      total.energy_kwh, total.priced);
  // Jobs' held shares, rolled up: what they cost and what of it their SMs left unused.
  const CostRollup shares = roll_up_costs(s, r);
  const auto share_row = [&](std::string_view scope, std::string_view name, const CostShare& x, double hours) {
    row(scope, name, "", x.cost_usd, x.cost_usd, x.busy_cost_usd, std::nullopt, hours, std::nullopt, x.energy_ws / 3.6e6,
        total.priced);
  };
  for (uint16_t t = 0; t < shares.tenants.size(); ++t) {
    double hours = 0;
    for (PoolId p{0}; p < c.pools().size(); ++p) hours += r.metrics.allocated_gpu_time(p, t).hours();
    if (shares.tenants[t].cost_usd > 0 || hours > 0) share_row("tenant", s.jobs.tenants[t], shares.tenants[t], hours);
  }
  for (std::size_t k = 0; k < shares.kinds.size(); ++k)
    if (shares.kinds[k].cost_usd > 0 || shares.kinds[k].allocated_gpu.us() > 0)  // as tenants: unpriced pools too
      share_row("kind", to_string(static_cast<JobKind>(k)), shares.kinds[k], shares.kinds[k].allocated_gpu.hours());
  for (const auto& [m, x] : shares.models) share_row("gpu_model", m, x, x.allocated_gpu.hours());
}

void write_cost_csv(std::ostream& out, const Scenario& s, const RunResult& r) {
  CsvSink sink(out);
  cost_table(sink, s, r);
}

void write_low_utilization_csv(std::ostream& out, const RunResult& r) {
  out << "pool,start_s,end_s,duration_s,effective_utilization,cost_usd\n";
  for (const LowUtilizationWindow& w : r.metrics.low_utilization())
    fmt::print(out, "{},{},{},{},{},{}\n", r.cluster.pool(w.pool).name, format_seconds(w.start), format_seconds(w.end),
               format_seconds(w.end - w.start), round_to(ratio(w.busy_gpu.seconds(), w.capacity_gpu.seconds()), 6),
               round_to(w.cost_usd, 2));
}

void gpus_table(TableSink& sink, const RunResult& r) {
  const Cluster& c = r.cluster;
  const double seconds = r.end.seconds();
  sink.header({"gpu", "node", "pool", "index", "mig_layout", "busy_hours", "effective_utilization"});
  // The GPUs of the nodes the run built (slots an autoscaled pool never provisioned have none).
  for (const Pool& pool : c.pools())
    for (GpuId g = pool.first_gpu; g < pool.first_gpu + pool.gpus_built; ++g) {
      const Gpu& gpu = c.gpu(g);
      const Node& n = c.node(gpu.node);
      std::string layout;
      for (const MigSlot& m : gpu.instances)
        if (exists(gpu, m))
          layout += fmt::format("{}{}@{}", layout.empty() ? "" : "+", c.pool(n.pool).gpu->mig->profiles[m.instance.profile].name,
                                m.instance.start);
      const GpuTime busy = r.metrics.gpu_busy(g, r.end);
      sink.cell(static_cast<int64_t>(g.value()));
      sink.cell(n.name);
      sink.cell(c.pool(n.pool).name);
      sink.cell(static_cast<int64_t>(g - n.first_gpu));
      sink.cell(layout);
      sink.cell(round_to(busy.hours(), 6));
      sink.cell(round_to(ratio(busy.seconds(), seconds), 6));
      sink.end_row();
    }
}

void write_gpus_csv(std::ostream& out, const RunResult& r) {
  CsvSink sink(out);
  gpus_table(sink, r);
}

void timeseries_table(TableSink& sink, const RunResult& r) {
  sink.header({"time_s", "running", "pending", "gpus_allocated", "gpus_busy", "allocation_ratio", "effective_utilization",
               "gpus_ready", "nodes_billed", "cost_per_hour_usd", "power_kw"});
  for (const Sample& x : r.metrics.samples()) {
    sink.cell(x.time);
    sink.cell(x.running);
    sink.cell(x.pending);
    sink.cell(round_to(x.gpus_allocated, 6));
    sink.cell(round_to(x.gpus_busy, 6));
    sink.cell(round_to(ratio(x.gpus_allocated, x.gpus_ready), 6));
    sink.cell(round_to(ratio(x.gpus_busy, x.gpus_ready), 6));
    sink.cell(x.gpus_ready);
    sink.cell(x.nodes_billed);
    sink.cell(round_to(x.cost_per_hour_usd, 4));
    double kw = 0;
    for (const PoolSample& p : x.pools) kw += p.power_kw;
    sink.cell(round_to(kw, 4));
    sink.end_row();
  }
}

void write_timeseries_csv(std::ostream& out, const RunResult& r) {
  CsvSink sink(out);
  timeseries_table(sink, r);
}

void pool_timeseries_table(TableSink& sink, const RunResult& r) {
  sink.header({"time_s", "pool", "gpus_ready", "gpus_allocated", "gpus_busy", "allocation_ratio", "effective_utilization",
               "nodes_billed", "power_kw"});
  for (const Sample& x : r.metrics.samples())
    for (std::size_t i = 0; i < x.pools.size(); ++i) {
      const PoolSample& p = x.pools[i];
      sink.cell(x.time);
      sink.cell(r.cluster.pools()[i].name);
      sink.cell(p.gpus_ready);
      sink.cell(round_to(p.gpus_allocated, 6));
      sink.cell(round_to(p.gpus_busy, 6));
      sink.cell(round_to(ratio(p.gpus_allocated, p.gpus_ready), 6));
      sink.cell(round_to(ratio(p.gpus_busy, p.gpus_ready), 6));
      sink.cell(p.nodes_billed);
      sink.cell(round_to(p.power_kw, 4));
      sink.end_row();
    }
}

void write_pool_timeseries_csv(std::ostream& out, const RunResult& r) {
  CsvSink sink(out);
  pool_timeseries_table(sink, r);
}

void tenants_table(TableSink& sink, const Scenario& s, const RunResult& r) {
  sink.header({"scope",
               "name",
               "jobs",
               "jobs_completed",
               "jobs_rejected",
               "wait_mean_s",
               "wait_p99_s",
               "wait_max_s",
               "admission_wait_mean_s",
               "admission_wait_p99_s",
               "admission_wait_max_s",
               "mean_gpus_held",
               "mean_gpus_wanted",
               "mean_fair_share_gpus",
               "held_over_fair_share",
               "gpu_hours_allocated",
               "gpu_hours_lost",
               "cost_usd",
               "energy_kwh",
               "preemptions_received",
               "preemptions_caused",
               "preemption_reasons",
               "rejection_reasons",
               "nominal_gpus",
               "mean_quota_used_gpus",
               "gpu_hours_borrowed",
               "gpu_hours_lent",
               "fairness_jain"});
  if (!r.tenancy) return;
  const double span_s = (r.end - Time()).seconds();
  // Mean, p99 and max as summary.json gives them.
  const auto waits = [&](const std::vector<double>& v) {
    const Json w = wait_stats(v);
    for (const char* key : {"mean", "p99", "max"})
      if (w[key].is_null()) sink.empty();
      else sink.cell(w[key].get<double>());
  };
  // "reason:count;..." in the reasons' order; a reason's commas are written as semicolons (the file is unquoted).
  const auto reasons = [&](const std::map<std::string, uint64_t, std::less<>>& counts) {
    std::string text;
    for (const auto& [reason, n] : counts) text += fmt::format("{}{}:{}", text.empty() ? "" : ";", reason, n);
    std::replace(text.begin(), text.end(), ',', ';');
    sink.cell(text);
  };
  // One row; `kueue`: a ClusterQueue's or cohort's quota figures follow, and `jain` a cohort's index.
  const auto row = [&](std::string_view scope, std::string_view name, const GroupFigures& f, bool kueue, bool jain) {
    sink.cell(scope);
    sink.cell(name);
    sink.cell(static_cast<int64_t>(f.jobs));
    sink.cell(static_cast<int64_t>(f.completed));
    sink.cell(static_cast<int64_t>(f.rejected));
    waits(f.wait_s);
    waits(f.admission_wait_s);
    sink.cell(round_to(ratio(f.held_gpu_s, span_s), 6));
    sink.cell(round_to(ratio(f.demand_gpu_s, span_s), 6));
    sink.cell(round_to(ratio(f.fair_share_gpu_s, span_s), 6));
    sink.cell(round_to(ratio(f.held_gpu_s, f.fair_share_gpu_s), 6));
    sink.cell(round_to(f.held_gpu_s / 3600.0, 6));
    sink.cell(round_to(f.lost_gpu_s / 3600.0, 6));
    sink.cell(round_to(f.cost_usd, 2));
    sink.cell(round_to(f.energy_ws / 3.6e6, 6));
    sink.cell(static_cast<int64_t>(f.preemptions_received));
    sink.cell(static_cast<int64_t>(f.preemptions_caused));
    reasons(f.received_by_reason);
    reasons(f.rejections);
    if (kueue) {
      sink.cell(f.nominal_gpus);
      sink.cell(round_to(ratio(f.quota_used_gpu_hours * 3600.0, span_s), 6));
      sink.cell(round_to(f.borrowed_gpu_hours, 6));
      sink.cell(round_to(f.lent_gpu_hours, 6));
    } else {
      for (int i = 0; i < 4; ++i) sink.empty();
    }
    if (jain) sink.cell(round_to(f.jain, 6));
    else sink.empty();
    sink.end_row();
  };
  for (uint16_t t = 0; t < s.jobs.tenants.size(); ++t)
    if (r.tenancy->namespaces[t].jobs > 0) row("namespace", s.jobs.tenants[t], r.tenancy->namespaces[t], false, false);
  const KueueSpec& k = s.tenancy.kueue;
  for (std::size_t q = 0; q < r.tenancy->cluster_queues.size(); ++q)
    row("cluster_queue", k.cluster_queues[q].name, r.tenancy->cluster_queues[q], true, false);
  for (std::size_t c = 0; c < r.tenancy->cohorts.size(); ++c) row("cohort", k.cohorts[c].name, r.tenancy->cohorts[c], true, true);
}

void write_tenants_csv(std::ostream& out, const Scenario& s, const RunResult& r) {
  CsvSink sink(out);
  tenants_table(sink, s, r);
}

}  // namespace gpusim
