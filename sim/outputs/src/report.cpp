#include "gpusim/sim/report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <optional>
#include <span>

#include "gpusim/core/error.hpp"
#include "gpusim/sim/goodput.hpp"
#include "gpusim/sim/world.hpp"
#include "report_parts.hpp"

namespace gpusim {

namespace report_parts {

// The nearest rank (from 1) of percentile p of n values.
std::size_t nearest_rank(std::size_t n, double p) {
  return std::clamp<std::size_t>(static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(n))), 1, n);
}

// Reorders `values` in place: the three nearest-rank percentiles are selected (nth_element, each in
// what the one before left above it), not sorted for, so ten million values cost a few passes. `sum`:
// the values' sum in the order they were in before someone else reordered them.
Json stats(std::span<double> values, std::optional<double> sum = std::nullopt) {
  Json j;
  if (values.empty()) {
    j["count"] = 0;
    j["mean"] = nullptr;
    j["p50"] = nullptr;
    j["p95"] = nullptr;
    j["p99"] = nullptr;
    return j;
  }
  // Summed in the order given, before reordering, so the mean's rounding is as it was.
  const double mean = sum.value_or(std::accumulate(values.begin(), values.end(), 0.0)) / static_cast<double>(values.size());
  j["count"] = values.size();
  j["mean"] = round_to(mean, 3);
  auto from = values.begin();
  for (const auto& [name, p] : {std::pair{"p50", 50.0}, {"p95", 95.0}, {"p99", 99.0}}) {
    const auto at = values.begin() + static_cast<std::ptrdiff_t>(nearest_rank(values.size(), p) - 1);
    std::nth_element(from, at, values.end());
    j[name] = round_to(*at, 3);
    from = at;
  }
  return j;
}

// stats() and the maximum: for waits, where the longest shows starvation.
Json wait_stats(std::vector<double> values) {
  const double max = values.empty() ? 0.0 : *std::max_element(values.begin(), values.end());
  Json j = stats(values);
  j["max"] = values.empty() ? Json(nullptr) : Json(round_to(max, 3));
  return j;
}

Json reason_counts(const std::map<std::string, uint64_t, std::less<>>& counts) {
  Json j = Json::object();
  for (const auto& [reason, n] : counts) j[reason] = n;
  return j;
}

// A group's figures from the tenant ledger (tenant_ledger.hpp), over a run of `span_s` seconds.
void add_group_figures(Json& tj, const GroupFigures& f, double span_s) {
  tj["jobs_rejected"] = f.rejected;
  tj["rejections"] = reason_counts(f.rejections);
  tj["wait_s"] = wait_stats(f.wait_s);
  tj["admission_wait_s"] = wait_stats(f.admission_wait_s);
  tj["mean_gpus_held"] = round_to(ratio(f.held_gpu_s, span_s), 6);
  tj["mean_gpus_wanted"] = round_to(ratio(f.demand_gpu_s, span_s), 6);
  tj["mean_fair_share_gpus"] = round_to(ratio(f.fair_share_gpu_s, span_s), 6);
  tj["held_over_fair_share"] = round_to(ratio(f.held_gpu_s, f.fair_share_gpu_s), 6);
  tj["gpu_hours_lost"] = round_to(f.lost_gpu_s / 3600.0, 6);
  tj["preemptions_received"] = f.preemptions_received;
  tj["preemptions_received_by_reason"] = reason_counts(f.received_by_reason);
  tj["preemptions_caused"] = f.preemptions_caused;
  tj["preemptions_caused_by_reason"] = reason_counts(f.caused_by_reason);
}

// A ClusterQueue's or cohort's figures: its jobs', and its nvidia.com/gpu quota's.
// `above`: the cohort it is in (a ClusterQueue's `cohort`, a cohort's `parent`), "" for none.
Json kueue_group_json(std::string_view name, const char* above_key, std::string_view above, const GroupFigures& f,
                      double span_s) {
  Json j;
  j["name"] = name;
  j[above_key] = above.empty() ? Json(nullptr) : Json(above);
  j["jobs"] = f.jobs;
  j["jobs_completed"] = f.completed;
  j["gpu_hours_allocated"] = round_to(f.held_gpu_s / 3600.0, 6);
  j["cost_allocated_usd"] = round_to(f.cost_usd, 2);
  j["cost_unused_usd"] = round_to(f.cost_usd - f.busy_cost_usd, 2);
  j["nominal_gpus"] = f.nominal_gpus;
  j["mean_quota_used_gpus"] = round_to(ratio(f.quota_used_gpu_hours * 3600.0, span_s), 6);
  j["gpu_hours_borrowed"] = round_to(f.borrowed_gpu_hours, 6);
  j["gpu_hours_lent"] = round_to(f.lent_gpu_hours, 6);
  add_group_figures(j, f, span_s);
  return j;
}

