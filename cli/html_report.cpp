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
#include <sstream>
#include <string_view>

#include "gpusim/core/error.hpp"
#include "gpusim/core/json.hpp"
#include "gpusim/hardware/catalog.hpp"
#include "gpusim/workloads/csv.hpp"
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
namespace fs = std::filesystem;

// Colours that stay apart for the common kinds of colour blindness (Okabe and Ito's palette).
constexpr std::array<const char*, 8> kPalette{"#0072B2", "#E69F00", "#009E73", "#D55E00",
                                              "#CC79A7", "#56B4E9", "#F0E442", "#000000"};
const char* colour(std::size_t i) { return kPalette[i % kPalette.size()]; }

// A number as a tick label: no trailing zeros, thousands separated.
std::string tick_label(double v, double step) {
  const int decimals = step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  return with_commas(std::abs(v) < step * 1e-6 ? 0.0 : v, decimals);
}

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
  std::size_t column(std::string_view name) const {
    const auto it = std::find(header_.begin(), header_.end(), name);
    if (it == header_.end()) reader_->fail(fmt::format("expected a column '{}' in the header", name));
    return static_cast<std::size_t>(it - header_.begin());
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
  // A field of column `col` of the current row as a number; empty is nullopt.
  std::optional<double> number(std::string_view field, std::size_t col) const {
    if (field.empty()) return std::nullopt;
    return reader_->number(field, header_[col]);
  }

 private:
  std::optional<csv::Reader> reader_;
  std::vector<std::string> header_;
};

