// summary.json's `serving` and `services`, services.csv and requests.csv: what the scenario's
// inference services did (docs/guide/services.md).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ostream>

#include "gpusim/sim/report.hpp"
#include "report_parts.hpp"

namespace gpusim {

using report_parts::factors_given;
using report_parts::kFactorKeys;
using report_parts::kFactorScale;
using report_parts::per_kwh;

namespace {

double round6(double v) { return round_to(v, 6); }
double seconds(int64_t us) { return round6(static_cast<double>(us) / 1e6); }

Json latency_json(const LatencyHistogram& h) {
  if (h.count() == 0) return Json(nullptr);
  return {{"p50", seconds(h.percentile_us(50))},
          {"p90", seconds(h.percentile_us(90))},
          {"p99", seconds(h.percentile_us(99))},
          {"mean", round6(h.mean_us() / 1e6)}};
}

const LatencyHistogram& histogram(const ServiceFigures& f, LatencyMetric m) {
  switch (m) {
    case LatencyMetric::ttft: return f.ttft;
    case LatencyMetric::tpot: return f.tpot;
    case LatencyMetric::itl: return f.itl;
    case LatencyMetric::e2e: return f.e2e;
    case LatencyMetric::queue: return f.queue;
  }
  return f.e2e;
}

// Why requests did not complete (requests.csv's reason, the summary's requests_not_completed): one
// reason for each way (no commas: gpusim's CSV files are unquoted).
constexpr std::string_view kTooLong = "longer than the model's context (prompt + output tokens over max_model_len)";
constexpr std::string_view kTimedOut = "its client gave up (the service's timeout passed)";
constexpr std::string_view kWaiting = "waiting for a replica at the end of the run";
constexpr std::string_view kInProgress = "in progress at the end of the run";

std::string_view request_reason(const RequestRow& q) {
  switch (q.status) {
    case 1: return kTooLong;
    case 2: return q.queue_us < 0 ? kWaiting : kInProgress;
    case 3: return kTimedOut;
    default: return "";
  }
}

Json not_completed(const ServiceFigures& f) {
  Json out = Json::array();
  const auto add = [&](std::string_view status, std::string_view reason, uint64_t n) {
    if (n > 0) out.push_back({{"status", status}, {"reason", reason}, {"requests", n}});
  };
  add("rejected", kTooLong, f.rejected);
  add("timed_out", kTimedOut, f.timed_out);
  add("unfinished", kWaiting, f.waiting);
  add("unfinished", kInProgress, f.unfinished - f.waiting);
  return out;
}

// Does a service hold its requests to a target (an SLO on each request, not on a percentile)? Without
// one, no request is "within SLO": attainment and goodput have no basis.
bool holds_requests(const ServiceSpec& s) {
  return std::any_of(s.slo.begin(), s.slo.end(), [](const SloTarget& t) { return t.percentile == 0; });
}

// What a pool's replicas held: GPU-hours and cost allocated to them, and the energy drawn for them.
struct Allocation {
  double gpu_hours = 0, cost_usd = 0, energy_ws = 0;
  FactorSums factors{};  // the energy weighed by the grids' factors
  Allocation& operator+=(const Allocation& o) {
    gpu_hours += o.gpu_hours;
    cost_usd += o.cost_usd;
    energy_ws += o.energy_ws;
    for (std::size_t k = 0; k < kReportedFactors; ++k) factors[k] += o.factors[k];
    return *this;
  }
};

// The figures a service and the sum of all services share; `held`: what its replicas held.
// `slo_arrived`: the requests of services that hold their requests to a target (none: no attainment).
void add_figures(Json& j, const ServiceFigures& f, uint64_t slo_arrived, double span_s, const Allocation& held,
                 const std::array<bool, kReportedFactors>& factors) {
  const double cost_usd = held.cost_usd;
  j["requests_arrived"] = f.arrived;
  j["requests_completed"] = f.completed;
  j["requests_rejected"] = f.rejected;
  j["requests_unfinished"] = f.unfinished;
  j["requests_retried"] = f.retried;
  j["preemptions"] = f.preemptions;
  j["prompt_tokens"] = f.prompt_tokens;
  j["output_tokens"] = f.output_tokens;
  for (const auto& [m, name] : enum_entries<LatencyMetric>) j[fmt::format("{}_s", name)] = latency_json(histogram(f, m));
  // Rates per second of serving: from 0 to the last request completed (vLLM's benchmark duration), not
  // to the end of a run that jobs may make longer.
  const double served_s = f.completed ? (f.last_completion - Time()).seconds() : span_s;
  j["slo_attainment"] = slo_arrived ? Json(round6(ratio(static_cast<double>(f.good), static_cast<double>(slo_arrived))))
                                    : Json(nullptr);
  j["goodput_rps"] = slo_arrived ? Json(round6(ratio(static_cast<double>(f.good), served_s))) : Json(nullptr);
  j["throughput_rps"] = round6(ratio(static_cast<double>(f.completed), served_s));
  j["output_tokens_per_s"] = round6(ratio(static_cast<double>(f.output_tokens), served_s));
  j["mean_ready_replicas"] = round6(ratio(f.ready_replica_s, span_s));
  j["gpu_hours_allocated"] = round6(held.gpu_hours);
  j["cost_usd"] = round_to(cost_usd, 2);
  j["cost_per_million_output_tokens_usd"] = f.output_tokens ? Json(round6(cost_usd / static_cast<double>(f.output_tokens) * 1e6))
                                                            : Json(nullptr);
  j["cost_per_thousand_requests_usd"] = f.completed ? Json(round6(cost_usd / static_cast<double>(f.completed) * 1e3))
                                                    : Json(nullptr);
  // Energy (issue 45): the facility's, for the replicas' share of their GPUs and hosts (docs/guide/energy.md),
  // per output token and per completed request as ML.ENERGY's leaderboard gives them.
  j["energy_kwh"] = round6(held.energy_ws / 3.6e6);
  j["energy_per_output_token_j"] = f.output_tokens ? Json(round6(held.energy_ws / static_cast<double>(f.output_tokens)))
                                                   : Json(nullptr);
  j["energy_per_request_j"] = f.completed ? Json(round6(held.energy_ws / static_cast<double>(f.completed))) : Json(nullptr);
  // Carbon (and energy cost) where some grid gives it: the total and per million output tokens.
  for (std::size_t k = 0; k < kReportedFactors; ++k) {
    if (!factors[k]) continue;
    const double v = per_kwh(held.factors[k]) * kFactorScale[k];
    j[kFactorKeys[k]] = round6(v);
    j[fmt::format("{}_per_million_output_tokens", kFactorKeys[k])] =
        f.output_tokens ? Json(round6(v / static_cast<double>(f.output_tokens) * 1e6)) : Json(nullptr);
  }
  if (f.prefix_caching) {  // vLLM's prefix cache hit rate: cached over queried tokens, at each scheduling from waiting
    j["prefix_cache_hit_rate"] = f.prefix_queried_tokens ? Json(round6(static_cast<double>(f.prefix_hit_tokens) /
                                                                       static_cast<double>(f.prefix_queried_tokens)))
                                                         : Json(nullptr);
    j["prefill_tokens_saved"] = f.prefix_hit_tokens;
  }
}

// A pool's replicas: what they held.
Allocation pool_allocation(const ServiceSpec& spec, const RunResult& r) {
  Allocation a;
  for (int32_t k = 0; k < spec.max_replicas; ++k) {
    const JobRecord& rec = r.jobs[spec.first_job + static_cast<uint32_t>(k)];
    a += {rec.allocated_gpu.hours(), rec.cost_usd, rec.energy_ws, r.job_factors[spec.first_job + static_cast<uint32_t>(k)]};
  }
  return a;
}

// What a pool's replicas did: the service's own figures, or a disaggregated service's per pool.
void add_pool_figures(Json& j, const ServiceSpec& spec, const ServiceFigures& f, const ScalingFigures& g, double span_s) {
  j["replica_starts"] = f.replica_starts;
  j["iterations"] = f.iterations;
  j["cold_start_mean_s"] = f.replica_starts ? Json(round6(f.cold_start_s / static_cast<double>(f.replica_starts)))
                                            : Json(nullptr);
  j["kv_cache_blocks_min"] = f.kv_blocks_min;
  j["kv_cache_blocks_max"] = f.kv_blocks_max;
  if (spec.autoscaler) {
    j["max_replicas"] = spec.max_replicas;
    j["replicas_mean"] = span_s > 0 ? Json(round6(g.pod_s / span_s)) : Json(nullptr);
    j["replicas_peak"] = g.max_pods;
    j["scale_ups"] = g.scale_ups;
    j["scale_downs"] = g.scale_downs;
  }
}

}  // namespace

void add_services_summary(Json& out, const Scenario& s, const RunResult& r) {
  if (s.services.empty()) return;
  const double span_s = (r.end - Time()).seconds();
  const std::array<bool, kReportedFactors> factors = factors_given(r);
  ServiceFigures all;
  uint64_t all_slo_arrived = 0;
  Allocation all_held;
  double all_pod_s = 0;
  Json services = Json::array();
  for (std::size_t i = 0; i < s.services.size(); ++i) {
    const ServiceSpec& spec = s.services[i];
    if (spec.role == PoolRole::decode) continue;  // its prefill pool's entry has it
    ServiceFigures f = r.services[i];
    Allocation held = pool_allocation(spec, r);
    double pod_s = r.scaling[i].pod_s;
    Json j;
    j["name"] = spec.name;
    j["model"] = spec.model->name;
    j["replicas"] = spec.replicas;
    j["tensor_parallel"] = spec.tensor_parallel;
    if (spec.role == PoolRole::prefill) {
      // One service, two pools: their replicas' figures side by side, their sum in the service's.
      const ServiceSpec& dspec = s.services[spec.peer];
      const ServiceFigures& d = r.services[spec.peer];
      const Allocation d_held = pool_allocation(dspec, r);
      const auto pool = [&](const ServiceSpec& ps, const ServiceFigures& pf, const Allocation& a, const ScalingFigures& g) {
        Json p;
        p["replicas"] = ps.replicas;
        p["tensor_parallel"] = ps.tensor_parallel;
        p["mean_ready_replicas"] = round6(ratio(pf.ready_replica_s, span_s));
        p["gpu_hours_allocated"] = round6(a.gpu_hours);
        p["cost_usd"] = round_to(a.cost_usd, 2);
        p["energy_kwh"] = round6(a.energy_ws / 3.6e6);
        add_pool_figures(p, ps, pf, g, span_s);
        return p;
      };
      Json pools;
      pools["prefill"] = pool(spec, f, held, r.scaling[i]);
      pools["decode"] = pool(dspec, d, d_held, r.scaling[spec.peer]);
      j["replicas"] = spec.replicas + dspec.replicas;
      j.erase("tensor_parallel");  // each pool's
      j["pools"] = std::move(pools);
      j["kv_transfer_s"] = latency_json(f.kv_transfer);
      j["kv_transferred_gb"] = round6(f.kv_transfer_bytes / 1e9);
      f.preemptions += d.preemptions;
      f.ready_replica_s += d.ready_replica_s;
      f.cold_start_s += d.cold_start_s;
      f.replica_starts += d.replica_starts;
      f.iterations += d.iterations;
      f.kv_blocks_min = std::min(f.kv_blocks_min, d.kv_blocks_min);
      f.kv_blocks_max = std::max(f.kv_blocks_max, d.kv_blocks_max);
      held += d_held;
      pod_s += r.scaling[spec.peer].pod_s;
    }
    j["requests"] = f.requests;
    const uint64_t slo_arrived = holds_requests(spec) ? f.arrived : 0;
    add_figures(j, f, slo_arrived, span_s, held, factors);
    if (spec.timeout) j["requests_timed_out"] = f.timed_out;
    if (spec.role == PoolRole::prefill) {
      j["replica_starts"] = f.replica_starts;
      j["iterations"] = f.iterations;
    } else {
      add_pool_figures(j, spec, f, r.scaling[i], span_s);
    }
    Json slo = Json::object();
    for (const SloTarget& t : spec.slo) {
      if (t.percentile == 0) continue;
      const LatencyHistogram& h = histogram(f, t.metric);
      const int64_t value = t.percentile < 0 ? std::llround(h.mean_us()) : h.percentile_us(t.percentile);
      slo[t.key] = {
          {"target_s", t.limit.seconds()}, {"value_s", seconds(value)}, {"met", h.count() > 0 && value <= t.limit.us()}};
    }
    if (!slo.empty()) j["slo"] = std::move(slo);
    services.push_back(std::move(j));
    all.arrived += f.arrived;
    all.completed += f.completed;
    all.rejected += f.rejected;
    all.unfinished += f.unfinished;
    all.waiting += f.waiting;
    all.timed_out += f.timed_out;
    all.retried += f.retried;
    all.preemptions += f.preemptions;
    all.prefix_caching = all.prefix_caching || f.prefix_caching;
    all.prefix_queried_tokens += f.prefix_queried_tokens;
    all.prefix_hit_tokens += f.prefix_hit_tokens;
    if (holds_requests(spec)) {  // a service without a target counts toward neither side
      all.good += f.good;
      all_slo_arrived += slo_arrived;
    }
    all.prompt_tokens += f.prompt_tokens;
    all.output_tokens += f.output_tokens;
    all.ready_replica_s += f.ready_replica_s;
    all.iterations += f.iterations;
    all.replica_starts += f.replica_starts;
    all.cold_start_s += f.cold_start_s;
    all_pod_s += pod_s;
    all.last_completion = std::max(all.last_completion, f.last_completion);
    all.ttft.merge(f.ttft);
    all.tpot.merge(f.tpot);
    all.itl.merge(f.itl);
    all.e2e.merge(f.e2e);
    all.queue.merge(f.queue);
    all_held += held;
  }
  Json serving;
  add_figures(serving, all, all_slo_arrived, span_s, all_held, factors);
  serving["iterations"] = all.iterations;
  serving["requests_not_completed"] = not_completed(all);
  if (std::any_of(s.services.begin(), s.services.end(), [](const ServiceSpec& v) { return v.timeout.has_value(); }))
    serving["requests_timed_out"] = all.timed_out;
  // Replicas over the run (pods, ready or not) and how long a new one took to be ready.
  serving["replicas_mean"] = span_s > 0 ? Json(round6(all_pod_s / span_s)) : Json(nullptr);
  serving["replica_starts"] = all.replica_starts;
  serving["cold_start_mean_s"] = all.replica_starts ? Json(round6(all.cold_start_s / static_cast<double>(all.replica_starts)))
                                                    : Json(nullptr);
  out["serving"] = std::move(serving);
  out["services"] = std::move(services);
}

void services_table(TableSink& sink, const Json& summary) {
  // The columns are the figures of summary.json's services, flattened: the two cannot drift.
  std::vector<std::string> columns{"name", "model", "requests"};
  const Json& services = summary.contains("services") ? summary["services"] : Json::array();
  std::vector<std::vector<std::pair<std::string, double>>> rows;
  for (const Json& svc : services) rows.push_back(flatten_summary(svc));
  // Every service has the same keys but its latency blocks may be null (nothing completed): the union, in first-seen order.
  std::vector<std::string> keys;
  for (const auto& row : rows)
    for (const auto& [k, v] : row)
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  for (const auto& k : keys) columns.push_back(k);
  std::vector<std::string_view> views(columns.begin(), columns.end());
  sink.header(views);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    sink.cell(services[i]["name"].get<std::string>());
    sink.cell(services[i]["model"].get<std::string>());
    sink.cell(services[i]["requests"].get<std::string>());
    for (const auto& k : keys) {
      const auto it = std::find_if(rows[i].begin(), rows[i].end(), [&](const auto& kv) { return kv.first == k; });
      if (it == rows[i].end()) sink.empty();
      else sink.cell(it->second);
    }
    sink.end_row();
  }
}