// summary.json's `tenancy`: the cluster's fairness and, with Kueue, its ClusterQueues and cohorts.
Json tenancy_json(const Scenario& s, const TenancyFigures& t, double span_s) {
  Json out{{"fairness_jain", round_to(t.jain, 6)}, {"contended_s", round_to(t.contended_s, 3)}};
  if (t.cluster_queues.empty()) return out;
  const KueueSpec& k = s.tenancy.kueue;
  Json queues = Json::array(), cohorts = Json::array();
  for (std::size_t q = 0; q < t.cluster_queues.size(); ++q)
    queues.push_back(
        kueue_group_json(k.cluster_queues[q].name, "cohort", k.cluster_queues[q].cohort, t.cluster_queues[q], span_s));
  for (std::size_t c = 0; c < t.cohorts.size(); ++c) {
    Json j = kueue_group_json(k.cohorts[c].name, "parent", k.cohorts[c].parent, t.cohorts[c], span_s);
    j["fairness_jain"] = round_to(t.cohorts[c].jain, 6);
    j["contended_s"] = round_to(t.cohorts[c].contended_s, 3);
    cohorts.push_back(std::move(j));
  }
  out["cluster_queues"] = std::move(queues);
  out["cohorts"] = std::move(cohorts);
  return out;
}

CostRollup roll_up_costs(const Scenario& s, const RunResult& r) {
  CostRollup out{std::vector<CostShare>(s.jobs.tenants.size()), std::vector<CostShare>(enum_count<JobKind>), {}};
  for (const Job& j : s.jobs.jobs) {
    const JobRecord& rec = r.jobs[j.id];
    const FactorSums& f = r.job_factors[j.id];
    out.tenants[j.tenant].add(rec, f);
    out.kinds[static_cast<std::size_t>(j.kind)].add(rec, f);
    const PlacementView p = r.placement(j.id);
    if (p.nodes.empty()) continue;
    const Pool& pool = r.cluster.pool_of(p.nodes.front());
    out.models[pool.gpu ? pool.gpu->name : "(no GPU)"].add(rec, f);
  }
  return out;
}

std::array<bool, kReportedFactors> factors_given(const RunResult& r) {
  std::array<bool, kReportedFactors> given{};
  for (PoolId p{0}; p < r.cluster.pools().size(); ++p)
    for (std::size_t k = 0; k < kReportedFactors; ++k) given[k] = given[k] || r.metrics.pool_power(p).factors[k];
  return given;
}

// node:gpu+gpu|node:gpu; a MIG instance adds /profile@start. Into `out`, which it clears: one
// buffer serves every row of jobs.csv.
void placement_text(std::string& out, const Cluster& c, const PlacementView& p) {
  out.clear();
  std::size_t mig = 0;
  const bool one_node = p.nodes.size() == 1;  // then every GPU is on it: no need to look each up
  for (NodeId n : p.nodes) {
    if (!out.empty()) out += '|';
    out += c.node(n).name;
    char separator = ':';
    for (std::size_t i = 0; i < p.gpus.size(); ++i) {
      const GpuId g = p.gpus[i];
      if (!one_node && c.gpu(g).node != n) continue;
      out += separator;
      separator = '+';
      char index[12];  // the GPU's index on its node; to_chars, as fmt's "{}" but without parsing a format
      out.append(index, std::to_chars(index, std::end(index), g - c.node(n).first_gpu).ptr);
      if (i < p.instances.size() && p.instances[i] && mig < p.mig.size()) {
        const MigInstance in = p.mig[mig++];
        fmt::format_to(std::back_inserter(out), "/{}@{}", c.pool_of(n).gpu->mig->profiles[in.profile].name, in.start);
      }
    }
  }
}

std::string sharing_text(const SharingConfig& c) {
  switch (c.mode) {
    case Sharing::exclusive: return "exclusive";
    case Sharing::fractional: return fmt::format("fractional (runtime {})", to_string(c.runtime));
    case Sharing::time_slicing:
    case Sharing::mps: return fmt::format("{} x{} ({})", to_string(c.mode), c.replicas, c.gpu_resource());
    case Sharing::mig:
      if (c.device_resource == vendor_info(Vendor::amd).device_resource)
        return fmt::format("partition {} ({} naming)", c.mig_config, to_string(c.mig_strategy));
      return c.mig_partitionable ? "mig partitionable (DRA)"
                                 : fmt::format("mig {} ({} strategy)", c.mig_config, to_string(c.mig_strategy));
  }
  return "exclusive";
}

// Did the job end within its deadline? One that has not ended by the end of the run has not.
bool deadline_met(const Job& j, const JobRecord& rec, Duration deadline) {
  return rec.status == JobStatus::completed && rec.end <= j.arrival + deadline;
}
// How long after its deadline a completed job ended (0 when on time).
Duration lateness(const Job& j, const JobRecord& rec, Duration deadline) {
  return std::max(Duration(), rec.end - (j.arrival + deadline));
}
}  // namespace report_parts

using namespace report_parts;

double round_to(double v, int digits) {
  // Exact powers of ten (what std::pow gives for them), looked up: jobs.csv rounds seven fields a row.
  static constexpr double kScale[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
  const double scale = kScale[digits];
  const double r = std::round(v * scale) / scale;
  return r == 0.0 ? 0.0 : r;  // no "-0"
}

double ratio(double num, double den) { return den > 0 ? num / den : 0.0; }

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  const auto at = values.begin() + static_cast<std::ptrdiff_t>(report_parts::nearest_rank(values.size(), p) - 1);
  std::nth_element(values.begin(), at, values.end());
  return *at;
}