Json parse_json(const RunFiles& run, const std::string& where, const std::string& file) {
  const auto it = run.find(file);
  if (it == run.end()) return Json();
  Json j = Json::parse(it->second, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    throw InputError({(fs::path(where) / file).string(), std::nullopt, ""}, "expected a JSON object as gpusim writes it");
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

struct Series {
  std::string name;
  Points points;
};

// Per pool, in first-seen order: ready, allocated and busy GPUs and billed nodes over time.
struct PoolSeries {
  std::string pool;
  Series ready{"ready", {}}, allocated{"allocated", {}}, busy{"busy", {}}, nodes{"nodes billed", {}};
};

std::vector<PoolSeries> pool_series(const RunFiles& run, const std::string& where) {
  std::vector<PoolSeries> out;
  Csv csv(run, where, "pool_timeseries.csv");
  if (!csv.present()) return out;
  const std::size_t t = csv.column("time_s"), p = csv.column("pool"), ready = csv.column("gpus_ready"),
                    alloc = csv.column("gpus_allocated"), busy = csv.column("gpus_busy"), nodes = csv.column("nodes_billed");
  csv.each([&](const std::vector<std::string_view>& f) {
    auto it = std::find_if(out.begin(), out.end(), [&](const PoolSeries& s) { return s.pool == f[p]; });
    if (it == out.end()) {
      out.push_back({std::string(f[p])});
      it = out.end() - 1;
    }
    const double x = csv.number(f[t], t).value_or(0);
    it->ready.points.emplace_back(x, csv.number(f[ready], ready).value_or(0));
    it->allocated.points.emplace_back(x, csv.number(f[alloc], alloc).value_or(0));
    it->busy.points.emplace_back(x, csv.number(f[busy], busy).value_or(0));
    it->nodes.points.emplace_back(x, csv.number(f[nodes], nodes).value_or(0));
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

struct CostRow {
  std::string name;
  double busy = 0, unused = 0, idle = 0;  // USD: what jobs' SMs used, what jobs held unused, what nobody held
};

// cost.csv's rows of one scope (pool, tenant, kind, gpu_model).
std::vector<CostRow> cost_rows(const RunFiles& run, const std::string& where, std::string_view scope) {
  std::vector<CostRow> out;
  Csv csv(run, where, "cost.csv");
  if (!csv.present()) return out;
  const std::size_t sc = csv.column("scope"), name = csv.column("name"), busy = csv.column("busy_cost_usd"),
                    unused = csv.column("unused_allocated_cost_usd"), idle = csv.column("idle_cost_usd");
  csv.each([&](const std::vector<std::string_view>& f) {
    if (f[sc] != scope) return;
    out.push_back({std::string(f[name]), csv.number(f[busy], busy).value_or(0), csv.number(f[unused], unused).value_or(0),
                   csv.number(f[idle], idle).value_or(0)});
  });
  return out;
}

// ---------------------------------------------------------------- drawing

// Seconds shown in a unit that suits the span.
struct TimeUnit {
  double seconds;
  const char* name;
};
TimeUnit time_unit(double span_s) {
  if (span_s <= 2.0) return {0.001, "ms"};  // request latencies
  if (span_s <= 120.0) return {1.0, "s"};
  if (span_s <= 2 * 3600.0) return {60.0, "min"};
  if (span_s <= 3 * 86400.0) return {3600.0, "h"};
  return {86400.0, "days"};
}

constexpr double kWidth = 720, kHeight = 260, kLeft = 64, kRight = 150, kTop = 30, kBottom = 42;

// A chart frame: title, axes with ticks and grid, legend. `x_time`: x values are seconds.
class Frame {
 public:
  Frame(const std::string& title, const std::string& x_label, const std::string& y_label, double x_lo, double x_hi, double y_lo,
        double y_hi, bool x_time, bool y_percent = false) {
    if (x_time) {
      unit_ = time_unit(x_hi - x_lo);
      x_label_ = fmt::format("{} ({})", x_label, unit_.name);
    } else x_label_ = x_label;
    xt_ = nice_ticks(x_lo / unit_.seconds, x_hi / unit_.seconds, 8);
    yt_ = nice_ticks(y_lo, y_hi, 6);
    svg_ = fmt::format(R"(<title>{}</title><text x="{}" y="18" class="t">{}</text>)", xml_escape(title), kLeft,
                       xml_escape(title));
    for (double v : yt_.values) {
      const double y = py(v);
      svg_ += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" class="g"/>)", kLeft, y, kWidth - kRight, y);
      svg_ += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" class="yl">{}</text>)", kLeft - 6, y + 4,
                          y_percent ? fmt::format("{:g} %", v * 100) : tick_label(v, yt_.step));
    }
    for (double v : xt_.values) {
      const double x = px(v * unit_.seconds);
      svg_ += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" class="g"/>)", x, kTop, x, kHeight - kBottom);
      svg_ += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" class="xl">{}</text>)", x, kHeight - kBottom + 16,
                          tick_label(v, xt_.step));
    }
    svg_ += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" class="ax"/>)", kLeft, kTop, kWidth - kLeft - kRight,
                        kHeight - kTop - kBottom);
    svg_ += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" class="xl">{}</text>)", kLeft + (kWidth - kLeft - kRight) / 2, kHeight - 6,
                        xml_escape(x_label_));
    svg_ += fmt::format(R"svg(<text transform="translate(14,{:.1f}) rotate(-90)" class="xl">{}</text>)svg",
                        kTop + (kHeight - kTop - kBottom) / 2, xml_escape(y_label));
  }
  double px(double x_s) const { return kLeft + (x_s / unit_.seconds - xt_.lo) / (xt_.hi - xt_.lo) * (kWidth - kLeft - kRight); }
  double py(double y) const { return kHeight - kBottom - (y - yt_.lo) / (yt_.hi - yt_.lo) * (kHeight - kTop - kBottom); }
  void legend(const std::string& name, const char* c, bool box = false) {
    const double y = kTop + 8 + 16 * static_cast<double>(legends_++);
    const double x = kWidth - kRight + 10;
    svg_ += box ? fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="14" height="10" fill="{}"/>)", x, y - 8, c)
                : fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="{}" stroke-width="2"/>)", x, y - 3,
                              x + 14, y - 3, c);
    svg_ += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" class="lg">{}</text>)", x + 18, y + 1, xml_escape(name));
    legend_chars_ = std::max(legend_chars_, name.size());
  }
  // A series as a polyline; `steps`: held until the next point (samples of a state).
  void line(const Series& s, const char* c, bool steps) {
    std::string pts;
    for (std::size_t i = 0; i < s.points.size(); ++i) {
      const auto [x, y] = s.points[i];
      if (steps && i > 0) pts += fmt::format("{:.1f},{:.1f} ", px(x), py(s.points[i - 1].second));
      pts += fmt::format("{:.1f},{:.1f} ", px(x), py(y));
    }
    svg_ += fmt::format(R"(<polyline class="mark" fill="none" stroke="{}" stroke-width="1.6" points="{}"/>)", c, pts);
    legend(s.name, c);
  }
  // The chart widens to fit its longest legend entry (about 6.5 px a character at 11 px).
  std::string done() {
    const double width = std::max(kWidth, kWidth - kRight + 28 + 6.5 * static_cast<double>(legend_chars_) + 6);
    return fmt::format(
               R"(<svg class="plot" xmlns="http://www.w3.org/2000/svg" width="{:.0f}" height="{}" viewBox="0 0 {:.0f} {}" )"
               R"(role="img">)",
               width, kHeight, width, kHeight) +
           svg_ + "</svg>\n";
  }
  std::string svg_;

 private:
  TimeUnit unit_{1.0, "s"};
  std::string x_label_;
  Ticks xt_, yt_;
  int legends_ = 0;
  std::size_t legend_chars_ = 0;
};