void write_services_csv(std::ostream& out, const Json& summary) {
  CsvSink sink(out);
  services_table(sink, summary);
}

void requests_table(TableSink& sink, const Scenario& s, const RunResult& r) {
  // cached_tokens where a service caches prefixes: prompt tokens found cached when first scheduled.
  const bool caching = std::any_of(r.services.begin(), r.services.end(),
                                   [](const ServiceFigures& f) { return f.prefix_caching; });
  // prefill_replica and kv_transfer_s where a service is disaggregated.
  const bool split = std::any_of(s.services.begin(), s.services.end(),
                                 [](const ServiceSpec& v) { return v.role == PoolRole::prefill; });
  std::vector<std::string_view> columns{"service", "request", "arrival_s", "status", "replica"};
  if (split) columns.push_back("prefill_replica");
  columns.insert(columns.end(), {"prompt_tokens", "output_tokens", "generated_tokens"});
  if (caching) columns.push_back("cached_tokens");
  columns.insert(columns.end(), {"queue_s", "ttft_s"});
  if (split) columns.push_back("kv_transfer_s");
  columns.insert(columns.end(), {"e2e_s", "tpot_s", "preemptions", "retries", "reason"});
  sink.header(columns);
  sink.reserve(r.requests.size());
  const auto seconds = [&](int64_t us) {
    if (us < 0) sink.empty();
    else sink.cell(Duration::from_us(us));
  };
  const auto replica = [&](int32_t job) {
    if (job < 0) sink.empty();
    else sink.cell(r.jobs.size() > static_cast<std::size_t>(job) ? s.jobs.jobs[static_cast<std::size_t>(job)].name : "");
  };
  for (const RequestRow& q : r.requests) {
    sink.cell(s.services[q.service].name);
    sink.cell(static_cast<int64_t>(q.id));
    sink.cell(q.arrival);
    sink.cell(q.status == 0 ? "completed" : q.status == 1 ? "rejected" : q.status == 2 ? "unfinished" : "timed_out");
    replica(q.replica);
    if (split) replica(q.prefill_replica);
    sink.cell(q.prompt);
    sink.cell(q.output);
    sink.cell(q.generated);
    if (caching) {
      if (q.cached_tokens < 0) sink.empty();
      else sink.cell(q.cached_tokens);
    }
    seconds(q.queue_us);
    seconds(q.ttft_us);
    if (split) seconds(q.kv_transfer_us);
    seconds(q.e2e_us);
    seconds(q.e2e_us >= 0 && q.output > 1 ? (q.e2e_us - q.ttft_us) / (q.output - 1) : -1);
    sink.cell(static_cast<int64_t>(q.preemptions));
    sink.cell(static_cast<int64_t>(q.retries));
    sink.cell(request_reason(q));
    sink.end_row();
  }
}

void write_requests_csv(std::ostream& out, const Scenario& s, const RunResult& r) {
  CsvSink sink(out);
  requests_table(sink, s, r);
}

void replicas_table(TableSink& sink, const Scenario& s, const RunResult& r) {
  sink.header({"time_s", "service", "desired", "pods", "ready"});
  sink.reserve(r.replica_counts.size());
  for (const ReplicaCount& c : r.replica_counts) {
    sink.cell(c.time);
    sink.cell(s.services[c.service].deployment);
    sink.cell(c.desired);
    sink.cell(c.pods);
    sink.cell(c.ready);
    sink.end_row();
  }
}

void write_replicas_csv(std::ostream& out, const Scenario& s, const RunResult& r) {
  CsvSink sink(out);
  replicas_table(sink, s, r);
}

}  // namespace gpusim
