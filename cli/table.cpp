#include "table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>

#include "text.hpp"

namespace gpusim::cli {

namespace {

// The rows both tables show, in order, each with the direction in which it is better. A row has a
// direction only when a better value means a better setup whatever else differs between the runs;
// otherwise `neither`, and another row carries the direction:
// - fleet size (GPUs, GPUs at peak) is an input, or follows from the workload; cost carries it;
// - allocated and busy GPU-hours, allocation ratio, effective utilization, waste and low-utilization
//   hours count a GPU as used while its job waits in a collective, re-runs work an eviction threw
//   away, or (allocated) holds GPUs for a gang that never starts: a 3x slower placement or a spot
//   run without checkpoints looks better by them. Goodput ratio carries the direction;
// - goodput GPU-hours grow with a slower GPU or a smaller share for the same work; its ratio does not;
// - checkpointing GPU-hours are the price of losing less, and collective stalls shrink when less
//   runs (a deadlocked gang stalls nothing); lost GPU-hours and goodput ratio carry them;
// - spot reclaims are the market's doing; evictions and lost GPU-hours are what they cost;
// - preemptions are what a preemptive order pays for its JCT (as checkpoints are for losing less);
//   JCT and queue delay carry the direction;
// - slowdown is of a job's last attempt only: it ignores re-runs and favours skipping checkpoints;
//   JCT and makespan carry latency.
const MetricRow kRows[] = {
    {"cost (USD)", "/cost_usd", Format::usd, Better::lower, Shown::always},
    {"cost per 730-h month (USD)", "/cost_per_month_usd", Format::usd, Better::lower, Shown::always},
    {"GPUs", "/gpus", Format::count, Better::neither, Shown::always},
    {"GPUs at peak", "/gpus_peak", Format::count, Better::neither, Shown::always},
    {"GPU-hours capacity", "/gpu_hours_capacity", Format::gpu_hours, Better::neither, Shown::always},
    {"GPU-hours allocated", "/gpu_hours_allocated", Format::gpu_hours, Better::neither, Shown::always},
    {"GPU-hours busy", "/gpu_hours_busy", Format::gpu_hours, Better::neither, Shown::always},
    {"GPU-hours goodput", "/gpu_hours_goodput", Format::gpu_hours, Better::neither, Shown::always},
    {"allocation ratio", "/allocation_ratio", Format::percent, Better::neither, Shown::always},
    {"effective utilization", "/effective_utilization", Format::percent, Better::neither, Shown::always},
    {"goodput ratio", "/goodput_ratio", Format::percent, Better::higher, Shown::always},
    {"jobs total", "/jobs_total", Format::count, Better::neither, Shown::always},
    {"jobs completed", "/jobs_completed", Format::count, Better::higher, Shown::always},
    {"jobs running at end", "/jobs_running_at_end", Format::count, Better::neither, Shown::always},
    {"jobs pending at end", "/jobs_pending_at_end", Format::count, Better::lower, Shown::always},
    {"jobs unschedulable", "/jobs_unschedulable", Format::count, Better::lower, Shown::always},
    {"jobs failed", "/jobs_failed", Format::count, Better::lower, Shown::always},
    {"jobs rejected", "/jobs_rejected", Format::count, Better::lower, Shown::when_given},
    {"jobs not arrived", "/jobs_not_arrived", Format::count, Better::neither, Shown::when_nonzero},
    {"job kills (OOM, MPS faults)", "/job_kills", Format::count, Better::lower, Shown::always},
    {"waste (USD)", "/cost/waste_usd", Format::usd, Better::neither, Shown::always},
    // Energy (docs/guide/energy.md): more work done draws more, so it has no direction of its own.
    {"energy (kWh)", "/energy/kwh", Format::gpu_hours, Better::neither, Shown::always},
    {"average power (kW)", "/energy/average_power_kw", Format::gpu_hours, Better::neither, Shown::always},
    {"carbon (kg CO2e)", "/energy/carbon_kg", Format::gpu_hours, Better::neither, Shown::when_given},
    {"energy cost (USD)", "/energy/energy_cost_usd", Format::usd, Better::neither, Shown::when_given},
    // Power budgets: what they held at their peaks (summed), and the jobs that waited for room.
    {"power budget peak (kW)", "/energy/budget_peak_kw", Format::gpu_hours, Better::neither, Shown::when_given},
    {"jobs waited for power", "/energy/jobs_waited_for_power", Format::count, Better::neither, Shown::when_given},
    {"spot reclaims", "/spot/reclaim_notices", Format::count, Better::neither, Shown::always},
    {"evictions", "/spot/evictions", Format::count, Better::lower, Shown::always},
    {"preemptions", "/preemptions", Format::count, Better::neither, Shown::always},
    {"GPU-hours lost to rollback", "/spot/gpu_hours_lost_to_rollback", Format::gpu_hours, Better::lower, Shown::always},
    {"GPU-hours checkpointing", "/spot/gpu_hours_checkpointing", Format::gpu_hours, Better::neither, Shown::always},
    {"GPU-hours comm stall", "/goodput/gpu_hours_comm_stall", Format::gpu_hours, Better::neither, Shown::always},
    {"low-utilization hours", "/low_utilization/hours", Format::gpu_hours, Better::neither, Shown::always},
    {"slowdown mean, training", "/slowdown/training/mean", Format::ratio, Better::neither, Shown::always},
    {"slowdown mean, all jobs", "/slowdown/all/mean", Format::ratio, Better::neither, Shown::always},
    {"JCT mean", "/jct_s/mean", Format::seconds, Better::lower, Shown::always},
    {"JCT mean, multi-GPU jobs", "/multi_gpu/jct_s/mean", Format::seconds, Better::lower, Shown::always},
    {"JCT p50", "/jct_s/p50", Format::seconds, Better::lower, Shown::always},
    {"JCT p95", "/jct_s/p95", Format::seconds, Better::lower, Shown::always},
    {"JCT p99", "/jct_s/p99", Format::seconds, Better::lower, Shown::always},
    {"queue delay mean", "/queue_delay_s/mean", Format::seconds, Better::lower, Shown::always},
    {"queue delay p50", "/queue_delay_s/p50", Format::seconds, Better::lower, Shown::always},
    {"queue delay p95", "/queue_delay_s/p95", Format::seconds, Better::lower, Shown::always},
    {"queue delay p99", "/queue_delay_s/p99", Format::seconds, Better::lower, Shown::always},
    {"makespan", "/makespan_s", Format::seconds, Better::lower, Shown::always},
    {"deadlines met", "/deadlines_met", Format::count, Better::higher, Shown::when_given},
    {"deadlines missed", "/deadlines_missed", Format::count, Better::lower, Shown::when_given},
    {"lateness mean", "/lateness_mean_s", Format::seconds, Better::lower, Shown::when_given},
    {"lateness max", "/lateness_max_s", Format::seconds, Better::lower, Shown::when_given},
    // With services (docs/guide/services.md): every request of every service together.
    {"requests arrived", "/serving/requests_arrived", Format::count, Better::neither, Shown::when_given},
    {"requests completed", "/serving/requests_completed", Format::count, Better::higher, Shown::when_given},
    {"requests rejected", "/serving/requests_rejected", Format::count, Better::lower, Shown::when_given},
    {"requests unfinished", "/serving/requests_unfinished", Format::count, Better::lower, Shown::when_given},
    {"requests retried", "/serving/requests_retried", Format::count, Better::lower, Shown::when_given},
    {"requests timed out", "/serving/requests_timed_out", Format::count, Better::lower, Shown::when_given},
    {"TTFT p50", "/serving/ttft_s/p50", Format::latency, Better::lower, Shown::when_given},
    {"TTFT p99", "/serving/ttft_s/p99", Format::latency, Better::lower, Shown::when_given},
    {"TPOT p50", "/serving/tpot_s/p50", Format::latency, Better::lower, Shown::when_given},
    {"TPOT p99", "/serving/tpot_s/p99", Format::latency, Better::lower, Shown::when_given},
    {"ITL p99", "/serving/itl_s/p99", Format::latency, Better::lower, Shown::when_given},
    {"E2E p99", "/serving/e2e_s/p99", Format::latency, Better::lower, Shown::when_given},
    {"SLO attainment", "/serving/slo_attainment", Format::percent, Better::higher, Shown::when_given},
    {"goodput", "/serving/goodput_rps", Format::rate, Better::higher, Shown::when_given},
    {"prefix cache hit rate", "/serving/prefix_cache_hit_rate", Format::percent, Better::higher, Shown::when_given},
    {"prefill tokens saved", "/serving/prefill_tokens_saved", Format::count, Better::higher, Shown::when_given},
    {"output tokens per s", "/serving/output_tokens_per_s", Format::count, Better::neither, Shown::when_given},
    {"replicas mean", "/serving/replicas_mean", Format::gpus, Better::neither, Shown::when_given},
    {"replica starts", "/serving/replica_starts", Format::count, Better::neither, Shown::when_given},
    {"cold start mean", "/serving/cold_start_mean_s", Format::seconds, Better::neither, Shown::when_given},
    {"cost per M output tokens (USD)", "/serving/cost_per_million_output_tokens_usd", Format::usd, Better::lower,
     Shown::when_given},
    {"energy per output token (J)", "/serving/energy_per_output_token_j", Format::gpus, Better::lower, Shown::when_given},
};

std::string render(std::optional<double> v, Format f) {
  if (!v) return "-";
  switch (f) {
    case Format::usd: return with_commas(*v, 2);
    case Format::percent: return fmt::format("{:.1f} %", *v * 100);
    case Format::gpu_hours: return with_commas(*v, 1);
    case Format::count: return with_commas(*v, 0);
    case Format::seconds: return human_seconds(*v);
    case Format::ratio: return fmt::format("{:.2f}x", *v);
    case Format::gpus: return with_commas(*v, 2);
    case Format::index: return fmt::format("{:.3f}", *v);
    case Format::latency: return *v < 1 ? fmt::format("{:.1f} ms", *v * 1000) : fmt::format("{:.2f} s", *v);
    case Format::rate: return fmt::format("{:.2f}/s", *v);
  }
  return "-";
}

// One figure of one column: a run's value, or the mean and the 95% half-width over seeds.
struct Cell {
  std::optional<double> mean;
  std::optional<double> ci95;
};

// A column's figures by dotted path (seeds.hpp's keyed paths).
using Column = std::function<Cell(const std::string&)>;

Column single_column(const Json& summary) {
  auto figures = std::make_shared<std::map<std::string, double>>();
  for (const auto& [path, v] : keyed_figures(summary)) figures->emplace(path, v);
  return [figures](const std::string& path) {
    const auto it = figures->find(path);
    return it == figures->end() ? Cell{} : Cell{it->second, std::nullopt};
  };
}

Column seeds_column(const SeedSummary& s) {
  return [&s](const std::string& path) {
    const SeedFigure* f = s.figure(path);
    return f ? Cell{f->mean, f->ci95} : Cell{};
  };
}

// "/jct_s/mean" -> "jct_s.mean"
std::string dotted(const char* pointer) {
  std::string out(pointer + 1);
  std::replace(out.begin(), out.end(), '/', '.');
  return out;
}

// A figure without an interval (one run, or the same value for every seed) as render() shows it;
// otherwise "mean ± half-width" in the mean's unit.
std::string render(const Cell& c, Format f) {
  if (!c.mean || !c.ci95 || *c.ci95 == 0) return render(c.mean, f);
  const double m = *c.mean, h = *c.ci95;
  switch (f) {
    case Format::usd: return fmt::format("{} ± {}", with_commas(m, 2), with_commas(h, 2));
    case Format::percent: return fmt::format("{:.1f} ± {:.1f} %", m * 100, h * 100);
    case Format::gpu_hours: return fmt::format("{} ± {}", with_commas(m, 1), with_commas(h, 1));
    case Format::count: return fmt::format("{} ± {}", with_commas(m, 1), with_commas(h, 1));
    case Format::seconds: {
      const auto [scale, unit] = seconds_unit(m);  // the mean's unit, for both numbers
      return fmt::format("{:.1f} ± {:.1f} {}", m / scale, h / scale, unit);
    }
    case Format::ratio: return fmt::format("{:.2f} ± {:.2f}x", m, h);
    case Format::gpus: return fmt::format("{} ± {}", with_commas(m, 2), with_commas(h, 2));
    case Format::index: return fmt::format("{:.3f} ± {:.3f}", m, h);
    case Format::latency:
      return m < 1 ? fmt::format("{:.1f} ± {:.1f} ms", m * 1000, h * 1000) : fmt::format("{:.2f} ± {:.2f} s", m, h);
    case Format::rate: return fmt::format("{:.2f} ± {:.2f}/s", m, h);
  }
  return "-";
}

// seeds empty: the summary's own seed. `simulated`: how long the runs of the table simulated (a compare's
// variants may differ); empty: this summary's.
std::string header(const Json& s, const std::vector<uint64_t>& seeds, bool policy, const std::string& simulated = "") {
  const bool defaulted = s.value("seed_is_default", false);
  const std::string seed =
      seeds.empty()
          ? fmt::format("seed {}{}", s["seed"].get<uint64_t>(), defaulted ? " (the default: the scenario has no seed)" : "")
          : fmt::format("seeds {} ({} run{} each)", seeds_text(seeds), seeds.size(), seeds.size() == 1 ? "" : "s");
  // A run's variant (a compare table names each column's instead).
  const std::string variant = policy && s.contains("variant") ? fmt::format(" | variant {}", s["variant"].get<std::string>())
                                                              : "";
  return fmt::format("gpusim {} | scenario {}{}{} | {} | simulated {}\n", s["gpusim_version"].get<std::string>(),
                     s["scenario"].get<std::string>(), variant,
                     policy ? fmt::format(" | policy {}", s["policy"].get<std::string>()) : "", seed,
                     simulated.empty() ? human_seconds(s["simulated_s"].get<double>()) : simulated);
}

constexpr const char* kSeedsNote =
    "  x ± h: mean over the seeds ± half-width of its 95% confidence interval (Student t, n-1 degrees of\n"
    "  freedom); a figure without ± is the same for every seed.\n";

}  // namespace

bool row_shown(const MetricRow& r, std::span<const std::optional<double>> values) {
  switch (r.shown) {
    case Shown::always: return true;
    case Shown::when_given: return std::any_of(values.begin(), values.end(), [](const auto& v) { return v.has_value(); });
    case Shown::when_nonzero: return std::any_of(values.begin(), values.end(), [](const auto& v) { return v && *v != 0; });
  }
  return true;
}

std::vector<NotCompleted> not_completed(const Json& s) {
  std::vector<NotCompleted> out;
  const auto add = [&](const char* title, const Json& list, const char* count, const char* status = nullptr) {
    if (list.empty()) return;
    NotCompleted& n = out.emplace_back();
    n.title = title;
    for (const Json& r : list)
      n.rows.emplace_back(r[count].get<uint64_t>(),
                          (status ? r[status].get<std::string>() + ": " : "") + r["reason"].get<std::string>());
  };
  add("unschedulable jobs", s.value("unschedulable_reasons", Json::array()), "jobs");
  add("rejected jobs", s.value("rejected_reasons", Json::array()), "jobs");
  add("failed jobs", s.value("failed_reasons", Json::array()), "jobs");
  if (s.contains("serving"))
    add("requests not completed", s["serving"].value("requests_not_completed", Json::array()), "requests", "status");
  return out;
}

namespace {

// A USD figure of a summary whose cluster has unpriced pools covers the priced ones only: it says so.
std::string usd_text(std::string printed, const Json& summary) {
  const std::size_t unpriced = summary.value("unpriced_pools", Json::array()).size();
  if (unpriced == 0) return printed;
  return printed == "-" || unpriced == summary.value("pools", Json::array()).size() ? "unpriced" : printed + " + unpriced";
}

bool unpriced_pool(const Json& summary, const std::string& pool) {
  for (const Json& p : summary.value("unpriced_pools", Json::array()))
    if (p.get<std::string>() == pool) return true;
  return false;
}

// The run notes of the summaries (what their figures rest on that the scenario did not say), each once.
std::string run_notes(const std::vector<Json>& summaries) {
  std::vector<std::string> notes;
  for (const Json& s : summaries)
    for (const Json& n : s.value("run_notes", Json::array()))
      if (std::find(notes.begin(), notes.end(), n.get<std::string>()) == notes.end()) notes.push_back(n.get<std::string>());
  std::string out;
  if (!notes.empty()) out += "\n  notes:\n";
  for (const std::string& n : notes) out += fmt::format("  - {}\n", n);
  return out;
}

std::string run_table_impl(const Json& s, const Column& column, const std::vector<uint64_t>& seeds) {
  std::string out = header(s, seeds, true) + "\n";
  const int width = seeds.empty() ? 16 : 24;
  for (const MetricRow& r : kRows)
    if (const Cell c = column(dotted(r.pointer)); row_shown(r, std::array{c.mean}))
      out += fmt::format("  {:<28} {:>{}}\n", r.label,
                         r.format == Format::usd ? usd_text(render(c, r.format), s) : render(c, r.format), width);
  const int cw = seeds.empty() ? 14 : 22, rw = seeds.empty() ? 12 : 18;
  out += fmt::format("\n  {:<16} {:>9} {:>6} {:>36} {:>{}} {:>{}} {:>{}}\n", "pool", "market", "GPUs", "sharing", "cost (USD)",
                     cw, "allocation", rw, "utilization", rw);
  for (const auto& p : s["pools"]) {
    const std::string key = "pools." + p["name"].get<std::string>() + ".";
    out += fmt::format(
        "  {:<16} {:>9} {:>6} {:>36} {:>{}} {:>{}} {:>{}}\n", p["name"].get<std::string>(), p["market"].get<std::string>(),
        p["gpus"].get<int>(), p["sharing"].get<std::string>(),
        unpriced_pool(s, p["name"].get<std::string>()) ? "unpriced" : render(column(key + "cost_usd"), Format::usd), cw,
        render(column(key + "allocation_ratio"), Format::percent), rw,
        render(column(key + "effective_utilization"), Format::percent), rw);
  }
  // Every job and request that did not complete, by why (with seeds: the first seed's).
  for (const NotCompleted& n : not_completed(s)) {
    out += seeds.empty() ? fmt::format("\n  {}:\n", n.title) : fmt::format("\n  {} (seed {}):\n", n.title, seeds.front());
    for (const auto& [count, why] : n.rows) out += fmt::format("    {:>6} {}\n", count, why);
  }
  out += run_notes({s});
  if (!seeds.empty()) {
    out += '\n';
    out += kSeedsNote;
  }
  return out;
}

std::string compare_table_impl(const std::vector<Json>& firsts, const std::vector<Column>& columns,
                               const std::vector<uint64_t>& seeds) {
  if (firsts.empty()) return "";
  const auto [shortest, longest] = std::minmax_element(firsts.begin(), firsts.end(), [](const Json& a, const Json& b) {
    return a["simulated_s"].get<double>() < b["simulated_s"].get<double>();
  });
  const std::string from = human_seconds((*shortest)["simulated_s"].get<double>()),
                    to = human_seconds((*longest)["simulated_s"].get<double>());
  std::string out = header(firsts.front(), seeds, false, from == to ? from : from + " to " + to) + "\n";
  std::size_t width = 16;
  const auto label = [](const Json& s) { return s.value("label", s["policy"].get<std::string>()); };
  for (const auto& s : firsts) width = std::max(width, label(s).size() + 2);
  // A cell as printed: a USD figure of a column with unpriced pools says it covers the priced ones only.
  const auto text = [&](const Cell& c, Format f, std::size_t column) {
    return f == Format::usd ? usd_text(render(c, f), firsts[column]) : render(c, f);
  };
  std::vector<std::vector<Cell>> cells(std::size(kRows));
  for (std::size_t i = 0; i < std::size(kRows); ++i)
    for (std::size_t k = 0; k < columns.size(); ++k) {
      cells[i].push_back(columns[k](dotted(kRows[i].pointer)));
      width = std::max(width, shown_width(text(cells[i].back(), kRows[i].format, k)) + 2);
    }
  out += fmt::format("  {:<28}", "metric");
  for (const auto& s : firsts) out += fmt::format(" {:>{}}", label(s), width);
  out += "\n";
  for (std::size_t i = 0; i < std::size(kRows); ++i) {
    const MetricRow& r = kRows[i];
    std::vector<std::optional<double>> means;
    std::vector<std::string> printed, printed_means;  // ties are judged on the mean as printed, not its ± part
    for (std::size_t k = 0; k < cells[i].size(); ++k) {
      const Cell& c = cells[i][k];
      printed.push_back(text(c, r.format, k));
      // A cost that leaves out unpriced pools is no candidate for the best.
      means.push_back(printed.back().ends_with("unpriced") ? std::nullopt : c.mean);
      printed_means.push_back(render(c.mean, r.format));
    }
    if (!row_shown(r, means)) continue;
    const std::vector<bool> marks = best_marks(means, printed_means, r.better);
    out += fmt::format("  {:<28}", r.label);
    for (std::size_t k = 0; k < printed.size(); ++k) out += fmt::format(" {:>{}}", printed[k] + (marks[k] ? " *" : "  "), width);
    out += "\n";
  }
  out += fmt::format("\n  * best {} of the row, in rows whose metric has a direction (goodput ratio has; utilization, which\n"
                     "    counts collective stalls and re-run work as busy, has not); none where every run prints the same\n",
                     seeds.empty() ? "value" : "mean");
  out += run_notes(firsts);
  if (!seeds.empty()) out += kSeedsNote;
  return out;
}

struct BreakdownColumn {
  const char* title;
  const char* field;  // dotted, under the row
  Format format;
};

struct BreakdownSpec {
  const char* title;
  const char* path;  // an array of named objects or an object keyed by name, in summary.json
  std::vector<BreakdownColumn> columns;
};

// Candidate columns; those no row reports are left out (kinds and GPU models carry fewer figures).
const BreakdownSpec& breakdown_spec(Breakdown by) {
  // ClusterQueues and cohorts alike (Jain's index: cohorts only).
  static const std::vector<BreakdownColumn> kueue_columns{{"jobs", "jobs", Format::count},
                                                          {"completed", "jobs_completed", Format::count},
                                                          {"nominal GPUs", "nominal_gpus", Format::count},
                                                          {"quota used", "mean_quota_used_gpus", Format::gpus},
                                                          {"GPU-h borrowed", "gpu_hours_borrowed", Format::gpu_hours},
                                                          {"GPU-h lent", "gpu_hours_lent", Format::gpu_hours},
                                                          {"admission p99", "admission_wait_s.p99", Format::seconds},
                                                          {"admission max", "admission_wait_s.max", Format::seconds},
                                                          {"GPUs held", "mean_gpus_held", Format::gpus},
                                                          {"fair share", "mean_fair_share_gpus", Format::gpus},
                                                          {"held/fair", "held_over_fair_share", Format::ratio},
                                                          {"Jain", "fairness_jain", Format::index},
                                                          {"preempted", "preemptions_received", Format::count},
                                                          {"preempting", "preemptions_caused", Format::count},
                                                          {"cost (USD)", "cost_allocated_usd", Format::usd}};
  static const BreakdownSpec kSpecs[] = {
      {"pool",
       "pools",
       {{"GPUs", "gpus", Format::count},
        {"GPU-h capacity", "gpu_hours_capacity", Format::gpu_hours},
        {"GPU-h allocated", "gpu_hours_allocated", Format::gpu_hours},
        {"GPU-h busy", "gpu_hours_busy", Format::gpu_hours},
        {"allocation", "allocation_ratio", Format::percent},
        {"utilization", "effective_utilization", Format::percent},
        {"cost (USD)", "cost_usd", Format::usd},
        {"idle (USD)", "idle_cost_usd", Format::usd},
        {"unused (USD)", "unused_allocated_cost_usd", Format::usd},
        {"waste (USD)", "waste_usd", Format::usd},
        {"energy (kWh)", "energy.kwh", Format::gpu_hours},
        {"carbon (kg)", "energy.carbon_kg", Format::gpu_hours}}},
      {"tenant",
       "tenants",
       {{"jobs", "jobs", Format::count},
        {"completed", "jobs_completed", Format::count},
        {"GPU-h allocated", "gpu_hours_allocated", Format::gpu_hours},
        {"cost (USD)", "cost_allocated_usd", Format::usd},
        {"unused (USD)", "cost_unused_usd", Format::usd},
        {"energy (kWh)", "energy_kwh", Format::gpu_hours},
        {"carbon (kg)", "carbon_kg", Format::gpu_hours},
        {"JCT mean", "jct_s.mean", Format::seconds},
        // With a tenancy: block (docs/guide/tenants.md).
        {"rejected", "jobs_rejected", Format::count},
        {"wait p99", "wait_s.p99", Format::seconds},
        {"wait max", "wait_s.max", Format::seconds},
        {"admission p99", "admission_wait_s.p99", Format::seconds},
        {"GPUs held", "mean_gpus_held", Format::gpus},
        {"fair share", "mean_fair_share_gpus", Format::gpus},
        {"held/fair", "held_over_fair_share", Format::ratio},
        {"preempted", "preemptions_received", Format::count},
        {"preempting", "preemptions_caused", Format::count},
        {"GPU-h lost", "gpu_hours_lost", Format::gpu_hours}}},
      {"job kind",
       "cost.by_kind",
       {{"jobs", "jobs", Format::count},
        {"GPU-h allocated", "gpu_hours_allocated", Format::gpu_hours},
        {"cost (USD)", "cost_usd", Format::usd},
        {"unused (USD)", "unused_usd", Format::usd}}},
      {"GPU model",
       "cost.by_gpu_model",
       {{"jobs", "jobs", Format::count},
        {"GPU-h allocated", "gpu_hours_allocated", Format::gpu_hours},
        {"cost (USD)", "cost_usd", Format::usd},
        {"unused (USD)", "unused_usd", Format::usd}}},
      {"ClusterQueue", "tenancy.cluster_queues", kueue_columns},
      {"cohort", "tenancy.cohorts", kueue_columns},
      {"service",
       "services",
       {{"replicas", "replicas", Format::count},
        {"prefill", "pools.prefill.replicas", Format::count},  // disaggregated services only
        {"decode", "pools.decode.replicas", Format::count},
        {"ready", "mean_ready_replicas", Format::gpus},
        {"requests", "requests_arrived", Format::count},
        {"completed", "requests_completed", Format::count},
        {"rejected", "requests_rejected", Format::count},
        {"timed out", "requests_timed_out", Format::count},
        {"unfinished", "requests_unfinished", Format::count},
        {"TTFT p50", "ttft_s.p50", Format::latency},
        {"TTFT p99", "ttft_s.p99", Format::latency},
        {"TPOT p99", "tpot_s.p99", Format::latency},
        {"ITL p99", "itl_s.p99", Format::latency},
        {"E2E p99", "e2e_s.p99", Format::latency},
        {"KV transfer p99", "kv_transfer_s.p99", Format::latency},
        {"SLO", "slo_attainment", Format::percent},
        {"goodput", "goodput_rps", Format::rate},
        {"preempted", "preemptions", Format::count},
        {"cost (USD)", "cost_usd", Format::usd},
        {"USD per M tokens", "cost_per_million_output_tokens_usd", Format::usd}}},
  };
  return kSpecs[static_cast<std::size_t>(by)];
}

// The rows' names: an array's items by "name", an object's keys; with seeds, every seed's rows in
// first-seen order (a tenant with no job under one seed is missing from that seed's summary).
std::vector<std::string> breakdown_rows(const std::vector<Json>& summaries, const char* path) {
  std::vector<std::string> rows;
  const auto add = [&](const std::string& name) {
    if (std::find(rows.begin(), rows.end(), name) == rows.end()) rows.push_back(name);
  };
  std::string pointer = std::string("/") + path;
  std::replace(pointer.begin(), pointer.end(), '.', '/');
  for (const Json& s : summaries) {
    const auto p = Json::json_pointer(pointer);
    if (!s.contains(p)) continue;
    const Json& node = s.at(p);
    if (node.is_array()) {
      for (const auto& item : node)
        if (item.contains("name")) add(item["name"].get<std::string>());
    } else if (node.is_object()) {
      for (const auto& [key, value] : node.items()) add(key);
    }
  }
  return rows;
}

// `summary`: the run's (the first seed's), which says which pools are unpriced.
std::string breakdown_impl(const std::vector<std::string>& rows, const Column& column, Breakdown by, const Json& summary) {
  const BreakdownSpec& spec = breakdown_spec(by);
  std::vector<std::string> head{spec.title};
  std::vector<std::vector<std::string>> body(rows.size());
  for (std::size_t r = 0; r < rows.size(); ++r) body[r].push_back(rows[r]);
  for (const BreakdownColumn& c : spec.columns) {
    std::vector<std::string> cells;
    bool any = false;
    for (const auto& row : rows) {
      const Cell cell = column(fmt::format("{}.{}.{}", spec.path, row, c.field));
      const bool unpriced = by == Breakdown::pool && c.format == Format::usd && unpriced_pool(summary, row);
      any = any || cell.mean.has_value() || unpriced;
      cells.push_back(unpriced ? "unpriced" : render(cell, c.format));
    }
    if (!any) continue;
    head.emplace_back(c.title);
    for (std::size_t r = 0; r < rows.size(); ++r) body[r].push_back(cells[r]);
  }
  std::vector<TextColumn> columns;
  for (std::size_t i = 0; i < head.size(); ++i) columns.push_back({head[i], i > 0});
  std::string out = aligned_table(columns, body);
  if (rows.empty()) out += fmt::format("  (no {} in the summary)\n", spec.title);
  return out;
}

}  // namespace

std::string format_figure(std::optional<double> v, Format f) { return render(v, f); }

std::string row_text(const MetricRow& row, std::optional<double> v, const Json& summary) {
  return row.format == Format::usd ? usd_text(render(v, row.format), summary) : render(v, row.format);
}

std::span<const MetricRow> metric_rows() { return kRows; }

std::vector<bool> best_marks(std::span<const std::optional<double>> values, std::span<const std::string> printed, Better better) {
  std::vector<bool> marks(values.size(), false);
  if (better == Better::neither) return marks;
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < values.size(); ++i)
    if (values[i] && (!best || (better == Better::lower ? *values[i] < *values[*best] : *values[i] > *values[*best]))) best = i;
  if (!best || std::all_of(printed.begin(), printed.end(), [&](const std::string& p) { return p == printed.front(); }))
    return marks;  // nothing to compare, or every run prints the same
  for (std::size_t i = 0; i < values.size(); ++i) marks[i] = values[i] && printed[i] == printed[*best];
  return marks;
}