std::string note(const std::string& text) { return fmt::format("<p class=\"note\">{}</p>\n", xml_escape(text)); }

// Line series over time on one chart (a note instead when there is nothing to draw).
std::string time_chart(const std::string& title, const std::string& y_label, const std::vector<Series>& series, bool steps,
                       std::size_t max_points = 400) {
  double x_lo = std::numeric_limits<double>::max(), x_hi = std::numeric_limits<double>::lowest(), y_hi = 0;
  for (const Series& s : series)
    for (const auto& [x, y] : s.points) {
      x_lo = std::min(x_lo, x);
      x_hi = std::max(x_hi, x);
      y_hi = std::max(y_hi, y);
    }
  if (x_lo > x_hi) return note(title + ": no samples.");
  if (x_lo == x_hi) {  // one instant (a packing experiment): its values, not a plot
    std::string values;
    for (const Series& s : series)
      if (!s.points.empty())
        values += fmt::format("{}{} {}", values.empty() ? "" : ", ", s.name, with_commas(s.points.back().second, 1));
    return note(fmt::format("{}: one sample, at {}: {}.", title, human_seconds(x_lo), values));
  }
  Frame f(title, "time", y_label, x_lo, x_hi, 0, y_hi, true);
  for (std::size_t i = 0; i < series.size(); ++i)
    f.line({series[i].name, downsample(series[i].points, max_points)}, colour(i), steps);
  return f.done();
}

// CDFs of durations (seconds) on one chart; `what`: what the values are of ("jobs", "requests").
std::string cdf_chart(const std::string& title, const std::vector<std::pair<std::string, std::vector<double>>>& samples,
                      const std::string& what = "jobs") {
  std::vector<Series> series;
  double hi = 0;
  std::string same;  // runs whose every value is one number: a vertical line is no plot, a sentence says it
  std::string none;  // runs with no value, among runs with some: named, not left out of the legend unsaid
  for (const auto& [name, values] : samples) {
    if (values.empty()) {
      none += (none.empty() ? "" : ", ") + name;
      continue;
    }
    if (*std::min_element(values.begin(), values.end()) == *std::max_element(values.begin(), values.end())) {
      same += note(fmt::format("{}: all {} {} took {}.", title,
                               with_commas(static_cast<double>(values.size()), 0) + (samples.size() > 1 ? " of " + name : ""),
                               what, human_seconds(values.front())));
      continue;
    }
    series.push_back({fmt::format("{} ({})", name, with_commas(static_cast<double>(values.size()), 0)), cdf_points(values, 200)});
    hi = std::max(hi, series.back().points.back().first);
  }
  if (!none.empty() && (!series.empty() || !same.empty())) same += note(fmt::format("{}: none in {}.", title, none));
  if (series.empty()) return same.empty() ? note(fmt::format("{}: no {} to show.", title, what)) : same;
  Frame f(title, "duration", "share of " + what, 0, what == "jobs" ? std::max(hi, 1.0) : hi, 0, 1, true, true);
  for (std::size_t i = 0; i < series.size(); ++i) {
    Series s = series[i];
    s.points.insert(s.points.begin(), {s.points.front().first, 0.0});  // from 0 up at the smallest value
    f.line(s, colour(i), true);
  }
  return f.done() + same;
}