namespace {
void flatten_into(const Json& j, const std::string& prefix, bool arrays_by_name,
                  std::vector<std::pair<std::string, double>>& out) {
  const auto join = [&](const std::string& key) { return prefix.empty() ? key : fmt::format("{}.{}", prefix, key); };
  if (j.is_object()) {
    for (const auto& [key, value] : j.items()) flatten_into(value, join(key), arrays_by_name, out);
  } else if (j.is_array() && arrays_by_name) {
    for (const auto& item : j)
      if (item.is_object() && item.contains("name") && item["name"].is_string())
        flatten_into(item, join(item["name"].get<std::string>()), arrays_by_name, out);
  } else if (j.is_number()) {
    out.emplace_back(prefix, j.get<double>());
  }
}
}  // namespace

std::vector<std::pair<std::string, double>> flatten_summary(const Json& summary, bool arrays_by_name) {
  std::vector<std::pair<std::string, double>> out;
  flatten_into(summary, "", arrays_by_name, out);
  return out;
}

// Which GPU models the jobs' durations are stated on (docs/hardware.md#job-speed), each with its
// number of jobs; a reference the run took from model.speed's default says so. Replicas' speed is the
// serving model's: they state no work.
Json speed_notes(const Scenario& s) {
  struct Count {
    uint64_t jobs = 0;
    bool defaulted = false;
  };
  std::map<std::string_view, Count> by_reference;
  for (const Job& j : s.jobs.jobs) {
    if (j.id < replica_jobs(s.services)) continue;
    const JobReference ref = job_reference(s, j);
    Count& c = by_reference[ref.gpu];
    ++c.jobs;
    c.defaulted = c.defaulted || ref.defaulted;
  }
  Json notes = Json::array();
  for (const auto& [gpu, c] : by_reference) {
    const bool one = c.jobs == 1;
    const std::string jobs = fmt::format("{} job{}", c.jobs, one ? "" : "s");
    if (gpu == JobSpeed::kAny)
      notes.push_back(fmt::format("{} take{} as long on every GPU model (reference_gpu any: durations as recorded on {} "
                                  "own cluster, whatever GPU ran them): no hardware factor.",
                                  jobs, one ? "s" : "", one ? "its" : "their"));
    else if (c.defaulted)
      notes.push_back(fmt::format("{} {} durations stated on {}, the default reference GPU: set workload.reference_gpu (or a "
                                  "job's reference_gpu) to the GPU {} measured on (docs/hardware.md#job-speed).",
                                  jobs, one ? "has" : "have", gpu, one ? "it was" : "they were"));
  }
  return notes;
}