std::string run_table(const Json& s) { return run_table_impl(s, single_column(s), {}); }

std::string run_table(const SeedSummary& s) { return run_table_impl(s.first, seeds_column(s), s.seeds); }

std::string compare_table(const std::vector<Json>& summaries) {
  std::vector<Column> columns;
  for (const auto& s : summaries) columns.push_back(single_column(s));
  return compare_table_impl(summaries, columns, {});
}

std::string compare_table(const std::vector<SeedSummary>& summaries) {
  std::vector<Json> firsts;
  std::vector<Column> columns;
  for (const auto& s : summaries) {
    firsts.push_back(s.first);
    columns.push_back(seeds_column(s));
  }
  return compare_table_impl(firsts, columns, summaries.empty() ? std::vector<uint64_t>{} : summaries.front().seeds);
}

std::string breakdown_table(const Json& summary, Breakdown by) {
  return breakdown_impl(breakdown_rows({summary}, breakdown_spec(by).path), single_column(summary), by, summary);
}

std::string breakdown_table(const SeedSummary& summary, Breakdown by) {
  // Rows from the first seed's summary, then any other seed's (which the figures' paths name).
  std::vector<std::string> rows = breakdown_rows({summary.first}, breakdown_spec(by).path);
  const std::string prefix = std::string(breakdown_spec(by).path) + ".";
  for (const auto& path : summary.paths)
    if (path.starts_with(prefix)) {
      // The row is the next dotted component; names with dots are matched against known rows first.
      const std::string rest = path.substr(prefix.size());
      bool known = false;
      for (const auto& r : rows) known = known || rest.starts_with(r + ".");
      if (!known) rows.push_back(rest.substr(0, rest.find('.')));
    }
  return breakdown_impl(rows, seeds_column(summary), by, summary.first);
}

}  // namespace gpusim::cli