// Horizontal stacked bars: each row's parts (busy, held unused, idle) in USD.
std::string cost_bars(const std::string& title, const std::vector<CostRow>& rows) {
  double hi = 0;
  for (const CostRow& r : rows) hi = std::max(hi, r.busy + r.unused + r.idle);
  if (rows.empty() || hi <= 0) return note(title + ": no cost (no priced pool).");
  const double bar = 18, gap = 8, top = 48, left = 150, right = 150, width = kWidth;
  const double height = top + static_cast<double>(rows.size()) * (bar + gap) + 34;
  const Ticks t = nice_ticks(0, hi, 6);
  const auto px = [&](double v) { return left + v / t.hi * (width - left - right); };
  std::string s = fmt::format(
      R"(<svg class="plot" xmlns="http://www.w3.org/2000/svg" width="{}" height="{:.0f}" viewBox="0 0 {} {:.0f}" role="img">)",
      width, height, width, height);
  s += fmt::format(R"(<title>{}</title><text x="{}" y="18" class="t">{}</text>)", xml_escape(title), left, xml_escape(title));
  const double axis_y = height - 34;
  for (double v : t.values) {
    s += fmt::format(R"(<line x1="{:.1f}" y1="{}" x2="{:.1f}" y2="{:.1f}" class="g"/>)", px(v), top - 4, px(v), axis_y);
    s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" class="xl">{}</text>)", px(v), axis_y + 14, tick_label(v, t.step));
  }
  s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" class="xl">USD</text>)", left + (width - left - right) / 2, height - 4);
  static constexpr std::array<const char*, 3> kParts{"#009E73", "#E69F00", "#BBBBBB"};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const CostRow& r = rows[i];
    const double y = top + static_cast<double>(i) * (bar + gap);
    s += fmt::format(R"(<text x="{}" y="{:.1f}" class="yl">{}</text>)", left - 6, y + 13, xml_escape(r.name));
    double x = 0;
    const std::array<double, 3> parts{r.busy, r.unused, r.idle};
    for (std::size_t k = 0; k < parts.size(); ++k) {
      if (parts[k] <= 0) continue;
      s += fmt::format(R"(<rect class="mark" x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{}" fill="{}"/>)", px(x), y,
                       std::max(px(x + parts[k]) - px(x), 0.5), bar, kParts[k]);
      x += parts[k];
    }
    s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" class="lg">{} (waste {})</text>)", px(x) + 4, y + 13, with_commas(x, 0),
                     with_commas(r.unused + r.idle, 0));
  }
  const std::array<const char*, 3> names{"busy (SMs used)", "held, SMs unused", "idle (nobody held)"};
  for (std::size_t k = 0; k < names.size(); ++k) {
    const double x = left + 150 * static_cast<double>(k);
    s += fmt::format(R"(<rect x="{:.1f}" y="26" width="14" height="10" fill="{}"/>)", x, kParts[k]);
    s += fmt::format(R"(<text x="{:.1f}" y="35" class="lg">{}</text>)", x + 18, names[k]);
  }
  return s + "</svg>\n";
}

// A colour from white through blue for a share in [0, 1], in 10 steps (equal neighbours merge).
std::string heat_colour(double share) {
  const int level = std::clamp(static_cast<int>(std::lround(share * 10)), 0, 10);
  const auto mix = [&](int from, int to) { return from + (to - from) * level / 10; };
  return fmt::format("#{:02x}{:02x}{:02x}", mix(0xf7, 0x08), mix(0xfb, 0x30), mix(0xff, 0x6b));
}

