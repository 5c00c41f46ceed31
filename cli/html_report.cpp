#include "html_report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <set>
#include <span>
#include <sstream>
#include <string_view>

#include "gpusim/core/error.hpp"
#include "gpusim/core/json.hpp"
#include "gpusim/hardware/catalog.hpp"
#include "gpusim/workloads/csv.hpp"
#include "svg_charts.hpp"
#include "table.hpp"
#include "text.hpp"

namespace gpusim::cli {

namespace report_detail {

Ticks nice_ticks(double lo, double hi, int max_ticks) {
  if (!(hi > lo)) hi = lo + (lo == 0 ? 1 : std::abs(lo));
  const double raw = (hi - lo) / std::max(1, max_ticks - 1);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10 * mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  Ticks t;
  t.step = step;
  t.lo = std::floor(lo / step + 1e-9) * step;
  t.hi = std::ceil(hi / step - 1e-9) * step;
  for (int i = 0; t.lo + i * step <= t.hi + step * 1e-9; ++i) t.values.push_back(t.lo + i * step);
  return t;
}

Points downsample(const Points& points, std::size_t max_points) {
  if (points.size() <= max_points || max_points == 0) return points;
  const std::size_t group = (points.size() + max_points - 1) / max_points;
  Points out;
  for (std::size_t i = 0; i < points.size(); i += group) {
    const std::size_t end = std::min(points.size(), i + group);
    double sum = 0;
    for (std::size_t k = i; k < end; ++k) sum += points[k].second;
    out.emplace_back(points[i].first, sum / static_cast<double>(end - i));
  }
  return out;
}

Points cdf_points(std::vector<double> values, std::size_t max_points) {
  Points out;
  if (values.empty() || max_points == 0) return out;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  const std::size_t k = std::min(n, max_points);
  // The k-th point is the last value of the k-th of k equal shares of the sorted values.
  for (std::size_t i = 1; i <= k; ++i) {
    const std::size_t idx = (i * n + k - 1) / k - 1;
    out.emplace_back(values[idx], static_cast<double>(idx + 1) / static_cast<double>(n));
  }
  return out;
}

MigGeometry mig_geometry(const std::string& gpu_model, const std::string& layout) {
  MigGeometry g;
  const GpuModel* model = Catalog::builtin().find_gpu(gpu_model);
  if (!model || !model->mig) return g;
  const MigTable& t = *model->mig;
  g.memory_slices = t.memory_slices;
  g.compute_slices = t.compute_slices;
  std::size_t pos = 0;
  while (pos < layout.size()) {
    const std::size_t end = std::min(layout.find('+', pos), layout.size());
    const std::string item = layout.substr(pos, end - pos);
    pos = end + 1;
    const std::size_t at = item.rfind('@');
    if (at == std::string::npos) continue;
    const MigProfile* p = t.find(item.substr(0, at));
    int start = 0;
    const auto [ptr, ec] = std::from_chars(item.data() + at + 1, item.data() + item.size(), start);
    if (!p || ec != std::errc() || ptr != item.data() + item.size()) continue;
    // An instance's GPCs sit under its first memory slice, pushed left when they would run past the
    // last GPC (NVIDIA's MIG user guide draws 3g@4 on GPCs 4-6 of an A100: the seventh memory slice
    // has no GPC of its own).
    g.boxes.push_back(
        {p->name, start, p->memory_slices, std::min(start, t.compute_slices - p->compute_slices), p->compute_slices});
  }
  return g;
}

}  // namespace report_detail

namespace {

using namespace report_detail;
using namespace svg;
namespace fs = std::filesystem;

// ---------------------------------------------------------------- reading a run's files

// One CSV file of the run directory, read as the trace readers read theirs (workloads/csv.hpp), with
// every row as wide as the header; a file the run directory does not hold is absent.
class Csv {
 public:
  Csv(const RunFiles& run, const std::string& where, const std::string& file) {
    const auto it = run.find(file);
    if (it == run.end()) return;
    reader_.emplace(it->second, (fs::path(where) / file).string(), csv::Reader::Rows::optional);
    std::vector<std::string_view> fields;
    if (!reader_->next(fields)) reader_->fail("the file is empty: expected a header");
    header_.assign(fields.begin(), fields.end());  // copied: the reader's line moves on
  }
  bool present() const { return reader_.has_value(); }
  // A column the file may lack (one an older gpusim did not write).
  std::optional<std::size_t> find(std::string_view name) const {
    const auto it = std::find(header_.begin(), header_.end(), name);
    return it == header_.end() ? std::nullopt : std::optional(static_cast<std::size_t>(it - header_.begin()));
  }
  std::size_t column(std::string_view name) const {
    const std::optional<std::size_t> i = find(name);
    if (!i) reader_->fail(fmt::format("expected a column '{}' in the header", name));
    return *i;
  }
  // f(fields) for each row after the header.
  template <class F>
  void each(F&& f) {
    std::vector<std::string_view> fields;
    while (reader_->next(fields)) {
      if (fields.size() != header_.size())
        reader_->fail(fmt::format("expected {} fields as in the header, found {}", header_.size(), fields.size()));
      f(fields);
    }
  }
  // A field of column `col` of the current row as a number in `range`; empty is nullopt. The columns
  // the report reads (times, GPU counts, costs) are >= 0 as gpusim writes them, but for unused cost.
  std::optional<double> number(std::string_view field, std::size_t col, const Range& range = Range::at_least(0)) const {
    if (field.empty()) return std::nullopt;
    return reader_->number(field, header_[col], range);
  }