Json summarize(const Scenario& s, const RunResult& r) {
  const Cluster& c = r.cluster;
  const double hours = r.end.hours();
  const double seconds = r.end.seconds();
  Json out;
  out["gpusim_version"] = kVersion;
  out["scenario"] = s.name;
  if (!s.variant.empty()) out["variant"] = s.variant;
  out["policy"] = r.policy;
  out["seed"] = s.seed;
  // Only then, so the summaries of scenarios with a seed are as before.
  if (!s.seed_given) out["seed_is_default"] = true;
  out["horizon_s"] = s.horizon ? Json(s.horizon->seconds()) : Json(nullptr);
  out["simulated_s"] = seconds;

  double cost = 0, capacity = 0, allocated = 0, busy = 0;
  GpuTime allocated_gpu;
  PoolEnergy energy;  // IT, summed over pools
  double facility_kwh = 0;
  FactorSums facility_f{};  // g of CO2e, USD
  const std::array<bool, kReportedFactors> has = factors_given(r);
  Json pools = Json::array();
  for (PoolId p{0}; p < c.pools().size(); ++p) {
    const Pool& pool = c.pool(p);
    const double pool_cost = r.metrics.cost_usd(p);
    const double cap = r.metrics.capacity_gpu_time(p).hours();
    const double alloc = r.metrics.allocated_gpu_time(p).hours();
    const double b = r.metrics.busy_gpu_time(p).hours();
    cost += pool_cost;
    capacity += cap;
    allocated += alloc;
    allocated_gpu += r.metrics.allocated_gpu_time(p);
    busy += b;
    Json pj;
    pj["name"] = pool.name;
    pj["node_template"] = pool.node_template;
    pj["gpu_model"] = pool.gpu ? Json(pool.gpu->name) : Json(nullptr);
    // Only where they apply (NVIDIA pools' summaries are as before issue 46).
    if (pool.gpu && pool.gpu->vendor != Vendor::nvidia) pj["gpu_vendor"] = to_string(pool.gpu->vendor);
    if (pool.nvlink_domain_nodes > 0) pj["nvlink_domain_nodes"] = pool.nvlink_domain_nodes;
    pj["sharing"] = sharing_text(pool.sharing);
    if (pool.sharing.mode == Sharing::mig && !pool.sharing.mig_partitionable) {  // a partitionable one has no layout
      std::size_t instances = 0;
      for (GpuId g = pool.first_gpu; g < pool.first_gpu + pool.gpus_built; ++g) instances += c.gpu(g).instances.size();
      pj[pool.gpu->partitions ? "partitions" : "mig_instances"] = instances;
    }
    pj["market"] = to_string(pool.market);
    pj["nodes"] = pool.node_count;
    pj["nodes_initial"] = pool.initial_nodes;
    pj["gpus"] = pool.gpu_count;
    pj["gpus_peak"] = r.metrics.peak_ready_gpus(p);
    pj["price_per_node_hour_usd"] = pool.priced() ? Json(pool.price_per_node_hour_usd) : Json(nullptr);
    pj["node_hours_billed"] = round_to(r.metrics.billed_node_time(p).hours(), 6);
    pj["cost_usd"] = round_to(pool_cost, 2);
    pj["gpu_hours_capacity"] = round_to(cap, 6);
    pj["gpu_hours_allocated"] = round_to(alloc, 6);
    pj["gpu_hours_busy"] = round_to(b, 6);
    pj["allocation_ratio"] = round_to(ratio(alloc, cap), 6);
    pj["effective_utilization"] = round_to(ratio(b, cap), 6);
    pj["allocated_cost_usd"] = round_to(r.metrics.allocated_cost_usd(p), 2);
    pj["busy_cost_usd"] = round_to(r.metrics.busy_cost_usd(p), 2);
    pj["idle_cost_usd"] = round_to(pool_cost - r.metrics.allocated_cost_usd(p), 2);
    pj["unused_allocated_cost_usd"] = round_to(r.metrics.allocated_cost_usd(p) - r.metrics.busy_cost_usd(p), 2);
    pj["waste_usd"] = round_to(pool_cost - r.metrics.busy_cost_usd(p), 2);
    if (!pool.priced())  // what it cost is not known: no figure rather than a plausible 0
      for (const char* key :
           {"cost_usd", "allocated_cost_usd", "busy_cost_usd", "idle_cost_usd", "unused_allocated_cost_usd", "waste_usd"})
        pj[key] = nullptr;
    const PoolEnergy& e = r.metrics.pool_energy(p);
    const double it_kwh = (e.gpu_ws + e.host_ws) / 3.6e6;
    // An owned pool's cost is its write-off and maintenance (the node-hour price) plus its electricity.
    if (pool.market == Market::owned) {
      const double electricity = pool.pue * (e.gpu_f[kOwnedElectricity] + e.host_f[kOwnedElectricity]) / 3.6e6;
      pj["owned"] = {{"capital_usd", round_to(pool_cost - electricity, 2)},
                     {"electricity_usd", round_to(electricity, 2)},
                     {"cost_per_gpu_hour_usd", round_to(ratio(pool_cost, cap), 6)}};
    }
    pj["energy"] = {{"kwh", round_to(it_kwh * pool.pue, 6)},
                    {"gpu_kwh", round_to(e.gpu_ws / 3.6e6, 6)},
                    {"host_kwh", round_to(e.host_ws / 3.6e6, 6)},
                    {"pue", pool.pue},
                    {"average_power_kw", round_to(ratio(it_kwh * pool.pue, hours), 6)}};
    if (pool.power_limit_w) pj["energy"]["power_limit_w"] = *pool.power_limit_w;
    // Carbon and energy cost where some grid gives them (null for a pool whose grid does not).
    for (std::size_t k = 0; k < kReportedFactors; ++k) {
      const double v = per_kwh((e.gpu_f[k] + e.host_f[k]) * pool.pue);
      facility_f[k] += v;
      if (has[k])
        pj["energy"][kFactorKeys[k]] = r.metrics.pool_power(p).factors[k] ? Json(round_to(v * kFactorScale[k], 6))
                                                                          : Json(nullptr);
    }
    energy.gpu_ws += e.gpu_ws;
    energy.host_ws += e.host_ws;
    facility_kwh += it_kwh * pool.pue;
    const PoolActivity& a = r.pools[p];
    if (pool.autoscale.enabled)
      pj["autoscale"] = {{"min", pool.autoscale.min_nodes},
                         {"max", pool.autoscale.max_nodes},
                         {"nodes_requested", a.nodes_requested},
                         {"nodes_removed", a.nodes_removed}};
    if (pool.spot.process != SpotConfig::Process::none) {
      Json sj;
      sj["process"] = to_string(pool.spot.process);
      if (pool.spot.process == SpotConfig::Process::poisson)
        sj["interruptions_per_node_month"] = round_to(pool.spot.hazard_per_node_hour * kHoursPerMonth, 6);
      else sj["trace"] = std::filesystem::path(pool.spot.availability->file).filename().string();
      sj["notice_s"] = pool.spot.notice.seconds();
      sj["reclaims"] = a.reclaims;
      sj["replacements_requested"] = pool.autoscale.enabled ? 0 : a.nodes_requested;
      sj["requests_cancelled"] = a.cancelled;
      pj["spot"] = std::move(sj);
    }
    pools.push_back(std::move(pj));
  }
  out["gpus"] = c.gpu_count();
  out["gpus_peak"] = r.metrics.peak_ready_gpus();
  // Every cost figure below covers the priced pools only.
  Json unpriced = Json::array();
  for (const Pool& pool : c.pools())
    if (!pool.priced()) unpriced.push_back(pool.name);
  out["unpriced_pools"] = std::move(unpriced);
  out["cost_usd"] = round_to(cost, 2);
  out["cost_per_month_usd"] = round_to(hours > 0 ? cost / hours * kHoursPerMonth : 0.0, 2);
  out["gpu_hours_capacity"] = round_to(capacity, 6);
  out["gpu_hours_allocated"] = round_to(allocated, 6);
  out["gpu_hours_busy"] = round_to(busy, 6);
  out["allocation_ratio"] = round_to(ratio(allocated, capacity), 6);
  out["effective_utilization"] = round_to(ratio(busy, capacity), 6);
  // Goodput (goodput.hpp) comes from the jobs' records, below, right after these keys.

  const auto& jobs = s.jobs.jobs;
  std::size_t completed = 0, running = 0, pending = 0, unschedulable = 0, failed = 0, rejected = 0;
  uint64_t kills = 0, evictions = 0, checkpoints = 0, preemptions = 0;
  Work lost;
  GpuTime lost_gpu, checkpoint_gpu, restore_gpu;
  GoodputParts good;
  std::map<std::string, std::size_t> links;  // multi-GPU jobs started, by the slowest link they ran over last
  std::vector<std::size_t> t_jobs(s.jobs.tenants.size(), 0), t_done(s.jobs.tenants.size(), 0);
  // The lists of per-job values that percentiles need are made one at a time, where they are used, in
  // job order: a million jobs' lists held together would cost some 40 MB (issue 22).
  const auto collect = [&](auto value) {
    std::vector<double> v;
    v.reserve(jobs.size());  // pages reserved and never written cost nothing
    for (const Job& j : jobs)
      if (const std::optional<double> x = value(j, r.jobs[j.id])) v.push_back(*x);
    return v;
  };
  const auto jct_of = [](const Job& j, const JobRecord& rec) {
    return rec.status == JobStatus::completed ? std::optional((rec.end - j.arrival).seconds()) : std::nullopt;
  };
  Time first_arrival = Time::max(), last_end;
  for (const Job& j : jobs) {
    const JobRecord& rec = r.jobs[j.id];
    t_jobs[j.tenant]++;
    kills += rec.kills;
    evictions += rec.evictions;
    checkpoints += rec.checkpoints;
    preemptions += rec.preemptions;
    lost += rec.lost_work;
    lost_gpu += rec.lost_gpu;
    checkpoint_gpu += rec.checkpoint_gpu;
    restore_gpu += rec.restore_gpu;
    good.computing += rec.computing_gpu;
    good.comm_stall += rec.comm_stall_gpu;
    good.rerun += rec.rerun_gpu;
    if (j.request.gpus >= 2 && (rec.status == JobStatus::running || rec.status == JobStatus::completed)) {
      links[link_code(rec.link)]++;
    }
    switch (rec.status) {
      case JobStatus::completed:
        ++completed;
        t_done[j.tenant]++;
        first_arrival = std::min(first_arrival, j.arrival);
        last_end = std::max(last_end, rec.end);
        break;
      case JobStatus::running: ++running; break;
      case JobStatus::pending:
      case JobStatus::queued: ++pending; break;
      case JobStatus::unschedulable: ++unschedulable; break;
      case JobStatus::failed: ++failed; break;
      case JobStatus::rejected: ++rejected; break;
      case JobStatus::not_arrived: break;
    }
  }
  const GpuTime goodput_gpu = goodput(good);
  out["gpu_hours_goodput"] = round_to(goodput_gpu.hours(), 6);
  out["goodput_ratio"] = round_to(goodput_ratio(goodput_gpu, allocated_gpu), 6);
  out["goodput"] = {{"gpu_hours_computing", round_to(good.computing.hours(), 6)},
                    {"gpu_hours_comm_stall", round_to(good.comm_stall.hours(), 6)},
                    {"gpu_hours_rerun", round_to(good.rerun.hours(), 6)}};
  out["jobs_total"] = jobs.size();
  out["jobs_completed"] = completed;
  out["jobs_running_at_end"] = running;
  out["jobs_pending_at_end"] = pending;
  out["jobs_unschedulable"] = unschedulable;
  out["jobs_failed"] = failed;
  if (s.tenancy.given) out["jobs_rejected"] = rejected;  // by admission (docs/guide/tenants.md)
  out["jobs_not_arrived"] = jobs.size() - completed - running - pending - unschedulable - failed - rejected;
  out["job_kills"] = kills;
  out["lost_gpu_work_s"] = round_to(lost.seconds(), 6);
  out["oom_events"] = r.oom_events;
  out["mps_faults"] = r.mps_faults;
  out["mig_reconfigurations"] = r.reconfigurations;
  Json sd;
  {
    // Every kind's slowdowns one after the other (their mean sums them in that order, before each
    // kind's stats reorder its own stretch in place: no copy of a million values at the run's peak).
    std::vector<double> all;
    all.reserve(jobs.size());
    std::vector<std::size_t> kind_end;
    const uint32_t replicas = replica_jobs(
        s.services);  // they have no work to get through: the services' figures say how they did
    for (std::size_t k = 0; k < enum_count<JobKind>; ++k) {
      for (const Job& j : jobs) {
        if (static_cast<std::size_t>(j.kind) != k || j.id < replicas) continue;
        const JobRecord& rec = r.jobs[j.id];
        if (rec.status == JobStatus::completed) all.push_back(rec.slowdown());
        // A running job's slowdown so far: time since its start over the work it got through.
        else if (const Work done = rec.attempt_work - rec.remaining; rec.status == JobStatus::running && done > Work())
          all.push_back((r.end - rec.start).seconds() / done.seconds());
      }
      kind_end.push_back(all.size());
    }
    const double sum = std::accumulate(all.begin(), all.end(), 0.0);
    for (std::size_t k = 0, from = 0; k < kind_end.size(); from = kind_end[k++])
      if (kind_end[k] != from)
        sd[std::string(to_string(static_cast<JobKind>(k)))] = stats(std::span(all).subspan(from, kind_end[k] - from));
    sd["all"] = stats(all, sum);
  }
  out["slowdown"] = std::move(sd);
  {
    std::vector<double> jct = collect(jct_of);
    out["jct_s"] = stats(jct);
  }
  {
    // Every job that has started, to its first start (evicted or in its restart back-off too).
    std::vector<double> delay = collect([&](const Job& j, const JobRecord& rec) -> std::optional<double> {
      const bool started = rec.status == JobStatus::completed || rec.status == JobStatus::running ||
                           ((rec.status == JobStatus::pending || rec.status == JobStatus::not_arrived) && rec.attempt > 0);
      if (!started) return std::nullopt;
      return (rec.first_start - r.arrival(j)).seconds();
    });
    out["queue_delay_s"] = stats(delay);
  }
  Json multi;
  multi["jobs_started"] = std::accumulate(links.begin(), links.end(), std::size_t{0},
                                          [](std::size_t a, const auto& l) { return a + l.second; });
  multi["slowest_link"] = links;
  std::vector<double> multi_jct = collect(
      [&](const Job& j, const JobRecord& rec) { return j.request.gpus >= 2 ? jct_of(j, rec) : std::nullopt; });
  multi["jct_s"] = stats(multi_jct);
  multi_jct = {};
  out["multi_gpu"] = std::move(multi);
  out["makespan_s"] = completed ? Json(round_to((last_end - first_arrival).seconds(), 6)) : Json(nullptr);
  out["preemptions"] = preemptions;  // by the scheduler (srtf, las, tiresias); spot evictions are under spot
  if (s.jobs.any_deadline()) {
    // Only when some job has one (issue 23). A job not ended by the end of the run missed it; lateness
    // is over the jobs with a deadline that ended (0 for those on time).
    std::size_t met = 0, missed = 0;
    std::vector<double> late;
    for (const Job& j : jobs) {
      const std::optional<Duration> d = s.jobs.deadline(j);
      if (!d) continue;
      const JobRecord& rec = r.jobs[j.id];
      ++(deadline_met(j, rec, *d) ? met : missed);
      if (rec.status == JobStatus::completed) late.push_back(lateness(j, rec, *d).seconds());
    }
    out["deadlines_met"] = met;
    out["deadlines_missed"] = missed;
    out["lateness_mean_s"] =
        late.empty() ? Json(nullptr)
                     : Json(round_to(std::accumulate(late.begin(), late.end(), 0.0) / static_cast<double>(late.size()), 6));
    out["lateness_max_s"] = late.empty() ? Json(nullptr) : Json(round_to(*std::max_element(late.begin(), late.end()), 6));
  }

  // Spot reclaims, checkpoints and the work they cost (GPU-hours: GPU time to redo or spent pausing).
  uint64_t reclaims = 0, requested = 0, removed = 0, cancelled = 0;
  for (const PoolActivity& a : r.pools) {
    reclaims += a.reclaims;
    requested += a.nodes_requested;
    removed += a.nodes_removed;
    cancelled += a.cancelled;
  }
  out["spot"] = {{"reclaim_notices", reclaims},
                 {"evictions", evictions},
                 {"checkpoints_written", checkpoints},
                 {"gpu_hours_lost_to_rollback", round_to(lost_gpu.hours(), 6)},
                 {"gpu_hours_checkpointing", round_to(checkpoint_gpu.hours(), 6)},
                 {"gpu_hours_restoring", round_to(restore_gpu.hours(), 6)}};
  out["nodes"] = {{"requested", requested}, {"removed_idle", removed}, {"requests_cancelled", cancelled}};

  // Cost: by market, and attributed to jobs by the share of capacity they held.
  double allocated_cost = 0, busy_cost = 0;
  std::map<std::string, double> by_market;
  for (PoolId p{0}; p < c.pools().size(); ++p) {
    allocated_cost += r.metrics.allocated_cost_usd(p);
    busy_cost += r.metrics.busy_cost_usd(p);
    by_market[std::string(to_string(c.pool(p).market))] += r.metrics.cost_usd(p);
  }
  Json cj;
  cj["total_usd"] = round_to(cost, 2);
  Json markets;
  for (const auto& [m, v] : by_market) markets[m] = round_to(v, 2);
  cj["by_market_usd"] = std::move(markets);
  cj["allocated_usd"] = round_to(allocated_cost, 2);
  cj["busy_usd"] = round_to(busy_cost, 2);
  cj["idle_usd"] = round_to(cost - allocated_cost, 2);
  cj["unused_allocated_usd"] = round_to(allocated_cost - busy_cost, 2);
  cj["waste_usd"] = round_to(cost - busy_cost, 2);
  cj["waste_ratio"] = round_to(ratio(cost - busy_cost, cost), 6);
  Json kinds;
  const CostRollup shares = roll_up_costs(s, r);
  for (std::size_t k = 0; k < shares.kinds.size(); ++k)
    if (shares.kinds[k].jobs > 0) kinds[std::string(to_string(static_cast<JobKind>(k)))] = shares.kinds[k].json();
  cj["by_kind"] = std::move(kinds);
  Json models;
  for (const auto& [m, share] : shares.models) models[m] = share.json();
  cj["by_gpu_model"] = std::move(models);
  out["cost"] = std::move(cj);

  // Energy (issue 45; docs/guide/energy.md): the facility's (IT x each pool's PUE), its GPUs' and hosts' at
  // the IT load, and the part drawn for jobs (their shares of GPUs and hosts, idle and busy); the rest no
  // job held.
  double jobs_ws = 0;
  for (const JobRecord& rec : r.jobs) jobs_ws += rec.energy_ws;
  out["energy"] = {{"kwh", round_to(facility_kwh, 6)},
                   {"gpu_kwh", round_to(energy.gpu_ws / 3.6e6, 6)},
                   {"host_kwh", round_to(energy.host_ws / 3.6e6, 6)},
                   {"jobs_kwh", round_to(jobs_ws / 3.6e6, 6)},
                   {"unallocated_kwh", round_to(facility_kwh - jobs_ws / 3.6e6, 6)},
                   {"average_power_kw", round_to(ratio(facility_kwh, hours), 6)}};
  // Carbon (kg of CO2e) and energy cost (USD), the fleet's and charged to jobs, where some grid gives them.
  for (std::size_t k = 0; k < kReportedFactors; ++k) {
    if (!has[k]) continue;
    double jobs_f = 0;
    for (JobId j{0}; j < r.jobs.size(); ++j) jobs_f += per_kwh(r.job_factors[j][k]);
    out["energy"][kFactorKeys[k]] = round_to(facility_f[k] * kFactorScale[k], 6);
    out["energy"][fmt::format("jobs_{}", kFactorKeys[k])] = round_to(jobs_f * kFactorScale[k], 6);
  }
  // Power budgets (docs/guide/energy.md#power-budgets), where the cluster gives them: what each held at
  // its peak, and who waited for it.
  if (!r.power_budgets.empty()) {
    Json budgets = Json::array();
    double peak_kw = 0;
    uint64_t waited = 0;
    for (const PowerBudgetUse& b : r.power_budgets) {
      Json names = Json::array();
      for (PoolId p{0}; p < r.cluster.pools().size(); ++p)
        if (b.pool_mask >> p & 1) names.push_back(r.cluster.pool(p).name);
      budgets.push_back({{"name", b.name},
                         {"pools", std::move(names)},
                         {"kw", round_to(b.limit_w / 1000.0, 6)},
                         {"peak_kw", round_to(b.peak_w / 1000.0, 6)},
                         {"jobs_waited", b.jobs_waited},
                         {"nodes_refused", b.nodes_refused}});
      peak_kw += b.peak_w / 1000.0;
      waited += b.jobs_waited;
    }
    out["energy"]["budget_peak_kw"] = round_to(peak_kw, 6);
    out["energy"]["jobs_waited_for_power"] = waited;
    out["power_budgets"] = std::move(budgets);
  }

  const auto& windows = r.metrics.low_utilization();
  double window_hours = 0, window_cost = 0;
  for (const auto& w : windows) {
    window_hours += (w.end - w.start).hours();
    window_cost += w.cost_usd;
  }
  out["low_utilization"] = {{"threshold", r.metrics.alert().threshold},
                            {"min_duration_s", r.metrics.alert().min_duration.seconds()},
                            {"windows", windows.size()},
                            {"hours", round_to(window_hours, 6)},
                            {"cost_usd", round_to(window_cost, 2)}};

  out["pools"] = std::move(pools);
  Json tenants = Json::array();
  std::vector<std::vector<double>> t_jct(s.jobs.tenants.size());
  for (std::size_t t = 0; t < t_jct.size(); ++t) t_jct[t].reserve(t_done[t]);
  for (const Job& j : jobs)
    if (const std::optional<double> x = jct_of(j, r.jobs[j.id])) t_jct[j.tenant].push_back(*x);
  for (uint16_t t = 0; t < s.jobs.tenants.size(); ++t) {
    if (t_jobs[t] == 0) continue;
    double t_alloc = 0;
    for (PoolId p{0}; p < c.pools().size(); ++p) t_alloc += r.metrics.allocated_gpu_time(p, t).hours();
    Json tj;
    tj["name"] = s.jobs.tenants[t];
    tj["jobs"] = t_jobs[t];
    tj["jobs_completed"] = t_done[t];
    tj["gpu_hours_allocated"] = round_to(t_alloc, 6);
    tj["cost_allocated_usd"] = round_to(shares.tenants[t].cost_usd, 2);
    tj["cost_unused_usd"] = round_to(shares.tenants[t].cost_usd - shares.tenants[t].busy_cost_usd, 2);
    tj["energy_kwh"] = round_to(shares.tenants[t].energy_ws / 3.6e6, 6);
    for (std::size_t k = 0; k < kReportedFactors; ++k)
      if (has[k]) tj[kFactorKeys[k]] = round_to(per_kwh(shares.tenants[t].factors[k]) * kFactorScale[k], 6);
    tj["jct_s"] = stats(t_jct[t]);
    if (r.tenancy) add_group_figures(tj, r.tenancy->namespaces[t], (r.end - Time()).seconds());
    tenants.push_back(std::move(tj));
  }
  out["tenants"] = std::move(tenants);
  if (r.tenancy) out["tenancy"] = tenancy_json(s, *r.tenancy, (r.end - Time()).seconds());

  Json reasons = Json::array();
  for (const auto& [why, n] : r.unschedulable_reasons) reasons.push_back({{"reason", why}, {"jobs", n}});
  out["unschedulable_reasons"] = std::move(reasons);
  if (!s.tenancy.resource_quotas.empty()) {
    Json rejected_reasons = Json::array();
    for (const auto& [why, n] : r.tenancy->rejections()) rejected_reasons.push_back({{"reason", why}, {"jobs", n}});
    out["rejected_reasons"] = std::move(rejected_reasons);
  }
  // Jobs that failed for good, by why (their kills outlasted the restart policy).
  std::map<std::string_view, uint64_t> failed_by;
  for (const auto& [id, why] : r.reasons.of_job)
    if (r.jobs[id].status == JobStatus::failed) ++failed_by[r.reasons.texts[why]];
  Json failed_reasons = Json::array();
  for (const auto& [why, n] : failed_by) failed_reasons.push_back({{"reason", why}, {"jobs", n}});
  out["failed_reasons"] = std::move(failed_reasons);
  add_services_summary(out, s, r);
  out["events"] = r.events;
  out["decision_points"] = r.decision_points;

  Json notes = Json::array();
  notes.push_back("A job runs at a rate = speed factor x sharing factor: its speed on its GPU model against the GPU its duration "
                  "is stated on (its class's row of the throughput table, docs/hardware.md#job-speed) times its share of the GPU "
                  "(time-slicing, MPS, MIG slice; docs/guide/sharing.md), and a multi-GPU job's iterations also wait for their "
                  "collective over the slowest link of its ring (docs/guide/topology.md); slowdown = run time of "
                  "its last attempt / the work that attempt had left.");
  notes.push_back("A GPU's busy fraction is min(1, sum over its jobs of u x sharing rate), as DCGM would show (0 while a job "
                  "writes or restores a checkpoint); effective_utilization = busy GPU-hours / capacity GPU-hours (GPUs of ready "
                  "nodes), allocation_ratio = allocated GPU-hours / capacity GPU-hours (a MIG instance allocates its share of "
                  "memory slices, a time-slicing or MPS replica 1/replicas).");
  notes.push_back(
      "gpu_hours_goodput = GPU-hours jobs held while computing, less the part spent waiting in collectives "
      "(goodput.gpu_hours_comm_stall) and the part whose progress a kill or eviction threw away (goodput.gpu_hours_rerun); "
      "checkpoint writes, restores and workers waiting for their gang are not computing. goodput_ratio = gpu_hours_goodput / "
      "gpu_hours_allocated. Unlike busy GPU-hours, stalls and re-run work do not count.");
  notes.push_back("Cost = billed node-hours x price: a node is billed from its request until it is gone (docs/guide/markets.md, "
                  "Cost and waste). Jobs are charged the share of GPUs they hold x the pool's price per GPU-hour; waste = cost - "
                  "busy cost = idle capacity + allocated-but-unused capacity.");
  notes.push_back("A share request (gpu_milli < 1000) on an exclusive pool takes a whole GPU.");
  notes.push_back("Percentiles are nearest-rank; jct_s covers completed jobs, queue_delay_s every job that has started (to its "
                  "first start).");
  if (!s.seed_given) notes.push_back(fmt::format("Seed {} (the default: the scenario has no seed).", s.seed));
  if (!s.services.empty())
    notes.push_back(
        "Services (docs/guide/services.md): replicas serve as vLLM V1 does (continuous batching, chunked prefill, "
        "recompute preemption) with iteration times from a roofline of the share of the GPU each replica has; latency "
        "percentiles are nearest-rank within 0.1 %; slo_attainment = requests within every per-request target / requests "
        "arrived, goodput_rps = those requests / seconds to the last request completed; replica jobs are charged as jobs.");
  out["model_notes"] = std::move(notes);
  // What this run's figures rest on that the scenario did not say: the terminal table repeats these.
  Json run_notes = speed_notes(s);
  struct Unpriced {
    std::string_view node_template;
    bool spot;
    std::vector<std::string_view> pools;
  };
  std::vector<Unpriced> unpriced_by_template;  // one note per node template (a node list's pools share one), in pool order
  for (const Pool& pool : c.pools()) {
    if (pool.priced()) continue;
    const bool spot = pool.market == Market::spot;
    auto it = std::find_if(unpriced_by_template.begin(), unpriced_by_template.end(),
                           [&](const Unpriced& u) { return u.node_template == pool.node_template && u.spot == spot; });
    if (it == unpriced_by_template.end())
      it = unpriced_by_template.insert(unpriced_by_template.end(), Unpriced{pool.node_template, spot, {}});
    it->pools.push_back(pool.name);
  }
  for (const Unpriced& u : unpriced_by_template) {
    const bool one = u.pools.size() == 1;
    run_notes.push_back(fmt::format("Pool{} {} {} unpriced (node template {} has no {}price, nor does the scenario): no cost "
                                    "figure counts {}; give {} price_per_gpu_hour_usd or price_per_node_hour_usd.",
                                    one ? "" : "s", fmt::join(u.pools, ", "), one ? "is" : "are", u.node_template,
                                    u.spot ? "spot " : "", one ? "it" : "them", one ? "the pool" : "each"));
  }
  out["run_notes"] = std::move(run_notes);
  return out;
}

}  // namespace gpusim