// occupancy.json as a heat map: a row per node group, a column per time bucket; a cell's colour is
// the share of its up GPUs allocated, hatched grey where none of its nodes was up.
std::string heat_map(const Json& occ) {
  const Json& rows = occ["rows"];
  const auto columns = occ["columns"].get<std::size_t>();
  if (rows.empty() || columns == 0) return note("No nodes to draw.");
  const double left = 170, top = 30, right = 110, cell_h = std::clamp(320.0 / static_cast<double>(rows.size()), 3.0, 40.0);
  const double width = kWidth + 60, plot_w = width - left - right, cell_w = plot_w / static_cast<double>(columns);
  const double height = top + cell_h * static_cast<double>(rows.size()) + 44;
  std::string s = fmt::format(
      R"(<svg class="plot" xmlns="http://www.w3.org/2000/svg" width="{:.0f}" height="{:.0f}" viewBox="0 0 {:.0f} {:.0f}" role="img">)",
      width, height, width, height);
  s += R"(<title>GPU occupancy</title><text x="170" y="18" class="t">Allocated share of up GPUs, per node group and time</text>)";
  s +=
      R"(<defs><pattern id="off" width="4" height="4" patternUnits="userSpaceOnUse"><rect width="4" height="4" fill="#eeeeee"/><path d="M0,4 L4,0" stroke="#bbbbbb" stroke-width="0.8"/></pattern></defs>)";
  std::string last_pool;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const Json& row = rows[r];
    const double y = top + cell_h * static_cast<double>(r);
    const auto& up = row["up"];
    const auto& alloc = row["allocated"];
    // Runs of equal colour as one rectangle: a steady node group is one element, not 200.
    std::size_t c = 0;
    while (c < columns) {
      const auto fill_of = [&](std::size_t k) {
        const double u = up[k].get<double>();
        return u <= 0 ? std::string("url(#off)") : heat_colour(alloc[k].get<double>() / u);
      };
      const std::string fill = fill_of(c);
      std::size_t e = c + 1;
      while (e < columns && fill_of(e) == fill) ++e;
      s += fmt::format(R"(<rect class="mark" x="{:.2f}" y="{:.2f}" width="{:.2f}" height="{:.2f}" fill="{}"/>)",
                       left + cell_w * static_cast<double>(c), y, cell_w * static_cast<double>(e - c), cell_h, fill);
      c = e;
    }
    const std::string pool = row["pool"].get<std::string>();
    if (pool != last_pool || cell_h >= 10) {
      const std::string first = row["first_node"].get<std::string>(), last = row["last_node"].get<std::string>();
      s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" class="yl">{}</text>)", left - 6, y + std::min(cell_h, 10.0),
                       xml_escape(first == last ? first : fmt::format("{} .. {}", first, last)));
      if (pool != last_pool && r > 0)
        s += fmt::format(R"(<line x1="{:.1f}" y1="{:.2f}" x2="{:.1f}" y2="{:.2f}" stroke="#333" stroke-width="1"/>)", left, y,
                         left + plot_w, y);
      last_pool = pool;
    }
  }
  const double end_s = occ["end_s"].get<double>(), column_s = occ["column_s"].get<double>();
  const TimeUnit unit = time_unit(end_s);
  const Ticks t = nice_ticks(0, static_cast<double>(columns) * column_s / unit.seconds, 8);
  const double axis_y = top + cell_h * static_cast<double>(rows.size());
  for (double v : t.values) {
    const double x = left + v * unit.seconds / column_s * cell_w;
    if (x > left + plot_w + 0.5) break;
    s += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="#333"/>)", x, axis_y, x, axis_y + 4);
    s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" class="xl">{}</text>)", x, axis_y + 16, tick_label(v, t.step));
  }
  s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" class="xl">time ({}); a column is {}</text>)", left + plot_w / 2, height - 6,
                   unit.name, human_seconds(column_s));
  for (int k = 0; k <= 10; k += 2) {
    const double y = top + 7.0 * k;  // k = 0, 2, ..., 10: a row every 14 px
    s += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="14" height="10" fill="{}" stroke="#999" stroke-width="0.5"/>)",
                     width - right + 10, y, heat_colour(k / 10.0));
    s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" class="lg">{} %</text>)", width - right + 28, y + 9, k * 10);
  }
  s += fmt::format(
      R"svg(<rect x="{:.1f}" y="{:.1f}" width="14" height="10" fill="url(#off)"/><text x="{:.1f}" y="{:.1f}" class="lg">no node up</text>)svg",
      width - right + 10, top + 14.0 * 6, width - right + 28, top + 14.0 * 6 + 9);
  return s + "</svg>\n";
}