 private:
  std::optional<csv::Reader> reader_;
  std::vector<std::string> header_;
};

// What the report reads of a run's JSON files, and what each value must be: a file edited by hand
// or written by another version is refused naming the file and the field, not drawn wrong. A
// pointer's "*" is each item of a list; a value absent or null is no figure, unless required (the
// pointer's last key must then be present wherever its parent is).
enum class Want { number, nonnegative, positive, fraction, count, text, list };
struct JsonRule {
  std::string_view pointer;
  Want want;
  bool required = false;
};

[[noreturn]] void bad_field(const std::string& file, const std::string& at, const std::string& why) {
  throw InputError({file, std::nullopt, at.empty() ? "/" : at}, why);
}

void check_value(const Json& v, Want want, const std::string& file, const std::string& at) {
  static constexpr std::string_view kWhat[] = {
      "a number", "a number >= 0", "a number > 0", "a number in 0..1", "a whole number >= 0", "a string", "a list"};
  bool ok = false;
  switch (want) {
    case Want::number: ok = v.is_number(); break;
    case Want::nonnegative: ok = v.is_number() && v.get<double>() >= 0; break;
    case Want::positive: ok = v.is_number() && v.get<double>() > 0; break;
    case Want::fraction: ok = v.is_number() && v.get<double>() >= 0 && v.get<double>() <= 1; break;
    case Want::count:
      ok = v.is_number_unsigned() || (v.is_number_float() && v.get<double>() >= 0 &&
                                      v.get<double>() == std::floor(v.get<double>()) && v.get<double>() < 9e15);
      break;
    case Want::text: ok = v.is_string(); break;
    case Want::list: ok = v.is_array(); break;
  }
  if (!ok) {
    // A scalar as written; a list or an object by its type (dump() would recurse through any depth).
    std::string got = v.is_structured() ? std::string(v.is_array() ? "a list" : "an object") : v.dump();
    if (got.size() > 40) got = got.substr(0, 37) + "...";
    bad_field(file, at, fmt::format("expected {} as gpusim writes it, got {}", kWhat[static_cast<int>(want)], got));
  }
}

void check_rule(const Json& node, std::string_view rest, const JsonRule& rule, const std::string& file, const std::string& at) {
  if (rest.empty()) return check_value(node, rule.want, file, at);
  rest.remove_prefix(1);  // the '/'
  const std::size_t slash = rest.find('/');
  const std::string_view key = rest.substr(0, slash), tail = slash == std::string_view::npos ? "" : rest.substr(slash);
  if (key == "*") {
    if (!node.is_array()) bad_field(file, at, fmt::format("expected a list as gpusim writes it, got {}", node.type_name()));
    for (std::size_t i = 0; i < node.size(); ++i) check_rule(node[i], tail, rule, file, fmt::format("{}/{}", at, i));
    return;
  }
  if (!node.is_object()) bad_field(file, at, fmt::format("expected an object as gpusim writes it, got {}", node.type_name()));
  const auto it = node.find(key);
  const std::string here = fmt::format("{}/{}", at, key);
  if (it == node.end() || it->is_null()) {
    // `required` is of the pointer's last key (its items' "/*" may follow), where its parent is present.
    bool last_key = true;
    for (std::string_view t = tail; !t.empty() && last_key; t.remove_prefix(std::min<std::size_t>(2, t.size())))
      last_key = t.starts_with("/*");
    if (rule.required && last_key) bad_field(file, here, "missing: gpusim writes it");
    return;
  }
  check_rule(*it, tail, rule, file, here);
}

void check_json(const Json& doc, std::span<const JsonRule> rules, const std::string& file) {
  for (const JsonRule& r : rules) check_rule(doc, r.pointer, r, file, "");
}

void check_summary(const Json& s, const std::string& file) {
  static constexpr JsonRule kRules[] = {{"/scenario", Want::text},
                                        {"/policy", Want::text},
                                        {"/gpusim_version", Want::text},
                                        {"/seed", Want::count},
                                        {"/model_notes", Want::list},
                                        {"/run_notes/*", Want::text},
                                        {"/unpriced_pools/*", Want::text},
                                        {"/pools/*/name", Want::text},
                                        {"/pools/*/gpu_model", Want::text},
                                        {"/unschedulable_reasons/*/jobs", Want::count, true},
                                        {"/unschedulable_reasons/*/reason", Want::text, true},
                                        {"/rejected_reasons/*/jobs", Want::count, true},
                                        {"/rejected_reasons/*/reason", Want::text, true},
                                        {"/failed_reasons/*/jobs", Want::count, true},
                                        {"/failed_reasons/*/reason", Want::text, true},
                                        {"/serving/requests_not_completed/*/requests", Want::count, true},
                                        {"/serving/requests_not_completed/*/status", Want::text, true},
                                        {"/serving/requests_not_completed/*/reason", Want::text, true},
                                        {"/services/*/name", Want::text},
                                        {"/services/*/model", Want::text},
                                        {"/services/*/replicas", Want::count},
                                        {"/services/*/requests_arrived", Want::count},
                                        {"/services/*/requests_completed", Want::count},
                                        {"/services/*/requests_rejected", Want::count},
                                        {"/services/*/requests_timed_out", Want::count},
                                        {"/services/*/requests_unfinished", Want::count},
                                        {"/services/*/ttft_s/p50", Want::nonnegative},
                                        {"/services/*/ttft_s/p99", Want::nonnegative},
                                        {"/services/*/tpot_s/p99", Want::nonnegative},
                                        {"/services/*/e2e_s/p99", Want::nonnegative},
                                        {"/services/*/slo_attainment", Want::fraction},
                                        {"/services/*/cost_usd", Want::nonnegative},
                                        {"/services/*/cost_per_million_output_tokens_usd", Want::nonnegative},
                                        {"/services/*/prefix_cache_hit_rate", Want::fraction},
                                        {"/services/*/prefill_tokens_saved", Want::count},
                                        {"/services/*/pools/prefill/replicas", Want::count},
                                        {"/services/*/pools/decode/replicas", Want::count},
                                        {"/services/*/kv_transfer_s/p99", Want::nonnegative},
                                        {"/tenants/*/name", Want::text},
                                        {"/tenants/*/jobs", Want::count},
                                        {"/tenants/*/jobs_completed", Want::count},
                                        {"/tenants/*/gpu_hours_allocated", Want::nonnegative},
                                        {"/tenants/*/cost_allocated_usd", Want::nonnegative},
                                        {"/tenants/*/cost_unused_usd", Want::number},
                                        {"/tenants/*/jct_s/mean", Want::nonnegative}};
  check_json(s, kRules, file);
  // The table's figures: shares and indices in 0..1, the others (costs, counts, hours, times) >= 0 but
  // waste, which counts the allocated cost left unused: negative where shared jobs keep more SMs busy
  // than they hold (docs/guide/markets.md).
  for (const MetricRow& m : metric_rows()) {
    const bool share = m.format == Format::percent || m.format == Format::index;
    const bool signed_cost = std::string_view(m.pointer) == "/cost/waste_usd";
    check_rule(s, m.pointer, {m.pointer, share ? Want::fraction : signed_cost ? Want::number : Want::nonnegative}, file, "");
  }
}

void check_occupancy(const Json& occ, const std::string& file) {
  static constexpr JsonRule kRules[] = {{"/columns", Want::count, true},
                                        {"/column_s", Want::positive, true},
                                        {"/end_s", Want::nonnegative, true},
                                        {"/rows", Want::list, true},
                                        {"/rows/*/pool", Want::text, true},
                                        {"/rows/*/first_node", Want::text, true},
                                        {"/rows/*/last_node", Want::text, true},
                                        {"/rows/*/up/*", Want::nonnegative, true},
                                        {"/rows/*/allocated/*", Want::nonnegative, true},
                                        {"/events", Want::list, true},
                                        {"/events/*/pool", Want::text, true},
                                        {"/events/*/reclaims/*", Want::count, true},
                                        {"/events/*/nodes_ready/*", Want::count, true},
                                        {"/events/*/nodes_gone/*", Want::count, true}};
  check_json(occ, kRules, file);
  // The heat map reads a value per column of each row, the events chart one per column of each pool.
  const std::size_t columns = occ["columns"].get<std::size_t>();
  const auto length = [&](const Json& list, const std::string& at) {
    if (list.size() != columns) bad_field(file, at, fmt::format("expected {} values (columns), got {}", columns, list.size()));
  };
  for (std::size_t r = 0; r < occ["rows"].size(); ++r)
    for (const char* k : {"up", "allocated"}) length(occ["rows"][r][k], fmt::format("/rows/{}/{}", r, k));
  for (std::size_t e = 0; e < occ["events"].size(); ++e)
    for (const char* k : {"reclaims", "nodes_ready", "nodes_gone"})
      length(occ["events"][e][k], fmt::format("/events/{}/{}", e, k));
}

// summary.json or occupancy.json of the run, checked; null when the run directory lacks it.
Json parse_json(const RunFiles& run, const std::string& where, const std::string& file) {
  const auto it = run.find(file);
  if (it == run.end()) return Json();
  const std::string path = (fs::path(where) / file).string();
  Json j = Json::parse(it->second, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    throw InputError({path, std::nullopt, ""}, "expected a JSON object as gpusim writes it");
  if (file == "summary.json") check_summary(j, path);
  else check_occupancy(j, path);
  return j;
}

// A figure of summary.json by JSON pointer, when it is a number.
std::optional<double> figure(const Json& summary, const char* pointer) {
  const Json::json_pointer p(pointer);
  if (!summary.contains(p) || !summary.at(p).is_number()) return std::nullopt;
  return summary.at(p).get<double>();
}

std::string text_of(const Json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

// Per pool, in first-seen order: ready, allocated and busy GPUs and billed nodes over time.
struct PoolSeries {
  std::string pool;
  Series ready{"ready", {}}, allocated{"allocated", {}}, busy{"busy", {}}, nodes{"nodes billed", {}}, power{"", {}};
};

std::vector<PoolSeries> pool_series(const RunFiles& run, const std::string& where) {
  std::vector<PoolSeries> out;
  Csv csv(run, where, "pool_timeseries.csv");
  if (!csv.present()) return out;
  const std::size_t t = csv.column("time_s"), p = csv.column("pool"), ready = csv.column("gpus_ready"),
                    alloc = csv.column("gpus_allocated"), busy = csv.column("gpus_busy"), nodes = csv.column("nodes_billed");
  const std::optional<std::size_t> power = csv.find("power_kw");  // absent from run directories before issue 45
  csv.each([&](const std::vector<std::string_view>& f) {
    auto it = std::find_if(out.begin(), out.end(), [&](const PoolSeries& s) { return s.pool == f[p]; });
    if (it == out.end()) {
      out.push_back({std::string(f[p])});
      it = out.end() - 1;
      it->power.name = it->pool;
    }
    const double x = csv.number(f[t], t).value_or(0);
    it->ready.points.emplace_back(x, csv.number(f[ready], ready).value_or(0));
    it->allocated.points.emplace_back(x, csv.number(f[alloc], alloc).value_or(0));
    it->busy.points.emplace_back(x, csv.number(f[busy], busy).value_or(0));
    it->nodes.points.emplace_back(x, csv.number(f[nodes], nodes).value_or(0));
    if (power && x > 0) it->power.points.emplace_back(x, csv.number(f[*power], *power).value_or(0));
  });
  return out;
}

// The cluster's allocated and busy GPUs over time (timeseries.csv).
std::pair<Series, Series> cluster_series(const RunFiles& run, const std::string& where) {
  std::pair<Series, Series> out{{"allocated", {}}, {"busy", {}}};
  Csv csv(run, where, "timeseries.csv");
  if (!csv.present()) return out;
  const std::size_t t = csv.column("time_s"), alloc = csv.column("gpus_allocated"), busy = csv.column("gpus_busy");
  csv.each([&](const std::vector<std::string_view>& f) {
    const double x = csv.number(f[t], t).value_or(0);
    out.first.points.emplace_back(x, csv.number(f[alloc], alloc).value_or(0));
    out.second.points.emplace_back(x, csv.number(f[busy], busy).value_or(0));
  });
  return out;
}

// Completed jobs' JCTs and started jobs' queue delays (jobs.csv), in seconds.
std::pair<std::vector<double>, std::vector<double>> job_times(const RunFiles& run, const std::string& where) {
  std::pair<std::vector<double>, std::vector<double>> out;
  Csv csv(run, where, "jobs.csv");
  if (!csv.present()) return out;
  const std::size_t jct = csv.column("jct_s"), queue = csv.column("queue_delay_s");
  csv.each([&](const std::vector<std::string_view>& f) {
    if (const auto v = csv.number(f[jct], jct)) out.first.push_back(*v);
    if (const auto v = csv.number(f[queue], queue)) out.second.push_back(*v);
  });
  return out;
}

// Completed requests' TTFT and end-to-end latency (requests.csv), in seconds, by service.
struct RequestTimes {
  std::vector<std::pair<std::string, std::vector<double>>> ttft, e2e;  // service, values (first-seen order)
};
RequestTimes request_times(const RunFiles& run, const std::string& where) {
  RequestTimes out;
  Csv csv(run, where, "requests.csv");
  if (!csv.present()) return out;
  const std::size_t svc = csv.column("service"), status = csv.column("status"), ttft = csv.column("ttft_s"),
                    e2e = csv.column("e2e_s");
  const auto into = [](auto& by_service, std::string_view name) -> std::vector<double>& {
    for (auto& [n, v] : by_service)
      if (n == name) return v;
    return by_service.emplace_back(std::string(name), std::vector<double>{}).second;
  };
  csv.each([&](const std::vector<std::string_view>& f) {
    if (f[status] != "completed") return;
    if (const auto v = csv.number(f[ttft], ttft)) into(out.ttft, f[svc]).push_back(*v);
    if (const auto v = csv.number(f[e2e], e2e)) into(out.e2e, f[svc]).push_back(*v);
  });
  return out;
}

// Each autoscaled service's ready replicas over time (replicas.csv).
std::vector<Series> replica_series(const RunFiles& run, const std::string& where) {
  std::vector<Series> out;
  Csv csv(run, where, "replicas.csv");
  if (!csv.present()) return out;
  const std::size_t t = csv.column("time_s"), svc = csv.column("service"), ready = csv.column("ready");
  csv.each([&](const std::vector<std::string_view>& f) {
    auto it = std::find_if(out.begin(), out.end(), [&](const Series& s) { return s.name == f[svc]; });
    if (it == out.end()) it = out.insert(out.end(), Series{std::string(f[svc]), {}});
    it->points.emplace_back(csv.number(f[t], t).value_or(0), csv.number(f[ready], ready).value_or(0));
  });
  return out;
}

// cost.csv's rows of one scope (pool, tenant, kind, gpu_model).
std::vector<CostRow> cost_rows(const RunFiles& run, const std::string& where, std::string_view scope) {
  std::vector<CostRow> out;
  Csv csv(run, where, "cost.csv");
  if (!csv.present()) return out;
  const std::size_t sc = csv.column("scope"), name = csv.column("name"), busy = csv.column("busy_cost_usd"),
                    unused = csv.column("unused_allocated_cost_usd"), idle = csv.column("idle_cost_usd");
  csv.each([&](const std::vector<std::string_view>& f) {
    if (f[sc] != scope) return;
    out.push_back({std::string(f[name]), csv.number(f[busy], busy).value_or(0),
                   csv.number(f[unused], unused, Range()).value_or(0), csv.number(f[idle], idle).value_or(0)});
  });
  return out;
}

constexpr const char* kStyle = R"(<style>
body{font-family:sans-serif;margin:24px;color:#222;max-width:1000px}
h1{font-size:22px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ccc}
table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ddd;padding:3px 8px;text-align:right}
td:first-child,th:first-child{text-align:left}tr.diff td{background:#fff8e0}td.best{background:#d8f3dc;font-weight:bold}
.note{color:#555;font-size:13px}pre{background:#f6f6f6;padding:8px;font-size:12px;overflow:auto;max-height:400px}
svg{display:block;margin:8px 0}svg text{font-size:11px;fill:#222}svg .t{font-size:13px;font-weight:bold}
svg .xl{text-anchor:middle}svg .yl{text-anchor:end}svg .in{text-anchor:middle;font-size:11px}
svg .g{stroke:#e4e4e4}svg .ax{fill:none;stroke:#555}
.cols{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start}
.wide{overflow-x:auto}.wide td,.wide th{white-space:nowrap}
</style>
)";

std::string page_start(const std::string& title) {
  return fmt::format("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><link rel=\"icon\" href=\"data:,\">"
                     "<title>{}</title>\n{}</head><body>\n<h1>{}</h1>\n",
                     xml_escape(title), kStyle, xml_escape(title));
}

// The run's headline figures (the run table's rows), then what did not complete, with reasons.
std::string headline(const Json& summary) {
  // Side by side in three tables: the page stays short.
  std::vector<std::string> rows;
  for (const MetricRow& m : metric_rows())
    if (const auto v = figure(summary, m.pointer); row_shown(m, std::array{v}))
      rows.push_back(fmt::format("<tr><td>{}</td><td>{}</td></tr>\n", xml_escape(m.label), xml_escape(row_text(m, v, summary))));
  std::string s = "<div class=\"cols\">";
  const std::size_t per = std::max<std::size_t>(1, (rows.size() + 2) / 3);
  for (std::size_t i = 0; i < rows.size(); i += per) {
    s += "<table class=\"figures\"><tr><th>figure</th><th>value</th></tr>\n";
    for (std::size_t k = i; k < std::min(rows.size(), i + per); ++k) s += rows[k];
    s += "</table>";
  }
  s += "</div>\n";
  for (const NotCompleted& n : not_completed(summary)) {
    s += fmt::format("<p>{}, by reason:</p><table><tr><th>reason</th><th>count</th></tr>\n", xml_escape(n.title));
    for (const auto& [count, why] : n.rows) s += fmt::format("<tr><td>{}</td><td>{}</td></tr>\n", xml_escape(why), count);
    s += "</table>\n";
  }
  for (const Json& n : summary.value("run_notes", Json::array())) s += note("Note: " + n.get<std::string>());
  return s;
}

std::string notes(const Json& summary) {
  std::string s = fmt::format("<p>Scenario <b>{}</b>, policy <b>{}</b>, seed {}, gpusim {}.</p>\n",
                              xml_escape(text_of(summary, "scenario")), xml_escape(text_of(summary, "policy")),
                              summary.contains("seed") ? summary["seed"].dump() : "-",
                              xml_escape(text_of(summary, "gpusim_version")));
  if (summary.contains("model_notes")) {
    s += "<details><summary>Model notes</summary><ul>\n";
    for (const Json& n : summary["model_notes"])
      s += fmt::format("<li>{}</li>\n", xml_escape(n.is_string() ? n.get<std::string>() : n.dump()));
    s += "</ul></details>\n";
  }
  return s;
}

// The MIG layouts in use at the end (gpus.csv), each with the number of GPUs in it.
std::string mig_section(const RunFiles& run, const std::string& where, const Json& summary) {
  Csv csv(run, where, "gpus.csv");
  if (!csv.present()) return "";
  const std::size_t pool = csv.column("pool"), layout = csv.column("mig_layout");
  std::map<std::pair<std::string, std::string>, std::size_t> layouts;  // (pool, layout) -> GPUs
  csv.each([&](const std::vector<std::string_view>& f) {
    if (!f[layout].empty()) ++layouts[{std::string(f[pool]), std::string(f[layout])}];
  });
  if (layouts.empty()) return "";
  std::map<std::string, std::string> models;
  if (summary.contains("pools"))
    for (const Json& p : summary["pools"]) models[text_of(p, "name")] = text_of(p, "gpu_model");
  std::string s = "<h2>MIG layouts in use</h2>\n" +
                  note("Each GPU's layout at the end of the run (gpus.csv): an instance takes the memory "
                       "slices and compute slices drawn in its colour.");
  std::string shown;
  for (const auto& [key, gpus] : layouts) {
    if (std::exchange(shown, key.first) != key.first) s += fmt::format("<h3>pool {}</h3>\n", xml_escape(key.first));
    s += mig_drawing(models[key.first], key.second, gpus);
  }
  return s;
}

std::string events_section(const Json& occ, const std::vector<PoolSeries>& pools) {
  std::string s = "<h2>Spot reclaims and autoscaling</h2>\n";
  bool nodes_vary = false;
  std::vector<Series> nodes;
  for (const PoolSeries& p : pools) {
    for (const auto& pt : p.nodes.points) nodes_vary |= pt.second != p.nodes.points.front().second;
    nodes.push_back({p.pool, p.nodes.points});
  }
  std::vector<Series> reclaims;
  double events = 0;
  if (occ.is_object()) {
    const double column_s = occ["column_s"].get<double>();
    for (const Json& e : occ["events"]) {
      Series r{e["pool"].get<std::string>(), {}};
      for (std::size_t c = 0; c < e["reclaims"].size(); ++c) {
        const double n = e["reclaims"][c].get<double>();
        events += n + e["nodes_ready"][c].get<double>() + e["nodes_gone"][c].get<double>();
        r.points.emplace_back(static_cast<double>(c) * column_s, n);
      }
      reclaims.push_back(std::move(r));
    }
  }
  if (!nodes_vary && events == 0) return s + note("No spot reclaims and no node added or removed in this run.");
  s += time_chart("Nodes billed per pool", "nodes", nodes, true);
  if (occ.is_object())
    s += time_chart(fmt::format("Spot reclaim notices per {} per pool", human_seconds(occ["column_s"].get<double>())), "reclaims",
                    reclaims, false);
  return s;
}

// At most this many series on one chart; more are drawn as one, all together.
constexpr std::size_t kMaxSeries = 8;

using ByService = std::vector<std::pair<std::string, std::vector<double>>>;

// Every service's values in one list.
std::vector<double> together(const ByService& by_service) {
  std::vector<double> all;
  for (const auto& [service, values] : by_service) all.insert(all.end(), values.begin(), values.end());
  return all;
}

// Latency CDFs of the completed requests, by service when few, else of all of them together.
ByService by_service_or_all(ByService v) {
  if (v.size() <= kMaxSeries) return v;
  return {{"all services", together(v)}};
}

std::string services_section(const Json& summary, const RunFiles& run, const std::string& where) {
  if (!summary.contains("services")) return "";
  // Prefix caching's columns where a service caches.
  const bool caching = summary.contains("serving") && summary["serving"].contains("prefix_cache_hit_rate");
  // Disaggregation's columns where a service has a decode pool.
  const bool split = std::any_of(summary["services"].begin(), summary["services"].end(),
                                 [](const Json& svc) { return svc.contains("pools"); });
  std::string s = "<h2>Inference services</h2>\n";
  s += "<div "
       "class=\"wide\"><table><tr><th>service</th><th>model</th><th>replicas</th><th>requests</th><th>completed</"
       "th><th>rejected</th>"
       "<th>timed out</th><th>unfinished</th><th>TTFT p50</th><th>TTFT p99</th><th>TPOT p99</th><th>E2E p99</th>"
       "<th>SLO attainment</th><th>cost (USD)</th><th>USD per M output tokens</th>";
  if (caching) s += "<th>prefix cache hit rate</th><th>prefill tokens saved</th>";
  if (split) s += "<th>prefill / decode replicas</th><th>KV transfer p99</th>";
  s += "</tr>\n";
  // (By JSON pointer: a const Json's operator[] on a key it lacks is undefined behaviour.)
  const auto shown = [](const Json& svc, const char* pointer, Format f) { return format_figure(figure(svc, pointer), f); };
  for (const Json& svc : summary["services"]) {
    s += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>",
        xml_escape(text_of(svc, "name")), xml_escape(text_of(svc, "model")), svc.value("replicas", 0),
        with_commas(svc.value("requests_arrived", 0.0), 0), with_commas(svc.value("requests_completed", 0.0), 0),
        with_commas(svc.value("requests_rejected", 0.0), 0), with_commas(svc.value("requests_timed_out", 0.0), 0),
        with_commas(svc.value("requests_unfinished", 0.0), 0), shown(svc, "/ttft_s/p50", Format::latency),
        shown(svc, "/ttft_s/p99", Format::latency), shown(svc, "/tpot_s/p99", Format::latency),
        shown(svc, "/e2e_s/p99", Format::latency), shown(svc, "/slo_attainment", Format::percent),
        shown(svc, "/cost_usd", Format::usd), shown(svc, "/cost_per_million_output_tokens_usd", Format::usd));
    if (caching)
      s += fmt::format("<td>{}</td><td>{}</td>", shown(svc, "/prefix_cache_hit_rate", Format::percent),
                       shown(svc, "/prefill_tokens_saved", Format::count));
    if (split)
      s += svc.contains("pools")
               ? fmt::format("<td>{} / {}</td><td>{}</td>", shown(svc, "/pools/prefill/replicas", Format::count),
                             shown(svc, "/pools/decode/replicas", Format::count),
                             shown(svc, "/kv_transfer_s/p99", Format::latency))
               : "<td>-</td><td>-</td>";
    s += "</tr>\n";
  }
  s += "</table></div>\n" +
       note("SLO attainment: the requests within every per-request target of their service over those that arrived; '-' "
            "where a service sets none. Requests not completed are listed, by reason, under the headline figures.");
  const RequestTimes times = request_times(run, where);
  if (times.ttft.empty() && times.e2e.empty())
    s += note("requests.csv is missing: run with --report (or --requests) to draw the latency curves.");
  else
    s += cdf_chart("Time to first token of completed requests (CDF)", by_service_or_all(times.ttft), "requests") +
         cdf_chart("End-to-end latency of completed requests (CDF)", by_service_or_all(times.e2e), "requests");
  if (std::vector<Series> replicas = replica_series(run, where); !replicas.empty())
    s += time_chart(
        "Ready replicas of the autoscaled services", "replicas",
        replicas.size() <= kMaxSeries ? replicas : std::vector<Series>(replicas.begin(), replicas.begin() + kMaxSeries), true);
  return s;
}

// The fleet: each pool's GPUs, their vendor and device-plugin resource, how they are shared, and its
// NVLink domains (issue 46).
std::string hardware_section(const Json& summary) {
  if (!summary.contains("pools")) return "";
  std::string s = "<h2>Hardware</h2>\n<table><tr><th>pool</th><th>node template</th><th>GPU model</th><th>vendor</th>"
                  "<th>GPUs</th><th>sharing</th><th>NVLink domain</th></tr>\n";
  for (const Json& p : summary["pools"]) {
    // (A summary.json not as gpusim writes it must not abort here: text_of and value check what they read.)
    const std::string model = text_of(p, "gpu_model");
    const std::string vendor = !text_of(p, "gpu_vendor").empty() ? text_of(p, "gpu_vendor") : model.empty() ? "-" : "nvidia";
    const int64_t domain = p.value("nvlink_domain_nodes", int64_t{0});
    s += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                     xml_escape(text_of(p, "name")), xml_escape(text_of(p, "node_template")),
                     model.empty() ? "-" : xml_escape(model), xml_escape(vendor), p.value("gpus", int64_t{0}),
                     xml_escape(text_of(p, "sharing")), domain > 0 ? fmt::format("{} nodes", domain) : "the node");
  }
  return s + "</table>\n";
}

std::string tenants_section(const Json& summary, const RunFiles& run, const std::string& where) {
  if (!summary.contains("tenants") || summary["tenants"].size() < 2) return "";
  std::string s = "<h2>Tenants</h2>\n<table><tr><th>tenant</th><th>jobs</th><th>completed</th><th>GPU-hours allocated</th>"
                  "<th>cost allocated (USD)</th><th>of it unused (USD)</th><th>energy (kWh)</th><th>JCT mean</th></tr>\n";
  for (const Json& t : summary["tenants"]) {
    const auto jct = figure(t, "/jct_s/mean");
    const auto kwh = figure(t, "/energy_kwh");
    s += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                     xml_escape(text_of(t, "name")), t.value("jobs", 0), t.value("jobs_completed", 0),
                     with_commas(t.value("gpu_hours_allocated", 0.0), 1), with_commas(t.value("cost_allocated_usd", 0.0), 2),
                     with_commas(t.value("cost_unused_usd", 0.0), 2), kwh ? with_commas(*kwh, 1) : "-",
                     jct ? human_seconds(*jct) : "-");
  }
  s += "</table>\n";
  return s + cost_bars("Cost by tenant (USD)", cost_rows(run, where, "tenant"));
}

}  // namespace

const std::vector<std::string_view>& report_files() {
  static const std::vector<std::string_view> files{"summary.json", "timeseries.csv", "pool_timeseries.csv", "jobs.csv",
                                                   "gpus.csv",     "cost.csv",       "occupancy.json",      "scenario.yaml",
                                                   "requests.csv", "replicas.csv"};
  return files;
}

std::vector<std::string> report_outputs(const Scenario& s) {
  std::vector<std::string> out{"occupancy"};              // the heat map and node events
  if (!s.services.empty()) out.emplace_back("requests");  // the latency curves
  return out;
}

RunFiles read_run_dir(const std::string& dir) {
  const SourceLocation arg{dir, std::nullopt, "RUN_DIR"};
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw InputError(arg, "expected a run directory (written by gpusim run --out DIR); no such directory");
  if (!fs::is_regular_file(fs::path(dir) / "summary.json", ec))
    throw InputError({(fs::path(dir) / "summary.json").string(), std::nullopt, ""},
                     "missing: expected a run directory written by gpusim run --out DIR");
  RunFiles out;
  for (std::string_view file : report_files()) {
    const fs::path p = fs::path(dir) / file;
    if (!fs::exists(p, ec)) continue;
    std::ifstream f(p, std::ios::binary);
    std::ostringstream text;
    text << f.rdbuf();
    if (!f) throw InputError({p.string(), std::nullopt, ""}, "cannot read the file");
    out[std::string(file)] = std::move(text).str();
  }
  return out;
}

RunFiles run_files(const RunOutputs& outputs, const Scenario& s, const RunResult& r, const Json& summary) {
  RunFiles out;
  for (auto& [file, text] : outputs.texts(s, r, summary, report_files())) out[file] = std::move(text);
  return out;
}

namespace {

std::string render_report(const RunFiles& run, const std::string& where) {
  const Json summary = parse_json(run, where, "summary.json");
  if (!summary.is_object())
    throw InputError({(fs::path(where) / "summary.json").string(), std::nullopt, ""}, "missing: the report needs it");
  const Json occ = parse_json(run, where, "occupancy.json");
  std::string s = page_start(fmt::format("gpusim report: {} ({})", text_of(summary, "scenario"), text_of(summary, "policy")));
  s += notes(summary);
  s += "<h2>Headline figures</h2>\n" + headline(summary);
  s += hardware_section(summary);

  s += "<h2>Allocated and busy GPUs over time</h2>\n";
  const std::vector<PoolSeries> pools = pool_series(run, where);
  for (const PoolSeries& p : pools) s += time_chart(fmt::format("Pool {}", p.pool), "GPUs", {p.ready, p.allocated, p.busy}, true);
  if (pools.empty()) s += note("pool_timeseries.csv is missing.");

  if (std::any_of(pools.begin(), pools.end(), [](const PoolSeries& p) { return !p.power.points.empty(); })) {
    s += "<h2>Power over time</h2>\n" +
         note("Each pool's mean draw over the step before each sample, its GPUs and hosts at the facility (x its PUE): "
              "docs/guide/energy.md.");
    std::vector<Series> power;
    for (const PoolSeries& p : pools) power.push_back(p.power);
    s += time_chart("Power by pool", "kW", power, false);
  }

  s += "<h2>Cost and waste</h2>\n" +
       note("Busy: the share of held GPUs' SMs that jobs kept busy; held unused: allocated but idle SMs; "
            "idle: capacity nobody held. Waste is the last two.");
  for (const auto& [scope, title] : std::vector<std::pair<const char*, const char*>>{
           {"pool", "Cost by pool (USD)"}, {"kind", "Cost by job kind (USD)"}, {"gpu_model", "Cost by GPU model (USD)"}})
    s += cost_bars(title, cost_rows(run, where, scope));

  s += "<h2>Job completion time and queueing delay</h2>\n";
  if (run.count("jobs.csv")) {
    const auto [jct, queue] = job_times(run, where);
    s += cdf_chart("JCT of completed jobs (CDF)", {{"JCT", jct}});
    s += cdf_chart("Queueing delay to first start (CDF)", {{"queue delay", queue}});
  } else {
    s += note("jobs.csv is missing from the run directory: the JCT and queueing-delay curves need it.");
  }

  s += "<h2>GPU occupancy (nodes x time)</h2>\n";
  s += occ.is_object() ? heat_map(occ)
                       : note("occupancy.json is missing: run with --occupancy (or --report) to draw the heat map.");
  s += services_section(summary, run, where);
  s += mig_section(run, where, summary);
  s += events_section(occ, pools);
  s += tenants_section(summary, run, where);
  if (const auto it = run.find("scenario.yaml"); it != run.end())
    s += "<h2>Scenario as run</h2>\n<details><summary>scenario.yaml</summary><pre>" + xml_escape(it->second) +
         "</pre></details>\n";
  return s + "</body></html>\n";
}

std::string render_compare(const std::vector<std::pair<std::string, RunFiles>>& runs, const std::string& title) {
  std::vector<Json> summaries;
  for (const auto& [label, files] : runs) {
    summaries.push_back(parse_json(files, label, "summary.json"));
    if (!summaries.back().is_object()) throw InputError({label, std::nullopt, ""}, "summary.json missing: the report needs it");
  }
  std::string s = page_start(title);
  s += note("Runs side by side. A shaded row differs between runs; the best value of a row that has a direction is in green.");
  s += "<h2>Headline figures</h2>\n<table class=\"figures\"><tr><th>figure</th>";
  for (const auto& [label, files] : runs) s += fmt::format("<th>{}</th>", xml_escape(label));
  s += "</tr>\n";
  for (const MetricRow& m : metric_rows()) {
    std::vector<std::optional<double>> values;
    std::vector<std::string> printed;
    for (const Json& j : summaries) {
      values.push_back(figure(j, m.pointer));
      printed.push_back(row_text(m, values.back(), j));
    }
    if (!row_shown(m, values)) continue;
    const bool differ = std::any_of(printed.begin(), printed.end(), [&](const std::string& p) { return p != printed.front(); });
    const std::vector<bool> best = best_marks(values, printed, m.better);
    s += fmt::format("<tr{}><td>{}</td>", differ ? " class=\"diff\"" : "", xml_escape(m.label));
    for (std::size_t i = 0; i < printed.size(); ++i)
      s += fmt::format("<td{}>{}</td>", best[i] ? " class=\"best\"" : "", xml_escape(printed[i]));
    s += "</tr>\n";
  }
  s += "</table>\n";
  std::vector<Series> allocated, busy;
  std::vector<std::pair<std::string, std::vector<double>>> jct, queue;
  std::vector<CostRow> cost;
  for (const auto& [label, files] : runs) {
    auto [a, b] = cluster_series(files, label);
    allocated.push_back({label, std::move(a.points)});
    busy.push_back({label, std::move(b.points)});
    auto [j, q] = job_times(files, label);
    jct.emplace_back(label, std::move(j));
    queue.emplace_back(label, std::move(q));
    for (CostRow r : cost_rows(files, label, "total")) {
      r.name = label;
      cost.push_back(r);
    }
  }
  s += "<h2>Allocated and busy GPUs over time</h2>\n" + time_chart("Allocated GPUs", "GPUs", allocated, true) +
       time_chart("Busy GPUs", "GPUs", busy, true);
  s += "<h2>Cost and waste</h2>\n" + cost_bars("Cost per run (USD)", cost);
  s += "<h2>Job completion time and queueing delay</h2>\n" + cdf_chart("JCT of completed jobs (CDF)", jct) +
       cdf_chart("Queueing delay to first start (CDF)", queue);
  for (const auto& [label, files] : runs)
    if (!files.count("jobs.csv")) s += note(fmt::format("{}: jobs.csv is missing from the run directory: no curves.", label));
  // Services: every run's completed requests together, one curve a run.
  if (std::any_of(summaries.begin(), summaries.end(), [](const Json& j) { return j.contains("services"); })) {
    std::vector<std::pair<std::string, std::vector<double>>> ttft, e2e;
    for (const auto& [label, files] : runs) {
      const RequestTimes t = request_times(files, label);
      ttft.emplace_back(label, together(t.ttft));
      e2e.emplace_back(label, together(t.e2e));
    }
    s += "<h2>Inference services</h2>\n" + cdf_chart("Time to first token of completed requests (CDF)", ttft, "requests") +
         cdf_chart("End-to-end latency of completed requests (CDF)", e2e, "requests");
  }
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const Json occ = parse_json(runs[i].second, runs[i].first, "occupancy.json");
    if (occ.is_object()) s += fmt::format("<h2>GPU occupancy: {}</h2>\n", xml_escape(runs[i].first)) + heat_map(occ);
  }
  return s + "</body></html>\n";
}

// A field of the wrong type in summary.json or occupancy.json (edited, or from another version).
template <class F>
std::string json_checked(const std::string& where, F&& render) {
  try {
    return render();
  } catch (const Json::exception& e) {
    throw InputError({where, std::nullopt, ""},
                     fmt::format("summary.json or occupancy.json is not as gpusim writes it: {}", e.what()));
  }
}

}  // namespace

std::string html_report(const RunFiles& run, const std::string& where) {
  return json_checked(where, [&] { return render_report(run, where); });
}

std::string html_compare_report(const std::vector<std::pair<std::string, RunFiles>>& runs, const std::string& title) {
  return json_checked(title, [&] { return render_compare(runs, title); });
}

}  // namespace gpusim::cli
