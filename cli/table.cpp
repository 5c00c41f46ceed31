#include "table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

namespace gpusim::cli {

namespace {

std::string with_commas(double v, int decimals) {
  const std::string s = fmt::format("{:.{}f}", std::abs(v), decimals);
  const std::size_t digits = std::min(s.find('.'), s.size());
  std::string out = v < 0 ? "-" : "";
  for (std::size_t i = 0; i < digits; ++i) {
    if (i > 0 && (digits - i) % 3 == 0) out += ',';
    out += s[i];
  }
  return out + s.substr(digits);
}

std::string human_seconds(double s) {
  if (s < 120) return fmt::format("{:.1f} s", s);
  if (s < 7200) return fmt::format("{:.1f} min", s / 60);
  if (s < 172800) return fmt::format("{:.1f} h", s / 3600);
  return fmt::format("{:.1f} d", s / 86400);
}

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
// - slowdown is of a job's last attempt only: it ignores re-runs and favours skipping checkpoints;
//   JCT and makespan carry latency.
const MetricRow kRows[] = {
    {"cost (USD)", "/cost_usd", Format::usd, Better::lower},
    {"cost per 730-h month (USD)", "/cost_per_month_usd", Format::usd, Better::lower},
    {"GPUs", "/gpus", Format::count, Better::neither},
    {"GPUs at peak", "/gpus_peak", Format::count, Better::neither},
    {"GPU-hours capacity", "/gpu_hours_capacity", Format::gpu_hours, Better::neither},
    {"GPU-hours allocated", "/gpu_hours_allocated", Format::gpu_hours, Better::neither},
    {"GPU-hours busy", "/gpu_hours_busy", Format::gpu_hours, Better::neither},
    {"GPU-hours goodput", "/gpu_hours_goodput", Format::gpu_hours, Better::neither},
    {"allocation ratio", "/allocation_ratio", Format::percent, Better::neither},
    {"effective utilization", "/effective_utilization", Format::percent, Better::neither},
    {"goodput ratio", "/goodput_ratio", Format::percent, Better::higher},
    {"jobs total", "/jobs_total", Format::count, Better::neither},
    {"jobs completed", "/jobs_completed", Format::count, Better::higher},
    {"jobs running at end", "/jobs_running_at_end", Format::count, Better::neither},
    {"jobs pending at end", "/jobs_pending_at_end", Format::count, Better::lower},
    {"jobs unschedulable", "/jobs_unschedulable", Format::count, Better::lower},
    {"jobs failed", "/jobs_failed", Format::count, Better::lower},
    {"job kills (OOM, MPS faults)", "/job_kills", Format::count, Better::lower},
    {"waste (USD)", "/cost/waste_usd", Format::usd, Better::neither},
    {"spot reclaims", "/spot/reclaim_notices", Format::count, Better::neither},
    {"evictions", "/spot/evictions", Format::count, Better::lower},
    {"preemptions", "/preemptions", Format::count, Better::lower},
    {"GPU-hours lost to rollback", "/spot/gpu_hours_lost_to_rollback", Format::gpu_hours, Better::lower},
    {"GPU-hours checkpointing", "/spot/gpu_hours_checkpointing", Format::gpu_hours, Better::neither},
    {"GPU-hours comm stall", "/goodput/gpu_hours_comm_stall", Format::gpu_hours, Better::neither},
    {"low-utilization hours", "/low_utilization/hours", Format::gpu_hours, Better::neither},
    {"slowdown mean, training", "/slowdown/training/mean", Format::ratio, Better::neither},
    {"slowdown mean, all jobs", "/slowdown/all/mean", Format::ratio, Better::neither},
    {"JCT mean", "/jct_s/mean", Format::seconds, Better::lower},
    {"JCT mean, multi-GPU jobs", "/multi_gpu/jct_s/mean", Format::seconds, Better::lower},
    {"JCT p50", "/jct_s/p50", Format::seconds, Better::lower},
    {"JCT p95", "/jct_s/p95", Format::seconds, Better::lower},
    {"JCT p99", "/jct_s/p99", Format::seconds, Better::lower},
    {"queue delay mean", "/queue_delay_s/mean", Format::seconds, Better::lower},
    {"queue delay p50", "/queue_delay_s/p50", Format::seconds, Better::lower},
    {"queue delay p95", "/queue_delay_s/p95", Format::seconds, Better::lower},
    {"queue delay p99", "/queue_delay_s/p99", Format::seconds, Better::lower},
    {"makespan", "/makespan_s", Format::seconds, Better::lower},
};

std::optional<double> value(const Json& s, const char* pointer) {
  const auto p = Json::json_pointer(pointer);
  if (!s.contains(p) || s.at(p).is_null()) return std::nullopt;
  return s.at(p).get<double>();
}

std::string render(std::optional<double> v, Format f) {
  if (!v) return "-";
  switch (f) {
    case Format::usd: return with_commas(*v, 2);
    case Format::percent: return fmt::format("{:.1f} %", *v * 100);
    case Format::gpu_hours: return with_commas(*v, 1);
    case Format::count: return with_commas(*v, 0);
    case Format::seconds: return human_seconds(*v);
    case Format::ratio: return fmt::format("{:.2f}x", *v);
  }
  return "-";
}

}  // namespace

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

namespace {

std::string header(const Json& s) {
  return fmt::format("gpusim {} | scenario {} | policy {} | seed {} | simulated {}\n", s["gpusim_version"].get<std::string>(),
                     s["scenario"].get<std::string>(), s["policy"].get<std::string>(), s["seed"].get<uint64_t>(),
                     human_seconds(s["simulated_s"].get<double>()));
}

}  // namespace

std::string run_table(const Json& s) {
  std::string out = header(s) + "\n";
  for (const MetricRow& r : kRows) out += fmt::format("  {:<28} {:>16}\n", r.label, render(value(s, r.pointer), r.format));
  out += fmt::format("\n  {:<16} {:>9} {:>6} {:>36} {:>14} {:>12} {:>12}\n", "pool", "market", "GPUs", "sharing", "cost (USD)",
                     "allocation", "utilization");
  for (const auto& p : s["pools"])
    out += fmt::format("  {:<16} {:>9} {:>6} {:>36} {:>14} {:>12} {:>12}\n", p["name"].get<std::string>(),
                       p["market"].get<std::string>(), p["gpus"].get<int>(), p["sharing"].get<std::string>(),
                       with_commas(p["cost_usd"].get<double>(), 2),
                       render(p["allocation_ratio"].get<double>(), Format::percent),
                       render(p["effective_utilization"].get<double>(), Format::percent));
  if (!s["unschedulable_reasons"].empty()) {
    out += "\n  unschedulable jobs:\n";
    for (const auto& r : s["unschedulable_reasons"])
      out += fmt::format("    {:>6} {}\n", r["jobs"].get<uint64_t>(), r["reason"].get<std::string>());
  }
  return out;
}

std::string compare_table(const std::vector<Json>& summaries) {
  if (summaries.empty()) return "";
  const Json& first = summaries.front();
  std::string out = fmt::format("gpusim {} | scenario {} | seed {} | simulated {}\n\n", first["gpusim_version"].get<std::string>(),
                                first["scenario"].get<std::string>(), first["seed"].get<uint64_t>(),
                                human_seconds(first["simulated_s"].get<double>()));
  std::size_t width = 16;
  const auto label = [](const Json& s) { return s.value("label", s["policy"].get<std::string>()); };
  for (const auto& s : summaries) width = std::max(width, label(s).size() + 2);
  out += fmt::format("  {:<28}", "metric");
  for (const auto& s : summaries) out += fmt::format(" {:>{}}", label(s), width);
  out += "\n";
  for (const MetricRow& r : kRows) {
    std::vector<std::optional<double>> values;
    std::vector<std::string> printed;
    for (const auto& s : summaries) {
      values.push_back(value(s, r.pointer));
      printed.push_back(render(values.back(), r.format));
    }
    const std::vector<bool> marks = best_marks(values, printed, r.better);
    out += fmt::format("  {:<28}", r.label);
    for (std::size_t i = 0; i < values.size(); ++i) out += fmt::format(" {:>{}}", printed[i] + (marks[i] ? " *" : "  "), width);
    out += "\n";
  }
  out += "\n  * best value of the row, in rows whose metric has a direction (goodput ratio has; utilization, which counts\n"
         "    collective stalls and re-run work as busy, has not); none where every run prints the same\n";
  return out;
}

}  // namespace gpusim::cli