// One MIG layout on its GPU: memory slices above, compute slices (GPCs) below, an instance's two
// boxes in one colour.
std::string mig_drawing(const std::string& model, const std::string& layout, std::size_t gpus) {
  const MigGeometry g = mig_geometry(model, layout);
  if (g.memory_slices == 0 || g.boxes.empty()) return note(fmt::format("{}: {} ({} GPUs)", model, layout, gpus));
  // The title counts the instances by profile ("7 x 1g.10gb"): the boxes show where each is, and a list of
  // placements would not fit.
  std::vector<std::pair<std::string, int>> counts;
  for (const MigBox& b : g.boxes) {
    auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == b.profile; });
    if (it == counts.end()) counts.emplace_back(b.profile, 1);
    else ++it->second;
  }
  std::vector<std::string> parts;
  for (const auto& [profile, n] : counts) parts.push_back(fmt::format("{} x {}", n, profile));
  const std::string title = fmt::format("{} GPU{} {}: {}", gpus, gpus == 1 ? "" : "s", model, fmt::join(parts, " + "));
  // Wide enough for its title (at most about 8 px a character at 13 px bold).
  const double left = 110, slot = 56, band = 34, top = 26,
               width = std::max(left + slot * g.memory_slices + 20, 8.0 * static_cast<double>(title.size()) + 10);
  const double height = top + 2 * band + 26;
  std::string s = fmt::format(
      R"(<svg class="plot mig" xmlns="http://www.w3.org/2000/svg" width="{:.0f}" height="{:.0f}" viewBox="0 0 {:.0f} {:.0f}" role="img">)",
      width, height, width, height);
  s += fmt::format(R"(<title>{}</title><text x="4" y="16" class="t">{}</text>)", xml_escape(layout), xml_escape(title));
  s += fmt::format(
      R"(<text x="{}" y="{:.1f}" class="yl">memory slices</text><text x="{}" y="{:.1f}" class="yl">compute slices</text>)",
      left - 6, top + band / 2 + 4, left - 6, top + band + 8 + band / 2 + 4);
  const double compute_slot = slot * g.memory_slices / g.compute_slices;
  for (int i = 0; i < g.memory_slices; ++i)
    s += fmt::format(R"(<rect x="{:.1f}" y="{}" width="{}" height="{}" fill="none" stroke="#999" stroke-dasharray="3,2"/>)",
                     left + slot * i, top, slot, band);
  for (int i = 0; i < g.compute_slices; ++i)
    s += fmt::format(
        R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{}" fill="none" stroke="#999" stroke-dasharray="3,2"/>)",
        left + compute_slot * i, top + band + 8, compute_slot, band);
  for (std::size_t i = 0; i < g.boxes.size(); ++i) {
    const MigBox& b = g.boxes[i];
    const char* c = colour(i);
    s += fmt::format(
        R"(<rect class="mark" x="{:.1f}" y="{}" width="{:.1f}" height="{}" fill="{}" fill-opacity="0.75" stroke="#222"/>)",
        left + slot * b.memory_start + 2, top + 2, slot * b.memory_slices - 4, band - 4, c);
    s += fmt::format(
        R"(<rect class="mark" x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{}" fill="{}" fill-opacity="0.75" stroke="#222"/>)",
        left + compute_slot * b.compute_start + 2, top + band + 10, compute_slot * b.compute_slices - 4, band - 4, c);
    s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" class="in">{}</text>)",
                     left + slot * (b.memory_start + b.memory_slices / 2.0), top + band / 2 + 4, xml_escape(b.profile));
  }
  s += fmt::format(R"(<text x="{}" y="{:.1f}" class="yl">memory slice</text>)", left - 6, height - 6);
  for (int i = 0; i < g.memory_slices; ++i)
    s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" class="xl">{}</text>)", left + slot * (i + 0.5), height - 6, i);
  return s + "</svg>\n";
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
  std::string s = "<h2>Inference services</h2>\n";
  s += "<div "
       "class=\"wide\"><table><tr><th>service</th><th>model</th><th>replicas</th><th>requests</th><th>completed</"
       "th><th>rejected</th>"
       "<th>timed out</th><th>unfinished</th><th>TTFT p50</th><th>TTFT p99</th><th>TPOT p99</th><th>E2E p99</th>"
       "<th>SLO attainment</th><th>cost (USD)</th><th>USD per M output tokens</th></tr>\n";
  const auto latency = [](const Json& svc, const char* metric, const char* p) {
    const Json& m = svc[metric];
    return format_figure(m.is_object() && m[p].is_number() ? std::optional(m[p].get<double>()) : std::nullopt, Format::latency);
  };
  const auto number_or_dash = [](const Json& v, Format f) {
    return format_figure(v.is_number() ? std::optional(v.get<double>()) : std::nullopt, f);
  };
  for (const Json& svc : summary["services"])
    s += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
        xml_escape(text_of(svc, "name")), xml_escape(text_of(svc, "model")), svc.value("replicas", 0),
        with_commas(svc.value("requests_arrived", 0.0), 0), with_commas(svc.value("requests_completed", 0.0), 0),
        with_commas(svc.value("requests_rejected", 0.0), 0), with_commas(svc.value("requests_timed_out", 0.0), 0),
        with_commas(svc.value("requests_unfinished", 0.0), 0), latency(svc, "ttft_s", "p50"), latency(svc, "ttft_s", "p99"),
        latency(svc, "tpot_s", "p99"), latency(svc, "e2e_s", "p99"), number_or_dash(svc["slo_attainment"], Format::percent),
        number_or_dash(svc["cost_usd"], Format::usd), number_or_dash(svc["cost_per_million_output_tokens_usd"], Format::usd));
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

std::string tenants_section(const Json& summary, const RunFiles& run, const std::string& where) {
  if (!summary.contains("tenants") || summary["tenants"].size() < 2) return "";
  std::string s = "<h2>Tenants</h2>\n<table><tr><th>tenant</th><th>jobs</th><th>completed</th><th>GPU-hours allocated</th>"
                  "<th>cost allocated (USD)</th><th>of it unused (USD)</th><th>JCT mean</th></tr>\n";
  for (const Json& t : summary["tenants"]) {
    const auto jct = figure(t, "/jct_s/mean");
    s += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                     xml_escape(text_of(t, "name")), t.value("jobs", 0), t.value("jobs_completed", 0),
                     with_commas(t.value("gpu_hours_allocated", 0.0), 1), with_commas(t.value("cost_allocated_usd", 0.0), 2),
                     with_commas(t.value("cost_unused_usd", 0.0), 2), jct ? human_seconds(*jct) : "-");
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
  if (occ.is_object() && !(occ.contains("rows") && occ.contains("events") && occ.contains("columns") && occ.contains("column_s")))
    throw InputError({(fs::path(where) / "occupancy.json").string(), std::nullopt, ""},
                     "expected rows, events, columns and column_s");
  std::string s = page_start(fmt::format("gpusim report: {} ({})", text_of(summary, "scenario"), text_of(summary, "policy")));
  s += notes(summary);
  s += "<h2>Headline figures</h2>\n" + headline(summary);

  s += "<h2>Allocated and busy GPUs over time</h2>\n";
  const std::vector<PoolSeries> pools = pool_series(run, where);
  for (const PoolSeries& p : pools) s += time_chart(fmt::format("Pool {}", p.pool), "GPUs", {p.ready, p.allocated, p.busy}, true);
  if (pools.empty()) s += note("pool_timeseries.csv is missing.");

  s += "<h2>Cost and waste</h2>\n" +
       note("Busy: the share of held GPUs' SMs that jobs kept busy; held unused: allocated but idle SMs; "
            "idle: capacity nobody held. Waste is the last two.");
  for (const auto& [scope, title] : std::vector<std::pair<const char*, const char*>>{
           {"pool", "Cost by pool (USD)"}, {"kind", "Cost by job kind (USD)"}, {"gpu_model", "Cost by GPU model (USD)"}})
    s += cost_bars(title, cost_rows(run, where, scope));

  s += "<h2>Job completion time and queueing delay</h2>\n";
  const auto [jct, queue] = job_times(run, where);
  s += cdf_chart("JCT of completed jobs (CDF)", {{"JCT", jct}});
  s += cdf_chart("Queueing delay to first start (CDF)", {{"queue delay", queue}});

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
    if (occ.is_object() && occ.contains("rows"))
      s += fmt::format("<h2>GPU occupancy: {}</h2>\n", xml_escape(runs[i].first)) + heat_map(occ);
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
